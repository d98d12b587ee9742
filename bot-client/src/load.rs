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

use theboss_client::{ClientError, Connection, Outage, Session};

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
    /// Keep every acknowledged turn ([`LoadReport::acks`]), to look for each in the store
    /// afterwards (`theboss-bench failover-db`).
    pub record_acks: bool,
    /// Who sits at a slot's tables: new accounts for every game (the soak, which grows the
    /// players' table as a busy service's does), or the same players game after game, as on
    /// a ladder (the capacity figures: an action's cost, not an account's).
    pub players_of_slot: SlotPlayers,
}

/// Who plays a slot's games, one after the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotPlayers {
    /// Players registered for each game.
    NewEveryGame,
    /// Players registered for the slot's first game, who play all of its games.
    Kept,
}

/// A turn the server acknowledged: its game, the idempotency key it was sent with, and the
/// game's `seq` after it.
#[derive(Debug, Clone)]
pub struct Ack {
    pub game_id: String,
    pub key: String,
    pub seq: u64,
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
    /// The part of the run when every slot was past its first game and none had finished
    /// its last: None with fewer than two rounds, when a slow slot's first game outlasted
    /// another's last, or when a game failed.
    pub steady: Option<Steady>,
    /// When each action was delivered to every seat, sorted.
    pub delivered: Vec<Instant>,
    /// Every acknowledged turn, if the run was asked to keep them.
    pub acks: Vec<Ack>,
}

/// The part of a run when `games` games were being played, every slot past its first: the
/// cold start (the server's first allocations, every slot registering and seating at once,
/// no game yet under way) and the tail (slots done while others still play) left out. Its
/// actions include the set-up of the slots' later games: registrations, joins, new streams.
#[derive(Debug, Clone, Copy)]
pub struct Steady {
    /// When the last slot to finish its first game finished it.
    pub from: Instant,
    /// When the first slot to finish its last game finished it.
    pub to: Instant,
    /// Actions whose every stream had delivered them within.
    pub actions: usize,
}

impl Steady {
    pub fn duration(&self) -> Duration {
        self.to - self.from
    }

    pub fn per_second(&self) -> f64 {
        self.actions as f64 / self.duration().as_secs_f64().max(1e-9)
    }

    /// The window of a run whose slots ended their games at `ends` (one list per slot, in
    /// order) and whose actions were delivered at `delivered`.
    fn of(ends: &[Vec<Instant>], delivered: &[Instant]) -> Option<Steady> {
        if ends.iter().any(|slot| slot.len() < 2) {
            return None;
        }
        let from = ends.iter().filter_map(|slot| slot.first()).max()?;
        let to = ends.iter().filter_map(|slot| slot.last()).min()?;
        (from < to).then(|| Steady {
            from: *from,
            to: *to,
            actions: delivered
                .iter()
                .filter(|at| *from < **at && **at <= *to)
                .count(),
        })
    }
}

impl LoadReport {
    pub fn percentile(&self, p: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.latencies.len() - 1) as f64 * p).round() as usize;
        self.latencies[i]
    }

    /// Persisted actions a second over the whole run.
    pub fn per_second(&self) -> f64 {
        self.actions as f64 / self.elapsed.as_secs_f64().max(1e-9)
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
            self.per_second(),
            self.errors
        )?;
        if let Some(steady) = &self.steady {
            writeln!(
                f,
                "steady ({} games at once, every slot past its first): {} actions in {:.2} s, {:.0} actions/s",
                self.concurrent,
                steady.actions,
                steady.duration().as_secs_f64(),
                steady.per_second()
            )?;
        }
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
            let mut played = Played::default();
            let mut kept = None;
            for round in 0..config.rounds {
                let seed = (slot * config.rounds + round) as u64;
                if config.players_of_slot == SlotPlayers::NewEveryGame {
                    kept = None;
                }
                one_game(
                    &connections,
                    slot,
                    config.players,
                    seed,
                    config.record_acks,
                    &mut kept,
                    &mut played,
                )
                .await?;
                played.ends.push(Instant::now());
            }
            Ok::<_, ClientError>(played)
        });
    }
    let mut report = LoadReport {
        players: config.players,
        concurrent: config.games,
        ..LoadReport::default()
    };
    let (mut ends, mut delivered) = (Vec::new(), Vec::new());
    while let Some(done) = set.join_next().await {
        match done {
            Ok(Ok(played)) => {
                report.games += config.rounds;
                report.latencies.extend(played.latencies);
                report.acks.extend(played.acks);
                delivered.extend(played.delivered);
                ends.push(played.ends);
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
    if report.errors == 0 {
        report.steady = Steady::of(&ends, &delivered);
    }
    report.actions = report.latencies.len();
    report.latencies.sort();
    delivered.sort();
    report.delivered = delivered;
    Ok(report)
}

/// What one slot played.
#[derive(Default)]
struct Played {
    /// Each action's latency, and when its last stream delivered it.
    latencies: Vec<Duration>,
    delivered: Vec<Instant>,
    /// When each game ended.
    ends: Vec<Instant>,
    acks: Vec<Ack>,
}

/// One game: registers its players (unless `kept` holds them), seats them, and plays random
/// turns as fast as the streams allow, adding each action's latency to `played`.
async fn one_game(
    connections: &[Connection],
    slot: usize,
    players: u32,
    seed: u64,
    record_acks: bool,
    kept: &mut Option<Vec<Session>>,
    played: &mut Played,
) -> Result<(), ClientError> {
    // A table is set up again from the start if the server is away meanwhile (a restart, a
    // failover): a table left half set up only costs accounts or an open table, which
    // expires; with kept players, its seats count against their caps until then.
    let mut outage = Outage::default();
    let (seats, game_id) = loop {
        match set_up(connections, slot, players, seed, kept).await {
            Ok(table) => break table,
            Err(e) if e.is_transient() && outage.retry(SETUP_TRIES).await => {
                tracing::warn!(error = %e, "setting a table up failed; again");
            }
            Err(e) => return Err(e),
        }
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, glance::Glance)>();
    let mut watchers = JoinSet::new();
    for (i, s) in seats.iter().enumerate() {
        let (s, tx, game_id) = (s.clone(), tx.clone(), game_id.clone());
        watchers.spawn(async move { follow(&s, &game_id, i, &tx).await });
    }
    drop(tx);
    let mut latest: Vec<Option<glance::Glance>> = vec![None; seats.len()];
    let mut random = Random::new(seed);
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
            let now = Instant::now();
            played.latencies.push(now - sent);
            played.delivered.push(now);
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
        let (seq, key) = glance::submit(
            &seats[to_move as usize],
            &game_id,
            glance.seq,
            theboss::convert::turn_to_wire(&turn),
        )
        .await?;
        if record_acks {
            played.acks.push(Ack {
                game_id: game_id.clone(),
                key,
                seq,
            });
        }
        target = seq;
    }
    watchers.shutdown().await;
    Ok(())
}

/// Tries in a row a table's setup or a stream is given, besides `RIDE_THROUGH`.
const SETUP_TRIES: u32 = 20;

/// Registers a table's players (or takes those `kept` holds, and keeps those it registers),
/// creates it and seats them.
async fn set_up(
    connections: &[Connection],
    slot: usize,
    players: u32,
    seed: u64,
    kept: &mut Option<Vec<Session>>,
) -> Result<(Vec<Session>, String), ClientError> {
    let seats = match kept {
        Some(seats) => seats.clone(),
        None => {
            let mut seats: Vec<Session> = Vec::new();
            for i in 0..players as usize {
                let connection = &connections[(slot + i) % connections.len()];
                seats.push(
                    connection
                        .register(&format!("load-{seed}-{i}"), true)
                        .await?,
                );
            }
            kept.insert(seats).clone()
        }
    };
    let settings = v1::GameSettings {
        players,
        visibility: v1::Visibility::Unlisted as i32,
        ..Default::default()
    };
    let game_id = seats[0].create_game(settings, None).await?;
    for (i, s) in seats.iter().enumerate() {
        s.join(&game_id, Some(i as u32)).await?;
    }
    Ok((seats, game_id))
}

/// Seat `seat`'s stream of the game, its views handed to the driver, until the game ends;
/// resumed after the last view it delivered whenever the server is away.
async fn follow(
    session: &Session,
    game_id: &str,
    seat: usize,
    tx: &mpsc::UnboundedSender<(usize, glance::Glance)>,
) -> Result<(), ClientError> {
    let mut after_seq = None;
    let mut outage = Outage::default();
    loop {
        let request = v1::WatchGameRequest {
            game_id: game_id.to_string(),
            after_seq,
            update_views: v1::UpdateViews::ActionComplete as i32,
        };
        let error = match glance::watch(session, request).await {
            Ok(mut stream) => loop {
                match stream.message().await {
                    Ok(Some(frame)) => {
                        outage.over();
                        let Some(view) = frame
                            .glance()
                            .map_err(|e| glance::undecodable("WatchGame", e))?
                        else {
                            continue;
                        };
                        after_seq = Some(view.seq);
                        if tx.send((seat, view)).is_err() {
                            return Ok(());
                        }
                    }
                    // The server ends a game's streams after its last update.
                    Ok(None) => return Ok(()),
                    Err(status) => {
                        break ClientError::Rpc {
                            call: "WatchGame",
                            status,
                        };
                    }
                }
            },
            Err(error) => error,
        };
        if !error.is_transient() || !outage.retry(SETUP_TRIES).await {
            return Err(error);
        }
        tracing::debug!(game = %game_id, %error, "stream lost; resuming");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steady_window_runs_from_the_last_first_game_to_the_first_last_game() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // Slot 0 ends its games at 100, 300, 500 ms; slot 1 at 150, 250, 450 ms.
        let ends = [
            vec![at(100), at(300), at(500)],
            vec![at(150), at(250), at(450)],
        ];
        let delivered = [10, 120, 150, 151, 300, 449, 450, 451, 499].map(at);
        let steady = Steady::of(&ends, &delivered).unwrap();
        assert_eq!((steady.from, steady.to), (at(150), at(450)));
        // 151, 300, 449, 450: the first slot's first games and the tail are left out.
        assert_eq!(steady.actions, 4);
        assert!((steady.per_second() - 4.0 / 0.3).abs() < 1e-6);
    }

    #[test]
    fn there_is_no_steady_window_without_a_second_game_or_an_overlap() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let delivered = [at(50)];
        assert!(Steady::of(&[vec![at(100)], vec![at(100), at(200)]], &delivered).is_none());
        // A slow slot's first game outlasts a fast slot's every game.
        let ends = [vec![at(400), at(500)], vec![at(100), at(200)]];
        assert!(Steady::of(&ends, &delivered).is_none());
        assert!(Steady::of(&[], &delivered).is_none());
    }
}
