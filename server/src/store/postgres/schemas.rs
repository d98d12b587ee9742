//! Schemas of their own for runs that share a database: every test and benchmark run works in
//! a fresh schema of the test database ([`PostgresStore::fresh_schema`]), so that runs never
//! see each other's data, and leaves the database as it found it: the schemas a process made
//! are dropped when it exits, however it ends (its `main` returning, an error, a panic, or
//! `std::process::exit`). A process killed outright (SIGKILL) leaves its schemas behind; the
//! next run drops those older than an hour.

use std::collections::BTreeMap;
use std::sync::{Mutex, Once};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::Connection;

use super::PostgresStore;
use crate::store::StoreError;

/// The schemas this process made, with the database each is in.
static MADE: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
static AT_EXIT: Once = Once::new();

/// How long an exiting process waits for a lock on a schema it drops: a connection still in a
/// transaction there (a child process being killed) must not hold the exit up.
const LOCK_TIMEOUT: &str = "3s";

/// Schemas older than this, of the same prefix, are another run's that never ended.
const ABANDONED_AFTER_SECS: u64 = 3600;

impl PostgresStore {
    /// Creates a new, empty schema named `<prefix><unix seconds>_<random>` in the database at
    /// `base_url` and returns a URL whose connections use it. The schema is dropped when this
    /// process exits; schemas with the same prefix older than an hour (left by runs that were
    /// killed) are dropped now.
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
            if created.is_some_and(|t| t + ABANDONED_AFTER_SECS < now) {
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
        remember(base_url, &schema);
        let separator = if base_url.contains('?') { '&' } else { '?' };
        Ok(format!(
            "{base_url}{separator}options[search_path]={schema}"
        ))
    }
}

fn remember(base_url: &str, schema: &str) {
    MADE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((base_url.to_string(), schema.to_string()));
    AT_EXIT.call_once(|| {
        extern "C" fn at_exit() {
            drop_fresh_schemas();
        }
        // SAFETY: `atexit` only records a function pointer; `at_exit` never unwinds (what it
        // runs is caught on a thread of its own).
        unsafe {
            libc::atexit(at_exit);
        }
    });
}

/// Drops every schema this process made with [`PostgresStore::fresh_schema`], at exit. Never
/// fails: a schema that cannot be dropped within a few seconds is left to a later run's
/// sweep.
fn drop_fresh_schemas() {
    let made = std::mem::take(&mut *MADE.lock().unwrap_or_else(|e| e.into_inner()));
    drop_schemas(made);
}

/// Drops `made`, (database, schema) pairs, waiting a few seconds at most for each's locks.
fn drop_schemas(made: Vec<(String, String)>) {
    if made.is_empty() {
        return;
    }
    let mut by_database: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (base, schema) in made {
        by_database.entry(base).or_default().push(schema);
    }
    // A thread of its own: the caller may be inside a runtime (a `process::exit` from async
    // code), where another cannot be started, and a panic must not unwind into `atexit`.
    let dropping = std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async {
            for (base, schemas) in by_database {
                let _ =
                    tokio::time::timeout(Duration::from_secs(60), drop_all(&base, &schemas)).await;
            }
        });
    });
    let _ = dropping.join();
}

/// All of `schemas` in one statement, or, if one of them is held, each alone.
async fn drop_all(base_url: &str, schemas: &[String]) -> Result<(), sqlx::Error> {
    let mut connection = sqlx::PgConnection::connect(base_url).await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SET lock_timeout = '{LOCK_TIMEOUT}'"
    )))
    .execute(&mut connection)
    .await?;
    let quoted = |names: &[String]| {
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let all = format!("DROP SCHEMA IF EXISTS {} CASCADE", quoted(schemas));
    if sqlx::query(sqlx::AssertSqlSafe(all))
        .execute(&mut connection)
        .await
        .is_err()
    {
        for schema in schemas {
            let one = format!(
                "DROP SCHEMA IF EXISTS {} CASCADE",
                quoted(std::slice::from_ref(schema))
            );
            let _ = sqlx::query(sqlx::AssertSqlSafe(one))
                .execute(&mut connection)
                .await;
        }
    }
    connection.close().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    async fn exists(base: &str, schema: &str) -> bool {
        let mut connection = sqlx::PgConnection::connect(base).await.unwrap();
        sqlx::query_scalar::<_, bool>(
            "SELECT EXISTS (SELECT 1 FROM information_schema.schemata WHERE schema_name = $1)",
        )
        .bind(schema)
        .fetch_one(&mut connection)
        .await
        .unwrap()
    }

    /// The schemas a run made are gone once it drops them (as it does at exit), tables
    /// and all; another process's are untouched.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_run_drops_the_schemas_it_made_and_only_those() {
        let base = testing::postgres_base_url();
        let url = PostgresStore::fresh_schema(&base, "theboss_dropped_")
            .await
            .unwrap();
        let store = PostgresStore::connect(&url).await.unwrap();
        drop(store);
        let schema = url.rsplit('=').next().unwrap().to_string();
        assert!(exists(&base, &schema).await);

        let mut connection = sqlx::PgConnection::connect(&base).await.unwrap();
        let foreign = format!("theboss_dropped_{}_foreign", u64::MAX);
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA \"{foreign}\"")))
            .execute(&mut connection)
            .await
            .unwrap();

        let remembered = MADE
            .lock()
            .unwrap()
            .iter()
            .any(|(b, s)| *b == base && *s == schema);
        assert!(
            remembered,
            "{schema} is not among the schemas dropped at exit"
        );
        // What exit does, for this schema alone: the process's others are other tests'.
        let pair = vec![(base.clone(), schema.clone())];
        tokio::task::spawn_blocking(move || drop_schemas(pair))
            .await
            .unwrap();

        assert!(!exists(&base, &schema).await, "{schema} is still there");
        assert!(exists(&base, &foreign).await);
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA \"{foreign}\"")))
            .execute(&mut connection)
            .await
            .unwrap();
    }
}
