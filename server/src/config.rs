//! Command-line and environment configuration of the server.

use std::net::SocketAddr;

use clap::Parser;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "theboss-server",
    version,
    about = "The Boss game service (gRPC)"
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "THEBOSS_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// Log filter, in `tracing_subscriber::EnvFilter` syntax (e.g. `info,theboss_server=debug`).
    #[arg(long, env = "RUST_LOG", default_value = "info")]
    pub log: String,
}
