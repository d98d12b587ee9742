//! The embedded default: one SQLite file, created on first use, in WAL mode with full
//! synchronous commits so an acknowledged action survives a crash of the process or the
//! machine. Queries are shared with PostgreSQL (see `rows`).

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use super::StoreError;
use super::rows::{self, sql_store};

pub struct SqliteStore {
    pool: sqlx::SqlitePool,
}

impl SqliteStore {
    /// Opens (creating if needed) the file a `sqlite://path` URL names and migrates it.
    pub async fn connect(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        Ok(SqliteStore { pool })
    }
}

sql_store!(SqliteStore, sqlx::Sqlite);
