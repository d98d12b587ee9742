//! Where house bots think: a budget of CPU shared fairly, with admission control.
//!
//! - **Fair share.** A bot's turn waits in the queue of its table's principal: the client
//!   address that created the table (or, for a table created before a restart, its creator),
//!   then the creator within that address. The [`HouseOptions::threads`] workers (each with
//!   a thread of its own at a lower priority: [`super::thinker`]) take turns
//!   round robin over the addresses with work waiting, and within an address over its
//!   players, so a principal with a hundred tables waiting costs another principal one think
//!   at most per worker, not a hundred: many accounts behind one address are one principal.
//! - **What an address may hold.** At most [`HouseOptions::thinks_per_address`] turns of one
//!   address wait or run at once; past that a turn is the seat's default turn at once (a
//!   flood's own bots play worse, nobody else's wait longer).
//! - **Admission.** A table is *active* from its admission until it ends, or until its bots
//!   have not thought for [`HouseOptions::active_for`] (its person left it). A new table is admitted only while the active tables are
//!   fewer than the workers can serve (`threads × tables_per_thread`) and its address has
//!   fewer than [`HouseOptions::tables_per_address`]: otherwise its creation is refused, with
//!   how long to wait, rather than every admitted table slowed.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use theboss_bots::StrategyKind;
use theboss_engine::{Turn, View};
use tokio::sync::{Notify, oneshot};

use super::HouseOptions;
use super::thinker::Thinker;

/// Who a table's bots think for: the client address that created the table, if known, and
/// its creator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal {
    pub address: Option<IpAddr>,
    pub player: String,
}

impl Principal {
    /// The outer key of the round robin: the address, or the player where none is known.
    fn bucket(&self) -> Bucket {
        match self.address {
            Some(address) => Bucket::Address(address),
            None => Bucket::Player(self.player.clone()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Bucket {
    Address(IpAddr),
    Player(String),
}

/// Why a new table is not admitted now, and when to ask again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Busy {
    /// `server`, or `peer:<address>`.
    pub subject: String,
    pub limit: u32,
    pub retry_after: Duration,
}

/// One turn to think.
struct Job {
    kind: StrategyKind,
    view: View,
    seed: u64,
    reply: oneshot::Sender<Option<Turn>>,
}

/// One address's (or address-less player's) waiting turns, per player.
#[derive(Default)]
struct Waiting {
    /// Players with turns waiting, in turn order.
    players: VecDeque<String>,
    jobs: HashMap<String, VecDeque<Job>>,
    /// Turns of this bucket waiting or being thought.
    held: usize,
}

#[derive(Default)]
struct State {
    /// Buckets with turns waiting, in turn order.
    turn: VecDeque<Bucket>,
    buckets: HashMap<Bucket, Waiting>,
    /// Tables whose bots thought lately: when last, and for whom.
    active: HashMap<String, (Instant, Principal)>,
}

impl State {
    /// The next turn to think, round robin over buckets, then over their players.
    fn next(&mut self) -> Option<(Bucket, Job)> {
        while let Some(bucket) = self.turn.pop_front() {
            let Some(waiting) = self.buckets.get_mut(&bucket) else {
                continue;
            };
            let Some(player) = waiting.players.pop_front() else {
                continue;
            };
            let queue = waiting
                .jobs
                .get_mut(&player)
                .expect("a player waiting has jobs");
            let job = queue.pop_front().expect("a player waiting has jobs");
            if queue.is_empty() {
                waiting.jobs.remove(&player);
            } else {
                waiting.players.push_back(player);
            }
            if !waiting.players.is_empty() {
                self.turn.push_back(bucket.clone());
            }
            return Some((bucket, job));
        }
        None
    }

    fn done(&mut self, bucket: &Bucket) {
        if let Some(waiting) = self.buckets.get_mut(bucket) {
            waiting.held -= 1;
            if waiting.held == 0 {
                self.buckets.remove(bucket);
            }
        }
    }

    /// Forgets the tables whose bots have not thought within `window`.
    fn expire(&mut self, window: Duration) {
        self.active.retain(|_, (at, _)| at.elapsed() < window);
    }
}

/// The thinking of every house bot on this replica.
pub struct Thinkers {
    options: HouseOptions,
    state: Mutex<State>,
    /// Wakes an idle worker when a turn is queued, and every one when this is dropped.
    work: Arc<Notify>,
}

impl Drop for Thinkers {
    /// The workers hold no strong reference while idle: woken, they find this gone and end,
    /// and their threads with them.
    fn drop(&mut self) {
        self.work.notify_waiters();
    }
}

impl Thinkers {
    /// Starts the workers (on the current Tokio runtime).
    pub fn new(options: HouseOptions) -> Arc<Thinkers> {
        let thinkers = Arc::new(Thinkers {
            options,
            state: Mutex::default(),
            work: Arc::new(Notify::new()),
        });
        for _ in 0..thinkers.options.threads.max(1) {
            let worker = Arc::downgrade(&thinkers);
            let thinker = Thinker::start();
            tokio::spawn(async move {
                loop {
                    let Some(thinkers) = worker.upgrade() else {
                        return;
                    };
                    let next = thinkers.state.lock().expect("not poisoned").next();
                    let Some((bucket, job)) = next else {
                        let work = thinkers.work.clone();
                        drop(thinkers);
                        // Registered before the check that the thinkers live on, so that
                        // neither a turn queued since the look at the queue (its permit)
                        // nor the drop (`notify_waiters`) is missed.
                        let notified = work.notified();
                        tokio::pin!(notified);
                        notified.as_mut().enable();
                        if worker.strong_count() == 0 {
                            return;
                        }
                        notified.await;
                        continue;
                    };
                    let think = thinkers.options.think;
                    let turn = thinker.think(job.kind, job.view, job.seed, think).await;
                    thinkers.state.lock().expect("not poisoned").done(&bucket);
                    let _ = job.reply.send(turn);
                }
            });
        }
        thinkers
    }

    /// Whether a new table of `principal` may be created now; if so it counts as active
    /// from now on (its bots will think soon).
    pub fn admit(&self, game_id: &str, principal: &Principal) -> Result<(), Busy> {
        let mut state = self.state.lock().expect("not poisoned");
        state.expire(self.options.active_for);
        let capacity = self.options.threads.max(1) * self.options.tables_per_thread;
        let retry_after = self.options.active_for / 4;
        if capacity > 0 && state.active.len() >= capacity {
            return Err(Busy {
                subject: "server".into(),
                limit: u32::try_from(capacity).unwrap_or(u32::MAX),
                retry_after,
            });
        }
        let per_address = self.options.tables_per_address;
        if let Some(address) = principal.address
            && per_address > 0
            && state
                .active
                .values()
                .filter(|(_, p)| p.address == Some(address))
                .count()
                >= per_address
        {
            return Err(Busy {
                subject: format!("peer:{address}"),
                limit: u32::try_from(per_address).unwrap_or(u32::MAX),
                retry_after,
            });
        }
        state
            .active
            .insert(game_id.to_string(), (Instant::now(), principal.clone()));
        Ok(())
    }

    /// Forgets a table: admitted but not created after all, or ended.
    pub fn forget(&self, game_id: &str) {
        self.state
            .lock()
            .expect("not poisoned")
            .active
            .remove(game_id);
    }

    /// Who a table's bots think for: as admitted, or its creator for a table admitted before
    /// this process started.
    pub fn principal_of(&self, game_id: &str, creator: &str) -> Principal {
        let state = self.state.lock().expect("not poisoned");
        match state.active.get(game_id) {
            Some((_, principal)) => principal.clone(),
            None => Principal {
                address: None,
                player: creator.to_string(),
            },
        }
    }

    /// The turn a house bot of `kind` plays from `view` (its seat's, with its legal turns),
    /// once its principal's turn comes round and a worker is free. None if the strategy
    /// failed (it panicked) or the principal already holds as much thinking as it may: the
    /// caller then plays the seat's default turn.
    pub async fn think(
        &self,
        game_id: &str,
        principal: &Principal,
        kind: StrategyKind,
        view: View,
        seed: u64,
    ) -> Option<Turn> {
        let asked = Instant::now();
        let (reply, answer) = oneshot::channel();
        {
            let mut state = self.state.lock().expect("not poisoned");
            state
                .active
                .insert(game_id.to_string(), (Instant::now(), principal.clone()));
            let bucket = principal.bucket();
            let waiting = state.buckets.entry(bucket.clone()).or_default();
            if waiting.held >= self.options.thinks_per_address.max(1) {
                drop(state);
                crate::logs::client_event(
                    "house_bot_thinking_capped",
                    "a house bot's turn was played by default: its address holds as much thinking as it may",
                );
                return None;
            }
            waiting.held += 1;
            if !waiting.jobs.contains_key(&principal.player) {
                waiting.players.push_back(principal.player.clone());
            }
            waiting
                .jobs
                .entry(principal.player.clone())
                .or_default()
                .push_back(Job {
                    kind,
                    view,
                    seed,
                    reply,
                });
            if !state.turn.contains(&bucket) {
                state.turn.push_back(bucket);
            }
        }
        self.work.notify_one();
        let turn = answer.await.ok().flatten();
        crate::metrics::house_bot_thought(kind.name(), asked.elapsed());
        turn
    }

    /// Turns waiting or being thought (for tests).
    #[cfg(test)]
    fn held(&self) -> usize {
        let state = self.state.lock().expect("not poisoned");
        state.buckets.values().map(|w| w.held).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::{Game, GameConfig, Viewer};

    fn principal(address: u8, player: &str) -> Principal {
        Principal {
            address: Some([10, 0, 0, address].into()),
            player: player.into(),
        }
    }

    fn view() -> View {
        let game = Game::new(&GameConfig::new(4, 3)).unwrap();
        game.view(Viewer::Seat(game.to_move().unwrap()))
    }

    /// Dropped, the thinkers' workers end (and their threads with them): a server stopped
    /// and started again in one process does not leave them behind.
    #[test]
    fn dropped_thinkers_end_their_workers() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let thinkers = Thinkers::new(HouseOptions {
                threads: 3,
                ..HouseOptions::default()
            });
            let alive = || {
                tokio::runtime::Handle::current()
                    .metrics()
                    .num_alive_tasks()
            };
            // One turn thought, so each worker has been idle and woken at least once.
            let turn = thinkers
                .think("t", &principal(1, "p"), StrategyKind::Random, view(), 1)
                .await;
            assert!(turn.is_some());
            for _ in 0..10 {
                tokio::task::yield_now().await;
            }
            assert_eq!(alive(), 3, "the workers wait");
            drop(thinkers);
            for _ in 0..100 {
                if alive() == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            assert_eq!(alive(), 0, "every worker ended");
        });
    }

    /// One worker, a 30 ms search: the flood's six turns are asked first, the victim's
    /// after them; the victim's is thought second or third, not seventh.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flood_of_turns_from_one_address_costs_another_one_turn_at_most() {
        let thinkers = Thinkers::new(HouseOptions {
            think: Duration::from_millis(30),
            threads: 1,
            ..HouseOptions::default()
        });
        let done = Arc::new(Mutex::new(Vec::new()));
        let mut asks = Vec::new();
        for i in 0..6 {
            let (thinkers, done) = (thinkers.clone(), done.clone());
            // Six accounts, one address.
            let who = principal(1, &format!("flood {i}"));
            asks.push(tokio::spawn(async move {
                thinkers
                    .think(&format!("f{i}"), &who, StrategyKind::Ismcts, view(), i)
                    .await;
                done.lock().unwrap().push(format!("flood {i}"));
            }));
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let (victim, record) = (thinkers.clone(), done.clone());
        asks.push(tokio::spawn(async move {
            victim
                .think(
                    "v",
                    &principal(2, "victim"),
                    StrategyKind::Ismcts,
                    view(),
                    9,
                )
                .await;
            record.lock().unwrap().push("victim".into());
        }));
        for ask in asks {
            ask.await.unwrap();
        }
        let order = done.lock().unwrap().clone();
        let at = order.iter().position(|w| w == "victim").unwrap();
        assert!(at <= 2, "the victim's turn came {}th: {order:?}", at + 1);
        assert_eq!(thinkers.held(), 0, "nothing left behind");
    }

    #[tokio::test]
    async fn an_address_holds_a_bounded_amount_of_thinking() {
        let thinkers = Thinkers::new(HouseOptions {
            think: Duration::from_millis(200),
            threads: 1,
            thinks_per_address: 2,
            ..HouseOptions::default()
        });
        let flood = principal(1, "flood");
        let held: Vec<_> = (0..2)
            .map(|i| {
                let (thinkers, flood) = (thinkers.clone(), flood.clone());
                tokio::spawn(async move {
                    thinkers
                        .think(&format!("t{i}"), &flood, StrategyKind::Ismcts, view(), i)
                        .await
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let started = Instant::now();
        let third = thinkers
            .think("t3", &flood, StrategyKind::Ismcts, view(), 3)
            .await;
        assert_eq!(third, None, "played by default");
        assert!(started.elapsed() < Duration::from_millis(100), "at once");
        for h in held {
            assert!(h.await.unwrap().is_some());
        }
    }

    #[tokio::test]
    async fn tables_are_admitted_within_the_capacity_and_an_addresss_share() {
        let thinkers = Thinkers::new(HouseOptions {
            threads: 2,
            tables_per_thread: 2,
            tables_per_address: 3,
            active_for: Duration::from_millis(300),
            ..HouseOptions::default()
        });
        for i in 0..3 {
            thinkers
                .admit(&format!("a{i}"), &principal(1, "a"))
                .unwrap();
        }
        let busy = thinkers.admit("a3", &principal(1, "b")).unwrap_err();
        assert_eq!(
            busy.subject, "peer:10.0.0.1",
            "another account, the same address"
        );
        thinkers.admit("b0", &principal(2, "c")).unwrap();
        let busy = thinkers.admit("c0", &principal(3, "d")).unwrap_err();
        assert_eq!((busy.subject.as_str(), busy.limit), ("server", 4));
        assert!(busy.retry_after > Duration::ZERO);
        // Tables whose bots stopped thinking stop counting.
        tokio::time::sleep(Duration::from_millis(350)).await;
        thinkers.admit("c0", &principal(3, "d")).unwrap();
        assert_eq!(
            thinkers.principal_of("c0", "d"),
            principal(3, "d"),
            "its bots think for whom it was admitted"
        );
        assert_eq!(thinkers.principal_of("old", "e").address, None);
    }
}
