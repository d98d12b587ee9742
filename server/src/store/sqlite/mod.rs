//! The embedded default: one SQLite file, created on first use, in WAL mode with full
//! synchronous commits so an acknowledged action survives a crash of the process or the
//! machine. Its statements are shared with PostgreSQL (`sql`).

#[cfg(test)]
mod plans;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteQueryResult,
    SqliteSynchronous,
};

use super::StoreError;
use super::group::{Append, GroupCommit, Refused, Seating};
use super::sql::games::{DELETE_SEAT, INSERT_ACTION, INSERT_SEAT, SEATS_OVER, UPDATE_GAME_STATUS};
use super::sql::{Backend, SqlStore};

/// The store on an SQLite file.
pub type SqliteStore = SqlStore<sqlx::Sqlite>;

/// One writer at a time: SQLite takes the whole database to write. Groups are written one
/// after the other, each with one fsync.
const GROUP_LANES: usize = 1;
const MAX_GROUP: usize = 256;

impl Backend for sqlx::Sqlite {
    /// Writers take the database's write lock when they begin, so that what they read in the
    /// transaction (e.g. ratings) is still true when they write.
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
    /// Rows need no lock of their own: a writer holds the whole database.
    const LOCK_ROW: &'static str = "";
    /// One replica, always: no owner to check, nobody to tell.
    const FENCE_GAME: Option<&'static str> = None;
    const NOTIFY_ACTION: Option<&'static str> = None;

    fn rows_affected(result: &SqliteQueryResult) -> u64 {
        result.rows_affected()
    }
}

impl SqlStore<sqlx::Sqlite> {
    /// Writes a consistent copy of the whole database to a new file at `out`
    /// (`VACUUM INTO`: a snapshot of one moment, taken while the server serves; the copy is
    /// compact and needs no WAL file). Restoring is putting the copy in the database's place
    /// while no server runs on it.
    pub async fn back_up(&self, out: &std::path::Path) -> Result<(), StoreError> {
        let out = out
            .to_str()
            .ok_or_else(|| StoreError::Corrupt(format!("{} is not UTF-8", out.display())))?;
        sqlx::query("VACUUM INTO $1")
            .bind(out)
            .execute(&self.side)
            .await?;
        Ok(())
    }

    /// Opens (creating if needed) the file a `sqlite://path` URL names and migrates it.
    pub async fn connect(url: &str) -> Result<SqliteStore, StoreError> {
        // No ping before each use of a pooled connection (a round trip to its worker thread
        // per statement); see the PostgreSQL store.
        let options = connect_options(url)?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        // Readers never block the writer in WAL mode: the other work reads on connections of
        // its own, and its writes wait for the database's one write lock like any.
        let side = SqlitePoolOptions::new()
            .max_connections(2)
            .test_before_acquire(false)
            .connect_lazy_with(options);
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        let writer = pool.clone();
        let group = GroupCommit::start(GROUP_LANES, MAX_GROUP, move |appends| {
            write_group(writer.clone(), appends)
        });
        Ok(SqlStore {
            pool,
            side,
            group,
            me: Arc::default(),
            _upkeep: None,
        })
    }
}

/// A group of appends in one transaction: its statements are calls in this process, and its
/// one commit is the one fsync.
async fn write_group(
    pool: sqlx::SqlitePool,
    appends: Arc<[Append]>,
) -> Result<Refused, sqlx::Error> {
    let mut tx = pool
        .begin_with(<sqlx::Sqlite as Backend>::BEGIN_WRITE)
        .await?;
    for a in appends.iter() {
        sqlx::query(INSERT_ACTION)
            .bind(&a.game_id)
            .bind(a.seq)
            .bind(&a.player_id)
            .bind(&a.idempotency_key)
            .bind(a.format)
            .bind(&a.payload)
            .bind(a.at)
            .execute(&mut *tx)
            .await?;
        if !a.row_unchanged {
            sqlx::query(UPDATE_GAME_STATUS)
                .bind(a.status)
                .bind(&a.winners)
                .bind(&a.money)
                .bind(&a.acted)
                .bind(&a.game_id)
                .execute(&mut *tx)
                .await?;
        }
        let seats = match &a.seating {
            Seating::Takes { seat, player_id } => Some(
                sqlx::query(INSERT_SEAT)
                    .bind(&a.game_id)
                    .bind(seat)
                    .bind(player_id),
            ),
            Seating::Leaves { seat } => Some(sqlx::query(DELETE_SEAT).bind(&a.game_id).bind(seat)),
            Seating::Over { finished_at } => {
                Some(sqlx::query(SEATS_OVER).bind(&a.game_id).bind(finished_at))
            }
            Seating::Unchanged => None,
        };
        if let Some(seats) = seats {
            seats.execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    // One replica: every game is its own.
    Ok(Refused::new())
}

/// How the store opens a `sqlite://path` URL: created if missing, WAL, every commit synced.
pub(super) fn connect_options(url: &str) -> Result<SqliteConnectOptions, StoreError> {
    Ok(SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10)))
}

/// A game's row in a store's SQLite file, read and written over a connection of its own as
/// another program would: the actor's tests see through it what a write left of the row.
#[cfg(test)]
pub struct GameRowProbe(sqlx::SqlitePool);

#[cfg(test)]
impl GameRowProbe {
    /// Opens the SQLite file at `path`.
    pub async fn open(path: &std::path::Path) -> GameRowProbe {
        let url = format!("sqlite://{}", path.display());
        GameRowProbe(sqlx::SqlitePool::connect(&url).await.expect("open SQLite"))
    }

    /// The row's status, winners, money and seats that acted, as stored.
    pub async fn read(&self, game_id: &str) -> (String, String, String, String) {
        sqlx::query_as("SELECT status, winners, money, acted FROM games WHERE id = ?")
            .bind(game_id)
            .fetch_one(&self.0)
            .await
            .expect("the game's row")
    }

    /// Overwrites the row's money.
    pub async fn set_money(&self, game_id: &str, money: &str) {
        sqlx::query("UPDATE games SET money = ? WHERE id = ?")
            .bind(money)
            .bind(game_id)
            .execute(&self.0)
            .await
            .expect("the game's row");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use theboss::v1;
    use theboss_client::{Connection, Session};
    use tonic::Code;

    use super::*;
    use crate::store::{GameStore, Traced};
    use crate::testing::TestServer;

    /// A server on an SQLite file at `url`, and a player who created a two-player game there
    /// and sits at it.
    pub(super) async fn a_game_served_from(
        url: &str,
    ) -> (Arc<Traced<SqliteStore>>, TestServer, Session, String) {
        let store = Arc::new(Traced::new(SqliteStore::connect(url).await.unwrap()));
        let server = TestServer::start(store.clone(), crate::Options::default()).await;
        let session = Connection::connect(&server.url())
            .await
            .unwrap()
            .register("Player", true)
            .await
            .unwrap();
        let settings = v1::GameSettings {
            players: 2,
            ..Default::default()
        };
        let game_id = session.create_game(settings, None).await.unwrap();
        session.join(&game_id, None).await.unwrap();
        (store, server, session, game_id)
    }

    #[tokio::test]
    async fn a_corrupt_log_is_an_internal_error_naming_the_game() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("corrupt.db").display());
        let (store, server, session, game_id) = a_game_served_from(&url).await;
        server.stop().await;
        // A row in a format this server does not know (or one a bug mangled).
        sqlx::query("UPDATE actions SET format = 99 WHERE game_id = $1")
            .bind(&game_id)
            .execute(store.inner().pool())
            .await
            .unwrap();
        let Err(error) = store.load_game(&game_id).await else {
            panic!("the game must not load");
        };
        assert!(matches!(error, StoreError::Corrupt(_)), "{error}");
        let server = TestServer::start(store, crate::Options::default()).await;
        let session = Connection::connect(&server.url())
            .await
            .unwrap()
            .session(session.credentials.clone());
        let refused = session.view(&game_id).await.unwrap_err();
        assert_eq!(refused.code(), Code::Internal, "{refused}");
        let message = refused.status().unwrap().message().to_string();
        assert!(
            message.contains(&game_id) && message.contains("format 99"),
            "{message}"
        );
        server.stop().await;
    }
}

#[cfg(test)]
mod backup_tests {
    use std::sync::Arc;

    use theboss_client::Connection;

    use super::*;
    use crate::store::{BackupError, GameStore, Traced, back_up};
    use crate::testing::TestServer;

    /// A backup taken while the server serves holds every game committed before it: a server
    /// started on the copy (the restore) plays on from there.
    #[tokio::test]
    async fn a_backup_taken_while_serving_restores_every_committed_game() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("live.db").display());
        let (_store, server, session, game_id) = super::tests::a_game_served_from(&url).await;

        let copy = dir.path().join("copy.db");
        back_up(&url, &copy).await.unwrap();
        // Never over an existing file.
        assert!(matches!(
            back_up(&url, &copy).await,
            Err(BackupError::Exists(_))
        ));
        server.stop().await;

        let restored_url = format!("sqlite://{}", copy.display());
        let restored = Arc::new(Traced::new(
            SqliteStore::connect(&restored_url).await.unwrap(),
        ));
        let game = restored.load_game(&game_id).await.unwrap().unwrap();
        assert_eq!(game.actions.len(), 1, "the creator's join");
        let server = TestServer::start(restored, crate::Options::default()).await;
        let session = Connection::connect(&server.url())
            .await
            .unwrap()
            .session(session.credentials.clone());
        let view = session.view(&game_id).await.unwrap();
        assert_eq!(view.seats.len(), 2);
        server.stop().await;
    }

    #[tokio::test]
    async fn a_postgres_store_is_left_to_postgres_tools() {
        let out = tempfile::tempdir().unwrap().path().join("x.db");
        assert!(matches!(
            back_up("postgres://nobody@127.0.0.1:1/x", &out).await,
            Err(BackupError::Postgres)
        ));
        assert!(!out.exists());
    }
}
