//! The load generator: many concurrent complete games through a real server, every seat a
//! registered player watching its own stream. For each action it measures the time from
//! sending `SubmitAction` until every seat's stream has delivered the result. It reads of
//! each message only what it needs ([`glance`]), so that it takes as little as it can of
//! the machine it shares with the server.

mod glance;

use std::fmt;
use std::time::{Duration, Instant};

use theboss::convert::WireError;
use theboss::v1;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use theboss_client::{ClientError, Connection, Session};

use crate::play::panic_message;
use crate::strategy::random::Random;

#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The server, or the replicas of one service: game `g` is created on replica
    /// `g % n` and its seat `s` plays through replica `(g + s) % n`, so that with several
    /// replicas most streams and turns cross from one to another.
    pub servers: Vec<String>,
    /// Games played at the same time.
    pub games: usize,
    pub players: u32,
    /// Games each concurrent slot plays one after the other.
    pub rounds: usize,
}

#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// Games played, all rounds together.
    pub games: usize,
    /// Games played at the same time.
    pub concurrent: usize,
    pub players: u32,
    pub actions: usize,
    pub errors: usize,
    pub elapsed: Duration,
    /// Sorted.
    pub latencies: Vec<Duration>,
}

impl LoadReport {
    pub fn percentile(&self, p: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.latencies.len() - 1) as f64 * p).round() as usize;
        self.latencies[i]
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        writeln!(
            f,
            "{} games of {} players, {} actions in {:.2} s: {:.1} games/s, {:.0} actions/s, {} errors",
            self.games,
            self.players,
            self.actions,
            secs,
            self.games as f64 / secs,
            self.actions as f64 / secs,
            self.errors
        )?;
        writeln!(
            f,
            "SubmitAction -> every seat's stream: p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            ms(self.percentile(0.50)),
            ms(self.percentile(0.95)),
            ms(self.percentile(0.99)),
            ms(self.latencies.last().copied().unwrap_or_default())
        )
    }
}

/// Runs the load and reports. Failed games count as errors; the rest still report.
pub async fn run(config: &LoadConfig) -> Result<LoadReport, ClientError> {
    let mut connections = Vec::with_capacity(config.servers.len());
    for server in &config.servers {
        connections.push(Connection::connect(server).await?);
    }
    if connections.is_empty() {
        return Err(ClientError::NoServer);
    }
    let started = Instant::now();
    let mut set = JoinSet::new();
    for slot in 0..config.games {
        let (connections, config) = (connections.clone(), config.clone());
        set.spawn(async move {
            let mut latencies = Vec::new();
            for round in 0..config.rounds {
                let seed = (slot * config.rounds + round) as u64;
                let game = one_game(&connections, slot, config.players, seed).await?;
                latencies.extend(game);
            }
            Ok::<_, ClientError>(latencies)
        });
    }
    let mut report = LoadReport {
        players: config.players,
        concurrent: config.games,
        ..LoadReport::default()
    };
    while let Some(done) = set.join_next().await {
        match done {
            Ok(Ok(latencies)) => {
                report.games += config.rounds;
                report.latencies.extend(latencies);
            }
            Ok(Err(error)) => {
                tracing::error!(%error, "a load game failed");
                report.errors += 1;
            }
            Err(error) => {
                tracing::error!(panic = %panic_message(error), "a load game task failed");
                report.errors += 1;
            }
        }
    }
    report.elapsed = started.elapsed();
    report.actions = report.latencies.len();
    report.latencies.sort();
    Ok(report)
}

/// One game: registers its players, seats them, and plays random turns as fast as the
/// streams allow. Returns each action's latency.
async fn one_game(
    connections: &[Connection],
    slot: usize,
    players: u32,
    seed: u64,
) -> Result<Vec<Duration>, ClientError> {
    let mut seats: Vec<Session> = Vec::new();
    for i in 0..players as usize {
        let connection = &connections[(slot + i) % connections.len()];
        seats.push(
            connection
                .register(&format!("load-{seed}-{i}"), true)
                .await?,
        );
    }
    let settings = v1::GameSettings {
        players,
        visibility: v1::Visibility::Unlisted as i32,
        ..Default::default()
    };
    let game_id = seats[0].create_game(settings, None).await?;
    for (i, s) in seats.iter().enumerate() {
        s.join(&game_id, Some(i as u32)).await?;
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, glance::Glance)>();
    let mut watchers = JoinSet::new();
    for (i, s) in seats.iter().enumerate() {
        let (s, tx, game_id) = (s.clone(), tx.clone(), game_id.clone());
        watchers.spawn(async move {
            let request = v1::WatchGameRequest {
                game_id: game_id.clone(),
                after_seq: None,
                update_views: v1::UpdateViews::ActionComplete as i32,
            };
            let mut stream = glance::watch(&s, request).await?;
            while let Some(frame) = stream.message().await.map_err(|status| ClientError::Rpc {
                call: "WatchGame",
                status,
            })? {
                let Some(view) = frame
                    .glance()
                    .map_err(|e| glance::undecodable("WatchGame", e))?
                else {
                    continue;
                };
                if tx.send((i, view)).is_err() {
                    break;
                }
            }
            Ok::<_, ClientError>(())
        });
    }
    drop(tx);
    let mut latest: Vec<Option<glance::Glance>> = vec![None; seats.len()];
    let mut random = Random::new(seed);
    let mut latencies = Vec::new();
    let mut target = 0;
    let mut sent: Option<Instant> = None;
    loop {
        while latest
            .iter()
            .any(|v| v.as_ref().is_none_or(|v| v.seq < target))
        {
            let Some((seat, view)) = rx.recv().await else {
                return Err(ClientError::StreamLost(game_id));
            };
            latest[seat] = Some(view);
        }
        if let Some(sent) = sent.take() {
            latencies.push(sent.elapsed());
        }
        let Some(to_move) = latest[0].as_ref().and_then(|v| v.to_move) else {
            break;
        };
        let glance = latest[to_move as usize]
            .as_ref()
            .expect("every seat has a view");
        let legal = glance
            .legal()
            .map_err(|e| glance::undecodable("WatchGame", e))?
            .ok_or_else(|| WireError::new("view.legal", "the seat to move has legal turns"))?;
        let seat = u8::try_from(to_move)
            .map_err(|_| WireError::new("view.to_move", format!("{to_move} is not a seat")))?;
        let turn = random.choose_legal(&theboss::convert::legal_from_wire(&legal, seat)?);
        sent = Some(Instant::now());
        target = glance::submit(
            &seats[to_move as usize],
            &game_id,
            glance.seq,
            theboss::convert::turn_to_wire(&turn),
        )
        .await?;
    }
    watchers.shutdown().await;
    Ok(latencies)
}
