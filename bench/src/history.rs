//! History at scale: the same figures — an idle `GetView`, one game alone, and
//! concurrent games — on an empty store and on one pre-filled with a million finished games
//! (`theboss_server::store::history`, bulk-loaded by the database itself, never analyzed),
//! side by side in one run, so that their ratio says what history costs the hot paths.
//!
//! The history is written first; then the two stores are measured in turn, [`ROUNDS`] times
//! each, a fresh server each time, and each figure is the median of a store's rounds. Both
//! stores are so measured on the same machine state (after the bulk load, whose writes are
//! checkpointed before), and one slow or fast round does not make the ratio. The "empty"
//! store holds only the games the rounds before played on it.

use std::time::Duration;

use theboss_bot::load::{self, LoadConfig, LoadReport, SlotPlayers};
use theboss_server::store::history::{HistorySize, fill_history};

use crate::child;
use crate::latency::{self, GameLatency};
use crate::stats::Sample;

/// Times each store is measured.
pub const ROUNDS: usize = 3;

/// What one store gave, the median of its rounds.
pub struct Figures {
    /// Idle `GetView`, p50.
    pub idle: Duration,
    /// One game alone: `SubmitAction` → every seat's stream, p50.
    pub game: Duration,
    /// Persisted actions/s of the concurrent games.
    pub actions_per_second: f64,
    /// How many games were played at once.
    pub concurrent: usize,
}

/// One round on one store.
struct Round {
    idle: Sample,
    game: GameLatency,
    load: LoadReport,
}

impl Figures {
    fn median_of(rounds: &[Round]) -> Figures {
        let idle = median(rounds.iter().map(|r| r.idle.p50()).collect());
        let game = median(rounds.iter().map(|r| r.game.streams.p50()).collect());
        Figures {
            idle,
            game,
            actions_per_second: median(rounds.iter().map(|r| r.load.per_second()).collect()),
            concurrent: rounds.first().map_or(0, |r| r.load.concurrent),
        }
    }
}

/// The middle value (the upper one of an even count).
fn median<T: Copy + Default + PartialOrd>(mut values: Vec<T>) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    values.get(values.len() / 2).copied().unwrap_or_default()
}

pub struct HistoryScale {
    pub games: u64,
    /// How long the bulk load took.
    pub fill: Duration,
    pub empty: Figures,
    pub full: Figures,
}

/// Measures a server on the store at `url`.
async fn measure(url: &str, actions: usize, games: usize) -> anyhow::Result<Round> {
    let server = child::server(url, &child::UNLIMITED_QUOTAS, Duration::from_secs(600)).await?;
    let idle = latency::idle_unary(&server.url, 1000).await?;
    let game = latency::one_game_at_a_time(&server.url, actions).await?;
    let load = load::run(&LoadConfig {
        servers: vec![server.url.clone()],
        games,
        players: 4,
        rounds: 1,
        record_acks: false,
        players_of_slot: SlotPlayers::NewEveryGame,
    })
    .await?;
    server.stop().await;
    anyhow::ensure!(load.errors == 0, "{} load games failed", load.errors);
    Ok(Round { idle, game, load })
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
    eprintln!("  writing {history} finished games…");
    let fill = fill_history(
        full,
        HistorySize {
            games: history,
            players: (history / 50).max(100),
        },
    )
    .await?;
    eprintln!("  written in {:.0} s", fill.as_secs_f64());
    let (mut on_empty, mut on_full) = (Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        eprintln!("  round {round} of {ROUNDS}: the empty store, then the one with history…");
        on_empty.push(measure(empty, actions, games).await?);
        on_full.push(measure(full, actions, games).await?);
    }
    Ok(HistoryScale {
        games: history,
        fill,
        empty: Figures::median_of(&on_empty),
        full: Figures::median_of(&on_full),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_value_whatever_the_order() {
        let ms = Duration::from_millis;
        assert_eq!(median(vec![ms(9), ms(1), ms(5)]), ms(5));
        assert_eq!(median(vec![ms(2), ms(8)]), ms(8));
        assert_eq!(median(Vec::<Duration>::new()), Duration::ZERO);
        assert_eq!(median(vec![8_732.0, 9_194.0, 8_601.5]), 8_732.0);
    }
}
