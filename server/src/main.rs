//! `theboss-server`: parses the configuration, sets up logging, opens the store, binds and
//! serves until SIGINT or SIGTERM.

use std::io::IsTerminal;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use theboss_server::{Config, run, shutdown, store};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_new(&config.log).context("--log")?)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let store = store::open(&config.database_url)
        .await
        .with_context(|| format!("cannot open the store at {}", config.database_url))?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    run(
        listener,
        Arc::from(store),
        config.options(),
        shutdown::signal(),
    )
    .await?;
    Ok(())
}
