//! The database's own limits, measured with the store's connection settings: a bare
//! single-row commit, from one connection and from many at once. Benchmarks print the
//! service's figures beside these, measured in the same run on the same database.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::SqlitePoolOptions;

use super::StoreError;

/// A scratch table's statements: created at the start, one row a commit, dropped at the end.
#[derive(Debug)]
struct Table {
    create_sqlite: &'static str,
    create_postgres: &'static str,
    insert: &'static str,
    drop: &'static str,
}

macro_rules! scratch_table {
    ($name:literal) => {
        Table {
            create_sqlite: concat!(
                "CREATE TABLE IF NOT EXISTS ",
                $name,
                " (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, at INTEGER NOT NULL)"
            ),
            create_postgres: concat!(
                "CREATE TABLE IF NOT EXISTS ",
                $name,
                " (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload TEXT NOT NULL, at BIGINT NOT NULL)"
            ),
            insert: concat!("INSERT INTO ", $name, " (payload, at) VALUES ($1, $2)"),
            drop: concat!("DROP TABLE ", $name),
        }
    };
}

/// [`bare_commits`]' table.
const PROBE: Table = scratch_table!("probe_commits");
/// A [`Committer`]'s table: its own, so that it may run beside [`bare_commits`].
const FLOOR: Table = scratch_table!("floor_commits");
/// About the size of a logged turn.
const PAYLOAD: &str = r#"{"turn":{"seat":1,"turn":{"placement":{"location":{"city":"boston"},"experts":2,"occasionals":0},"card":{"city":"detroit","face":{"money":3}}},"by_timeout":false}}"#;

/// What a probe measured.
#[derive(Debug, Clone, Default)]
pub struct CommitProbe {
    /// One entry per commit.
    pub latencies: Vec<Duration>,
    pub elapsed: Duration,
}

impl CommitProbe {
    pub fn per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Commits single rows (autocommit, one statement each) into a scratch table of the
/// database `url` names, from `clients` connections at once for `duration`, then drops the
/// table. SQLite is opened as the store opens it (WAL, synchronous commits).
pub async fn bare_commits(
    url: &str,
    clients: usize,
    duration: Duration,
) -> Result<CommitProbe, StoreError> {
    let clients = clients.max(1);
    let committer = Arc::new(Committer::open(url, clients, &PROBE).await?);
    let shared = committer.clone();
    let probe = measure(clients, duration, move || {
        let committer = shared.clone();
        async move { committer.commit().await }
    })
    .await?;
    match Arc::try_unwrap(committer) {
        Ok(committer) => committer.close().await?,
        Err(_) => return Err(StoreError::Corrupt("a probe's commit outlived it".into())),
    }
    Ok(probe)
}

/// Bare commits when asked, from a pool of connections opened as the stores' are: what a
/// server that does nothing but persist each call pays for it (the benchmark's floor of a
/// turn), and the probe's commits.
#[derive(Debug)]
pub struct Committer {
    pool: Pool,
    table: &'static Table,
}

#[derive(Debug)]
enum Pool {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Committer {
    /// One connection to the database `url` names, committing into a table of its own.
    pub async fn connect(url: &str) -> Result<Committer, StoreError> {
        Committer::open(url, 1, &FLOOR).await
    }

    /// `connections` connections to the database `url` names; creates `table`. SQLite is
    /// opened as the store opens it (WAL, synchronous commits).
    async fn open(
        url: &str,
        connections: usize,
        table: &'static Table,
    ) -> Result<Committer, StoreError> {
        let connections = u32::try_from(connections).unwrap_or(u32::MAX);
        let pool = if url.starts_with("sqlite:") {
            let pool = SqlitePoolOptions::new()
                .max_connections(connections)
                // As the stores' pools: a bare commit is one round trip, no ping before it.
                .test_before_acquire(false)
                .connect_with(super::sqlite::connect_options(url)?)
                .await?;
            sqlx::query(table.create_sqlite).execute(&pool).await?;
            Pool::Sqlite(pool)
        } else {
            let pool = PgPoolOptions::new()
                .max_connections(connections)
                .test_before_acquire(false)
                .connect(url)
                .await?;
            sqlx::query(table.create_postgres).execute(&pool).await?;
            Pool::Postgres(pool)
        };
        Ok(Committer { pool, table })
    }

    /// Commits one row.
    pub async fn commit(&self) -> Result<(), StoreError> {
        match &self.pool {
            Pool::Sqlite(pool) => insert_into(pool, self.table.insert).await?,
            Pool::Postgres(pool) => insert_into(pool, self.table.insert).await?,
        }
        Ok(())
    }

    /// Drops the table and closes the connections.
    pub async fn close(self) -> Result<(), StoreError> {
        match self.pool {
            Pool::Sqlite(pool) => {
                sqlx::query(self.table.drop).execute(&pool).await?;
                pool.close().await;
            }
            Pool::Postgres(pool) => {
                sqlx::query(self.table.drop).execute(&pool).await?;
                pool.close().await;
            }
        }
        Ok(())
    }
}

/// One row of [`PAYLOAD`] and the time, by `statement`.
async fn insert_into<DB: sqlx::Database>(
    pool: &sqlx::Pool<DB>,
    statement: &'static str,
) -> Result<(), sqlx::Error>
where
    for<'c> &'c sqlx::Pool<DB>: sqlx::Executor<'c, Database = DB>,
    for<'q> &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> <DB as sqlx::Database>::Arguments: sqlx::IntoArguments<DB>,
{
    let at = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_micros(),
    )
    .unwrap_or(i64::MAX);
    sqlx::query(statement)
        .bind(PAYLOAD)
        .bind(at)
        .execute(pool)
        .await?;
    Ok(())
}

/// Runs `clients` loops of `commit` until `duration` is over, timing each call.
async fn measure<F, Fut>(
    clients: usize,
    duration: Duration,
    commit: F,
) -> Result<CommitProbe, StoreError>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), StoreError>> + Send + 'static,
{
    let started = Instant::now();
    let deadline = started + duration;
    let commit = Arc::new(commit);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..clients {
        let commit = commit.clone();
        tasks.spawn(async move {
            let mut latencies = Vec::new();
            while Instant::now() < deadline {
                let t = Instant::now();
                commit().await?;
                latencies.push(t.elapsed());
            }
            Ok::<_, StoreError>(latencies)
        });
    }
    let mut probe = CommitProbe::default();
    while let Some(done) = tasks.join_next().await {
        let latencies = done.map_err(|e| StoreError::Corrupt(format!("probe task: {e}")))??;
        probe.latencies.extend(latencies);
    }
    probe.elapsed = started.elapsed();
    probe.latencies.sort();
    Ok(probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn rows(committer: &Committer) -> i64 {
        const COUNT: &str = "SELECT count(*) FROM floor_commits";
        match &committer.pool {
            Pool::Sqlite(pool) => sqlx::query_scalar(COUNT).fetch_one(pool).await.unwrap(),
            Pool::Postgres(pool) => sqlx::query_scalar(COUNT).fetch_one(pool).await.unwrap(),
        }
    }

    /// Each commit is one row, and a committer closed leaves no table behind: the next one
    /// starts from none.
    async fn commits_a_row_each_and_leaves_nothing(url: &str) {
        let committer = Committer::connect(url).await.unwrap();
        for _ in 0..3 {
            committer.commit().await.unwrap();
        }
        assert_eq!(rows(&committer).await, 3);
        committer.close().await.unwrap();
        let next = Committer::connect(url).await.unwrap();
        assert_eq!(rows(&next).await, 0);
        next.close().await.unwrap();
    }

    #[tokio::test]
    async fn a_committer_on_sqlite_commits_a_row_each_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("probe.db").display());
        commits_a_row_each_and_leaves_nothing(&url).await;
    }

    #[tokio::test]
    async fn a_committer_on_postgres_commits_a_row_each_and_leaves_nothing() {
        let url = crate::testing::fresh_postgres_url().await;
        commits_a_row_each_and_leaves_nothing(&url).await;
    }
}
