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

use tokio::sync::{broadcast, watch};
use tracing::Instrument;

use super::challenging;
use super::seating::{self, Seating};
use super::{LadderOptions, Signal};
use crate::domain::{LadderMatch, PlayerInfo, QueueEntry, now_micros};
use crate::game_error::GameError;
use crate::games::Games;
use crate::store::Store;
use crate::store::coordination::{LadderSignal, Leadership};
use theboss_ladder::grouping::{Wants, fill, find_group};

/// The shortest time between two reads of the queue: changes that come meanwhile are
/// served by the next read.
const ROUND_GAP: Duration = Duration::from_millis(20);
/// How often a replica that is not the matchmaker tries to become it.
const ELECTION: Duration = Duration::from_secs(1);
/// How often the matchmaker drops the requests of replicas that died (their streams are
/// gone).
const PURGE: Duration = Duration::from_secs(10);
/// How often the matchmaker moves tournaments on and expires challenges.
const ARRANGED_TICK: Duration = Duration::from_secs(1);
/// Challenges expired at one tick, at most.
const EXPIRE_BATCH: u32 = 500;
/// The advisory lock of the matchmaker.
const MATCHMAKER: &str = "theboss.ladder.matchmaker";

/// Drops the queued requests of every replica but those `alive` (all of them if none):
/// their streams are gone.
pub(super) async fn drop_requests(store: &dyn Store, alive: &[String]) {
    match store.purge_ladder(alive).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(requests = n, "dropped requests whose streams are gone"),
        Err(error) => tracing::warn!(%error, "cannot clean the ladder's queue"),
    }
}

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
        let mut arranged = tokio::time::interval(ARRANGED_TICK);
        arranged.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
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
                _ = arranged.tick(), if leading => {
                    self.expire_challenges().await;
                    super::tournament_rounds::advance_all(&self.games, &self.signal).await;
                }
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
            // Alone: the requests of the process before were dropped when this one started
            // (`drop_requests`, before it served any).
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
            drop_requests(&*self.store, &alive).await;
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
        self.seat_challenges(&mut queue).await?;
        let tables = usize::from(self.options.tables.max(2));
        let grace = i64::try_from(self.options.rematch_grace.as_micros()).unwrap_or(i64::MAX);
        let round = loop {
            let wants = wants_of(&queue);
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
        let players: Vec<PlayerInfo> = group.iter().map(|e| e.player.clone()).collect();
        let tables: Vec<Vec<PlayerInfo>> =
            players.chunks(usize::from(n)).map(<[_]>::to_vec).collect();
        let matches = seating::seat(
            &self.games,
            Seating {
                tables: &tables,
                rated: true,
                turn_secs: self.options.turn_secs,
                arranged_by: None,
                game_ids: None,
            },
        )
        .await?;
        for _ in &tables {
            crate::metrics::ladder_game_formed(n);
        }
        self.met(&players);
        let answers: Vec<(String, Vec<LadderMatch>)> = group
            .iter()
            .zip(matches)
            .map(|(request, m)| (request.id.clone(), vec![m]))
            .collect();
        self.store.answer_ladder(&answers).await?;
        let ids = answers.into_iter().map(|(id, _)| id).collect();
        self.signal.notify(LadderSignal::Answered(ids)).await;
        Ok(())
    }

    /// Seats the challenges everyone accepted, oldest first, each as soon as the queue has
    /// the players its free seats need (taken out of `queue`).
    async fn seat_challenges(&mut self, queue: &mut Vec<QueueEntry>) -> Result<(), GameError> {
        let now = now_micros();
        for challenge in self.store.seating_challenges(now).await? {
            let named: HashSet<&str> = challenge
                .parties
                .iter()
                .map(|(p, _)| p.id.as_str())
                .collect();
            let wants = wants_of(queue);
            let need = challenging::seats_to_fill(&challenge);
            let Some(picked) = fill(&wants, challenge.players, challenge.duplicate, &named, need)
            else {
                continue;
            };
            let fillers: Vec<QueueEntry> = picked.iter().map(|&i| queue[i].clone()).collect();
            let players: Vec<PlayerInfo> = fillers.iter().map(|e| e.player.clone()).collect();
            let tables = challenging::challenge_tables(&challenge, &players, &mut rand::rng());
            let game_ids = seating::new_ids(tables.len());
            // Claimed first: a challenge withdrawn meanwhile is not seated.
            if !self
                .store
                .start_challenge(&challenge.id, &game_ids, now)
                .await?
            {
                continue;
            }
            let matches = seating::seat(
                &self.games,
                Seating {
                    tables: &tables,
                    rated: challenge.rated,
                    turn_secs: self.options.turn_secs,
                    arranged_by: Some(&challenge.id),
                    game_ids: Some(&game_ids),
                },
            )
            .await?;
            tracing::info!(challenge = %challenge.id, games = game_ids.len(), fillers = fillers.len(), "challenge seated");
            *queue = std::mem::take(queue)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !picked.contains(i))
                .map(|(_, e)| e)
                .collect();
            let answers: Vec<(String, Vec<LadderMatch>)> = fillers
                .iter()
                .map(|e| {
                    let mine = matches
                        .iter()
                        .zip(tables.iter().flatten())
                        .filter(|(_, p)| p.id == e.player.id)
                        .map(|(m, _)| m.clone())
                        .collect();
                    (e.id.clone(), mine)
                })
                .collect();
            if !answers.is_empty() {
                self.store.answer_ladder(&answers).await?;
                let ids = answers.into_iter().map(|(id, _)| id).collect();
                self.signal.notify(LadderSignal::Answered(ids)).await;
            }
            let everyone = challenge
                .parties
                .iter()
                .map(|(p, _)| p.id.clone())
                .collect();
            self.signal
                .notify(LadderSignal::Challenged(challenge.id.clone()))
                .await;
            challenging::tell(&self.signal, everyone).await;
        }
        Ok(())
    }

    /// Writes expired on the challenges nobody answered in time.
    async fn expire_challenges(&self) {
        match self
            .store
            .expire_challenges(now_micros(), EXPIRE_BATCH)
            .await
        {
            Ok(expired) => {
                if !expired.is_empty() {
                    tracing::debug!(challenges = expired.len(), "challenges expired");
                }
                for id in expired {
                    self.signal.notify(LadderSignal::Challenged(id)).await;
                }
            }
            Err(error) => tracing::warn!(%error, "cannot expire challenges"),
        }
    }

    /// Remembers who just met whom.
    fn met(&mut self, players: &[PlayerInfo]) {
        for p in players {
            let others = players
                .iter()
                .filter(|o| o.id != p.id)
                .map(|o| o.id.clone());
            self.last_opponents.insert(p.id.clone(), others.collect());
        }
    }
}

/// What each waiting request asks for, for the pure grouping.
fn wants_of(queue: &[QueueEntry]) -> Vec<Wants> {
    queue
        .iter()
        .map(|e| Wants {
            player: e.player.id.clone(),
            players: e.players,
            duplicate: e.duplicate,
        })
        .collect()
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
