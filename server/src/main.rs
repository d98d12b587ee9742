//! `theboss-server`: parses the configuration, sets up logging, binds and serves until
//! SIGINT or SIGTERM.

use anyhow::Context;
use clap::Parser;
use theboss_server::{Config, run, shutdown};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_new(&config.log).context("--log")?)
        .init();
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    run(listener, shutdown::signal()).await?;
    Ok(())
}
