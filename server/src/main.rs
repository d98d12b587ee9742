//! `theboss-server`: parses the configuration, sets up logging, and serves (see
//! [`theboss_server::serve`]) until SIGINT or SIGTERM.

use anyhow::Context;
use clap::Parser;
use theboss_server::{Config, serve, shutdown};

/// Every action allocates its views, events and frames by the dozen; glibc's allocator spent a
/// fifth of the server's CPU under load on them (issue 21's profile), mimalloc a fraction.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    theboss_server::logs::init(&config.log).context("--log")?;
    serve(&config, shutdown::signal()).await?;
    Ok(())
}
