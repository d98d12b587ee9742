//! PostgreSQL, for deployments: `--database-url postgres://…`. Queries are shared with
//! SQLite (see `rows`); a connection may carry `options=-c search_path=…` so that tests can
//! give each run its own schema.

use sqlx::postgres::PgPoolOptions;

use super::StoreError;
use super::rows::{self, sql_store};

pub struct PostgresStore {
    pool: sqlx::PgPool,
}

impl PostgresStore {
    /// Connects and applies the migrations (under an advisory lock, so several servers may
    /// start at once).
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        Ok(PostgresStore { pool })
    }
}

sql_store!(PostgresStore, sqlx::Postgres);
