//! Group commit. The simple appends of many games (an action that rates no game: one action
//! row, the seat it takes or leaves or the seats of the game it ends, and the game's row if
//! something kept there changes) that arrive while earlier ones are being written are
//! committed together, in one transaction, so that a commit's fixed cost (a round trip, a
//! write-ahead-log flush, an fsync) is paid once for all of them.
//!
//! Nothing waits to be grouped: an append that finds a lane free is written at once, by its
//! own caller on the caller's task (no hand-over to a writer task and back: on an idle
//! server a commit costs the round trip and nothing more); groups form only while every lane
//! is busy, from the appends that queued meanwhile, and the lane that frees first writes
//! them on a task of its own. Every append is answered only once the transaction holding it
//! has committed. If a group fails, its appends are written again one by one, so that each
//! gets its own answer (a conflict on one game's action number is that game's error, not its
//! neighbours'). A writer may also refuse some appends (a replica that does not own their
//! games any more, see `store::coordination`): those are answered [`StoreError::NotOwner`],
//! the rest committed.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tracing::Instrument;

use super::StoreError;
use crate::finishing::Finishing;

/// One action to append, ready for its columns.
#[derive(Debug, Clone)]
pub(super) struct Append {
    pub game_id: String,
    pub seq: i64,
    pub player_id: Option<String>,
    pub idempotency_key: Option<String>,
    pub format: i32,
    pub payload: String,
    pub at: i64,
    /// The game's status, winners, money and seats that acted after it.
    pub status: &'static str,
    pub winners: String,
    pub money: String,
    pub acted: String,
    /// The game's row already holds this status, winners, money and acted
    /// (`Effects::row_unchanged`): the write leaves it alone.
    pub row_unchanged: bool,
    pub seating: Seating,
}

/// What an action does to its game's seats (the `seats` rows that list a player's games).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Seating {
    Unchanged,
    Takes {
        seat: i64,
        player_id: String,
    },
    Leaves {
        seat: i64,
    },
    /// The game is over: its seats no longer count among their players' live seats, and
    /// say when it finished (`None` for a game aborted).
    Over {
        finished_at: Option<i64>,
    },
}

impl Seating {
    /// The seat taken and by whom, if any.
    pub fn taken(&self) -> (Option<i64>, Option<&str>) {
        match self {
            Seating::Takes { seat, player_id } => (Some(*seat), Some(player_id)),
            _ => (None, None),
        }
    }

    /// The seat left, if any.
    pub fn left(&self) -> Option<i64> {
        match self {
            Seating::Leaves { seat } => Some(*seat),
            _ => None,
        }
    }

    /// Whether the game ends, and when it finished.
    pub fn over(&self) -> (bool, Option<i64>) {
        match self {
            Seating::Over { finished_at } => (true, *finished_at),
            _ => (false, None),
        }
    }
}

type Pending = (Append, oneshot::Sender<Result<(), StoreError>>);

/// The games whose appends a writer refused (it does not own them).
pub(super) type Refused = Vec<String>;

/// How a group is written: one transaction.
type Write =
    dyn Fn(Arc<[Append]>) -> BoxFuture<'static, Result<Refused, sqlx::Error>> + Send + Sync;

/// The queue of appends and the lanes that write them.
pub(super) struct GroupCommit {
    shared: Arc<Shared>,
}

struct Shared {
    queue: Mutex<VecDeque<Pending>>,
    /// One permit per lane: who holds one writes groups from the queue.
    lanes: Arc<Semaphore>,
    max_group: usize,
    write: Box<Write>,
}

/// The group a lane writes: the appends, then who waits for each.
type Group = (Arc<[Append]>, Vec<oneshot::Sender<Result<(), StoreError>>>);

impl GroupCommit {
    /// Writes with `lanes` groups at a time, each of at most `max_group` appends, in one
    /// transaction, with `write`.
    pub fn start<W, F>(lanes: usize, max_group: usize, write: W) -> GroupCommit
    where
        W: Fn(Arc<[Append]>) -> F + Send + Sync + 'static,
        F: Future<Output = Result<Refused, sqlx::Error>> + Send + 'static,
    {
        GroupCommit {
            shared: Arc::new(Shared {
                queue: Mutex::new(VecDeque::new()),
                lanes: Arc::new(Semaphore::new(lanes.max(1))),
                max_group: max_group.max(1),
                write: Box::new(move |appends| Box::pin(write(appends))),
            }),
        }
    }

    /// Appends one action; returns once it is committed.
    pub async fn append(&self, append: Append) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.shared.queue().push_back((append, reply));
        if let Ok(permit) = self.shared.lanes.clone().try_acquire_owned() {
            // A lane is free: this caller writes, its own append and whatever queued with it.
            let lane = Lane::new(&self.shared, permit);
            let group = self.shared.take_group();
            // In a span of its own: the group may hold other games' appends than the caller's.
            let span = tracing::info_span!(parent: None, "group_commit");
            // A caller dropped midway (its task cancelled) does not strand the appends it
            // carries: the write goes on on a task of its own, and each of them is answered.
            Finishing::new(
                async move {
                    if !group.0.is_empty() {
                        commit_group(&*lane.shared.write, group).await;
                    }
                    drop(lane);
                }
                .instrument(span),
            )
            .await;
        }
        answer.await.map_err(|_| StoreError::Closed)?
    }
}

impl Shared {
    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Pending>> {
        // The queue is only pushed to and popped from: a panic elsewhere cannot leave it
        // half-changed.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next group: the first appends queued, at most `max_group` of them.
    fn take_group(&self) -> Group {
        let mut queue = self.queue();
        let n = queue.len().min(self.max_group);
        let (appends, replies): (Vec<Append>, Vec<_>) = queue.drain(..n).unzip();
        (appends.into(), replies)
    }

    /// Called by whoever frees a lane: appends that queued while every lane was busy are
    /// written by a task of their own, which writes group after group until none waits. An
    /// append queued after the last group was taken finds the lane free itself, or is seen
    /// here (it was queued before its caller tried for a lane, and that failed only while
    /// the lane was still held).
    fn drain_if_waiting(self: &Arc<Self>) {
        if self.queue().is_empty() {
            return;
        }
        let Ok(permit) = self.lanes.clone().try_acquire_owned() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // No runtime: the process is ending, and the waiting callers with it.
            return;
        };
        let lane = Lane::new(self, permit);
        let span = tracing::info_span!(parent: None, "group_commit");
        runtime.spawn(
            async move {
                loop {
                    let group = lane.shared.take_group();
                    if group.0.is_empty() {
                        break;
                    }
                    commit_group(&*lane.shared.write, group).await;
                }
            }
            .instrument(span),
        );
    }
}

/// A lane held: released however its holder ends (done, dropped, or unwinding from a
/// panic in a write), and then the appends that queued meanwhile are seen to.
struct Lane {
    shared: Arc<Shared>,
    permit: Option<OwnedSemaphorePermit>,
}

impl Lane {
    fn new(shared: &Arc<Shared>, permit: OwnedSemaphorePermit) -> Lane {
        Lane {
            shared: shared.clone(),
            permit: Some(permit),
        }
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        drop(self.permit.take());
        self.shared.drain_if_waiting();
    }
}

fn answer(append: &Append, refused: &Refused) -> Result<(), StoreError> {
    if refused.contains(&append.game_id) {
        Err(StoreError::NotOwner {
            game_id: append.game_id.clone(),
        })
    } else {
        Ok(())
    }
}

async fn commit_group(write: &Write, (appends, replies): Group) {
    // A caller that went away does not mind: its action is committed all the same.
    match write(appends.clone()).await {
        Ok(refused) => {
            for (append, reply) in appends.iter().zip(replies) {
                let _ = reply.send(answer(append, &refused));
            }
        }
        Err(error) if appends.len() == 1 => {
            if let Some(reply) = replies.into_iter().next() {
                let _ = reply.send(Err(as_store_error(error, &appends[0])));
            }
        }
        Err(error) => {
            tracing::debug!(%error, appends = appends.len(), "a group failed; writing it one by one");
            for (append, reply) in appends.iter().zip(replies) {
                let result = match write(Arc::from([append.clone()])).await {
                    Ok(refused) => answer(append, &refused),
                    Err(e) => Err(as_store_error(e, append)),
                };
                let _ = reply.send(result);
            }
        }
    }
}

fn as_store_error(error: sqlx::Error, append: &Append) -> StoreError {
    match &error {
        sqlx::Error::Database(e) if e.is_unique_violation() => StoreError::Conflict {
            game_id: append.game_id.clone(),
            seq: u64::try_from(append.seq).unwrap_or(0),
        },
        _ => StoreError::Database(error),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;

    fn append(game: &str) -> Append {
        Append {
            game_id: game.to_string(),
            seq: 1,
            player_id: None,
            idempotency_key: None,
            format: 1,
            payload: String::new(),
            at: 0,
            status: "running",
            winners: String::new(),
            money: String::new(),
            acted: String::new(),
            row_unchanged: false,
            seating: Seating::Unchanged,
        }
    }

    type Written = std::pin::Pin<Box<dyn Future<Output = Result<Refused, sqlx::Error>> + Send>>;
    type Groups = Arc<Mutex<Vec<Vec<String>>>>;

    /// A writer that takes 20 ms, remembers each group, and fails any group holding "bad".
    fn recording() -> (
        Groups,
        impl Fn(Arc<[Append]>) -> Written + Send + Sync + 'static,
    ) {
        let groups = Arc::new(Mutex::new(Vec::new()));
        let seen = groups.clone();
        let write = move |appends: Arc<[Append]>| {
            let seen = seen.clone();
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let ids: Vec<String> = appends.iter().map(|a| a.game_id.clone()).collect();
                assert!(!ids.iter().any(|id| id == "panics"), "a writer's bug");
                let bad = ids.iter().any(|id| id == "bad");
                seen.lock().unwrap().push(ids.clone());
                if bad {
                    Err(sqlx::Error::Protocol("a bad row".into()))
                } else {
                    // Games called "moved" are not this writer's any more.
                    Ok(ids.into_iter().filter(|id| id == "moved").collect())
                }
            }) as Written
        };
        (groups, write)
    }

    // Paused time: the clock moves only when every task waits, so the 5 ms and 20 ms
    // below order events exactly, whatever the machine's load.
    #[tokio::test(start_paused = true)]
    async fn appends_that_queue_behind_a_busy_lane_commit_together() {
        let (groups, write) = recording();
        let group = Arc::new(GroupCommit::start(1, 256, write));
        let mut tasks = Vec::new();
        for i in 0..10 {
            let group = group.clone();
            tasks.push(tokio::spawn(async move {
                group.append(append(&format!("g{i}"))).await
            }));
            // The first finds the lane free; the others arrive while it is written.
            if i == 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        let sizes: Vec<usize> = groups.lock().unwrap().iter().map(Vec::len).collect();
        assert_eq!(
            sizes,
            vec![1, 9],
            "alone at once, then the rest in one group"
        );
    }

    /// An append on a task of its own.
    fn appending(
        group: &Arc<GroupCommit>,
        game: &'static str,
    ) -> tokio::task::JoinHandle<Result<(), StoreError>> {
        let group = group.clone();
        tokio::spawn(async move { group.append(append(game)).await })
    }

    /// Its answer, if it comes within a second (of paused time: the writer is not slow).
    async fn answered(
        task: tokio::task::JoinHandle<Result<(), StoreError>>,
    ) -> Result<(), StoreError> {
        tokio::time::timeout(Duration::from_secs(1), task)
            .await
            .expect("answered within a second")
            .expect("no panic")
    }

    #[tokio::test(start_paused = true)]
    async fn a_caller_cancelled_while_it_writes_leaves_its_group_written_and_the_lane_free() {
        let (groups, write) = recording();
        let group = Arc::new(GroupCommit::start(1, 256, write));
        let leader = appending(&group, "cancelled");
        tokio::time::sleep(Duration::from_millis(5)).await;
        let behind = appending(&group, "behind");
        tokio::time::sleep(Duration::from_millis(5)).await;
        leader.abort();
        assert!(leader.await.unwrap_err().is_cancelled());
        answered(behind)
            .await
            .expect("the append queued behind is written");
        assert_eq!(
            *groups.lock().unwrap(),
            vec![vec!["cancelled"], vec!["behind"]],
            "the cancelled caller's write finished, then the lane took the next"
        );
        // The lane is free again: an append alone is written at once.
        group.append(append("later")).await.unwrap();
        assert_eq!(groups.lock().unwrap().len(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_write_that_panics_frees_its_lane_for_the_appends_behind_it() {
        let (groups, write) = recording();
        let group = Arc::new(GroupCommit::start(1, 256, write));
        let panicking = appending(&group, "panics");
        tokio::time::sleep(Duration::from_millis(5)).await;
        let behind = appending(&group, "behind");
        assert!(panicking.await.unwrap_err().is_panic());
        answered(behind)
            .await
            .expect("the append queued behind is written");
        tokio::time::timeout(Duration::from_secs(1), group.append(append("later")))
            .await
            .expect("the lane is free again")
            .unwrap();
        assert_eq!(*groups.lock().unwrap(), vec![vec!["behind"], vec!["later"]]);
    }

    #[tokio::test(start_paused = true)]
    async fn appends_a_writer_refuses_are_answered_not_owner() {
        let (_, write) = recording();
        let group = GroupCommit::start(1, 256, write);
        assert!(group.append(append("kept")).await.is_ok());
        assert!(matches!(
            group.append(append("moved")).await,
            Err(StoreError::NotOwner { game_id }) if game_id == "moved"
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_group_is_written_again_one_by_one() {
        let (groups, write) = recording();
        let group = Arc::new(GroupCommit::start(1, 256, write));
        let mut tasks = Vec::new();
        for (i, name) in ["first", "a", "bad", "b"].into_iter().enumerate() {
            let group = group.clone();
            tasks.push(tokio::spawn(
                async move { group.append(append(name)).await },
            ));
            if i == 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap().is_ok());
        }
        assert_eq!(
            results,
            vec![true, true, false, true],
            "only the bad one fails"
        );
        let groups = groups.lock().unwrap().clone();
        assert_eq!(groups[1], vec!["a", "bad", "b"]);
        assert_eq!(groups[2..], [vec!["a"], vec!["bad"], vec!["b"]]);
    }
}
