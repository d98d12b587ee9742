//! What replicas of one service share through PostgreSQL, and nothing else: leases on their
//! membership, which replica owns (runs the one actor of) each unfinished game, notifications
//! (`LISTEN`/`NOTIFY`) of committed actions and ladder changes, and one advisory lock that
//! elects the ladder's matchmaker. Only the PostgreSQL store implements it; the embedded
//! SQLite store is always one replica.

use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::{StoreError, StoredAction};

/// A replica as its peers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replica {
    pub id: String,
    /// Where peers forward calls to it.
    pub url: String,
}

/// Who runs a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// A replica whose lease runs.
    Owned(Replica),
    /// Nobody, or a replica whose lease ran out: whoever claims it runs it.
    Orphan,
    /// The game is over: any replica serves it from the store.
    Over,
}

/// What one replica tells the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notification {
    /// A game's actions up to `seq` are committed; the last one comes along (unless it
    /// was too large for a notification), so that a follower need not read it.
    Action {
        game_id: String,
        seq: u64,
        action: Option<Box<StoredAction>>,
    },
    /// The ladder changed (see [`LadderSignal`]).
    Ladder(LadderSignal),
    /// A replica released its games (it is stopping): claim them now.
    Handover,
    /// The listener lost its connection and got it back: notifications may have been lost,
    /// so whoever relies on them should read what it may have missed.
    Resync,
}

/// A change of the ladder, told to every replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LadderSignal {
    /// The queue changed (a request came or went) or a ladder game ended: the matchmaker
    /// looks at it again.
    Changed,
    /// These requests were answered: the replicas holding their streams deliver the answers.
    Answered(Vec<String>),
    /// How many requests wait now, for the waiters' `queued` notices.
    Waiting(u32),
    /// A challenge changed (made, answered, seated, started, withdrawn or expired): each
    /// replica with `Offers` streams of its players reads it once and hands it to them.
    Challenged(String),
    /// Games were arranged for these players: their `Offers` streams read them.
    Arranged(Vec<String>),
    /// Notifications may have been lost (the listener reconnected): every stream reads the
    /// store again.
    Missed,
}

impl LadderSignal {
    /// The signal as a notification's text: `c`, `a:<id>,<id>…`, `w:<n>`, `x:<id>` or
    /// `o:<id>,<id>…`.
    pub fn encode(&self) -> String {
        match self {
            LadderSignal::Changed => "c".to_string(),
            LadderSignal::Answered(ids) => format!("a:{}", ids.join(",")),
            LadderSignal::Waiting(n) => format!("w:{n}"),
            LadderSignal::Challenged(id) => format!("x:{id}"),
            LadderSignal::Arranged(ids) => format!("o:{}", ids.join(",")),
            LadderSignal::Missed => "r".to_string(),
        }
    }

    pub fn decode(text: &str) -> Option<LadderSignal> {
        match text.split_once(':') {
            None if text == "c" || text.is_empty() => Some(LadderSignal::Changed),
            None if text == "r" => Some(LadderSignal::Missed),
            Some(("a", ids)) => Some(LadderSignal::Answered(ids_of(ids))),
            // From a replica of an earlier version too, where it meant "look again".
            Some(("o", ids)) => Some(LadderSignal::Arranged(ids_of(ids))),
            Some(("x", id)) => Some(LadderSignal::Challenged(id.to_string())),
            Some(("w", n)) => n.parse().ok().map(LadderSignal::Waiting),
            _ => None,
        }
    }
}

fn ids_of(list: &str) -> Vec<String> {
    list.split(',')
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect()
}

/// What renewing a lease found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renewal {
    /// The lease ran until it was renewed.
    Held,
    /// The lease had run out: meanwhile the others counted this replica dead and did not
    /// notify it of their commits (it fences, then reads the store, to catch up).
    Lapsed,
    /// This replica's record is gone (it had been declared dead and removed): it must join
    /// again.
    Gone,
}

/// A held leadership; dropping it gives it up.
pub trait Leadership: Send + Sync {
    /// Whether it is still held (its connection is alive).
    fn is_held(&self) -> bool;
}

#[async_trait]
pub trait ClusterStore: Send + Sync + 'static {
    /// Joins as replica `me`: records it with a lease of `lease`, and from now on this
    /// store's writes to a game succeed only while `me` owns it and its lease runs, and the
    /// games it creates are its own.
    async fn join_cluster(&self, me: &Replica, lease: Duration) -> Result<(), StoreError>;

    /// Renews this replica's lease, and says whether it had run out meanwhile.
    async fn renew_lease(&self, lease: Duration) -> Result<Renewal, StoreError>;

    /// Leaves: gives up every game it owns and its membership, and tells the others.
    async fn leave_cluster(&self) -> Result<(), StoreError>;

    /// The replicas whose leases run.
    async fn replicas(&self) -> Result<Vec<Replica>, StoreError>;

    async fn ownership(&self, game_id: &str) -> Result<Option<Ownership>, StoreError>;

    /// Takes an unfinished game nobody runs (or whose owner is dead). `true` if this replica
    /// owns it now.
    async fn claim_game(&self, game_id: &str) -> Result<bool, StoreError>;

    /// Takes up to `limit` unfinished games nobody runs; returns their ids.
    async fn claim_orphans(&self, limit: u32) -> Result<Vec<String>, StoreError>;

    /// The unfinished games this replica owns (e.g. after a restart with the same id).
    async fn owned_games(&self) -> Result<Vec<String>, StoreError>;

    /// Gives up every game this replica owns (before it stops); returns their ids.
    async fn release_games(&self) -> Result<Vec<String>, StoreError>;

    /// A game's actions after `seq`, for a replica that follows a game another one runs.
    async fn actions_after(&self, game_id: &str, seq: u64)
    -> Result<Vec<StoredAction>, StoreError>;

    async fn notify(&self, notification: &Notification) -> Result<(), StoreError>;

    /// Starts listening; notifications arrive on the receiver until it is dropped. Every
    /// action another replica commits after it returns is notified (it fences, see
    /// [`ClusterStore::fence_writes`]): a follower that reads the store afterwards misses none.
    async fn listen(&self) -> Result<mpsc::UnboundedReceiver<Notification>, StoreError>;

    /// Waits until every write that began before now has ended. A commit is notified only
    /// while another replica's lease runs (a replica alone notifies nobody), as seen when the
    /// write began: one that began before this replica joined, or while its lease had run
    /// out, may commit later without a word to it. Once this returns, each such write is in
    /// the store for whoever reads it, and every later one sees this replica.
    async fn fence_writes(&self) -> Result<(), StoreError>;

    /// Tries to become the one holder of `role` in the service (the ladder's matchmaker).
    async fn try_lead(&self, role: &str) -> Result<Option<Box<dyn Leadership>>, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_signals_survive_their_notification_text() {
        for signal in [
            LadderSignal::Changed,
            LadderSignal::Answered(vec!["a".into(), "b".into()]),
            LadderSignal::Answered(vec![]),
            LadderSignal::Waiting(7),
            LadderSignal::Challenged("c1".into()),
            LadderSignal::Arranged(vec!["p1".into(), "p2".into()]),
            LadderSignal::Missed,
        ] {
            assert_eq!(LadderSignal::decode(&signal.encode()), Some(signal));
        }
        assert_eq!(LadderSignal::decode("z:1"), None);
    }
}
