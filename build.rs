//! Compiles `proto/` into the `theboss` crate's bindings with protox (pure Rust, so a fresh
//! machine needs no `protoc`), and saves the file descriptor set for gRPC reflection.

use std::path::PathBuf;

use prost::Message;

const PROTOS: &[&str] = &[
    "proto/theboss/v1/model.proto",
    "proto/theboss/v1/game_service.proto",
    "proto/theboss/v1/ladder_service.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(PROTOS, ["proto"])?;
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    std::fs::write(out.join("theboss_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
