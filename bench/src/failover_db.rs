//! `theboss-bench failover-db`: the database's primary lost under load. Each round brings a
//! fresh Patroni cluster up (`deploy/ha/`: two PostgreSQL nodes, synchronous replication,
//! HAProxy), runs two server replicas on it and the load generator across both (every turn
//! under its idempotency key, retried while the service is away), causes the round's failure
//! once the load is under way, and reports: the longest time without a delivered action,
//! actions/s before the failure and after the service came back, and how many acknowledged
//! turns the store does not hold (each is looked for by its key once the load ends: 0 is the
//! only right answer). A first round without a failure is the reference.

use std::fmt;
use std::time::{Duration, Instant};

use anyhow::Context;
use theboss_bot::load::{self, LoadConfig, LoadReport, SlotPlayers};
use theboss_server::testing::ha::{HaCluster, Loss};

use crate::child::{self, UNLIMITED_QUOTAS};

/// What one round measured.
pub struct Round {
    pub loss: Option<Loss>,
    /// The longest time between two delivered actions, from the failure on (the whole run,
    /// for the reference round).
    pub pause: Duration,
    /// Actions delivered a second in the window before the failure, and after the pause.
    pub before: f64,
    pub after: f64,
    pub acknowledged: usize,
    /// Acknowledged turns the store holds not exactly once.
    pub lost: usize,
    pub games: usize,
    pub errors: usize,
}

/// How long the rates before and after a failure are counted over.
const WINDOW: Duration = Duration::from_secs(10);

pub async fn run(games: usize, rounds: usize, warmup: Duration) -> anyhow::Result<Vec<Round>> {
    let mut results = Vec::new();
    for loss in [None, Some(Loss::Postgres), Some(Loss::Node)] {
        eprintln!("failover-db: round {loss:?}: bringing a cluster up");
        let cluster = tokio::task::spawn_blocking(|| HaCluster::up(2))
            .await?
            .context("a Patroni cluster (deploy/ha/up.sh)")?;
        let round = one_round(&cluster, loss, games, rounds, warmup).await;
        tokio::task::spawn_blocking(move || drop(cluster)).await?;
        results.push(round?);
    }
    Ok(results)
}

async fn one_round(
    cluster: &HaCluster,
    loss: Option<Loss>,
    games: usize,
    rounds: usize,
    warmup: Duration,
) -> anyhow::Result<Round> {
    let wait = Duration::from_secs(60);
    let a = child::server(&cluster.url, &UNLIMITED_QUOTAS, wait).await?;
    let b = child::server(&cluster.url, &UNLIMITED_QUOTAS, wait).await?;
    let config = LoadConfig {
        servers: vec![a.url.clone(), b.url.clone()],
        games,
        players: 4,
        rounds,
        record_acks: true,
        players_of_slot: SlotPlayers::NewEveryGame,
    };
    let started = Instant::now();
    let running = tokio::spawn(async move { load::run(&config).await });
    tokio::time::sleep(warmup).await;
    let failed_at = Instant::now();
    if let Some(loss) = loss {
        let url = cluster.url.clone();
        eprintln!("failover-db: losing the primary ({loss:?}) after {warmup:?} ({url})");
        cluster.lose_the_primary(loss)?;
    }
    let report = running.await??;
    let from = if loss.is_some() { failed_at } else { started };
    let (pause, resumed) = longest_gap(&report.delivered, from)
        .context("no action was delivered after the failure: raise --rounds")?;
    anyhow::ensure!(
        report
            .delivered
            .last()
            .is_some_and(|&t| t >= resumed + WINDOW),
        "the load ended within {WINDOW:?} of the service's return: raise --rounds"
    );
    let rate = |from: Instant, to: Instant| {
        let n = report
            .delivered
            .iter()
            .filter(|&&t| t >= from && t < to)
            .count();
        n as f64 / (to - from).as_secs_f64()
    };
    let before = rate(failed_at.checked_sub(WINDOW).unwrap_or(started), failed_at);
    let after = rate(resumed, resumed + WINDOW);
    let lost = lost(&cluster.url, &report).await?;
    drop((a, b));
    Ok(Round {
        loss,
        pause,
        before,
        after,
        acknowledged: report.acks.len(),
        lost,
        games: report.games,
        errors: report.errors,
    })
}

/// The longest gap between two deliveries that ends after `from`, and when it ended.
fn longest_gap(delivered: &[Instant], from: Instant) -> Option<(Duration, Instant)> {
    delivered
        .windows(2)
        .filter(|w| w[1] > from)
        .map(|w| (w[1] - w[0].max(from), w[1]))
        .max_by_key(|(gap, _)| *gap)
}

/// Acknowledged turns that the store does not hold exactly once, looked for by their keys.
async fn lost(url: &str, report: &LoadReport) -> anyhow::Result<usize> {
    let store = theboss_server::store::open(url).await?;
    let mut by_game: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for ack in &report.acks {
        by_game.entry(&ack.game_id).or_default().push(&ack.key);
    }
    let mut lost = 0;
    for (game_id, keys) in by_game {
        let stored = store
            .load_game(game_id)
            .await?
            .with_context(|| format!("game {game_id} is not in the store"))?;
        let mut kept: std::collections::HashMap<&str, usize> = Default::default();
        for action in &stored.actions {
            if let Some(key) = action.idempotency_key.as_deref() {
                *kept.entry(key).or_default() += 1;
            }
        }
        lost += keys
            .iter()
            .filter(|key| kept.get(**key).copied() != Some(1))
            .count();
    }
    Ok(lost)
}

/// The rounds as a table.
pub struct Table(pub Vec<Round>);

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "| failure | longest pause | actions/s before | actions/s after | acknowledged | acknowledged, not in the store | games finished | games failed |"
        )?;
        writeln!(f, "|---|---|---|---|---|---|---|---|")?;
        for r in &self.0 {
            let failure = match r.loss {
                None => "none (reference)",
                Some(Loss::Postgres) => "primary's PostgreSQL SIGKILLed",
                Some(Loss::Node) => "primary's node (Patroni + PostgreSQL) SIGKILLed",
            };
            writeln!(
                f,
                "| {failure} | {:.2} s | {:.0} | {:.0} | {} | {} | {} | {} |",
                r.pause.as_secs_f64(),
                r.before,
                r.after,
                r.acknowledged,
                r.lost,
                r.games,
                r.errors
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_is_the_longest_gap_from_the_failure_on() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let delivered = [0, 10, 500, 510, 3_000, 3_010].map(at);
        // From 400 ms: 10 → 500 counts from 400 (100 ms), 510 → 3000 is the longest.
        let (gap, resumed) = longest_gap(&delivered, at(400)).unwrap();
        assert_eq!(gap, Duration::from_millis(2_490));
        assert_eq!(resumed, at(3_000));
        // Nothing after the failure: no answer.
        assert!(longest_gap(&delivered, at(4_000)).is_none());
    }
}
