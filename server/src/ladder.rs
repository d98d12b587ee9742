//! The bot ladder: a queue of requests shared by every replica (in the store), one
//! matchmaker for the whole service (elected through the store when there are replicas)
//! that forms ladder games as soon as enough compatible players wait, duplicate series (the
//! same seed once per seat rotation, one game after the other), and the answers.
//!
//! A request lives in the store from `Enqueue` until it is answered and the answer delivered,
//! or its stream closes, or it is cancelled; the replica holding its stream waits for the
//! answer. The queue therefore survives the matchmaker's replica dying: another replica is
//! elected and goes on from the store. Everything a restart must not lose (ladder games,
//! series, ratings) is in the store; a series between two games gets its next game from
//! whichever matchmaker runs next.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use theboss_engine::Seat;
use tokio::sync::{broadcast, mpsc, watch};
use tracing::Instrument;

use crate::cluster::Cluster;
use crate::domain::{
    GameRecord, LadderMatch, PlayerInfo, QueueEntry, SeriesRef, Settings, Status, Visibility,
    now_micros,
};
use crate::error::ApiError;
use crate::games::Games;
use crate::store::{SeriesRecord, Store, StoreError};

/// How often the matchmaker looks at the queue without being told of a change (held-back
/// rematches become possible as time passes), and how often a waiting request looks at its
/// answer in case a notification was lost.
const TICK: Duration = Duration::from_millis(100);
const ANSWER_POLL: Duration = Duration::from_secs(1);
/// How often a replica that is not the matchmaker tries to become it.
const ELECTION: Duration = Duration::from_secs(1);
/// The advisory lock of the matchmaker.
const MATCHMAKER: &str = "theboss.ladder.matchmaker";

/// What a waiting request hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Queued {
        waiting: usize,
    },
    /// Its answer: its new game, or the unfinished ladder games its player already sits in
    /// (to play first). Nothing follows.
    Answered(Vec<LadderMatch>),
}

/// How the ladder's changes travel: between replicas through the store's notifications, or
/// within this process.
#[derive(Clone)]
enum Signal {
    Local(broadcast::Sender<()>),
    Cluster(Arc<Cluster>),
}

impl Signal {
    async fn notify(&self) {
        match self {
            Signal::Local(tx) => {
                let _ = tx.send(());
            }
            Signal::Cluster(cluster) => cluster.ladder_changed().await,
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<()> {
        match self {
            Signal::Local(tx) => tx.subscribe(),
            Signal::Cluster(cluster) => cluster.ladder_changes(),
        }
    }
}

/// The ladder as this replica serves it.
#[derive(Clone)]
pub struct Ladder {
    store: Arc<dyn Store>,
    signal: Signal,
    /// The replica holding this replica's requests' streams.
    replica: String,
}

impl Ladder {
    /// Starts the ladder: the matchmaker when this replica is (or becomes) the service's.
    /// `game_over` hears of every ladder game that ends on this replica.
    pub fn start(
        games: Arc<Games>,
        mut game_over: mpsc::UnboundedReceiver<String>,
        turn_secs: u32,
        rematch_grace: Duration,
        stopping: watch::Receiver<bool>,
    ) -> Ladder {
        let signal = match games.cluster() {
            Some(cluster) => Signal::Cluster(cluster.clone()),
            None => Signal::Local(broadcast::channel(64).0),
        };
        let replica = games
            .cluster()
            .map_or_else(|| "local".to_string(), |c| c.me.id.clone());
        let ladder = Ladder {
            store: games.store().clone(),
            signal: signal.clone(),
            replica,
        };
        // A game ending here may start a series' next game, wherever the matchmaker runs.
        let told = signal.clone();
        tokio::spawn(async move {
            while game_over.recv().await.is_some() {
                told.notify().await;
            }
        });
        let matchmaker = Matchmaker {
            store: games.store().clone(),
            games,
            signal,
            turn_secs,
            last_opponents: HashMap::new(),
            checked: HashSet::new(),
            rematch_grace,
        };
        tokio::spawn(
            matchmaker
                .run(stopping)
                .instrument(tracing::info_span!("matchmaker")),
        );
        ladder
    }

    /// Queues a request; notices arrive on the returned receiver until it is answered. The
    /// request leaves the queue when the receiver is dropped.
    pub async fn enqueue(
        &self,
        player: PlayerInfo,
        players: Option<u8>,
        duplicate: bool,
    ) -> Result<mpsc::Receiver<Notice>, ApiError> {
        let entry = QueueEntry {
            id: uuid::Uuid::new_v4().to_string(),
            player,
            players,
            duplicate,
            replica: self.replica.clone(),
            enqueued_at: now_micros(),
        };
        // Subscribed before the request is in, so that no answer can slip by.
        let changes = self.signal.subscribe();
        self.store.enqueue_ladder(&entry).await?;
        self.signal.notify().await;
        let (notices, rx) = mpsc::channel(8);
        let waiter = self.clone();
        tokio::spawn(
            async move { waiter.wait(entry.id, changes, notices).await }
                .instrument(tracing::debug_span!("ladder request")),
        );
        Ok(rx)
    }

    /// Waits for a request's answer and delivers it; forgets the request when its stream
    /// closes first.
    async fn wait(
        &self,
        entry_id: String,
        mut changes: broadcast::Receiver<()>,
        notices: mpsc::Sender<Notice>,
    ) {
        let mut poll = tokio::time::interval(ANSWER_POLL);
        let mut told: Option<usize> = None;
        loop {
            match self.store.ladder_answer(&entry_id).await {
                // Cancelled.
                Ok(None) => return,
                Ok(Some(matches)) if !matches.is_empty() => {
                    let _ = notices.send(Notice::Answered(matches)).await;
                    break;
                }
                Ok(Some(_)) => {
                    let waiting = self.store.ladder_queue().await.map(|q| q.len());
                    if let Ok(waiting) = waiting
                        && told != Some(waiting)
                    {
                        told = Some(waiting);
                        let _ = notices.try_send(Notice::Queued { waiting });
                    }
                }
                Err(error) => tracing::warn!(%error, "cannot read a ladder request"),
            }
            tokio::select! {
                () = notices.closed() => break,
                _ = changes.recv() => {}
                _ = poll.tick() => {}
            }
        }
        if let Err(error) = self.store.forget_ladder_entry(&entry_id).await {
            tracing::warn!(%error, "cannot forget a ladder request");
        }
        self.signal.notify().await;
    }

    /// Withdraws every waiting request of a player; returns whether there was one.
    pub async fn cancel(&self, player_id: String) -> Result<bool, ApiError> {
        let cancelled = self.store.cancel_ladder(&player_id).await?;
        self.signal.notify().await;
        Ok(cancelled > 0)
    }
}

/// Which queued requests form a game: the oldest request that can be served, with the
/// oldest compatible others (same duplicate choice, a compatible player count, distinct
/// players, and no two that `apart` keeps apart). A request for any count gets the largest
/// game that can be formed now.
fn find_group(
    queue: &[(String, Option<u8>, bool)],
    apart: &dyn Fn(&str, &str) -> bool,
) -> Option<(u8, Vec<usize>)> {
    for (first, (_, wants, duplicate)) in queue.iter().enumerate() {
        let counts: Vec<u8> = match wants {
            Some(n) => vec![*n],
            None => vec![4, 3, 2],
        };
        for n in counts {
            let mut picked = vec![first];
            let mut seen: HashSet<&str> = HashSet::from([queue[first].0.as_str()]);
            for (i, (id, w, d)) in queue.iter().enumerate().skip(first + 1) {
                if picked.len() == usize::from(n) {
                    break;
                }
                let compatible = d == duplicate && w.is_none_or(|w| w == n);
                let welcome = !picked.iter().any(|&p| apart(&queue[p].0, id));
                if compatible && welcome && seen.insert(id.as_str()) {
                    picked.push(i);
                }
            }
            if picked.len() == usize::from(n) {
                return Some((n, picked));
            }
        }
    }
    None
}

struct Matchmaker {
    games: Arc<Games>,
    store: Arc<dyn Store>,
    signal: Signal,
    turn_secs: u32,
    /// Each player's opponents in its last ladder game: they meet again only if nobody else
    /// turned up within `rematch_grace`, so that a small ladder does not pair the same
    /// players forever (the two players of a game finish together and re-queue together).
    last_opponents: HashMap<String, HashSet<String>>,
    /// Requests already looked at for games their players sit in.
    checked: HashSet<String>,
    rematch_grace: Duration,
}

/// Leading the ladder: always, alone; with replicas, while holding the store's lock.
enum Lead {
    Alone,
    Elected(Box<dyn crate::store::cluster::Leadership>),
}

impl Lead {
    fn held(&self) -> bool {
        match self {
            Lead::Alone => true,
            Lead::Elected(lead) => lead.is_held(),
        }
    }
}

impl Matchmaker {
    async fn run(mut self, mut stopping: watch::Receiver<bool>) {
        let mut changes = self.signal.subscribe();
        let mut lead: Option<Lead> = None;
        let mut tick = tokio::time::interval(TICK);
        let mut election = tokio::time::interval(ELECTION);
        loop {
            tokio::select! {
                () = async {
                    // An error means the server is gone, which is also a stop.
                    let _ = stopping.wait_for(|s| *s).await;
                } => return,
                _ = election.tick(), if lead.as_ref().is_none_or(|l| !l.held()) => {
                    lead = self.elect().await;
                    continue;
                }
                _ = changes.recv() => {}
                _ = tick.tick() => {}
            }
            if lead.as_ref().is_some_and(Lead::held) {
                self.round().await;
            }
        }
    }

    /// Becomes the service's matchmaker if nobody is.
    async fn elect(&mut self) -> Option<Lead> {
        let Some(cluster) = self.games.cluster() else {
            self.start_leading(&[]).await;
            return Some(Lead::Alone);
        };
        match cluster.store.try_lead(MATCHMAKER).await {
            Ok(Some(lead)) => {
                tracing::info!("this replica runs the ladder's matchmaker now");
                let alive: Vec<String> = match cluster.store.replicas().await {
                    Ok(replicas) => replicas.into_iter().map(|r| r.id).collect(),
                    Err(_) => vec![cluster.me.id.clone()],
                };
                self.start_leading(&alive).await;
                Some(Lead::Elected(lead))
            }
            Ok(None) => None,
            Err(error) => {
                tracing::warn!(%error, "cannot run for matchmaker");
                None
            }
        }
    }

    /// What a new matchmaker does first: forget requests whose streams are gone with their
    /// replicas (alone: every request, since none survived the restart), and look at every
    /// request afresh.
    async fn start_leading(&mut self, alive: &[String]) {
        let alive = if alive.is_empty() {
            // Alone: requests written before this start had streams that died with it.
            Vec::new()
        } else {
            alive.to_vec()
        };
        if self.games.cluster().is_none() || !alive.is_empty() {
            match self.store.purge_ladder(&alive).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(requests = n, "dropped requests whose streams are gone"),
                Err(error) => tracing::warn!(%error, "cannot clean the ladder's queue"),
            }
        }
        self.checked.clear();
    }

    /// One look at the series and the queue.
    async fn round(&mut self) {
        if let Err(error) = self.continue_series().await {
            tracing::error!(%error, "cannot continue duplicate series");
        }
        if let Err(error) = self.match_all().await {
            tracing::error!(%error, "cannot match ladder requests");
        }
    }

    async fn match_all(&mut self) -> Result<(), ApiError> {
        let mut queue = self.store.ladder_queue().await?;
        // New requests of players who sit in unfinished ladder games get those games back.
        let mut answers = Vec::new();
        for entry in &queue {
            if !self.checked.insert(entry.id.clone()) {
                continue;
            }
            let seats = self.store.ladder_games_of(&entry.player.id).await?;
            if !seats.is_empty() {
                let matches = seats
                    .into_iter()
                    .map(|seat| LadderMatch {
                        game_id: seat.game_id,
                        seat: seat.seat,
                        players: seat.players,
                        already_seated: true,
                        series: seat.series,
                    })
                    .collect();
                answers.push((entry.id.clone(), matches));
            }
        }
        if !answers.is_empty() {
            self.store.answer_ladder(&answers).await?;
            queue.retain(|e| !answers.iter().any(|(id, _)| *id == e.id));
            self.signal.notify().await;
        }
        self.checked.retain(|id| queue.iter().any(|e| e.id == *id));
        loop {
            let keys: Vec<(String, Option<u8>, bool)> = queue
                .iter()
                .map(|e| (e.player.id.clone(), e.players, e.duplicate))
                .collect();
            let apart = |a: &str, b: &str| {
                self.last_opponents
                    .get(a)
                    .is_some_and(|opponents| opponents.contains(b))
            };
            let fresh = find_group(&keys, &apart);
            // A rematch once its oldest request has waited long enough for someone else.
            let grace = i64::try_from(self.rematch_grace.as_micros()).unwrap_or(i64::MAX);
            let rematch = || {
                find_group(&keys, &|_, _| false).filter(|(_, picked)| {
                    now_micros().saturating_sub(queue[picked[0]].enqueued_at) >= grace
                })
            };
            let Some((n, picked)) = fresh.or_else(rematch) else {
                crate::metrics::ladder_queue(queue.len());
                return Ok(());
            };
            let group: Vec<QueueEntry> = picked.iter().map(|&i| queue[i].clone()).collect();
            queue = queue
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !picked.contains(i))
                .map(|(_, e)| e)
                .collect();
            self.form(n, &group).await?;
        }
    }

    async fn form(&mut self, n: u8, group: &[QueueEntry]) -> Result<(), ApiError> {
        let duplicate = group[0].duplicate;
        let mut seed_bytes = [0u8; 8];
        getrandom::fill(&mut seed_bytes).expect("the OS random source works");
        let seed = u64::from_le_bytes(seed_bytes);
        let players: Vec<PlayerInfo> = group.iter().map(|e| e.player.clone()).collect();
        let series = if duplicate {
            let record = SeriesRecord {
                id: uuid::Uuid::new_v4().to_string(),
                players: players.iter().map(|p| p.id.clone()).collect(),
                seed,
                created_at: now_micros(),
            };
            self.store.create_series(&record).await?;
            Some(SeriesRef {
                id: record.id,
                index: 0,
            })
        } else {
            None
        };
        let game_id = self.create_game(n, seed, series.clone(), &players).await?;
        tracing::info!(game = %game_id, players = n, duplicate, "ladder game formed");
        for p in &players {
            let others = players
                .iter()
                .filter(|o| o.id != p.id)
                .map(|o| o.id.clone());
            self.last_opponents.insert(p.id.clone(), others.collect());
        }
        let answers: Vec<(String, Vec<LadderMatch>)> = group
            .iter()
            .enumerate()
            .map(|(seat, e)| {
                let m = LadderMatch {
                    game_id: game_id.clone(),
                    seat: seat as Seat,
                    players: n,
                    already_seated: false,
                    series: series.clone(),
                };
                (e.id.clone(), vec![m])
            })
            .collect();
        self.store.answer_ladder(&answers).await?;
        self.signal.notify().await;
        Ok(())
    }

    async fn create_game(
        &self,
        n: u8,
        seed: u64,
        series: Option<SeriesRef>,
        seated: &[PlayerInfo],
    ) -> Result<String, ApiError> {
        let record = GameRecord {
            id: uuid::Uuid::new_v4().to_string(),
            settings: Settings::new(n, vec![], self.turn_secs, Visibility::Public)
                .expect("2 to 4 players with the default cities"),
            seed,
            created_by: seated[0].id.clone(),
            created_at: now_micros(),
            ladder: true,
            series,
            seed_salt: Some(crate::domain::new_seed_salt()),
        };
        let game_id = record.id.clone();
        let handle = self.games.create(record).await?;
        crate::metrics::ladder_game_formed(n);
        for (seat, player) in seated.iter().enumerate() {
            handle.join(player.clone(), Some(seat as Seat)).await?;
        }
        Ok(game_id)
    }

    /// The next game of every series whose last game finished: same seed, seats rotated by
    /// one. Its players' waiting requests get it as their answer.
    async fn continue_series(&mut self) -> Result<(), ApiError> {
        for series_id in self.store.open_series().await? {
            let Some(record) = self.store.series(&series_id).await? else {
                continue;
            };
            let games = self.store.series_games(&series_id).await?;
            let n = record.players.len() as u8;
            let Some(last) = games.last() else {
                continue;
            };
            let index = last.index + 1;
            // A series goes on while its games finish; an aborted one ends it.
            if last.status != Status::Finished || index >= n {
                continue;
            }
            let mut seated = Vec::with_capacity(usize::from(n));
            for seat in 0..n {
                let id = &record.players[usize::from((seat + index) % n)];
                let player = self
                    .store
                    .player_ratings(id)
                    .await?
                    .ok_or_else(|| StoreError::Corrupt(format!("series player {id} vanished")))?
                    .player;
                seated.push(player);
            }
            let series = SeriesRef {
                id: series_id.clone(),
                index,
            };
            let game_id = self
                .create_game(n, record.seed, Some(series.clone()), &seated)
                .await?;
            tracing::info!(game = %game_id, series = %series_id, index, "next game of a series");
            // Its players may be waiting for a new game meanwhile: this is it.
            let answers: Vec<(String, Vec<LadderMatch>)> = self
                .store
                .ladder_queue()
                .await?
                .into_iter()
                .filter_map(|entry| {
                    let seat = seated.iter().position(|p| p.id == entry.player.id)?;
                    let m = LadderMatch {
                        game_id: game_id.clone(),
                        seat: seat as Seat,
                        players: n,
                        already_seated: true,
                        series: Some(series.clone()),
                    };
                    Some((entry.id, vec![m]))
                })
                .collect();
            if !answers.is_empty() {
                self.store.answer_ladder(&answers).await?;
            }
            self.signal.notify().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_group_free(queue: &[(String, Option<u8>, bool)]) -> Option<(u8, Vec<usize>)> {
        find_group(queue, &|_, _| false)
    }

    #[test]
    fn players_kept_apart_are_not_grouped() {
        let queue = q(&[
            ("a", Some(2), false),
            ("b", Some(2), false),
            ("c", Some(2), false),
        ]);
        let apart = |x: &str, y: &str| matches!((x, y), ("a", "b") | ("b", "a"));
        assert_eq!(find_group(&queue, &apart), Some((2, vec![0, 2])));
        assert_eq!(find_group(&queue[..2], &apart), None);
    }

    fn q(entries: &[(&str, Option<u8>, bool)]) -> Vec<(String, Option<u8>, bool)> {
        entries
            .iter()
            .map(|(id, n, d)| (id.to_string(), *n, *d))
            .collect()
    }

    #[test]
    fn a_game_forms_as_soon_as_enough_compatible_players_wait() {
        assert_eq!(find_group_free(&q(&[("a", Some(2), false)])), None);
        assert_eq!(
            find_group_free(&q(&[("a", Some(2), false), ("b", None, false)])),
            Some((2, vec![0, 1]))
        );
        // Different duplicate choices do not mix; different counts wait.
        assert_eq!(
            find_group_free(&q(&[
                ("a", Some(2), false),
                ("b", Some(2), true),
                ("c", Some(3), false)
            ])),
            None
        );
    }

    #[test]
    fn nobody_is_seated_twice_in_one_game() {
        assert_eq!(
            find_group_free(&q(&[("a", Some(2), false), ("a", Some(2), false)])),
            None
        );
        assert_eq!(
            find_group_free(&q(&[
                ("a", Some(2), false),
                ("a", Some(2), false),
                ("b", Some(2), false)
            ])),
            Some((2, vec![0, 2]))
        );
    }

    #[test]
    fn any_count_takes_the_largest_game_available_and_the_oldest_goes_first() {
        let four_any = q(&[
            ("a", None, false),
            ("b", None, false),
            ("c", None, false),
            ("d", None, false),
        ]);
        assert_eq!(find_group_free(&four_any), Some((4, vec![0, 1, 2, 3])));
        let three = q(&[
            ("a", Some(3), false),
            ("b", None, false),
            ("c", Some(2), false),
            ("d", None, false),
        ]);
        assert_eq!(find_group_free(&three), Some((3, vec![0, 1, 3])));
    }
}
