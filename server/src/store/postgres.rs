//! PostgreSQL, for deployments: `--database-url postgres://…`. Queries are shared with
//! SQLite (see `rows`); a connection may carry `options=-c search_path=…` so that tests can
//! give each run its own schema.

use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::postgres::PgPoolOptions;

use super::StoreError;
use super::group::{Append, GroupCommit};
use super::sql::sql_store;
use super::{queries, rows};

/// Connections in the pool.
const CONNECTIONS: u32 = 16;
/// Groups of appends written at once; the rest of the pool serves reads and other writes.
const GROUP_LANES: usize = 2;
const MAX_GROUP: usize = 256;

pub struct PostgresStore {
    pool: sqlx::PgPool,
    group: GroupCommit,
}

impl PostgresStore {
    /// Connects and applies the migrations (under an advisory lock, so several servers may
    /// start at once).
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(CONNECTIONS)
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let writer = pool.clone();
        let group = GroupCommit::start(GROUP_LANES, MAX_GROUP, move |appends| {
            write_group(writer.clone(), appends)
        });
        Ok(PostgresStore { pool, group })
    }

    const BEGIN_WRITE: &'static str = "BEGIN";
    /// Rows read to be written back are locked until the transaction ends.
    const LOCK_ROW: &'static str = " FOR UPDATE";
}

/// A group of appends in one statement, column by column.
async fn write_group(pool: sqlx::PgPool, appends: Vec<Append>) -> Result<(), sqlx::Error> {
    let n = appends.len();
    let (mut games, mut seqs, mut players, mut keys) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut formats, mut payloads, mut ats) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut statuses, mut winners, mut money) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for a in appends {
        games.push(a.game_id);
        seqs.push(a.seq);
        players.push(a.player_id);
        keys.push(a.idempotency_key);
        formats.push(a.format);
        payloads.push(a.payload);
        ats.push(a.at);
        statuses.push(a.status);
        winners.push(a.winners);
        money.push(a.money);
    }
    sqlx::query(queries::APPEND_GROUP_POSTGRES)
        .bind(games)
        .bind(seqs)
        .bind(players)
        .bind(keys)
        .bind(formats)
        .bind(payloads)
        .bind(ats)
        .bind(statuses)
        .bind(winners)
        .bind(money)
        .execute(&pool)
        .await?;
    Ok(())
}

sql_store!(PostgresStore, sqlx::Postgres);

impl PostgresStore {
    /// Creates a new, empty schema named `<prefix><unix seconds>_<random>` in the database at
    /// `base_url` and returns a URL whose connections use it, so that test runs never see
    /// each other's data. Schemas with the same prefix older than an hour (left by runs that
    /// were killed) are dropped.
    pub async fn fresh_schema(base_url: &str, prefix: &str) -> Result<String, StoreError> {
        let pool = sqlx::PgPool::connect(base_url).await?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let existing: Vec<(String,)> = sqlx::query_as(
            "SELECT schema_name::text FROM information_schema.schemata WHERE starts_with(schema_name, $1)",
        )
        .bind(prefix)
        .fetch_all(&pool)
        .await?;
        for (name,) in existing {
            let created = name
                .strip_prefix(prefix)
                .and_then(|rest| rest.split('_').next())
                .and_then(|secs| secs.parse::<u64>().ok());
            if created.is_some_and(|t| t + 3600 < now) {
                // Another run may be dropping it too; either way it goes.
                let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "DROP SCHEMA IF EXISTS \"{name}\" CASCADE"
                )))
                .execute(&pool)
                .await;
            }
        }
        let schema = format!("{prefix}{now}_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA \"{schema}\"")))
            .execute(&pool)
            .await?;
        pool.close().await;
        let separator = if base_url.contains('?') { '&' } else { '?' };
        Ok(format!(
            "{base_url}{separator}options[search_path]={schema}"
        ))
    }
}
