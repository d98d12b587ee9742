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
    // Messages and clients first; then the servers, apart, on the messages generated first,
    // with the codec that answers an undecodable request with INVALID_ARGUMENT, and with the
    // three response types servers send from bytes encoded ahead (`src/encoded.rs`): a
    // game's update, made once for every stream of the same viewer and the answer to the turn,
    // and a view, from what every viewer sees of the table encoded once per step.
    // The clients and servers need tonic: they exist with the crate's `grpc` feature only.
    tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        .client_mod_attribute(".", "#[cfg(feature = \"grpc\")]")
        .compile_fds(fds.clone())?;
    let servers = out.join("servers");
    std::fs::create_dir_all(&servers)?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(false)
        .codec_path("crate::codec::ServerCodec")
        .extern_path(
            ".theboss.v1.WatchGameResponse",
            "crate::encoded::WatchGameResponse",
        )
        .extern_path(
            ".theboss.v1.SubmitActionResponse",
            "crate::encoded::SubmitActionResponse",
        )
        .extern_path(
            ".theboss.v1.GetViewResponse",
            "crate::encoded::GetViewResponse",
        )
        .extern_path(".theboss.v1", "crate::v1")
        .out_dir(&servers)
        .compile_fds(fds)?;
    Ok(())
}
