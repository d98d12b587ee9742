//! One task per live game: it owns the table, applies actions one at a time, commits each to
//! the store before anyone hears of it, then broadcasts it to the game's watchers. Games
//! never wait on each other, and within a game there is no lock to get wrong.
//!
//! The actor keeps one step per action: the events it caused, and the table right after it
//! for the latest action and every [`CHECKPOINT`]-th one (a game's memory stays a few tables,
//! not one per action). Watchers, idempotent retries and histories read [`Batch`]es, a step
//! with its table, rebuilt from the nearest checkpoint and the log when needed; nothing else
//! is shared.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use theboss_engine::{Seat, Turn, Viewer};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;
use tracing::Instrument;

use crate::domain::{GameRecord, PlayerInfo, Status, now_micros};
use crate::error::ApiError;
use crate::rating;
use crate::store::cluster::ClusterStore;
use crate::store::{Effects, Store, StoreError, StoredAction, StoredGame};
use crate::table::{Action, TableError, TableEvent, TableState};

/// Every this many actions the actor keeps the table, so any earlier one is a few actions'
/// replay away.
pub const CHECKPOINT: usize = 16;

/// One action's outcome, shared with every watcher.
#[derive(Debug)]
pub struct Batch {
    /// The number of events before this batch; its events are `seq_before + 1 ..`.
    pub seq_before: u64,
    pub events: Arc<[TableEvent]>,
    /// When the action was committed (micros).
    pub at: i64,
    pub record: Arc<GameRecord>,
    /// The table right after the action.
    pub state: Arc<TableState>,
    /// When the seat to move will be played for (micros), if the game has a clock.
    pub deadline: Option<i64>,
}

impl Batch {
    pub fn seq_after(&self) -> u64 {
        self.seq_before + self.events.len() as u64
    }

    /// The events a viewer may see, numbered; `reveal_all` once the game is over.
    pub fn visible_events(
        &self,
        viewer: Viewer,
        reveal_all: bool,
    ) -> impl Iterator<Item = (u64, &TableEvent)> {
        numbered(self.seq_before, &self.events, viewer, reveal_all)
    }
}

fn numbered(
    seq_before: u64,
    events: &[TableEvent],
    viewer: Viewer,
    reveal_all: bool,
) -> impl Iterator<Item = (u64, &TableEvent)> {
    (seq_before + 1..)
        .zip(events)
        .filter(move |(_, e)| e.visible_to(viewer, reveal_all))
}

/// One action as the log shows it: its events and when it was committed.
#[derive(Debug, Clone)]
pub struct Logged {
    pub seq_before: u64,
    pub events: Arc<[TableEvent]>,
    pub at: i64,
}

impl Logged {
    /// The events a viewer may see, numbered; `reveal_all` once the game is over.
    pub fn visible_events(
        &self,
        viewer: Viewer,
        reveal_all: bool,
    ) -> impl Iterator<Item = (u64, &TableEvent)> {
        numbered(self.seq_before, &self.events, viewer, reveal_all)
    }
}

/// A game's whole log, and the table now.
#[derive(Debug, Clone)]
pub struct History {
    pub log: Vec<Logged>,
    pub latest: Arc<Batch>,
}

/// What the actor remembers of one action.
struct Step {
    logged: Logged,
    deadline: Option<i64>,
    /// The table after it: kept for the latest action and every [`CHECKPOINT`]-th.
    state: Option<Arc<TableState>>,
}

/// An action the actor committed, for the seat that asked for it.
#[derive(Debug, Clone)]
pub struct Committed {
    pub batch: Arc<Batch>,
    pub seat: Seat,
}

/// What a watcher starts from: the batches after its `after_seq` (or only the latest, for a
/// snapshot), and a receiver for what comes next. Both are taken at the same moment.
pub struct Subscription {
    pub backlog: Vec<Arc<Batch>>,
    pub latest: Arc<Batch>,
    pub live: broadcast::Receiver<Arc<Batch>>,
}

#[derive(Debug, Clone)]
pub struct Submit {
    pub player_id: String,
    pub expected_seq: u64,
    pub idempotency_key: String,
    pub turn: Turn,
}

pub struct JoinOutcome {
    pub seat: Seat,
    pub started: bool,
}

/// What an actor does for its game on this replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Runs the game: its one writer, its turn clock.
    Owner,
    /// Mirrors a game another replica runs, or a finished one: answers reads and streams,
    /// kept up to date from the store; refuses writes with [`ApiError::Moved`].
    Follower,
}

enum Command {
    Join {
        player: PlayerInfo,
        seat: Option<Seat>,
        reply: oneshot::Sender<Result<JoinOutcome, ApiError>>,
    },
    Leave {
        player_id: String,
        reply: oneshot::Sender<Result<(), ApiError>>,
    },
    Submit {
        submit: Submit,
        reply: oneshot::Sender<Result<Committed, ApiError>>,
    },
    Latest {
        reply: oneshot::Sender<Arc<Batch>>,
    },
    Watch {
        after_seq: Option<u64>,
        reply: oneshot::Sender<Result<Subscription, ApiError>>,
    },
    History {
        reply: oneshot::Sender<History>,
    },
    /// The store has the game's actions up to number `action` (a follower reads them),
    /// the last one being `last` if the notification brought it.
    Poke {
        action: u64,
        last: Option<StoredAction>,
    },
    /// Becomes the game's owner (this replica just claimed it).
    Promote {
        reply: oneshot::Sender<()>,
    },
    /// Stops writing (this replica gives the game up); goes on as a follower.
    Demote {
        reply: oneshot::Sender<()>,
    },
}

/// How a live game behaves; shared by every actor.
#[derive(Debug, Clone)]
pub struct ActorOptions {
    /// A finished game's actor stops after this long without commands or watchers.
    pub idle_unload: Duration,
    /// How many actions a slow watcher may fall behind before it re-reads from the actor.
    pub watch_buffer: usize,
    /// What one second of a turn clock lasts: one second, except in tests that speed the
    /// clocks up.
    pub clock_second: Duration,
    /// How often a follower with watchers reads the store for actions it was not told of.
    pub follow_poll: Duration,
}

impl Default for ActorOptions {
    fn default() -> ActorOptions {
        ActorOptions {
            idle_unload: Duration::from_secs(120),
            // Lagging further re-reads from the actor, which is cheap; the channel keeps
            // this many batches (and their tables) of every game alive.
            watch_buffer: 8,
            clock_second: Duration::from_secs(1),
            follow_poll: Duration::from_secs(2),
        }
    }
}

/// A cheap, cloneable address of a game's actor.
#[derive(Clone)]
pub struct GameHandle {
    tx: mpsc::Sender<Command>,
    role: watch::Receiver<Role>,
}

impl GameHandle {
    pub fn role(&self) -> Role {
        *self.role.borrow()
    }

    /// Tells a follower the store has new actions; never waits (a follower also polls).
    pub fn poke(&self, action: u64, last: Option<StoredAction>) {
        let _ = self.tx.try_send(Command::Poke { action, last });
    }

    /// Makes the actor the game's owner; returns once it is.
    pub async fn promote(&self) -> Result<(), ApiError> {
        self.ask(|reply| Command::Promote { reply }).await
    }

    /// Makes the actor stop writing; returns once it has (its last write is finished).
    pub async fn demote(&self) -> Result<(), ApiError> {
        self.ask(|reply| Command::Demote { reply }).await
    }

    /// Whether the actor has stopped (e.g. unloaded after the game ended).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    async fn ask<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, ApiError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(command(reply))
            .await
            .map_err(|_| ApiError::Unavailable)?;
        rx.await.map_err(|_| ApiError::Unavailable)
    }

    pub async fn join(
        &self,
        player: PlayerInfo,
        seat: Option<Seat>,
    ) -> Result<JoinOutcome, ApiError> {
        self.ask(|reply| Command::Join {
            player,
            seat,
            reply,
        })
        .await?
    }

    pub async fn leave(&self, player_id: String) -> Result<(), ApiError> {
        self.ask(|reply| Command::Leave { player_id, reply })
            .await?
    }

    pub async fn submit(&self, submit: Submit) -> Result<Committed, ApiError> {
        let asked = Instant::now();
        let committed = self
            .ask(|reply| Command::Submit { submit, reply })
            .await??;
        // The actor answers right after it broadcast the action.
        crate::metrics::action_broadcast(asked.elapsed());
        Ok(committed)
    }

    pub async fn latest(&self) -> Result<Arc<Batch>, ApiError> {
        self.ask(|reply| Command::Latest { reply }).await
    }

    pub async fn watch(&self, after_seq: Option<u64>) -> Result<Subscription, ApiError> {
        self.ask(|reply| Command::Watch { after_seq, reply })
            .await?
    }

    pub async fn history(&self) -> Result<History, ApiError> {
        self.ask(|reply| Command::History { reply }).await
    }
}

/// What every actor shares.
#[derive(Clone)]
pub struct Context {
    pub store: Arc<dyn Store>,
    pub options: ActorOptions,
    /// Told the id of every ladder game that ends, for the matchmaker.
    pub ladder_game_over: Option<mpsc::UnboundedSender<String>>,
    /// With replicas: where followers read the actions other replicas commit.
    pub cluster: Option<Arc<dyn ClusterStore>>,
}

struct Actor {
    record: Arc<GameRecord>,
    role: watch::Sender<Role>,
    cluster: Option<Arc<dyn ClusterStore>>,
    store: Arc<dyn Store>,
    options: ActorOptions,
    ladder_game_over: Option<mpsc::UnboundedSender<String>>,
    /// `steps[0]` is the empty table at creation; `steps[i]` follows action `i`.
    steps: Vec<Step>,
    /// The latest batch, whole.
    latest: Arc<Batch>,
    actions: Vec<StoredAction>,
    /// (player, idempotency key) → action number.
    keys: HashMap<(String, String), usize>,
    updates: broadcast::Sender<Arc<Batch>>,
}

/// Rebuilds a game from the store's record and log, and starts its actor in `role`.
pub fn spawn(stored: StoredGame, context: Context, role: Role) -> Result<GameHandle, StoreError> {
    let Context {
        store,
        options,
        ladder_game_over,
        cluster,
    } = context;
    let (role, watching_role) = watch::channel(role);
    let StoredGame { record, actions } = stored;
    let record = Arc::new(record);
    let state = Arc::new(TableState::new(&record.settings));
    let created = Logged {
        seq_before: 0,
        events: Arc::from(Vec::new()),
        at: record.created_at,
    };
    let mut actor = Actor {
        latest: Arc::new(Batch {
            seq_before: 0,
            events: created.events.clone(),
            at: created.at,
            record: record.clone(),
            state: state.clone(),
            deadline: None,
        }),
        steps: vec![Step {
            logged: created,
            deadline: None,
            state: Some(state),
        }],
        record,
        role,
        cluster,
        store,
        ladder_game_over,
        actions: Vec::with_capacity(actions.len()),
        keys: HashMap::new(),
        updates: broadcast::channel(options.watch_buffer.max(1)).0,
        options,
    };
    actor.replay(actions)?;
    let (tx, rx) = mpsc::channel(64);
    // A root span: the actor outlives the call that happened to start it.
    let span = tracing::info_span!(parent: None, "game", game = %actor.record.id);
    tokio::spawn(actor.run(rx).instrument(span));
    Ok(GameHandle {
        tx,
        role: watching_role,
    })
}

impl Actor {
    fn latest(&self) -> &Arc<Batch> {
        &self.latest
    }

    /// The batches of steps `from..`, their tables rebuilt from the nearest checkpoint.
    fn batches_from(&self, from: usize) -> Vec<Arc<Batch>> {
        let from = from.min(self.steps.len());
        let base = (0..=from)
            .rev()
            .find(|&i| i < self.steps.len() && self.steps[i].state.is_some())
            .unwrap_or(0);
        let mut state = self.steps[base]
            .state
            .clone()
            .expect("a checkpoint keeps its table");
        let mut batches = Vec::with_capacity(self.steps.len() - from);
        for i in base..self.steps.len() {
            if i > base {
                state = match &self.steps[i].state {
                    Some(kept) => kept.clone(),
                    None => {
                        let mut next = (*state).clone();
                        // The log replayed once already: it replays the same again.
                        let _ = next.apply(&self.record, &self.actions[i - 1].action);
                        Arc::new(next)
                    }
                };
            }
            if i >= from {
                let step = &self.steps[i];
                batches.push(Arc::new(Batch {
                    seq_before: step.logged.seq_before,
                    events: step.logged.events.clone(),
                    at: step.logged.at,
                    record: self.record.clone(),
                    state: state.clone(),
                    deadline: step.deadline,
                }));
            }
        }
        batches
    }

    fn seq(&self) -> u64 {
        self.latest().seq_after()
    }

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

    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        tracing::debug!(seq = self.seq(), role = ?*self.role.borrow(), "game loaded");
        crate::metrics::game_actors(1.0);
        if self.owner() {
            crate::metrics::games_owned(1.0);
        }
        let mut idle_since = Instant::now();
        loop {
            let owner = self.owner();
            if owner {
                // Seats that forfeited are played for at once; so is a game nobody plays.
                self.play_for_absent_seats().await;
            }
            let deadline = self.latest().deadline.filter(|_| owner).map(instant_of);
            // A finished game, or one another replica runs, is let go when nobody watches.
            // While someone does, look again later: the last watcher leaving sends no
            // command, and nothing else may ever wake a finished game.
            let unload_at = (self.latest().state.status.is_over() || !owner).then(|| {
                if self.updates.receiver_count() == 0 {
                    idle_since + self.options.idle_unload
                } else {
                    Instant::now() + self.options.idle_unload
                }
            });
            // A follower with watchers also reads the store now and then, for actions whose
            // notification was lost.
            let poll_at = (!owner
                && !self.latest().state.status.is_over()
                && self.updates.receiver_count() > 0)
                .then(|| Instant::now() + self.options.follow_poll);
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => {
                        self.handle(command).await;
                        idle_since = Instant::now();
                    }
                    None => break,
                },
                () = sleep_until(deadline) => self.clock_expired().await,
                () = sleep_until(poll_at) => self.follow(u64::MAX).await,
                () = sleep_until(unload_at) => {
                    if self.updates.receiver_count() == 0 {
                        break;
                    }
                    idle_since = Instant::now();
                }
            }
        }
        tracing::debug!("game unloaded");
        crate::metrics::game_actors(-1.0);
        if self.owner() {
            crate::metrics::games_owned(-1.0);
        }
    }

    async fn handle(&mut self, command: Command) {
        // A caller that went away does not care about the reply, so send errors are ignored.
        match command {
            Command::Join {
                player,
                seat,
                reply,
            } => {
                let _ = reply.send(self.join(player, seat).await);
            }
            Command::Leave { player_id, reply } => {
                let _ = reply.send(self.leave(&player_id).await);
            }
            Command::Submit { submit, reply } => {
                let _ = reply.send(self.submit(submit).await);
            }
            Command::Latest { reply } => {
                let _ = reply.send(self.latest().clone());
            }
            Command::Watch { after_seq, reply } => {
                let _ = reply.send(self.watch(after_seq));
            }
            Command::History { reply } => {
                let _ = reply.send(History {
                    log: self.steps.iter().map(|s| s.logged.clone()).collect(),
                    latest: self.latest.clone(),
                });
            }
            // An owner writes the log; it has nothing to read.
            Command::Poke { .. } if self.owner() => {}
            Command::Poke { action, last } => {
                if let Some(last) = last.filter(|a| a.seq == self.actions.len() as u64 + 1) {
                    // The next action, brought by its notification: no need to read it.
                    if let Err(error) = self.replay(vec![last]) {
                        tracing::warn!(%error, "cannot follow the game");
                    }
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
                    tracing::info!(seq = self.seq(), "runs the game now");
                }
                let _ = reply.send(());
            }
            Command::Demote { reply } => {
                if self.owner() {
                    self.set_role(Role::Follower);
                    tracing::info!(seq = self.seq(), "gave the game up");
                }
                let _ = reply.send(());
            }
        }
    }

    /// A follower reads the actions committed after its own (up to `action`, if it knows).
    async fn follow(&mut self, action: u64) {
        if action <= self.actions.len() as u64 {
            return;
        }
        let Some(cluster) = &self.cluster else { return };
        let after = self.actions.len() as u64;
        let result = match cluster.actions_after(&self.record.id, after).await {
            Ok(actions) => self.replay(actions),
            Err(e) => Err(e),
        };
        if let Err(error) = result {
            tracing::warn!(%error, "cannot follow the game");
        }
    }

    async fn join(
        &mut self,
        player: PlayerInfo,
        seat: Option<Seat>,
    ) -> Result<JoinOutcome, ApiError> {
        self.writable()?;
        let seat = self.latest().state.seat_for(&player.id, seat)?;
        let player_id = player.id.clone();
        self.commit(Action::Join { seat, player }, Some(player_id), None)
            .await?;
        Ok(JoinOutcome {
            seat,
            started: self.latest().state.game.is_some(),
        })
    }

    async fn leave(&mut self, player_id: &str) -> Result<(), ApiError> {
        self.writable()?;
        let seat = self
            .latest()
            .state
            .seat_of(player_id)
            .ok_or(TableError::NotSeated)?;
        self.commit(Action::Leave { seat }, Some(player_id.to_string()), None)
            .await?;
        Ok(())
    }

    /// Only the owner writes; a follower sends the caller to it.
    fn writable(&self) -> Result<(), ApiError> {
        if self.owner() {
            Ok(())
        } else {
            Err(ApiError::Moved)
        }
    }

    async fn submit(&mut self, submit: Submit) -> Result<Committed, ApiError> {
        let seat = self
            .latest()
            .state
            .seat_of(&submit.player_id)
            .ok_or(TableError::NotSeated)?;
        let action = Action::Turn {
            seat,
            turn: submit.turn,
            by_timeout: false,
        };
        let key = (!submit.idempotency_key.is_empty()).then_some(submit.idempotency_key);
        let earlier = key
            .as_ref()
            .and_then(|key| self.keys.get(&(submit.player_id.clone(), key.clone())));
        if let Some(&n) = earlier {
            if self.actions[n - 1].action != action {
                return Err(ApiError::invalid(
                    "idempotency_key",
                    "already used for a different action",
                ));
            }
            return Ok(self.committed(n, seat));
        }
        self.writable()?;
        if submit.expected_seq != self.seq() {
            return Err(ApiError::Stale {
                expected: submit.expected_seq,
                current: self.seq(),
            });
        }
        let n = self.commit(action, Some(submit.player_id), key).await?;
        Ok(self.committed(n, seat))
    }

    fn committed(&self, n: usize, seat: Seat) -> Committed {
        let batch = if n + 1 == self.steps.len() {
            self.latest.clone()
        } else {
            self.batches_from(n).swap_remove(0)
        };
        Committed { batch, seat }
    }

    fn watch(&self, after_seq: Option<u64>) -> Result<Subscription, ApiError> {
        let seq = self.seq();
        let backlog = match after_seq {
            Some(after) if after > seq => {
                return Err(ApiError::invalid(
                    "after_seq",
                    format!("the game is only at seq {seq}"),
                ));
            }
            Some(after) => {
                let first = self
                    .steps
                    .iter()
                    .position(|s| s.logged.seq_before + s.logged.events.len() as u64 > after)
                    .unwrap_or(self.steps.len());
                self.batches_from(first)
            }
            None => Vec::new(),
        };
        Ok(Subscription {
            backlog,
            latest: self.latest().clone(),
            live: self.updates.subscribe(),
        })
    }

    /// The clock of the seat to move ran out: play its default turn.
    async fn clock_expired(&mut self) {
        let state = self.latest().state.clone();
        let Some(seat) = state.to_move() else { return };
        let Some(turn) = state.default_turn(seat) else {
            return;
        };
        let action = Action::Turn {
            seat,
            turn,
            by_timeout: true,
        };
        if let Err(error) = self.commit(action, None, None).await {
            // The clock fires again on the next loop, so a store hiccup only delays it.
            tracing::warn!(%error, "cannot play a timed-out turn");
            tokio::time::sleep(Duration::from_secs(1)).await;
        } else {
            tracing::info!(seat, "turn played by timeout");
        }
    }

    /// Plays at once for seats that forfeited, and aborts a game every seat forfeited.
    async fn play_for_absent_seats(&mut self) {
        loop {
            let state = self.latest().state.clone();
            let Some(seat) = state.to_move() else { return };
            if !state.forfeited[usize::from(seat)] {
                return;
            }
            let action = if state.forfeited.iter().all(|f| *f) {
                Action::Abort {
                    reason: "nobody is playing: every seat forfeited".into(),
                }
            } else {
                match state.default_turn(seat) {
                    Some(turn) => Action::Turn {
                        seat,
                        turn,
                        by_timeout: true,
                    },
                    None => return,
                }
            };
            if let Err(error) = self.commit(action, None, None).await {
                tracing::warn!(%error, "cannot play for a forfeited seat");
                return;
            }
        }
    }

    /// Tries an action on a copy of the table, commits it, then makes it visible. Returns the
    /// action's number. On error nothing has changed.
    async fn commit(
        &mut self,
        action: Action,
        player_id: Option<String>,
        idempotency_key: Option<String>,
    ) -> Result<usize, ApiError> {
        let mut next = (*self.latest().state).clone();
        let events = next.apply(&self.record, &action)?;
        let stored = StoredAction {
            seq: self.actions.len() as u64 + 1,
            action,
            player_id,
            idempotency_key,
            at: now_micros(),
        };
        let mut effects = Effects {
            status: next.status,
            winners: next.winners(),
            ..Effects::default()
        };
        if next.status == Status::Finished {
            effects.money = next.money();
            effects.rated = self.rated(&next).await?;
        }
        if let Err(error) = self
            .store
            .append_action(&self.record.id, &stored, &effects)
            .await
        {
            match error {
                StoreError::Conflict { .. } => {
                    // The store is ahead of this actor: a commit whose answer was lost, or
                    // another server. Catch up, and let the caller decide again from the new
                    // view.
                    self.catch_up().await;
                }
                StoreError::NotOwner { .. } => {
                    // Another replica runs the game now (this one's lease ran out, or it
                    // gave the game up): follow it, and send the caller there.
                    self.set_role(Role::Follower);
                    tracing::warn!("another replica runs the game now");
                    return Err(ApiError::Moved);
                }
                _ => {}
            }
            return Err(error.into());
        }
        let timed_out = matches!(
            stored.action,
            Action::Turn {
                by_timeout: true,
                ..
            }
        );
        let was_forfeited = self.latest().state.forfeited.iter().filter(|f| **f).count();
        let forfeited = next.forfeited.iter().filter(|f| **f).count();
        crate::metrics::action_committed(timed_out, forfeited.saturating_sub(was_forfeited));
        Ok(self.push(stored, events, next))
    }

    /// What the end of this game rates, if it is a ladder game: its result, or its series'.
    async fn rated(&self, finished: &TableState) -> Result<Option<rating::Rated>, StoreError> {
        if !self.record.ladder {
            return Ok(None);
        }
        let earlier = match &self.record.series {
            Some(series) => self.store.series_games(&series.id).await?,
            None => Vec::new(),
        };
        Ok(rating::rated_outcome(&self.record, finished, &earlier))
    }

    /// Applies logged actions after the ones this actor has (given the whole log, or only
    /// its end).
    fn replay(&mut self, actions: Vec<StoredAction>) -> Result<(), StoreError> {
        let known = self.actions.len() as u64;
        for stored in actions.into_iter().filter(|a| a.seq > known) {
            let expected = self.actions.len() as u64 + 1;
            if stored.seq != expected {
                return Err(StoreError::Corrupt(format!(
                    "game {}: action {} where {expected} was expected",
                    self.record.id, stored.seq
                )));
            }
            let mut next = (*self.latest().state).clone();
            let events = next.apply(&self.record, &stored.action).map_err(|e| {
                StoreError::Corrupt(format!(
                    "game {}: action {} does not replay: {e}",
                    self.record.id, stored.seq
                ))
            })?;
            self.push(stored, events, next);
        }
        Ok(())
    }

    async fn catch_up(&mut self) {
        let result = match self.store.load_game(&self.record.id).await {
            Ok(Some(stored)) => self.replay(stored.actions),
            Ok(None) => Err(StoreError::Corrupt(format!(
                "game {} vanished",
                self.record.id
            ))),
            Err(e) => Err(e),
        };
        match result {
            Ok(()) => tracing::warn!(seq = self.seq(), "caught up with the store"),
            Err(error) => tracing::error!(%error, "cannot catch up with the store"),
        }
    }

    fn push(&mut self, stored: StoredAction, events: Vec<TableEvent>, state: TableState) -> usize {
        let limit = u128::from(self.record.settings.turn_time_limit_secs());
        let deadline = (limit > 0 && state.to_move().is_some()).then(|| {
            let micros = limit * self.options.clock_second.as_micros();
            stored
                .at
                .saturating_add(i64::try_from(micros).unwrap_or(i64::MAX))
        });
        let was_over = self.latest().state.status.is_over();
        let ended = state.status.is_over() && !was_over && self.owner();
        if let (true, true, Some(tx)) = (ended, self.record.ladder, &self.ladder_game_over) {
            // The matchmaker may have stopped with the server: nothing to tell then.
            let _ = tx.send(self.record.id.clone());
        }
        let logged = Logged {
            seq_before: self.seq(),
            events: Arc::from(events),
            at: stored.at,
        };
        let state = Arc::new(state);
        let batch = Arc::new(Batch {
            seq_before: logged.seq_before,
            events: logged.events.clone(),
            at: logged.at,
            record: self.record.clone(),
            state: state.clone(),
            deadline,
        });
        let n = usize::try_from(stored.seq).expect("fits");
        tracing::debug!(seq = n, events = batch.events.len(), "action applied");
        if let (Some(player), Some(key)) = (&stored.player_id, &stored.idempotency_key) {
            self.keys.insert((player.clone(), key.clone()), n);
        }
        self.actions.push(stored);
        // The table before this action is needed no more, unless it is a checkpoint.
        let previous = self.steps.len() - 1;
        if !previous.is_multiple_of(CHECKPOINT) {
            self.steps[previous].state = None;
        }
        self.steps.push(Step {
            logged,
            deadline,
            state: Some(state),
        });
        self.latest = batch.clone();
        // No watchers is fine: they read the batches when they subscribe.
        let _ = self.updates.send(batch);
        n
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

#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::domain::{Settings, Visibility};
    use crate::store::NewPlayer;

    /// Two registered players, `p0` and `p1`.
    pub async fn two_players(store: &dyn Store) -> Vec<PlayerInfo> {
        let players: Vec<PlayerInfo> = (0..2)
            .map(|i| PlayerInfo {
                id: format!("p{i}"),
                display_name: format!("P{i}"),
                is_bot: true,
            })
            .collect();
        for p in &players {
            store
                .create_player(&NewPlayer {
                    player: p.clone(),
                    token_hash: p.id.clone(),
                    created_at: 0,
                })
                .await
                .unwrap();
        }
        players
    }

    /// A stored, unstarted 2-player game with its actor, and two registered players.
    pub async fn two_player_game(
        store: Arc<dyn Store>,
        options: ActorOptions,
    ) -> (GameHandle, Vec<PlayerInfo>) {
        let players = two_players(&*store).await;
        let record = GameRecord {
            id: "g".into(),
            settings: Settings::new(2, vec![], 0, Visibility::Public).unwrap(),
            seed: 5,
            created_by: "p0".into(),
            created_at: 0,
            ladder: false,
            series: None,
            seed_salt: None,
        };
        store.create_game(&record).await.unwrap();
        let game = spawn(
            StoredGame {
                record,
                actions: vec![],
            },
            Context {
                store,
                options,
                ladder_game_over: None,
                cluster: None,
            },
            Role::Owner,
        )
        .unwrap();
        (game, players)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Settings, Visibility};

    #[tokio::test]
    async fn a_clock_that_ran_out_while_the_server_was_down_fires_on_restart() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let players = fixtures::two_players(&*store).await;
        // A game with a 10-second clock whose last action was committed a minute ago.
        let long_ago = now_micros() - 60_000_000;
        let record = GameRecord {
            id: "g".into(),
            settings: Settings::new(2, vec![], 10, Visibility::Public).unwrap(),
            seed: 9,
            created_by: "p0".into(),
            created_at: long_ago,
            ladder: false,
            series: None,
            seed_salt: None,
        };
        store.create_game(&record).await.unwrap();
        let actions: Vec<StoredAction> = players
            .iter()
            .enumerate()
            .map(|(i, p)| StoredAction {
                seq: i as u64 + 1,
                action: Action::Join {
                    seat: i as u8,
                    player: p.clone(),
                },
                player_id: Some(p.id.clone()),
                idempotency_key: None,
                at: long_ago,
            })
            .collect();
        for a in &actions {
            store
                .append_action("g", a, &Effects::default())
                .await
                .unwrap();
        }
        let stored = store.load_game("g").await.unwrap().unwrap();
        let game = spawn(
            stored,
            Context {
                store,
                options: ActorOptions::default(),
                ladder_game_over: None,
                cluster: None,
            },
            Role::Owner,
        )
        .unwrap();
        let mut latest = game.latest().await.unwrap();
        for _ in 0..100 {
            if latest.state.timeouts_in_a_row.iter().any(|&t| t > 0) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            latest = game.latest().await.unwrap();
        }
        assert_eq!(
            latest.state.timeouts_in_a_row.iter().sum::<u32>(),
            1,
            "the overdue turn is played at once, and the next seat gets a fresh clock"
        );
        assert!(latest.deadline.unwrap() > now_micros());
    }

    /// The actor keeps few tables; every batch it rebuilds is the table the log gives.
    #[tokio::test]
    async fn rebuilt_batches_are_the_tables_of_the_log() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) =
            fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
        for p in &players {
            game.join(p.clone(), None).await.unwrap();
        }
        loop {
            let latest = game.latest().await.unwrap();
            let Some(seat) = latest.state.to_move() else {
                break;
            };
            let turn = latest.state.default_turn(seat).unwrap();
            game.submit(Submit {
                player_id: players[usize::from(seat)].id.clone(),
                expected_seq: latest.seq_after(),
                idempotency_key: format!("k{}", latest.seq_after()),
                turn,
            })
            .await
            .unwrap();
        }
        let stored = store.load_game("g").await.unwrap().unwrap();
        assert!(
            stored.actions.len() > 2 * CHECKPOINT,
            "{} actions",
            stored.actions.len()
        );
        let mut table = TableState::new(&stored.record.settings);
        let mut expected = vec![format!("{table:?}")];
        for action in &stored.actions {
            table.apply(&stored.record, &action.action).unwrap();
            expected.push(format!("{table:?}"));
        }
        let backlog = game.watch(Some(0)).await.unwrap().backlog;
        let rebuilt: Vec<String> = backlog.iter().map(|b| format!("{:?}", b.state)).collect();
        assert_eq!(
            rebuilt,
            expected[1..],
            "every action's table, from the checkpoints"
        );
        // An idempotent retry of an early action answers with that action's batch.
        let seat = stored.actions[4].player_id.clone().unwrap();
        let early = Submit {
            player_id: seat,
            expected_seq: 0,
            idempotency_key: stored.actions[4].idempotency_key.clone().unwrap(),
            turn: match stored.actions[4].action {
                Action::Turn { turn, .. } => turn,
                _ => panic!("a turn"),
            },
        };
        let again = game.submit(early).await.unwrap();
        assert_eq!(format!("{:?}", again.batch.state), expected[5]);
    }

    #[tokio::test]
    async fn an_actor_behind_its_store_catches_up_and_answers_aborted() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) =
            fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
        for p in &players {
            game.join(p.clone(), None).await.unwrap();
        }
        let latest = game.latest().await.unwrap();
        let seat = latest.state.to_move().unwrap();
        let turn = latest.state.default_turn(seat).unwrap();
        // Another writer commits the next action behind the actor's back.
        let mut next = (*latest.state).clone();
        next.apply(
            &latest.record,
            &Action::Turn {
                seat,
                turn,
                by_timeout: false,
            },
        )
        .unwrap();
        store
            .append_action(
                "g",
                &StoredAction {
                    seq: 3,
                    action: Action::Turn {
                        seat,
                        turn,
                        by_timeout: false,
                    },
                    player_id: Some(players[usize::from(seat)].id.clone()),
                    idempotency_key: Some("theirs".into()),
                    at: now_micros(),
                },
                &Effects {
                    status: next.status,
                    winners: vec![],
                    ..Effects::default()
                },
            )
            .await
            .unwrap();
        let submit = Submit {
            player_id: players[usize::from(seat)].id.clone(),
            expected_seq: latest.seq_after(),
            idempotency_key: "mine".into(),
            turn,
        };
        let refused = game.submit(submit.clone()).await.unwrap_err();
        assert!(
            matches!(
                refused,
                ApiError::Store(StoreError::Conflict { seq: 3, .. })
            ),
            "{refused}"
        );
        let caught_up = game.latest().await.unwrap();
        assert!(caught_up.seq_after() > latest.seq_after());
        assert_eq!(caught_up.state.to_move(), next.to_move());
        // The stale request is now refused as stale, and the other writer's key is known.
        assert!(matches!(
            game.submit(submit).await,
            Err(ApiError::Stale { .. })
        ));
        let theirs = Submit {
            player_id: players[usize::from(seat)].id.clone(),
            expected_seq: 0,
            idempotency_key: "theirs".into(),
            turn,
        };
        assert_eq!(
            game.submit(theirs).await.unwrap().batch.seq_after(),
            caught_up.seq_after()
        );
    }
}
