//! Keeping the small, hot tables small when the database does not. Every ladder request,
//! match, lease renewal and rating update leaves a dead row version behind; autovacuum would
//! reclaim them, but with autovacuum off (this project's CI image, and any database where an
//! operator turned it off) they stay, and every read of those tables steps over all of them:
//! a 30-minute soak ended with 5,168 dead rows under 6 live ones in `ladder_queue` and 5,164
//! under 17 in `ratings`, and PostgreSQL's CPU per action 25–30% above its first minutes.
//!
//! So when autovacuum is off the server vacuums those tables itself, every minute, one
//! replica at a time (a session advisory lock per schema). Only tables whose live rows are
//! bounded by what is going on now are vacuumed: the history tables grow for good, are
//! append-mostly, and are read through their indexes. Statistics are not gathered: the
//! statements are written to be right without them (`plans`).

use std::time::Duration;

use sqlx::PgPool;

use crate::store::StoreError;

/// Tables whose live rows are few and whose rows are deleted or updated all the time.
pub(super) const HOT_TABLES: [&str; 4] = ["ladder_queue", "ladder_matches", "replicas", "ratings"];

/// How often the hot tables are vacuumed when autovacuum is off.
pub(super) const PERIOD: Duration = Duration::from_secs(60);

/// Vacuums the hot tables unless another replica of this schema is doing it; returns whether
/// this one did.
pub(super) async fn vacuum_hot_tables(pool: &PgPool) -> Result<bool, StoreError> {
    // VACUUM cannot run in a transaction: one connection, statement by statement.
    let mut connection = pool.acquire().await?;
    let locked: bool =
        sqlx::query_scalar("SELECT pg_try_advisory_lock(hashtext(current_schema() || ':vacuum'))")
            .fetch_one(&mut *connection)
            .await?;
    if !locked {
        return Ok(false);
    }
    let mut result = Ok(true);
    for table in HOT_TABLES {
        // The names are this module's constants, never input.
        if let Err(error) = sqlx::query(sqlx::AssertSqlSafe(format!("VACUUM {table}")))
            .execute(&mut *connection)
            .await
        {
            result = Err(error.into());
            break;
        }
    }
    sqlx::query("SELECT pg_advisory_unlock(hashtext(current_schema() || ':vacuum'))")
        .execute(&mut *connection)
        .await?;
    result
}

/// Vacuums the hot tables every [`PERIOD`] until the store is dropped (`stopped` then
/// completes) or the pool is closed. The task holds a handle on the pool: it must end with the
/// store, or the pool's connections would outlive it.
pub(super) async fn every_period(pool: PgPool, mut stopped: tokio::sync::oneshot::Receiver<()>) {
    let mut ticks = tokio::time::interval(PERIOD);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = &mut stopped => return,
        }
        if pool.is_closed() {
            return;
        }
        let started = std::time::Instant::now();
        match vacuum_hot_tables(&pool).await {
            Ok(true) => tracing::debug!(elapsed = ?started.elapsed(), "hot tables vacuumed"),
            Ok(false) => {}
            Err(error) => tracing::warn!(%error, "cannot vacuum the hot tables"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    /// Dead row versions in `table`, once PostgreSQL's counters show at least `at_least`
    /// (a backend flushes its counts a moment after its statements), or after two seconds.
    async fn dead(
        connection: &mut sqlx::PgConnection,
        pool: &PgPool,
        table: &str,
        at_least: i64,
    ) -> i64 {
        let mut n = 0;
        for _ in 0..40 {
            sqlx::query("SELECT pg_stat_force_next_flush()")
                .execute(&mut *connection)
                .await
                .unwrap();
            // Read on another connection: a backend's view of the counters is a snapshot.
            n = sqlx::query_scalar(
                "SELECT n_dead_tup FROM pg_stat_user_tables \
                 WHERE schemaname = current_schema() AND relname = $1",
            )
            .bind(table)
            .fetch_one(pool)
            .await
            .unwrap();
            if n >= at_least {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        n
    }

    #[tokio::test]
    async fn the_hot_tables_lose_their_dead_rows_and_one_replica_vacuums_at_a_time() {
        let url = testing::fresh_postgres_url().await;
        let store = crate::store::PostgresStore::connect(&url).await.unwrap();
        let pool = store.pool.clone();
        let mut mine = pool.acquire().await.unwrap();
        for i in 0..200 {
            sqlx::query(
                "INSERT INTO replicas (id, url, started_at, lease_until) VALUES ($1, '', 0, now())",
            )
            .bind(format!("r{i}"))
            .execute(&pool)
            .await
            .unwrap();
        }
        sqlx::query("DELETE FROM replicas")
            .execute(&pool)
            .await
            .unwrap();
        let n = dead(&mut mine, &pool, "replicas", 200).await;
        assert!(n >= 200, "{n} dead rows");

        // Another replica holding the lock: this one leaves the tables alone.
        let mut other = pool.acquire().await.unwrap();
        sqlx::query("SELECT pg_advisory_lock(hashtext(current_schema() || ':vacuum'))")
            .execute(&mut *other)
            .await
            .unwrap();
        assert!(!vacuum_hot_tables(&pool).await.unwrap());
        assert!(dead(&mut mine, &pool, "replicas", 200).await >= 200);
        sqlx::query("SELECT pg_advisory_unlock(hashtext(current_schema() || ':vacuum'))")
            .execute(&mut *other)
            .await
            .unwrap();
        drop(other);

        // A vacuum removes the rows no open transaction can still see; the other tests'
        // transactions on this database hold some back for a moment, so it runs until they
        // are gone (as the periodic task would), and each run must be this replica's.
        let mut left = i64::MAX;
        for _ in 0..100 {
            assert!(vacuum_hot_tables(&pool).await.unwrap());
            left = dead(&mut mine, &pool, "replicas", 0).await;
            if left == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(left, 0, "dead rows left after vacuums for 10 s");
    }
}
