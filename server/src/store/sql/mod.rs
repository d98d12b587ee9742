//! The one implementation of the store over both SQL backends: [`SqlStore`], generic over the
//! backend's [`Backend`] (PostgreSQL or SQLite), runs the same statements, written with `$n`
//! placeholders that both accept, in one module per domain: [`players`], [`games`] (and the
//! lobby's [`listing`]),
//! [`ratings`] and [`ladder`]. [`rows`] decodes what they read. A backend brings its pool, its
//! migrations, its group commit (`group`: how many games' turns are written at once) and a
//! few statements of its own ([`Backend`]).
//!
//! Each domain module implements its part of the store for `SqlStore<DB>` under the same
//! `where` clause: what the shared statements need from a backend (executors for its pool
//! and its connections, and the column types they bind and read: integers, reals, booleans,
//! text, and nullable text and integers). Both backends meet it; the compiler checks each
//! statement's binds and reads against it. The clause is written out in each module because
//! Rust does not carry bounds on other types (`&mut DB::Connection`, `i64`, …) through a
//! supertrait: no "backend" trait could name it once.

pub(super) mod arranged;
pub(super) mod games;
pub(super) mod listing;
pub(super) mod players;
pub(super) mod queue;
pub(super) mod ratings;
pub(super) mod rows;

use std::sync::{Arc, OnceLock};

use sqlx::{Database, Pool};

use super::coordination::Replica;
use super::group::GroupCommit;

/// What differs between the backends beyond their pools.
pub trait Backend: Database {
    /// How a transaction that reads and then writes begins (SQLite takes the database's write
    /// lock at once, so what it read is still true when it writes).
    const BEGIN_WRITE: &'static str;
    /// Appended to a `SELECT` of rows the transaction writes back: locks them until it ends
    /// (empty where a writing transaction holds the whole database).
    const LOCK_ROW: &'static str;
    /// With replicas: the statement that lets a replica write a game only while it owns it
    /// and its lease runs, locking the game's row against a takeover until the commit
    /// (`$1` game, `$2` replica). None: one replica, always.
    const FENCE_GAME: Option<&'static str>;
    /// With replicas: the statement that tells the others of a committed action, at commit
    /// (`$1` game, `$2` seq, `$3` player, `$4` key, `$5` format, `$6` payload, `$7` time).
    const NOTIFY_ACTION: Option<&'static str>;

    /// The rows a statement changed.
    fn rows_affected(result: &Self::QueryResult) -> u64;
}

/// A store on an SQL database: PostgreSQL ([`super::PostgresStore`]) or SQLite
/// ([`super::SqliteStore`]).
pub struct SqlStore<DB: Backend> {
    /// The games' connections: commits, loads, restores. Nothing else waits on them.
    pub(super) pool: Pool<DB>,
    /// Everything else's (players, the lobby's listing, ratings, the ladder's queue,
    /// challenges, tournaments, exports): no store work a player causes there, whatever its
    /// volume, takes a connection a game's commit is waiting for.
    pub(super) side: Pool<DB>,
    pub(super) group: GroupCommit,
    /// Set once this store joins a cluster (PostgreSQL only): the replica it writes for.
    pub(super) me: Arc<OnceLock<Replica>>,
    /// Held while the store lives; the backend's background upkeep (PostgreSQL's vacuum of
    /// its hot tables) stops when it is dropped, and lets the pool go with the store.
    pub(super) _upkeep: Option<tokio::sync::oneshot::Sender<()>>,
}

impl<DB: Backend> SqlStore<DB> {
    /// The replica this store writes for, once it joined a cluster.
    pub(super) fn owner_id(&self) -> Option<&str> {
        self.me.get().map(|r| r.id.as_str())
    }

    /// The connection pool (for the tests that reach past the store, e.g. to corrupt a row).
    pub fn pool(&self) -> &Pool<DB> {
        &self.pool
    }
}
