//! The matchmaker: one task per replica, leading on one of them (alone: always; with
//! replicas: while it holds the store's lock). When told the queue changed it reads it once
//! (changes that come meanwhile are served by the same read), forms every game it can, and
//! tells the waiting requests their answers and how many wait. Players who just met are held
//! back from meeting again for a grace period, in case someone else turns up.
//!
//! A duplicate set is its deal played at several tables at once, each by different players,
//! all created together: nobody sees a deal twice, and players who held the same cards are
//! compared once every table has ended (see `rating::rated_set`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use theboss_engine::Seat;
use tokio::sync::{broadcast, watch};
use tracing::Instrument;

use super::grouping::{Wants, find_group};
use super::{LadderOptions, Signal};
use crate::domain::{
    GameRecord, LadderMatch, PlayerInfo, QueueEntry, SeriesRef, Settings, Visibility, now_micros,
};
use crate::game_error::GameError;
use crate::games::Games;
use crate::store::cluster::{LadderSignal, Leadership};
use crate::store::{SeriesRecord, Store};

/// The shortest time between two reads of the queue: changes that come meanwhile are
/// served by the next read.
const ROUND_GAP: Duration = Duration::from_millis(20);
/// How often a replica that is not the matchmaker tries to become it.
const ELECTION: Duration = Duration::from_secs(1);
/// How often the matchmaker drops the requests of replicas that died (their streams are
/// gone).
const PURGE: Duration = Duration::from_secs(10);
/// The advisory lock of the matchmaker.
const MATCHMAKER: &str = "theboss.ladder.matchmaker";

/// Starts this replica's matchmaker task.
pub(super) fn start(
    games: Arc<Games>,
    signal: Signal,
    options: LadderOptions,
    stopping: watch::Receiver<bool>,
) {
    let matchmaker = Matchmaker {
        store: games.store().clone(),
        games,
        signal,
        options,
        last_opponents: HashMap::new(),
    };
    tokio::spawn(
        matchmaker
            .run(stopping)
            .instrument(tracing::info_span!("matchmaker")),
    );
}

struct Matchmaker {
    games: Arc<Games>,
    store: Arc<dyn Store>,
    signal: Signal,
    options: LadderOptions,
    /// Each player's opponents in its last ladder game (or set): they meet again only if
    /// nobody else turned up within the grace period, so that a small ladder does not pair
    /// the same players forever (the players of a game finish together and re-queue
    /// together).
    last_opponents: HashMap<String, HashSet<String>>,
}

/// Leading the ladder: always, alone; with replicas, while holding the store's lock.
enum Lead {
    Alone,
    Elected(Box<dyn Leadership>),
}

impl Lead {
    fn held(&self) -> bool {
        match self {
            Lead::Alone => true,
            Lead::Elected(lead) => lead.is_held(),
        }
    }
}

/// What one look at the queue left.
struct Round {
    /// When a held-back rematch may be formed, if one waits.
    rematch_at: Option<tokio::time::Instant>,
}

impl Matchmaker {
    async fn run(mut self, mut stopping: watch::Receiver<bool>) {
        let mut signals = self.signal.subscribe();
        let mut lead: Option<Lead> = None;
        let mut election = tokio::time::interval(ELECTION);
        let mut purge = tokio::time::interval(PURGE);
        let mut rematch_at: Option<tokio::time::Instant> = None;
        // A round is due when the queue changed since the last one.
        let mut due = true;
        loop {
            let leading = lead.as_ref().is_some_and(Lead::held);
            if leading && due {
                due = false;
                rematch_at = self.round().await.rematch_at;
                // Changes that came during the round, or come in the gap, are read next.
                tokio::time::sleep(ROUND_GAP).await;
            }
            tokio::select! {
                () = async {
                    // An error means the server is gone, which is also a stop.
                    let _ = stopping.wait_for(|s| *s).await;
                } => return,
                _ = election.tick(), if !leading => {
                    lead = self.elect().await;
                    due = true;
                }
                _ = purge.tick(), if leading && self.games.cluster().is_some() => {
                    self.purge_dead_replicas().await;
                }
                () = sleep_until(rematch_at), if leading => due = true,
                signal = signals.recv() => match signal {
                    Ok(LadderSignal::Changed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        due = true;
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    }

    /// Becomes the service's matchmaker if nobody is.
    async fn elect(&mut self) -> Option<Lead> {
        let Some(cluster) = self.games.cluster() else {
            // Alone: requests written before this start had streams that died with it.
            self.purge(&[]).await;
            return Some(Lead::Alone);
        };
        match cluster.store.try_lead(MATCHMAKER).await {
            Ok(Some(lead)) => {
                tracing::info!("this replica runs the ladder's matchmaker now");
                self.purge_dead_replicas().await;
                Some(Lead::Elected(lead))
            }
            Ok(None) => None,
            Err(error) => {
                tracing::warn!(%error, "cannot run for matchmaker");
                None
            }
        }
    }

    /// Drops the requests of replicas whose leases ran out: their streams are gone.
    async fn purge_dead_replicas(&self) {
        let Some(cluster) = self.games.cluster() else {
            return;
        };
        let alive: Vec<String> = match cluster.store.replicas().await {
            Ok(replicas) => replicas.into_iter().map(|r| r.id).collect(),
            Err(error) => {
                tracing::warn!(%error, "cannot list the replicas");
                return;
            }
        };
        if !alive.is_empty() {
            self.purge(&alive).await;
        }
    }

    async fn purge(&self, alive: &[String]) {
        match self.store.purge_ladder(alive).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(requests = n, "dropped requests whose streams are gone"),
            Err(error) => tracing::warn!(%error, "cannot clean the ladder's queue"),
        }
    }

    /// One look at the queue: forms every game it can, tells the waiting how many they are.
    async fn round(&mut self) -> Round {
        match self.match_all().await {
            Ok(round) => round,
            Err(error) => {
                tracing::error!(%error, "cannot match ladder requests");
                Round {
                    rematch_at: Some(tokio::time::Instant::now() + Duration::from_secs(1)),
                }
            }
        }
    }

    async fn match_all(&mut self) -> Result<Round, GameError> {
        let mut queue = self.store.ladder_queue().await?;
        let tables = usize::from(self.options.tables.max(2));
        let grace = i64::try_from(self.options.rematch_grace.as_micros()).unwrap_or(i64::MAX);
        let round = loop {
            let wants: Vec<Wants> = queue
                .iter()
                .map(|e| Wants {
                    player: e.player.id.clone(),
                    players: e.players,
                    duplicate: e.duplicate,
                })
                .collect();
            let apart = |a: &str, b: &str| {
                self.last_opponents
                    .get(a)
                    .is_some_and(|opponents| opponents.contains(b))
            };
            let fresh = find_group(&wants, &apart, tables);
            // A rematch once its oldest request has waited long enough for someone else.
            let rematch = find_group(&wants, &|_, _| false, tables);
            let waited = |group: &(u8, Vec<usize>)| {
                now_micros().saturating_sub(queue[group.1[0]].enqueued_at)
            };
            let picked = match (fresh, rematch) {
                (Some(group), _) => group,
                (None, Some(group)) if waited(&group) >= grace => group,
                (None, Some(group)) => {
                    let left =
                        Duration::from_micros(u64::try_from(grace - waited(&group)).unwrap_or(0));
                    break Round {
                        rematch_at: Some(tokio::time::Instant::now() + left),
                    };
                }
                (None, None) => break Round { rematch_at: None },
            };
            let (n, indices) = picked;
            let group: Vec<QueueEntry> = indices.iter().map(|&i| queue[i].clone()).collect();
            queue = queue
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !indices.contains(i))
                .map(|(_, e)| e)
                .collect();
            self.form(n, &group).await?;
        };
        let waiting = u32::try_from(queue.len()).unwrap_or(u32::MAX);
        crate::metrics::ladder_queue(queue.len());
        self.signal.notify(LadderSignal::Waiting(waiting)).await;
        Ok(round)
    }

    /// Forms one ladder game, or one duplicate set, for a group of requests (table by table)
    /// and answers them.
    async fn form(&mut self, n: u8, group: &[QueueEntry]) -> Result<(), GameError> {
        let duplicate = group[0].duplicate;
        let seed = random_seed();
        let players: Vec<PlayerInfo> = group.iter().map(|e| e.player.clone()).collect();
        let tables: Vec<&[PlayerInfo]> = players.chunks(usize::from(n)).collect();
        let series = if duplicate {
            let record = SeriesRecord {
                id: uuid::Uuid::new_v4().to_string(),
                players: players.iter().map(|p| p.id.clone()).collect(),
                seed,
                created_at: now_micros(),
                tables: u8::try_from(tables.len()).unwrap_or(u8::MAX),
            };
            self.store.create_series(&record).await?;
            Some(record)
        } else {
            None
        };
        let mut answers: Vec<(String, Vec<LadderMatch>)> = Vec::with_capacity(group.len());
        for (index, seated) in tables.iter().enumerate() {
            let table = series.as_ref().map(|s| SeriesRef {
                id: s.id.clone(),
                index: u8::try_from(index).unwrap_or(u8::MAX),
                tables: s.tables,
            });
            let game_id = self.create_game(n, seed, table.clone(), seated).await?;
            tracing::info!(game = %game_id, players = n, duplicate, table = index, "ladder game formed");
            for (seat, player) in seated.iter().enumerate() {
                let request = &group[index * usize::from(n) + seat];
                debug_assert_eq!(request.player.id, player.id);
                answers.push((
                    request.id.clone(),
                    vec![LadderMatch {
                        game_id: game_id.clone(),
                        seat: seat as Seat,
                        players: n,
                        already_seated: false,
                        series: table.clone(),
                    }],
                ));
            }
        }
        for p in &players {
            let others = players
                .iter()
                .filter(|o| o.id != p.id)
                .map(|o| o.id.clone());
            self.last_opponents.insert(p.id.clone(), others.collect());
        }
        self.store.answer_ladder(&answers).await?;
        let ids = answers.into_iter().map(|(id, _)| id).collect();
        self.signal.notify(LadderSignal::Answered(ids)).await;
        Ok(())
    }

    async fn create_game(
        &self,
        n: u8,
        seed: u64,
        series: Option<SeriesRef>,
        seated: &[PlayerInfo],
    ) -> Result<String, GameError> {
        let record = GameRecord {
            id: uuid::Uuid::new_v4().to_string(),
            settings: Settings::new(n, vec![], self.options.turn_secs, Visibility::Public)
                .expect("2 to 4 players with the default cities"),
            seed,
            created_by: seated[0].id.clone(),
            created_at: now_micros(),
            ladder: true,
            series,
            seed_salt: Some(crate::domain::new_seed_salt()),
            seeded: false,
        };
        let game_id = record.id.clone();
        let handle = self.games.create_for_server(record).await?;
        crate::metrics::ladder_game_formed(n);
        for (seat, player) in seated.iter().enumerate() {
            handle.join(player.clone(), Some(seat as Seat)).await?;
        }
        Ok(game_id)
    }
}

fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    u64::from_le_bytes(bytes)
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
