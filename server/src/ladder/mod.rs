//! The bot ladder: a queue of requests shared by every replica (in the store), one
//! matchmaker for the whole service ([`matchmaker`], elected through the store when there are
//! replicas) that forms ladder games and duplicate sets as soon as enough compatible players
//! wait, and this replica's waiting requests ([`Hub`]), told their answers by message.
//!
//! A request lives in the store from `Enqueue` until it is answered and the answer delivered,
//! or its stream closes, or it is cancelled. Nothing polls the queue per request: the
//! matchmaker reads it once per change (changes coalesced), answers in the store, and signals
//! the answered requests' ids (within the process, or to every replica through the store's
//! notifications); each replica reads the answers of the requests it holds and delivers them.
//! A lost notification only delays an answer: each replica also reads its own requests'
//! answers every few seconds, in one query.
//!
//! A player plays at most `parallel` ladder games at once, its waiting requests included:
//! checked and written at once by the store ([`crate::store::LadderStore::enqueue_ladder`]).
//!
//! Games can also be arranged for named players: [`challenging`] (seated by the matchmaker
//! once accepted, their free seats filled from the queue) and [`tournament_rounds`] (rounds
//! of duplicate sets, planned by `theboss_ladder::schedule`, scored by
//! `theboss_ladder::crosstable`, moved on by the matchmaker). Both tell their players
//! through `Offers` streams ([`offers`]); [`seating`] seats every game the ladder makes.

pub mod challenging;
mod matchmaker;
mod offers;
mod seating;
pub mod tournament_rounds;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};
use tracing::Instrument;

use crate::domain::{LadderMatch, PlayerInfo, QueueEntry, now_micros};
use crate::game_error::GameError;
use crate::games::Games;
use crate::replicas::Cluster;
use crate::store::coordination::LadderSignal;
use crate::store::{Enqueued, LadderSeat, Store};

pub use offers::{OfferNews, Subscription};

/// How often a replica reads the answers of the requests it holds, in case a notification
/// was lost.
const ANSWER_POLL: Duration = Duration::from_secs(5);

use crate::limits::fixed::LADDER_PARALLEL as MAX_PARALLEL;

/// How the ladder runs its games.
#[derive(Debug, Clone)]
pub struct LadderOptions {
    /// Seconds a seat has per turn in ladder games.
    pub turn_secs: u32,
    /// How long the ladder holds back pairing players who just played each other, in case
    /// someone else turns up.
    pub rematch_grace: Duration,
    /// Tables of a duplicate set.
    pub tables: u8,
}

impl Default for LadderOptions {
    fn default() -> LadderOptions {
        LadderOptions {
            turn_secs: 30,
            rematch_grace: Duration::from_secs(5),
            tables: 2,
        }
    }
}

/// What a waiting request hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// How many requests wait, this one included.
    Queued { waiting: u32 },
    /// Its game (or table): nothing follows.
    Answered(Vec<LadderMatch>),
}

/// What an `Enqueue` got.
pub enum Request {
    /// The unfinished ladder games the player already sits in, as many as it may play at
    /// once: play those first. Nothing was queued.
    Seated(Vec<LadderMatch>),
    /// Queued: its notices come through the ticket.
    Waiting(Ticket),
}

/// A queued request's notices, until its answer. Dropping it before the answer withdraws
/// the request.
pub struct Ticket {
    pub notices: mpsc::Receiver<Notice>,
    entry_id: String,
    ladder: Ladder,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.ladder.hub.remove(&self.entry_id) {
            // Still waiting: the client went away.
            let (ladder, entry_id) = (self.ladder.clone(), self.entry_id.clone());
            tokio::spawn(async move { ladder.withdraw(&entry_id).await });
        }
    }
}

/// How the ladder's changes travel: between replicas through the store's notifications, or
/// within this process.
#[derive(Clone)]
pub(crate) enum Signal {
    Local(broadcast::Sender<LadderSignal>),
    Cluster(Arc<Cluster>),
}

impl Signal {
    pub(crate) async fn notify(&self, signal: LadderSignal) {
        match self {
            Signal::Local(tx) => {
                let _ = tx.send(signal);
            }
            Signal::Cluster(cluster) => cluster.ladder_changed(signal).await,
        }
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<LadderSignal> {
        match self {
            Signal::Local(tx) => tx.subscribe(),
            Signal::Cluster(cluster) => cluster.ladder_changes(),
        }
    }
}

/// The requests this replica holds the streams of.
#[derive(Default)]
struct Hub {
    waiters: Mutex<HashMap<String, Waiter>>,
}

struct Waiter {
    notices: mpsc::Sender<Notice>,
    /// The last count told.
    told: Option<u32>,
    /// Whether its request is in the store. Until then the hub must not read its answer: a
    /// request not in the store yet would look withdrawn, and its stream be ended while its
    /// request stays queued.
    stored: bool,
}

impl Hub {
    fn add(&self, entry_id: &str) -> mpsc::Receiver<Notice> {
        let (notices, rx) = mpsc::channel(8);
        let mut waiters = self.waiters.lock().expect("not poisoned");
        waiters.insert(
            entry_id.to_string(),
            Waiter {
                notices,
                told: None,
                stored: false,
            },
        );
        rx
    }

    /// Marks a request as in the store: from now on its answer is read.
    fn stored(&self, entry_id: &str) {
        let mut waiters = self.waiters.lock().expect("not poisoned");
        if let Some(waiter) = waiters.get_mut(entry_id) {
            waiter.stored = true;
        }
    }

    /// Forgets a request; returns whether it was still waiting here.
    fn remove(&self, entry_id: &str) -> bool {
        let mut waiters = self.waiters.lock().expect("not poisoned");
        waiters.remove(entry_id).is_some()
    }

    fn held(&self, among: Option<&[String]>) -> Vec<String> {
        let waiters = self.waiters.lock().expect("not poisoned");
        let stored = |id: &String| waiters.get(id).is_some_and(|w| w.stored);
        match among {
            Some(ids) => ids.iter().filter(|id| stored(id)).cloned().collect(),
            None => waiters.keys().filter(|id| stored(id)).cloned().collect(),
        }
    }

    /// Tells the requests in the store how many wait. A count can come from a matchmaker's
    /// pass that read the queue before a request's insert committed: a request not stored yet
    /// is not told (its count follows the pass its insert triggers), and one that is stored
    /// hears at least 1, itself.
    fn tell_waiting(&self, waiting: u32) {
        let waiting = waiting.max(1);
        let mut waiters = self.waiters.lock().expect("not poisoned");
        for waiter in waiters.values_mut().filter(|w| w.stored) {
            if waiter.told != Some(waiting)
                && waiter.notices.try_send(Notice::Queued { waiting }).is_ok()
            {
                waiter.told = Some(waiting);
            }
        }
    }

    /// Delivers the answers of requests held here (`among` them, or all), and lets go of
    /// those withdrawn; returns the requests answered.
    async fn deliver(&self, store: &dyn Store, among: Option<&[String]>) -> Vec<String> {
        let held = self.held(among);
        if held.is_empty() {
            return Vec::new();
        }
        let answers = match store.ladder_answers(&held).await {
            Ok(answers) => answers,
            Err(error) => {
                tracing::warn!(%error, "cannot read ladder answers");
                return Vec::new();
            }
        };
        let mut delivered = Vec::new();
        for (entry_id, answer) in answers {
            let waiter = match &answer {
                Some(matches) if matches.is_empty() => continue,
                _ => {
                    let mut waiters = self.waiters.lock().expect("not poisoned");
                    waiters.remove(&entry_id)
                }
            };
            // Withdrawn (cancelled): dropping the waiter ends its stream.
            let (Some(waiter), Some(matches)) = (waiter, answer) else {
                continue;
            };
            let _ = waiter.notices.send(Notice::Answered(matches)).await;
            delivered.push(entry_id);
        }
        delivered
    }
}

/// The ladder as this replica serves it.
#[derive(Clone)]
pub struct Ladder {
    store: Arc<dyn Store>,
    signal: Signal,
    /// The replica holding this replica's requests' streams.
    replica: String,
    hub: Arc<Hub>,
    offers: Arc<offers::OffersHub>,
    /// The turn clock of the games it seats.
    turn_secs: u32,
}

impl Ladder {
    /// Starts the ladder: this replica's waiting requests, and the matchmaker when this
    /// replica is (or becomes) the service's.
    pub async fn start(
        games: Arc<Games>,
        options: LadderOptions,
        stopping: watch::Receiver<bool>,
    ) -> Ladder {
        let signal = match games.cluster() {
            Some(cluster) => Signal::Cluster(cluster.clone()),
            None => {
                // Alone, the requests in the store are the last process's, whose streams
                // died with it. They go before this one serves: dropped later (by the
                // matchmaker's first look, say), they could take this process's first
                // requests with them.
                matchmaker::drop_requests(&**games.store(), &[]).await;
                Signal::Local(broadcast::channel(256).0)
            }
        };
        let replica = games
            .cluster()
            .map_or_else(|| "local".to_string(), |c| c.me.id.clone());
        let ladder = Ladder {
            store: games.store().clone(),
            signal: signal.clone(),
            replica,
            hub: Arc::default(),
            offers: Arc::default(),
            turn_secs: options.turn_secs,
        };
        tokio::spawn(
            ladder
                .clone()
                .run_hub(stopping.clone())
                .instrument(tracing::info_span!("ladder requests")),
        );
        matchmaker::start(games, signal, options, stopping);
        ladder
    }

    /// Delivers answers and counts to this replica's waiting requests until `stopping`.
    async fn run_hub(self, mut stopping: watch::Receiver<bool>) {
        let mut signals = self.signal.subscribe();
        let mut poll = tokio::time::interval(ANSWER_POLL);
        loop {
            tokio::select! {
                () = async {
                    let _ = stopping.wait_for(|s| *s).await;
                } => return,
                signal = signals.recv() => match signal {
                    Ok(LadderSignal::Answered(ids)) => {
                        let answered = self.hub.deliver(&*self.store, Some(&ids)).await;
                        self.forget(answered).await;
                    }
                    Ok(LadderSignal::Waiting(n)) => self.hub.tell_waiting(n),
                    Ok(LadderSignal::Challenged(id)) => self.read_challenge(id),
                    Ok(LadderSignal::Arranged(players)) => self.offers.reread(&players),
                    Ok(LadderSignal::Missed) => self.offers.reread_all(),
                    Ok(LadderSignal::Changed) => {}
                    // Missed signals: read every answer now, and every offer.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let answered = self.hub.deliver(&*self.store, None).await;
                        self.forget(answered).await;
                        self.offers.reread_all();
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = poll.tick() => {
                    let answered = self.hub.deliver(&*self.store, None).await;
                    self.forget(answered).await;
                }
            }
        }
    }

    /// Reads a changed challenge once and hands it to the `Offers` streams of its players
    /// held here (off the hub's task: a slow read delays no ladder answer).
    fn read_challenge(&self, id: String) {
        if self.offers.is_empty() {
            return;
        }
        let (store, offers) = (self.store.clone(), self.offers.clone());
        tokio::spawn(async move {
            match store.challenge(&id).await {
                Ok(Some(challenge)) => offers.challenge(challenge),
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(%error, challenge = %id, "cannot read a changed challenge");
                    offers.reread_all();
                }
            }
        });
    }

    /// Forgets requests whose answers were delivered.
    async fn forget(&self, entry_ids: Vec<String>) {
        for entry_id in entry_ids {
            if let Err(error) = self.store.forget_ladder_entry(&entry_id).await {
                tracing::warn!(%error, "cannot forget a ladder request");
            }
        }
    }

    /// Asks for a ladder game (or a table of a duplicate set) for `player`: `players` per
    /// game (None: any), at most `parallel` games at once.
    pub async fn enqueue(
        &self,
        player: PlayerInfo,
        players: Option<u8>,
        duplicate: bool,
        parallel: u8,
    ) -> Result<Request, GameError> {
        let entry = QueueEntry {
            id: uuid::Uuid::new_v4().to_string(),
            player,
            players,
            duplicate,
            parallel: parallel.clamp(1, MAX_PARALLEL),
            replica: self.replica.clone(),
            enqueued_at: now_micros(),
        };
        // Held before the request is in, so that no answer can slip by.
        let notices = self.hub.add(&entry.id);
        let enqueued = self.store.enqueue_ladder(&entry).await;
        if !matches!(enqueued, Ok(Enqueued::Queued)) {
            self.hub.remove(&entry.id);
        }
        match enqueued? {
            Enqueued::Queued => {
                tracing::debug!(request = %entry.id, "queued");
                self.hub.stored(&entry.id);
                // An answer given between the insert and now was not delivered (the hub
                // did not read it yet): read it once.
                self.hub
                    .deliver(&*self.store, Some(std::slice::from_ref(&entry.id)))
                    .await;
                self.signal.notify(LadderSignal::Changed).await;
                Ok(Request::Waiting(Ticket {
                    notices,
                    entry_id: entry.id,
                    ladder: self.clone(),
                }))
            }
            Enqueued::Seated(seats) => Ok(Request::Seated(
                seats.into_iter().map(already_seated).collect(),
            )),
            Enqueued::AtLimit { waiting, seated } => Err(GameError::AlreadyQueued {
                waiting,
                seated,
                parallel: entry.parallel,
            }),
        }
    }

    /// A new `Offers` stream of a player: it wakes when something changes for the player.
    pub fn offers(&self, player_id: &str) -> Result<offers::Subscription, GameError> {
        self.offers.subscribe(player_id)
    }

    /// The store it reads (for the `Offers` streams' reads).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Withdraws a request whose stream closed before its answer.
    async fn withdraw(&self, entry_id: &str) {
        if let Err(error) = self.store.forget_ladder_entry(entry_id).await {
            tracing::warn!(%error, "cannot withdraw a ladder request");
        }
        self.signal.notify(LadderSignal::Changed).await;
    }

    /// Withdraws every waiting request of a player; returns whether there was one.
    pub async fn cancel(&self, player_id: &str) -> Result<bool, GameError> {
        let withdrawn = self.store.cancel_ladder(player_id).await?;
        if withdrawn.is_empty() {
            return Ok(false);
        }
        // Their streams end wherever they are held.
        self.signal.notify(LadderSignal::Answered(withdrawn)).await;
        self.signal.notify(LadderSignal::Changed).await;
        Ok(true)
    }
}

/// An unfinished ladder game a player sits in, as the ladder tells it.
fn already_seated(seat: LadderSeat) -> LadderMatch {
    LadderMatch {
        game_id: seat.game_id,
        seat: seat.seat,
        players: seat.players,
        already_seated: true,
        series: seat.series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Alone, the requests in the store when the ladder starts are the last process's: they
    /// are gone once `start` returns, and a request made after it stays. (The matchmaker
    /// used to drop them at its first look, which could come after this process's first
    /// request, whose stream then ended with no game: a flaky `hostile` test.)
    #[tokio::test(flavor = "current_thread")]
    async fn alone_the_last_process_requests_go_before_the_ladder_starts_and_only_they() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (last, _) = crate::testing::player_and_game(&*store).await;
        let (now, _) = crate::testing::player_and_game(&*store).await;
        let left_over = QueueEntry {
            id: "the last process's".into(),
            player: last,
            players: Some(2),
            duplicate: false,
            parallel: 1,
            replica: "local".into(),
            enqueued_at: 1,
        };
        assert_eq!(
            store.enqueue_ladder(&left_over).await.unwrap(),
            Enqueued::Queued
        );
        let games = Arc::new(Games::new(
            store.clone(),
            crate::actor::ActorOptions::default(),
            &crate::Limits {
                open_games_per_player: 10,
                ..crate::Limits::unlimited()
            },
            None,
        ));
        let (stop, stopping) = watch::channel(false);
        let ladder = Ladder::start(games, LadderOptions::default(), stopping).await;
        assert!(store.ladder_queue().await.unwrap().is_empty());

        let _waiting = ladder
            .enqueue(now.clone(), Some(2), false, 1)
            .await
            .unwrap();
        // The matchmaker's first looks, alone with one request.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let queue = store.ladder_queue().await.unwrap();
        assert_eq!(queue.len(), 1);
        assert_eq!(queue[0].player.id, now.id);
        let _ = stop.send(true);
    }

    #[tokio::test]
    async fn a_request_not_in_the_store_yet_is_not_taken_for_withdrawn() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let hub = Hub::default();
        let mut notices = hub.add("r1");
        // The hub reads answers (a poll, another request's answer) before the request's
        // insert commits: the request must go on waiting.
        assert!(hub.deliver(&*store, None).await.is_empty());
        assert!(
            matches!(notices.try_recv(), Err(mpsc::error::TryRecvError::Empty)),
            "its stream is still open"
        );
        assert!(hub.held(None).is_empty(), "not read until stored");
        // Once stored, a request the store does not have is withdrawn: its stream ends.
        hub.stored("r1");
        assert_eq!(hub.held(None), ["r1"]);
        hub.deliver(&*store, None).await;
        assert!(
            matches!(
                notices.try_recv(),
                Err(mpsc::error::TryRecvError::Disconnected)
            ),
            "a withdrawn request's stream ends"
        );
    }

    #[test]
    fn counts_reach_stored_requests_only_and_count_them() {
        let hub = Hub::default();
        let mut notices = hub.add("r1");
        // A pass that read the queue before the insert committed.
        hub.tell_waiting(0);
        assert!(notices.try_recv().is_err(), "not stored yet: not told");
        hub.stored("r1");
        hub.tell_waiting(0);
        assert_eq!(notices.try_recv().unwrap(), Notice::Queued { waiting: 1 });
        hub.tell_waiting(1);
        assert!(notices.try_recv().is_err(), "the same count is told once");
        hub.tell_waiting(3);
        assert_eq!(notices.try_recv().unwrap(), Notice::Queued { waiting: 3 });
    }
}
