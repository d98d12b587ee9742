//! History at scale (issue 21): the same figures — an idle `GetView`, one game alone, and
//! concurrent games — on an empty store and on one pre-filled with a million finished games
//! (`theboss_server::store::history`, bulk-loaded by the database itself, never analyzed),
//! side by side in one run, so that their ratio says what history costs the hot paths.

use std::time::Duration;

use theboss_bot::load::{self, LoadConfig, LoadReport};
use theboss_server::store::history::{HistorySize, fill_history};

use crate::child;
use crate::latency::{self, GameLatency};
use crate::stats::Sample;

/// What one store gave.
pub struct Figures {
    pub idle: Sample,
    pub game: GameLatency,
    pub load: LoadReport,
}

impl Figures {
    pub fn actions_per_second(&self) -> f64 {
        self.load.actions as f64 / self.load.elapsed.as_secs_f64().max(1e-9)
    }
}

pub struct HistoryScale {
    pub games: u64,
    /// How long the bulk load took.
    pub fill: Duration,
    pub empty: Figures,
    pub full: Figures,
}

/// Measures a server on the store at `url`.
async fn measure(url: &str, actions: usize, games: usize) -> anyhow::Result<Figures> {
    let server = child::server(url, &child::UNLIMITED_QUOTAS, Duration::from_secs(600)).await?;
    let idle = latency::idle_unary(&server.url, 1000).await?;
    let game = latency::one_game_at_a_time(&server.url, actions).await?;
    let load = load::run(&LoadConfig {
        servers: vec![server.url.clone()],
        games,
        players: 4,
        rounds: 1,
    })
    .await?;
    server.stop().await;
    anyhow::ensure!(load.errors == 0, "{} load games failed", load.errors);
    Ok(Figures { idle, game, load })
}

/// The figures on `empty` (a fresh store) and on `full` once `history` games are written
/// into it.
pub async fn run(
    empty: &str,
    full: &str,
    history: u64,
    actions: usize,
    games: usize,
) -> anyhow::Result<HistoryScale> {
    eprintln!("  an empty store…");
    let empty = measure(empty, actions, games).await?;
    eprintln!("  writing {history} finished games…");
    let fill = fill_history(
        full,
        HistorySize {
            games: history,
            players: (history / 50).max(100),
        },
    )
    .await?;
    eprintln!(
        "  written in {:.0} s; the same store with them…",
        fill.as_secs_f64()
    );
    let full = measure(full, actions, games).await?;
    Ok(HistoryScale {
        games: history,
        fill,
        empty,
        full,
    })
}
