//! A store's history at scale, bulk-loaded in SQL for the benchmarks (`theboss-bench --only
//! history`): finished 2-player games with their seats, a four-action log each, the players
//! who played them and their ratings and rating history, written in batches by the database
//! itself (not played one by one). The logs are placeholders of realistic size, not
//! replayable: what is measured is what history costs the hot paths, which never read a
//! finished game's log. Nothing is analyzed afterwards, as on a database without autovacuum.
//! The fill ends with a checkpoint, so that the store measured next is one at rest with its
//! history, not one still flushing gigabytes of fresh writes (PostgreSQL starts a checkpoint
//! every `max_wal_size` of WAL, and one would otherwise run through the measurement).

use std::time::{Duration, Instant};

use sqlx::AssertSqlSafe;

use super::{PostgresStore, SqliteStore, StoreError, is_postgres};

/// How much history to write.
#[derive(Debug, Clone, Copy)]
pub struct HistorySize {
    pub games: u64,
    /// Players sharing them (each game seats two).
    pub players: u64,
}

/// Games written per statement.
const BATCH: u64 = 100_000;

/// A turn's log entry of about the size of a real one.
const PAYLOAD: &str = r#"{"Turn":{"seat":0,"turn":{"placement":{"location":"new_york","experts":1,"occasionals":0},"card":{"city":"new_york","money":2}},"by_timeout":false}}"#;

/// The rows `i` in `lo..=hi`, in each dialect: PostgreSQL's `generate_series`, SQLite's
/// recursive common table expression (written before the `INSERT`).
fn rows(postgres: bool, lo: u64, hi: u64) -> (String, String) {
    if postgres {
        (
            String::new(),
            format!("generate_series({lo}, {hi}) AS n(i)"),
        )
    } else {
        (
            format!(
                "WITH RECURSIVE n(i) AS (SELECT {lo} UNION ALL SELECT i + 1 FROM n WHERE i < {hi}) "
            ),
            "n".to_string(),
        )
    }
}

/// The statements that write games `lo..=hi` (and, in the first batch, the players).
fn statements(postgres: bool, size: HistorySize, lo: u64, hi: u64) -> Vec<String> {
    let p = size.players.max(2);
    let truth = |expr: &str| {
        if postgres {
            expr.to_string()
        } else {
            format!("CASE WHEN {expr} THEN 1 ELSE 0 END")
        }
    };
    let (with, from) = rows(postgres, lo, hi);
    let mut all = Vec::new();
    if lo == 1 {
        let (pwith, pfrom) = rows(postgres, 1, p);
        all.push(format!(
            "{pwith}INSERT INTO players (id, display_name, is_bot, token_hash, created_at) \
             SELECT 'hist-p' || i, 'History ' || i, {}, 'hist-h' || i, i FROM {pfrom}",
            truth("i % 2 = 0")
        ));
        for category in [0, 2] {
            all.push(format!(
                "{pwith}INSERT INTO ratings (player_id, players, mu, sigma, games, is_bot, \
                 opponents, counted) \
                 SELECT 'hist-p' || i, {category}, 25 + i % 7, 4, 10 + i % 40, {}, \
                 10 + i % 40, 10 + i % 40 FROM {pfrom}",
                truth("i % 2 = 0")
            ));
        }
    }
    all.push(format!(
        "{with}INSERT INTO games (id, players, cities, seed, turn_time_limit, visibility, ladder, \
         status, winners, created_by, created_at, money, acted) \
         SELECT 'hist-g' || i, 2, '1,2,3', i, 30, 'public', {}, 'finished', '0', \
         'hist-p' || (1 + i % {p}), i, '16,14', '1,1' FROM {from}",
        truth("i % 3 = 0")
    ));
    all.push(format!(
        "{with}INSERT INTO seats (game_id, seat, player_id, game_over, finished_at) \
         SELECT 'hist-g' || i, k.s, 'hist-p' || (1 + (2 * i + k.s) % {p}), {}, i + 1 \
         FROM {from}, (SELECT 0 AS s UNION ALL SELECT 1) AS k",
        truth("1 = 1")
    ));
    all.push(format!(
        "{with}INSERT INTO actions (game_id, seq, player_id, idempotency_key, format, payload, at) \
         SELECT 'hist-g' || i, k.q, 'hist-p' || (1 + (2 * i + k.q % 2) % {p}), NULL, 2, \
         '{PAYLOAD}', i FROM {from}, \
         (SELECT 1 AS q UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) AS k"
    ));
    all.push(format!(
        "{with}INSERT INTO rating_history (player_id, players, game_id, mu_before, sigma_before, \
         mu, sigma, at) SELECT 'hist-p' || (1 + (2 * i) % {p}), 2, 'hist-g' || i, 25, 5, 25.5, \
         4.9, i FROM {from} WHERE i % 3 = 0"
    ));
    all
}

/// Writes `size` of history into the store at `url` (migrating it first if need be);
/// returns how long it took.
pub async fn fill_history(url: &str, size: HistorySize) -> Result<Duration, StoreError> {
    fill_in_batches(url, size, BATCH).await
}

async fn fill_in_batches(url: &str, size: HistorySize, batch: u64) -> Result<Duration, StoreError> {
    let started = Instant::now();
    let postgres = is_postgres(url);
    let batches = (0..size.games.div_ceil(batch)).map(|b| {
        let lo = b * batch + 1;
        (lo, (lo + batch - 1).min(size.games))
    });
    if postgres {
        let store = PostgresStore::connect(url).await?;
        write_batches(&store.pool, true, size, batches).await?;
    } else {
        let store = SqliteStore::connect(url).await?;
        write_batches(&store.pool, false, size, batches).await?;
    }
    Ok(started.elapsed())
}

async fn write_batches<DB: sqlx::Database>(
    pool: &sqlx::Pool<DB>,
    postgres: bool,
    size: HistorySize,
    batches: impl Iterator<Item = (u64, u64)>,
) -> Result<(), StoreError>
where
    for<'c> &'c sqlx::Pool<DB>: sqlx::Executor<'c, Database = DB>,
{
    for (lo, hi) in batches {
        for sql in statements(postgres, size, lo, hi) {
            sqlx::raw_sql(AssertSqlSafe(sql)).execute(pool).await?;
        }
        tracing::info!(games = hi, "history written");
    }
    let checkpoint = if postgres {
        "CHECKPOINT"
    } else {
        "PRAGMA wal_checkpoint(TRUNCATE)"
    };
    sqlx::raw_sql(checkpoint).execute(pool).await?;
    pool.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn history_is_written_in_batches_on_both_backends_and_lists_as_finished_games() {
        let size = HistorySize {
            games: 2_500,
            players: 100,
        };
        let dir = tempfile::tempdir().unwrap();
        let sqlite = format!("sqlite://{}", dir.path().join("h.db").display());
        let postgres = crate::testing::fresh_postgres_url().await;
        for url in [sqlite, postgres] {
            // Three batches: the players and their ratings are written once.
            fill_in_batches(&url, size, 1_000).await.unwrap();
            let store = super::super::open(&url).await.unwrap();
            let finished = store
                .finished_games_of("hist-p7", (0, i64::MAX), None, 1_000)
                .await
                .unwrap();
            // Player 7 sits in the games whose seats 2i + s ≡ 6 (mod 100): 50 of 2,500.
            assert_eq!(finished.len(), 50, "{url}");
            let board = store.leaderboard(2, None, 5, 0).await.unwrap();
            assert_eq!(board.len(), 5);
        }
    }
}
