//! One task per live game: it owns the table, applies actions one at a time, commits each to
//! the store before anyone hears of it, then broadcasts it to the game's watchers. Games
//! never wait on each other, and within a game there is no lock to get wrong.
//!
//! This module is the actor task: it takes the commands of its mailbox (`handle`: a
//! [`GameHandle`] sends them) one at a time, and keeps the actor's role on this replica (the
//! game's owner, its one writer, or a follower kept up to date from the store) and its clocks:
//! the seat to move's turn clock, seats that forfeited, and an open table's expiry (what to
//! play then is the table's choice: `table`). The owner also plays the table's house bots
//! (`house`): their thinking runs off this task, and their turns come back to it.
//! [`steps`] keeps the log and rebuilds past tables; [`commit`] writes an action.
//!
//! A seat's turn, the one call made at every step of every game, is not a command: its caller
//! takes the actor's state for the time of the turn and plays it on its own task (`handle`),
//! so that a turn costs no hand-over to the actor's task and back (two wake-ups, often of the
//! runtime's other worker). The state is behind an async lock that the task takes for each
//! command and timer, so a turn and a command still happen one at a time. The task looks at
//! the game again after such a turn only when the turn changed what it waits for (a clock
//! that starts or comes sooner, a house bot or a forfeited seat to play, a new status): its
//! [`Plan`].

mod commit;
#[cfg(test)]
pub(crate) mod fixtures;
mod handle;
pub mod steps;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use theboss_engine::{Seat, Turn};
use tokio::sync::{Mutex, Notify, broadcast, mpsc, watch};
use tokio::time::Instant;
use tracing::Instrument;

use crate::domain::{GameInfo, GameStatus, PlayerInfo, now_micros};
use crate::game_error::GameError;
use crate::house::{self, HouseOptions, Thinkers};
use crate::store::coordination::ClusterStore;
use crate::store::{PlayerCaps, Store, StoreError, StoredAction, StoredGame};
use crate::table::{Action, TableError, TableEvent, TableState};
use handle::Command;
pub use handle::{Committed, GameHandle, JoinOutcome, Submit, Subscription};
use steps::StepLog;
pub use steps::{Backlog, Batch, CHECKPOINT, History};

/// What an actor does for its game on this replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Runs the game: its one writer, its clocks.
    Owner,
    /// Mirrors a game another replica runs, or a finished one: answers reads and streams,
    /// kept up to date from the store; refuses writes with [`GameError::Moved`].
    Follower,
}

/// How a live game behaves; shared by every actor.
#[derive(Debug, Clone)]
pub struct ActorOptions {
    /// A game nobody plays or watches (followed, not started, or running without a clock)
    /// is unloaded after this long without commands or watchers.
    pub idle_unload: Duration,
    /// The same for a game that is over: nothing will happen to it any more, and what its
    /// players read once it ended (the last view, the record) they have read by then.
    pub finished_unload: Duration,
    /// How many actions a slow watcher may fall behind before it re-reads what it missed.
    pub watch_buffer: usize,
    /// What one second of a turn clock lasts: one second, except in tests that speed the
    /// clocks up.
    pub clock_second: Duration,
    /// How often a follower with watchers reads the store for actions it was not told of.
    pub follow_poll: Duration,
    /// How long a table may wait to be filled, from its creation: then it expires.
    pub open_ttl: Duration,
    /// How house bots think (`house`).
    pub house: HouseOptions,
}

impl Default for ActorOptions {
    fn default() -> ActorOptions {
        ActorOptions {
            idle_unload: Duration::from_secs(120),
            finished_unload: Duration::from_secs(10),
            // Lagging further re-reads, which is cheap; the channel keeps this many batches
            // (and their tables) of every game alive.
            watch_buffer: 8,
            clock_second: Duration::from_secs(1),
            follow_poll: Duration::from_secs(2),
            open_ttl: Duration::from_secs(3600),
            house: HouseOptions::default(),
        }
    }
}

/// What every actor shares.
#[derive(Clone)]
pub struct Context {
    pub store: Arc<dyn Store>,
    pub options: ActorOptions,
    /// With replicas: where followers read the actions other replicas commit.
    pub cluster: Option<Arc<dyn ClusterStore>>,
    /// Where house bots think.
    pub house: Arc<Thinkers>,
}

impl Context {
    pub fn new(
        store: Arc<dyn Store>,
        options: ActorOptions,
        cluster: Option<Arc<dyn ClusterStore>>,
    ) -> Context {
        Context {
            store,
            house: Thinkers::new(options.house.clone()),
            options,
            cluster,
        }
    }
}

/// A house bot's turn, thought while the actor went on (`house`).
struct HouseTurn {
    /// The log's length when it was asked for: a turn for an older table is dropped.
    actions: usize,
    seat: Seat,
    player_id: String,
    /// None: the strategy failed; the seat's default turn is played.
    turn: Option<Turn>,
}

struct Actor {
    record: Arc<GameInfo>,
    role: watch::Sender<Role>,
    cluster: Option<Arc<dyn ClusterStore>>,
    store: Arc<dyn Store>,
    options: ActorOptions,
    log: StepLog,
    updates: broadcast::Sender<Arc<Batch>>,
    house: Arc<Thinkers>,
    /// The log's length a house bot is thinking for, if one is.
    thinking: Option<usize>,
    /// A write failed after it may have reached the store (the connection died with the
    /// commit sent, a failover): whether it committed is unknown, so the log is read back
    /// from the store before anything else is decided (`settle`), never guessed.
    unsure: bool,
    /// What this actor last wrote to its game's row, and with which action (`commit`).
    row: Option<commit::WrittenRow>,
    /// Where the last step is published for readers (`GameHandle::latest`).
    latest: watch::Sender<Arc<steps::Batch>>,
    /// How many reads of it readers made, and turns its players played: a game read or
    /// played is not idle.
    activity: Arc<AtomicU64>,
    /// What the task's wake-ups were last planned from.
    plan: Plan,
    /// The task stopped (the game unloads): a turn is no longer played here.
    stopped: bool,
}

/// What the actor's task last planned its wake-ups from: the game's status and its clock's
/// deadline (micros) then. A turn played on its caller's task wakes the task only if the game
/// no longer fits it ([`Actor::outgrew_plan`]); a deadline that moved later is found when the
/// earlier one fires ([`Actor::clock_expired`]).
#[derive(Debug, Clone, Copy, Default)]
struct Plan {
    status: GameStatus,
    deadline: Option<i64>,
}

/// Rebuilds a game from the store's record and log, and starts its actor in `role`.
pub fn spawn(stored: StoredGame, context: Context, role: Role) -> Result<GameHandle, StoreError> {
    let Context {
        store,
        options,
        cluster,
        house,
    } = context;
    let (role, watching_role) = watch::channel(role);
    let StoredGame { record, actions } = stored;
    let mut log = StepLog::new(record);
    let record = log.record().clone();
    let clock = Clock::of(&record, &options);
    log.replay(actions, |state, at| clock.deadline(state, at))
        .whole()?;
    let (latest, reading) = watch::channel(log.latest().clone());
    let activity = Arc::new(AtomicU64::new(0));
    let updates = broadcast::channel(options.watch_buffer.max(1)).0;
    let subscribing = updates.downgrade();
    let actor = Actor {
        record: record.clone(),
        role,
        cluster,
        store,
        updates,
        options,
        log,
        house,
        thinking: None,
        unsure: false,
        row: None,
        latest,
        activity: activity.clone(),
        plan: Plan::default(),
        stopped: false,
    };
    let (tx, rx) = mpsc::channel(64);
    // A root span: the actor outlives the call that happened to start it.
    let span = tracing::info_span!(parent: None, "game", game = %actor.record.id);
    // The task holds the state; handles only reach it while the task runs.
    let actor = Arc::new(Mutex::new(actor));
    let shared = Arc::downgrade(&actor);
    let kick = Arc::new(Notify::new());
    tokio::spawn(run(actor, rx, kick.clone()).instrument(span));
    Ok(GameHandle {
        tx,
        role: watching_role,
        record,
        latest: reading,
        activity,
        updates: subscribing,
        actor: shared,
        kick,
    })
}

/// A game's turn clock: when the seat to move is played for.
#[derive(Clone, Copy)]
struct Clock {
    /// Per turn, in micros; None: no clock.
    limit: Option<i64>,
}

impl Clock {
    fn of(record: &GameInfo, options: &ActorOptions) -> Clock {
        let secs = u128::from(record.settings.turn_time_limit_secs());
        Clock {
            limit: (secs > 0).then(|| {
                i64::try_from(secs * options.clock_second.as_micros()).unwrap_or(i64::MAX)
            }),
        }
    }

    /// When the seat to move in `state` is played for, if it is its turn since `at`.
    fn deadline(&self, state: &TableState, at: i64) -> Option<i64> {
        let limit = self.limit?;
        state.to_move().map(|_| at.saturating_add(limit))
    }
}

impl Actor {
    fn owner(&self) -> bool {
        *self.role.borrow() == Role::Owner
    }

    fn set_role(&self, role: Role) {
        let was_owner = self.owner();
        self.role.send_replace(role);
        match (was_owner, self.owner()) {
            (false, true) => crate::metrics::games_owned(1.0),
            (true, false) => crate::metrics::games_owned(-1.0),
            _ => {}
        }
    }

    /// When an open table expires (micros), if this one is open.
    fn expires_at(&self) -> Option<i64> {
        let ttl = i64::try_from(self.options.open_ttl.as_micros()).unwrap_or(i64::MAX);
        (self.log.latest().state.status == GameStatus::Open)
            .then(|| self.record.created_at.saturating_add(ttl))
    }

    /// Whether a turn played on its caller's task changed the game beyond what the task
    /// planned its wake-ups from: it must look at the game again.
    pub(super) fn outgrew_plan(&self) -> bool {
        let latest = self.log.latest();
        let sooner = match (latest.deadline, self.plan.deadline) {
            (Some(due), armed) => armed.is_none_or(|armed| due < armed),
            (None, _) => false,
        };
        latest.state.status != self.plan.status
            || sooner
            || latest.state.forced_action().is_some()
            || self.house_bot_due().is_some()
    }

    async fn handle(&mut self, command: Command) {
        // What the server plays for forfeited seats comes before anything else, a turn played
        // on its caller's task having left some (its wake-up of this task may come second):
        // nobody is answered from a step the server is about to play on from.
        self.play_forced_if_owner().await;
        // A caller that went away does not care about the reply, so send errors are ignored.
        match command {
            Command::Join {
                player,
                seat,
                caps,
                reply,
            } => {
                let _ = reply.send(self.join(player, seat, caps).await);
            }
            Command::Leave { player_id, reply } => {
                let _ = reply.send(self.leave(&player_id).await);
            }
            Command::Latest { reply } => {
                let _ = reply.send(self.log.latest().clone());
            }
            Command::Watch { after_seq, reply } => {
                let _ = reply.send(self.watch(after_seq));
            }
            Command::History { reply } => {
                let _ = reply.send(self.log.history());
            }
            Command::Expire { reply } => {
                let _ = reply.send(match self.writable() {
                    Ok(()) => Ok(self.expire().await),
                    Err(e) => Err(e),
                });
            }
            // An owner writes the log; it has nothing to read.
            Command::Poke { .. } if self.owner() => {}
            Command::Poke { action, last } => {
                let next = self.log.actions() as u64 + 1;
                if let Some(last) = last.filter(|a| a.seq == next) {
                    // The next action, brought by its notification: no need to read it.
                    self.replay(vec![last]);
                } else {
                    self.follow(action).await;
                }
            }
            Command::Promote { reply } => {
                if !self.owner() {
                    // Everything the last owner committed first: its writes end where ours
                    // begin.
                    self.catch_up().await;
                    self.set_role(Role::Owner);
                    tracing::info!(seq = self.log.seq(), "runs the game now");
                }
                let _ = reply.send(());
            }
            Command::Demote { reply } => {
                if self.owner() {
                    self.set_role(Role::Follower);
                    tracing::info!(seq = self.log.seq(), "gave the game up");
                }
                let _ = reply.send(());
            }
        }
    }

    /// Applies actions read from the store, and tells the watchers: of every step applied,
    /// those before an action that does not replay included.
    fn replay(&mut self, actions: Vec<StoredAction>) {
        let clock = Clock::of(&self.record, &self.options);
        let replayed = self
            .log
            .replay(actions, |state, at| clock.deadline(state, at));
        self.publish();
        for batch in replayed.batches {
            // No watchers is fine: they read the log when they subscribe.
            let _ = self.updates.send(batch);
        }
        if let Some(error) = replayed.stopped {
            tracing::warn!(%error, "cannot follow the game");
        }
    }

    /// Publishes the log's last step for readers, if it is not the one they have.
    fn publish(&self) {
        let latest = self.log.latest();
        self.latest.send_if_modified(|published| {
            let new = !Arc::ptr_eq(published, latest);
            if new {
                *published = latest.clone();
            }
            new
        });
    }

    /// A follower reads the actions committed after its own (up to `action`, if it knows).
    async fn follow(&mut self, action: u64) {
        if action <= self.log.actions() as u64 {
            return;
        }
        let Some(cluster) = &self.cluster else { return };
        match cluster
            .actions_after(&self.record.id, self.log.actions() as u64)
            .await
        {
            Ok(actions) => self.replay(actions),
            Err(error) => tracing::warn!(%error, "cannot follow the game"),
        }
    }

    /// Reads every action the store has and this actor does not.
    async fn catch_up(&mut self) {
        match self.store.load_game(&self.record.id).await {
            Ok(Some(stored)) => {
                self.replay(stored.actions);
                tracing::warn!(seq = self.log.seq(), "caught up with the store");
            }
            Ok(None) => tracing::error!("cannot catch up with the store: the game vanished"),
            Err(error) => tracing::error!(%error, "cannot catch up with the store"),
        }
    }

    async fn join(
        &mut self,
        player: PlayerInfo,
        seat: Option<Seat>,
        caps: Option<PlayerCaps>,
    ) -> Result<JoinOutcome, GameError> {
        self.writable()?;
        let state = &self.log.latest().state;
        let seat = state.seat_for(&player.id, seat)?;
        let house_table = state
            .seats
            .iter()
            .flatten()
            .any(crate::domain::is_house_bot);
        // A table's house bots count against the cap of games with house bots, others not.
        let caps = caps.map(|caps| PlayerCaps {
            house: if house_table { caps.house } else { 0 },
            ..caps
        });
        let player_id = player.id.clone();
        self.commit_within(Action::Join { seat, player }, Some(player_id), None, caps)
            .await?;
        Ok(JoinOutcome {
            seat,
            started: self.log.latest().state.game.is_some(),
        })
    }

    /// Gives a seat back before the start; resigns it in a running game (once: resigning
    /// again changes nothing).
    async fn leave(&mut self, player_id: &str) -> Result<(), GameError> {
        self.writable()?;
        let state = &self.log.latest().state;
        let seat = state.seat_of(player_id).ok_or(TableError::NotSeated)?;
        let action = match state.status {
            GameStatus::Running if state.forfeited[usize::from(seat)] => return Ok(()),
            GameStatus::Running => Action::Resign { seat },
            _ => Action::Leave { seat },
        };
        self.commit(action, Some(player_id.to_string()), None)
            .await?;
        // What the resignation forces (its seat's turn, or the end of a game nobody plays
        // any more) is done before the answer, so the caller sees the table it left.
        self.play_forced().await;
        Ok(())
    }

    /// Only the owner writes; a follower sends the caller to it.
    fn writable(&self) -> Result<(), GameError> {
        if self.owner() {
            Ok(())
        } else {
            Err(GameError::Moved)
        }
    }

    fn watch(&self, after_seq: Option<u64>) -> Result<Subscription, GameError> {
        let seq = self.log.seq();
        let backlog = match after_seq {
            Some(after) if after > seq => {
                return Err(GameError::invalid(
                    "after_seq",
                    format!("the game is only at seq {seq}"),
                ));
            }
            Some(after) => self.log.backlog_after(after),
            None => self.log.backlog_after(seq),
        };
        Ok(Subscription {
            backlog: Some(backlog),
            latest: self.log.latest().clone(),
            live: self.updates.subscribe(),
        })
    }

    /// The clock the task set for the seat to move (`armed`) ran out: play its default turn,
    /// unless a turn played since moved the clock on (the task then sets it again).
    async fn clock_expired(&mut self, armed: Option<i64>) {
        if self.log.latest().deadline != armed {
            return;
        }
        let Some(action) = self.log.latest().state.timeout_action() else {
            return;
        };
        let seat = match &action {
            Action::Turn { seat, .. } => *seat,
            _ => return,
        };
        if let Err(error) = self.commit(action, None, None).await {
            // The clock fires again on the next loop, so a store hiccup only delays it.
            tracing::warn!(%error, "cannot play a timed-out turn");
            tokio::time::sleep(Duration::from_secs(1)).await;
        } else {
            tracing::info!(seat, "turn played by timeout");
        }
    }

    /// If a house bot is to move and nobody thinks for it yet, has it think, off this task:
    /// its turn comes back through `house`. Only the owner plays house bots.
    fn ask_house_bot(&mut self, house: &mpsc::Sender<HouseTurn>) {
        let Some((seat, kind)) = self.house_bot_due() else {
            return;
        };
        let latest = self.log.latest();
        let actions = self.log.actions();
        let (Some(game), Some(player)) = (
            latest.state.game.as_ref(),
            latest.state.seats[usize::from(seat)].as_ref(),
        ) else {
            return;
        };
        self.thinking = Some(actions);
        let view = house::view_of(game, seat);
        let seed = house::seed_of(&self.record.id, actions as u64);
        let thinkers = self.house.clone();
        let game_id = self.record.id.clone();
        let principal = thinkers.principal_of(&game_id, &self.record.created_by);
        let player_id = player.id.clone();
        let house = house.clone();
        tokio::spawn(
            async move {
                let turn = thinkers.think(&game_id, &principal, kind, view, seed).await;
                let _ = house
                    .send(HouseTurn {
                        actions,
                        seat,
                        player_id,
                        turn,
                    })
                    .await;
            }
            .in_current_span(),
        );
    }

    /// The seat of a house bot to move and its strategy, if nobody thinks for it yet.
    fn house_bot_due(&self) -> Option<(Seat, theboss_bots::StrategyKind)> {
        let latest = self.log.latest();
        let seat = latest.state.to_move()?;
        let player = latest.state.seats[usize::from(seat)].as_ref()?;
        let kind = house::kind_of(&player.id)?;
        (self.thinking != Some(self.log.actions())).then_some((seat, kind))
    }

    /// Commits a house bot's turn, unless the table moved on meanwhile (its clock ran out, or
    /// this replica stopped running the game).
    async fn play_house_turn(&mut self, house_turn: HouseTurn) {
        let HouseTurn {
            actions,
            seat,
            player_id,
            turn,
        } = house_turn;
        if self.thinking == Some(actions) {
            self.thinking = None;
        }
        if !self.owner() || self.log.actions() != actions {
            return;
        }
        let state = self.log.latest().state.clone();
        let Some(turn) = turn.or_else(|| state.default_turn(seat)) else {
            return;
        };
        let action = Action::Turn {
            seat,
            turn,
            by_timeout: false,
        };
        if let Err(error) = self.commit(action, Some(player_id.clone()), None).await {
            tracing::warn!(%error, seat, "cannot play a house bot's turn");
            // A turn the table refused (a strategy's bug) must not stall the game: the
            // seat's default turn is always legal. A store error is left to be asked again.
            if matches!(error, GameError::Table(_))
                && let Some(turn) = state.default_turn(seat)
            {
                let action = Action::Turn {
                    seat,
                    turn,
                    by_timeout: false,
                };
                let _ = self.commit(action, Some(player_id), None).await;
            }
        }
    }

    /// Aborts an open table whose time ran out; returns whether it did.
    async fn expire(&mut self) -> bool {
        let due = self.expires_at().is_some_and(|at| at <= now_micros());
        let Some(action) = self.log.latest().state.expiry_action().filter(|_| due) else {
            return false;
        };
        match self.commit(action, None, None).await {
            Ok(_) => {
                tracing::info!("an open table expired");
                true
            }
            Err(error) => {
                tracing::warn!(%error, "cannot expire an open table");
                tokio::time::sleep(Duration::from_secs(1)).await;
                false
            }
        }
    }

    /// [`Self::play_forced`], where this replica runs the game.
    async fn play_forced_if_owner(&mut self) {
        if self.owner() {
            self.play_forced().await;
        }
    }

    /// Plays what the table forces at once: for seats that forfeited, and the abort of a
    /// game every seat forfeited.
    async fn play_forced(&mut self) {
        while let Some(action) = self.log.latest().state.forced_action() {
            if let Err(error) = self.commit(action, None, None).await {
                tracing::warn!(%error, "cannot play for a forfeited seat");
                return;
            }
        }
    }

    /// The step an action committed at `at` would add: see [`StepLog::prepare`].
    fn prepare(&self, at: i64, events: Vec<TableEvent>, state: TableState) -> Arc<Batch> {
        let deadline = Clock::of(&self.record, &self.options).deadline(&state, at);
        self.log.prepare(at, events, state, deadline)
    }

    /// Makes a committed action visible, as the step [`Self::prepare`] made of it: logs it
    /// and tells the watchers. Returns its number.
    fn push(&mut self, stored: StoredAction, prepared: Arc<Batch>) -> usize {
        let n = self.log.push_prepared(stored, prepared);
        let batch = self.log.latest().clone();
        tracing::debug!(seq = n, events = batch.events.len(), "action applied");
        self.publish();
        // No watchers is fine: they read the log when they subscribe.
        let _ = self.updates.send(batch);
        n
    }
}

/// The actor's task: takes its commands, house bots' turns and timers one at a time, each
/// with the state's lock, until the game unloads.
async fn run(shared: Arc<Mutex<Actor>>, mut rx: mpsc::Receiver<Command>, kick: Arc<Notify>) {
    let (options, counted) = {
        let actor = shared.lock().await;
        tracing::debug!(seq = actor.log.seq(), role = ?*actor.role.borrow(), "game loaded");
        crate::metrics::game_actors(1.0);
        if actor.owner() {
            crate::metrics::games_owned(1.0);
        }
        (actor.options.clone(), actor.activity.clone())
    };
    let mut idle_since = Instant::now();
    let mut seen = counted.load(Ordering::Relaxed);
    let (house_tx, mut house_rx) = mpsc::channel(1);
    loop {
        let mut actor = shared.lock().await;
        let owner = actor.owner();
        if owner {
            // Seats that forfeited are played for at once; so is a game nobody plays.
            actor.play_forced().await;
            actor.ask_house_bot(&house_tx);
        }
        let latest = actor.log.latest().clone();
        let armed = latest.deadline.filter(|_| owner);
        actor.plan = Plan {
            status: latest.state.status,
            deadline: armed,
        };
        let deadline = armed.map(instant_of);
        let expiry = actor.expires_at().filter(|_| owner).map(instant_of);
        // A game nobody plays now (finished, run by another replica, or waiting for
        // players), or a running game without a clock and with no house bot thinking, is
        // let go when nobody watches it or acts in it for a while: nothing happens to it
        // until a call, which loads it again. While someone watches, look again later:
        // the last watcher leaving sends no command.
        let waits_for_a_call = latest.deadline.is_none() && actor.thinking.is_none();
        let idle = latest.state.status != GameStatus::Running || !owner || waits_for_a_call;
        let unload_after = if latest.state.status.is_over() {
            options.finished_unload
        } else {
            options.idle_unload
        };
        let watched = actor.updates.receiver_count() > 0;
        let unload_at = idle.then(|| {
            if watched {
                Instant::now() + unload_after
            } else {
                idle_since + unload_after
            }
        });
        // A follower with watchers also reads the store now and then, for actions whose
        // notification was lost.
        let poll_at = (!owner && !latest.state.status.is_over() && watched)
            .then(|| Instant::now() + options.follow_poll);
        drop(actor);
        tokio::select! {
            command = rx.recv() => match command {
                Some(command) => {
                    shared.lock().await.handle(command).await;
                    idle_since = Instant::now();
                }
                None => break,
            },
            // A turn played on its caller's task changed what this loop waits for.
            () = kick.notified() => idle_since = Instant::now(),
            Some(turn) = house_rx.recv() => shared.lock().await.play_house_turn(turn).await,
            () = sleep_until(deadline) => shared.lock().await.clock_expired(armed).await,
            () = sleep_until(expiry) => {
                shared.lock().await.expire().await;
            }
            () = sleep_until(poll_at) => shared.lock().await.follow(u64::MAX).await,
            () = sleep_until(unload_at) => {
                let now = counted.load(Ordering::Relaxed);
                let mut actor = shared.lock().await;
                if actor.updates.receiver_count() == 0 && now == seen {
                    // Decided with the lock held: no turn is played after it.
                    actor.stopped = true;
                    break;
                }
                seen = now;
                idle_since = Instant::now();
            }
        }
    }
    let mut actor = shared.lock().await;
    actor.stopped = true;
    tracing::debug!("game unloaded");
    crate::metrics::game_actors(-1.0);
    if actor.owner() {
        crate::metrics::games_owned(-1.0);
    }
}

fn instant_of(micros: i64) -> Instant {
    let wait = micros.saturating_sub(now_micros()).max(0);
    Instant::now() + Duration::from_micros(u64::try_from(wait).unwrap_or(0))
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
