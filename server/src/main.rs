//! `theboss-server`: parses the configuration, starts the runtime
//! ([`theboss_server::runtime`]), sets up logging, and serves (see [`theboss_server::serve`])
//! until SIGINT or SIGTERM; `theboss-server backup --out FILE` copies an SQLite store
//! instead.

use anyhow::Context;
use clap::Parser;
use theboss_server::config::Command;
use theboss_server::{Config, serve, shutdown};

/// Every action allocates its views, events and frames by the dozen; glibc's allocator spent a
/// fifth of the server's CPU under load on them (profiled), mimalloc a fraction.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    theboss_server::runtime::build(config.worker_threads)
        .context("starting the runtime")?
        .block_on(run(config))
}

async fn run(config: Config) -> anyhow::Result<()> {
    theboss_server::logs::init(&config.log).context("--log")?;
    match &config.command {
        Some(Command::Backup { out }) => {
            theboss_server::store::back_up(config.database_url.expose(), out).await?;
            tracing::info!(out = %out.display(), "backed up");
        }
        None => serve(&config, shutdown::signal()).await?,
    }
    Ok(())
}
