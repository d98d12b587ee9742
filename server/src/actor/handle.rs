//! The actor's mailbox as its callers see it: a [`GameHandle`] turns each call into a
//! [`Command`] and waits for the actor's answer, and the values the answers carry. The actor
//! task (`actor`) takes the commands one at a time. Reading the game's last step is
//! mostly no command: the actor publishes each step, and a handle reads it there. A seat's
//! turn is no command either: the handle takes the actor's state and plays it on the
//! caller's task ([`GameHandle::submit`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use theboss_engine::{Seat, Turn};
use tokio::sync::{Mutex, Notify, broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;

use super::steps::{Backlog, Batch, History};
use super::{Actor, Role};
use crate::domain::{GameInfo, PlayerInfo};
use crate::finishing::Finishing;
use crate::game_error::GameError;
use crate::store::{PlayerCaps, StoredAction};

/// An action the actor committed, for the seat that asked for it.
#[derive(Debug, Clone)]
pub struct Committed {
    pub batch: Arc<Batch>,
    pub seat: Seat,
}

/// What a watcher starts from: the batches after its `after_seq` (none, for a snapshot), the
/// latest, and a receiver for what comes next, with no batch lost between them.
pub struct Subscription {
    /// The batches after `after_seq`; `None` for a snapshot, which needs none.
    pub backlog: Option<Backlog>,
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

pub(super) enum Command {
    Join {
        player: PlayerInfo,
        seat: Option<Seat>,
        /// A player's own request: what its seat is checked against.
        caps: Option<PlayerCaps>,
        reply: oneshot::Sender<Result<JoinOutcome, GameError>>,
    },
    Leave {
        player_id: String,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    Latest {
        reply: oneshot::Sender<Arc<Batch>>,
    },
    Watch {
        after_seq: Option<u64>,
        reply: oneshot::Sender<Result<Subscription, GameError>>,
    },
    History {
        reply: oneshot::Sender<History>,
    },
    /// An open table whose time ran out is aborted (the expiry sweep found it).
    Expire {
        reply: oneshot::Sender<Result<bool, GameError>>,
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

/// A cheap, cloneable address of a game's actor.
#[derive(Clone)]
pub struct GameHandle {
    pub(super) tx: mpsc::Sender<Command>,
    pub(super) role: watch::Receiver<Role>,
    pub(super) record: Arc<GameInfo>,
    /// The game's last step, published by the actor before it answers for it.
    pub(super) latest: watch::Receiver<Arc<Batch>>,
    /// Reads of `latest` and turns played so far: the actor keeps a game that is read or
    /// played loaded, as it keeps one that is watched.
    pub(super) activity: Arc<AtomicU64>,
    /// Where the actor sends each step, to subscribe without asking it. Weak: the channel
    /// closes when the actor stops, which tells its watchers the game was unloaded.
    pub(super) updates: broadcast::WeakSender<Arc<Batch>>,
    /// The actor's state, where a turn is played on its caller's task. Weak: the actor's
    /// task holds it, and it goes with the task.
    pub(super) actor: Weak<Mutex<Actor>>,
    /// Wakes the actor's task when a turn played here changed what it waits for.
    pub(super) kick: Arc<Notify>,
}

impl GameHandle {
    pub fn role(&self) -> Role {
        *self.role.borrow()
    }

    /// The game's record (settings, seed, series), fixed for its life.
    pub fn record(&self) -> &Arc<GameInfo> {
        &self.record
    }

    /// Tells a follower the store has new actions; never waits (a follower also polls).
    pub fn poke(&self, action: u64, last: Option<StoredAction>) {
        let _ = self.tx.try_send(Command::Poke { action, last });
    }

    /// Makes the actor the game's owner; returns once it is.
    pub async fn promote(&self) -> Result<(), GameError> {
        self.ask(|reply| Command::Promote { reply }).await
    }

    /// Makes the actor stop writing; returns once it has (its last write is finished).
    pub async fn demote(&self) -> Result<(), GameError> {
        self.ask(|reply| Command::Demote { reply }).await
    }

    /// Whether the actor has stopped (e.g. unloaded after the game ended).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    async fn ask<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, GameError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(command(reply))
            .await
            .map_err(|_| GameError::Unavailable)?;
        rx.await.map_err(|_| GameError::Unavailable)
    }

    /// Seats a player the server seats (a ladder's, a tournament's): no cap of the player's
    /// is checked, the rules of those games bound them.
    pub async fn join(
        &self,
        player: PlayerInfo,
        seat: Option<Seat>,
    ) -> Result<JoinOutcome, GameError> {
        self.ask(|reply| Command::Join {
            player,
            seat,
            caps: None,
            reply,
        })
        .await?
    }

    /// Seats a player at its own request, within `caps` (the house cap counts only at a
    /// table with house bots), checked in the store with the seat's write.
    pub async fn join_within(
        &self,
        player: PlayerInfo,
        seat: Option<Seat>,
        caps: PlayerCaps,
    ) -> Result<JoinOutcome, GameError> {
        self.ask(|reply| Command::Join {
            player,
            seat,
            caps: Some(caps),
            reply,
        })
        .await?
    }

    pub async fn leave(&self, player_id: String) -> Result<(), GameError> {
        self.ask(|reply| Command::Leave { player_id, reply })
            .await?
    }

    /// Plays a seat's turn on the caller's task, one at a time with the actor's commands
    /// (see `actor`): answered once the action is committed and broadcast. A caller that
    /// goes away midway leaves the turn to finish on a task of its own, as the actor's own
    /// task would have: an action being written is committed, logged and told to the
    /// watchers all the same.
    pub async fn submit(&self, submit: Submit) -> Result<Committed, GameError> {
        let asked = Instant::now();
        let actor = self.actor.upgrade().ok_or(GameError::Unavailable)?;
        self.activity.fetch_add(1, Ordering::Relaxed);
        let kick = self.kick.clone();
        let committed = Finishing::new(async move {
            let mut actor = actor.lock_owned().await;
            if actor.stopped {
                // The game unloaded meanwhile: the caller loads it again.
                return Err(GameError::Unavailable);
            }
            // As before a command: nothing is decided from a step the server is about to
            // play on from (a forfeited seat's turn).
            actor.play_forced_if_owner().await;
            let committed = actor.submit(submit).await;
            let look = actor.outgrew_plan();
            drop(actor);
            if look {
                kick.notify_one();
            }
            committed
        })
        .await?;
        crate::metrics::action_broadcast(asked.elapsed());
        Ok(committed)
    }

    /// The game's last step. Where this replica runs the game, it is read where the actor
    /// publishes it, not through its mailbox, so a read waits for no turn in the queue and
    /// costs the actor nothing; a step is published before anyone is answered for it, so a
    /// read after an acknowledged action sees it. A step after which the server must play
    /// for a seat that forfeited is not the game's news yet: that read asks the actor, which
    /// answers once it has played. So does a read of a game another replica runs (its
    /// actor answers after the store reads it has been told to make).
    pub async fn latest(&self) -> Result<Arc<Batch>, GameError> {
        if self.latest.has_changed().is_err() {
            // The actor stopped (unloaded): the caller loads the game again.
            return Err(GameError::Unavailable);
        }
        self.activity.fetch_add(1, Ordering::Relaxed);
        let latest = self.latest.borrow().clone();
        if self.role() == Role::Owner && latest.state.forced_action().is_none() {
            return Ok(latest);
        }
        self.ask(|reply| Command::Latest { reply }).await
    }

    /// A watcher's start. A snapshot's is taken here, without a turn in the actor's mailbox
    /// where the game runs on this replica and its last step is its news (a flood of new
    /// watchers waits for no actor, nor holds its calls meanwhile): the receiver first, then
    /// the last step read as [`GameHandle::latest`] reads it (which asks the actor otherwise).
    /// The actor publishes a step before it sends it, so a step is either in that last step
    /// or on the receiver (or both, and the watcher skips what it already has). A backlog
    /// after `after_seq` is the actor's to take.
    pub async fn watch(&self, after_seq: Option<u64>) -> Result<Subscription, GameError> {
        if after_seq.is_some() {
            return self
                .ask(|reply| Command::Watch { after_seq, reply })
                .await?;
        }
        let live = self
            .updates
            .upgrade()
            .ok_or(GameError::Unavailable)?
            .subscribe();
        let latest = self.latest().await?;
        // An actor that stopped meanwhile (unloaded while idle) sends nothing more: the caller
        // loads the game again, as for any stopped actor.
        if live.is_closed() {
            return Err(GameError::Unavailable);
        }
        Ok(Subscription {
            backlog: None,
            latest,
            live,
        })
    }

    pub async fn history(&self) -> Result<History, GameError> {
        self.ask(|reply| Command::History { reply }).await
    }

    /// Aborts the game if it is an open table whose time ran out; returns whether it did.
    pub async fn expire(&self) -> Result<bool, GameError> {
        self.ask(|reply| Command::Expire { reply }).await?
    }
}
