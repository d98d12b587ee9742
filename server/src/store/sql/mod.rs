//! The one implementation of the store over both SQL backends: [`SqlStore`], generic over the
//! backend's [`Backend`] (PostgreSQL or SQLite), runs the same statements, written with `$n`
//! placeholders that both accept, in one module per domain: [`players`], [`games`] (and the
//! lobby's [`listing`]), [`ratings`], the ladder's [`queue`], [`challenges`], [`tournaments`]
//! and the [`arranged_games`] they seat. [`rows`] decodes what they read. A backend brings its
//! pool, its migrations, its group commit (`group`: how many games' turns are written at once)
//! and a few statements of its own ([`Backend`]).
//!
//! Each domain module implements its part of the store inside [`sql_store!`], which writes
//! the one `where` clause the shared statements need from a backend. Both backends meet it;
//! the compiler checks each statement's binds and reads against it.

pub(super) mod arranged_games;
pub(super) mod challenges;
pub(super) mod games;
pub(super) mod listing;
pub(super) mod players;
pub(super) mod queue;
pub(super) mod ratings;
pub(super) mod rows;
pub(super) mod tournaments;

use std::sync::{Arc, OnceLock};

use sqlx::{Database, Decode, Encode, Pool, Type};

use super::coordination::Replica;
use super::group::GroupCommit;

/// Implements a part of the store for [`SqlStore`] over any [`Backend`]: a store trait
/// (`sql_store! { impl PlayerStore { … } }`) or helpers of the store's own
/// (`sql_store! { impl { … } }`), under the bounds the shared statements need: executors for
/// the backend's pool and connections, and the column types they bind and read (integers,
/// reals, booleans, text, nullable text and integers).
///
/// A macro because Rust does not carry bounds on other types (`i64: Type<DB>`,
/// `&mut DB::Connection: Executor`, …) through a supertrait: no "SQL backend" trait can name
/// them once, and written out they were a dozen lines above every `impl`.
macro_rules! sql_store {
    (impl $store:ident { $($body:tt)* }) => {
        $crate::store::sql::sql_store!(
            @impl [#[::async_trait::async_trait]] [$store for] $($body)*
        );
    };
    (impl { $($body:tt)* }) => {
        $crate::store::sql::sql_store!(@impl [] [] $($body)*);
    };
    (@impl [$($attr:tt)*] [$($for:tt)*] $($body:tt)*) => {
        $($attr)*
        impl<DB> $($for)* $crate::store::sql::SqlStore<DB>
        where
            DB: $crate::store::sql::Backend,
            for<'c> &'c mut DB::Connection: ::sqlx::Executor<'c, Database = DB>,
            for<'c> &'c ::sqlx::Pool<DB>: ::sqlx::Executor<'c, Database = DB>,
            DB::Arguments: ::sqlx::IntoArguments<DB>,
            usize: ::sqlx::ColumnIndex<DB::Row>,
            for<'q> &'q str: ::sqlx::Type<DB> + ::sqlx::Encode<'q, DB>,
            for<'q> Option<&'q str>: ::sqlx::Type<DB> + ::sqlx::Encode<'q, DB>,
            i64: $crate::store::sql::Column<DB>,
            i32: $crate::store::sql::Column<DB>,
            f64: $crate::store::sql::Column<DB>,
            bool: $crate::store::sql::Column<DB>,
            String: $crate::store::sql::Column<DB>,
            Option<String>: $crate::store::sql::Column<DB>,
            Option<i64>: $crate::store::sql::Column<DB>,
        {
            $($body)*
        }
    };
}
pub(super) use sql_store;

/// A type a statement both binds and reads on backend `DB`.
pub trait Column<DB: Database>: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB> {}

impl<DB: Database, T> Column<DB> for T where
    T: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>
{
}

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
