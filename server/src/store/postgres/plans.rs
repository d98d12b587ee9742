//! The plans of the statements the server runs on a hot path (each action, call or stream)
//! or periodically (ladder, lease and expiry ticks), checked on a store with history and
//! **no statistics**: PostgreSQL never analyzed its tables (this image runs with autovacuum
//! off, and so may a fresh replica, a restored backup or a bulk import). A plan that reads a
//! history table whole (a sequential scan, or an index scan with no index condition) fails
//! the test, naming the statement and the table. Both plans PostgreSQL may use for a
//! prepared statement are checked: the custom plan made for its arguments and the generic
//! plan, the only one the server's connections use (`plan_cache_mode`, see `connect`), so that
//! a statement run elsewhere with PostgreSQL's default choice is covered too.

use std::sync::Arc;

use sqlx::pool::PoolConnection;
use sqlx::postgres::PgPoolOptions;
use sqlx::{AssertSqlSafe, Postgres, Row};

use super::coordination::{
    CLAIM_GAME, CLAIM_ORPHANS, LIVE_REPLICAS, OWNED_GAMES, OWNERSHIP, RELEASE_GAMES, RENEW_LEASE,
};
use super::{APPEND_ONE, FENCE_GAME, PostgresStore, Writing};
use crate::domain::GameStatus;
use crate::store::group::{Append, Seating};
use crate::store::sql::{
    arranged_games, challenges, games, listing, players, queue, ratings, tournaments,
};

/// Tables that grow with the service's history: none may be read whole.
const HISTORY: [&str; 14] = [
    "games",
    "players",
    "actions",
    "seats",
    "series",
    "ratings",
    "rating_history",
    "challenges",
    "challenge_players",
    "tournaments",
    "tournament_entrants",
    "arranged_games",
    "contacts",
    "rated_pairs",
];

/// Enough history to matter: 20,000 players, 50,000 games (4,000 of them the tables of
/// 2,000 duplicate sets, a few hundred open or running), their seats and four actions each,
/// ratings, and a short ladder queue. Inserted in bulk; nothing is analyzed.
const SEED: &str = "
INSERT INTO players (id, display_name, is_bot, token_hash, created_at)
    SELECT 'p' || i, 'Player ' || i, i % 2 = 0, 'h' || i, i FROM generate_series(1, 20000) i;
INSERT INTO replicas (id, url, started_at, lease_until)
    VALUES ('r1', 'http://127.0.0.1:1', 0, now() + interval '1 hour');
INSERT INTO series (id, players, seed, created_at, tables, open_tables)
    SELECT 's' || i, 'p1,p2', i, i, 2, 0 FROM generate_series(1, 2000) i;
INSERT INTO games (id, players, cities, seed, turn_time_limit, visibility, ladder, status,
        winners, created_by, created_at, series_id, series_index, series_tables, money, acted,
        owner)
    SELECT 'g' || i, 2, '1,2,3,4,5', i, 0,
        CASE WHEN i % 10 = 0 THEN 'unlisted' ELSE 'public' END, i % 3 = 0,
        CASE WHEN i % 500 = 0 THEN 'running' WHEN i % 499 = 0 THEN 'open' ELSE 'finished' END,
        '0', 'p' || (1 + i % 20000), i,
        CASE WHEN i <= 4000 THEN 's' || (1 + (i - 1) / 2) END,
        CASE WHEN i <= 4000 THEN (i - 1) % 2 END,
        CASE WHEN i <= 4000 THEN 2 ELSE 0 END, '', '',
        CASE WHEN i % 500 = 0 OR i % 499 = 0 THEN 'r1' END
    FROM generate_series(1, 50000) i;
INSERT INTO seats (game_id, seat, player_id, game_over, finished_at)
    SELECT 'g' || i, s, 'p' || (1 + (2 * i + s) % 20000), NOT (i % 500 = 0 OR i % 499 = 0),
        CASE WHEN i % 500 = 0 OR i % 499 = 0 THEN NULL ELSE i END
    FROM generate_series(1, 50000) i, generate_series(0, 1) s;
INSERT INTO actions (game_id, seq, player_id, idempotency_key, format, payload, at)
    SELECT 'g' || i, q, 'p' || (1 + (2 * i + q % 2) % 20000), 'k' || q, 2, '{}', i
    FROM generate_series(1, 50000) i, generate_series(1, 4) q;
INSERT INTO ratings (player_id, players, mu, sigma, games, is_bot, opponents, counted)
    SELECT 'p' || i, n, 25 + i % 7, 8, i % 30, i % 3 = 0, i % 20, i % 30
    FROM generate_series(1, 20000) i, generate_series(0, 2) n;
INSERT INTO rated_pairs (player_id, players, opponent_id, arranged_at)
    SELECT 'p' || i, n, 'p' || (1 + (i * 7 + k) % 20000), NULL
    FROM generate_series(1, 20000) i, generate_series(0, 2) n, generate_series(1, 3) k;
INSERT INTO rating_history (player_id, players, game_id, mu_before, sigma_before, mu, sigma, at)
    SELECT 'p' || (1 + (2 * i) % 20000), 0, 'g' || i, 25, 8, 26, 7, i
    FROM generate_series(1, 50000) i WHERE i % 3 = 0;
INSERT INTO ladder_queue (id, player_id, display_name, is_bot, players, duplicate, parallel,
        replica_id, enqueued_at)
    SELECT 'q' || i, 'p' || i, 'Player ' || i, TRUE, 2, FALSE, 1, 'r1', i
    FROM generate_series(1, 20) i;
INSERT INTO challenges (id, challenger_id, players, duplicate, rated, status, created_at,
        expires_at, game_ids)
    SELECT 'c' || i, 'p' || (1 + i % 20000), 2, FALSE, i % 2 = 0,
        CASE WHEN i % 100 = 0 THEN 'pending' WHEN i % 101 = 0 THEN 'seating'
            ELSE 'started' END, i, i + 300000000, ''
    FROM generate_series(1, 10000) i;
INSERT INTO challenge_players (challenge_id, player_id, position, answer, visible_until)
    SELECT 'c' || i, 'p' || (1 + (i + k) % 20000), k, 'accepted', i + 600000000
    FROM generate_series(1, 10000) i, generate_series(0, 1) k;
INSERT INTO tournaments (id, name, creator_id, format, players, sets_per_pair, hero_id,
        max_entrants, rated, turn_secs, status, created_at)
    SELECT 't' || i, 'Cup ' || i, 'p' || (1 + i % 20000), 'round_robin', 2, 2, NULL, 16, FALSE,
        30, CASE WHEN i % 100 = 0 THEN 'running' WHEN i % 99 = 0 THEN 'open'
            ELSE 'finished' END, i
    FROM generate_series(1, 2000) i;
INSERT INTO tournament_entrants (tournament_id, player_id, entered_at)
    SELECT 't' || i, 'p' || (1 + (i * 8 + k) % 20000), i
    FROM generate_series(1, 2000) i, generate_series(0, 7) k;
INSERT INTO arranged_games (game_id, arranged_by)
    SELECT 'g' || i, 't' || (1 + i % 2000) FROM generate_series(1, 20000) i;
";

/// Every hot or periodic statement, with realistic arguments (SQL literals).
fn statements() -> Vec<(&'static str, String, &'static str)> {
    let listing = listing::listing_sql::<Postgres>;
    let fixed = [
        ("PLAYER_BY_TOKEN", players::PLAYER_BY_TOKEN, "'h77'"),
        ("PLAYER_BY_ID", players::PLAYER_BY_ID, "'p77'"),
        ("DESCRIPTION_OF", players::DESCRIPTION_OF, "'p77'"),
        (
            "FINISHED_GAMES_OF",
            games::FINISHED_GAMES_OF,
            "'p77', 0, 9223372036854775807, 9223372036854775807, '', 51",
        ),
        (
            "FINISHED_GAMES_OF (a later page, a window)",
            games::FINISHED_GAMES_OF,
            "'p77', 100, 40000, 30000, 'g30000', 51",
        ),
        (
            "UPDATE_DESCRIPTION",
            players::UPDATE_DESCRIPTION,
            "'ismcts v2', 'p77'",
        ),
        (
            "INSERT_RATING_IF_MISSING",
            ratings::INSERT_RATING_IF_MISSING,
            "'p77', 4, 25.0, 8.3",
        ),
        ("OPEN_GAMES_OF", games::OPEN_GAMES_OF, "'p77'"),
        (
            "UPDATE_GAME_STATUS",
            games::UPDATE_GAME_STATUS,
            "'finished', '0', '1,2', '1,1', 'g500'",
        ),
        ("SEATS_OVER", games::SEATS_OVER, "'g500', 500"),
        ("DELETE_SEAT", games::DELETE_SEAT, "'g499', 1"),
        ("ACTIONS_OF_GAME", games::ACTIONS_OF_GAME, "'g500'"),
        ("CLOCKED_GAMES", games::CLOCKED_GAMES, ""),
        (
            "UNFINISHED_GAMES_OF",
            games::UNFINISHED_GAMES_OF,
            "'p77', 'g500'",
        ),
        ("HOUSE_GAMES_OF", games::HOUSE_GAMES_OF, "'p77', 'g500'"),
        (
            "EXPIRED_OPEN_GAMES",
            games::EXPIRED_OPEN_GAMES,
            "30000, 100",
        ),
        ("SET_PROGRESS", games::SET_PROGRESS, "'s7'"),
        ("WAITING_OF", queue::WAITING_OF, "'p7'"),
        ("LADDER_QUEUE", queue::LADDER_QUEUE, ""),
        ("LADDER_GAMES_OF", queue::LADDER_GAMES_OF, "'p1001'"),
        ("MARK_LADDER_ANSWERED", queue::MARK_LADDER_ANSWERED, "'q3'"),
        ("FORGET_LADDER_ENTRY", queue::FORGET_LADDER_ENTRY, "'q3'"),
        ("CANCEL_LADDER", queue::CANCEL_LADDER, "'p3'"),
        (
            "UPDATE_RATING",
            ratings::UPDATE_RATING,
            "26.0, 7.0, 3, 2, 3, 'p77', 2",
        ),
        ("PAIR_OF", ratings::PAIR_OF, "'p77', 2, 'p78'"),
        ("RECORD_PAIR", ratings::RECORD_PAIR, "'p77', 2, 'p78', 5"),
        ("ARRANGED_BY", ratings::ARRANGED_BY, "'g500'"),
        ("RATING_OF", ratings::RATING_OF, "'p77', 2"),
        ("LEADERBOARD", ratings::LEADERBOARD, "0, 11, 0, 10"),
        (
            "LEADERBOARD_OF_KIND (bots)",
            ratings::LEADERBOARD_OF_KIND,
            "2, 11, 0, 10, TRUE",
        ),
        (
            "LEADERBOARD_OF_KIND (people, page 50)",
            ratings::LEADERBOARD_OF_KIND,
            "0, 11, 550, 10, FALSE",
        ),
        (
            "LEADERBOARD (page 50)",
            ratings::LEADERBOARD,
            "2, 11, 550, 10",
        ),
        ("RATINGS_OF", ratings::RATINGS_OF, "'p77'"),
        ("HISTORY_OF", ratings::HISTORY_OF, "'p77'"),
        ("TABLE_ENDED", ratings::TABLE_ENDED, "'s7'"),
        ("SET_TABLES", ratings::SET_TABLES, "'s7'"),
        ("FENCE_GAME", FENCE_GAME, "'g500', 'r1'"),
        (
            "APPEND_ONE",
            APPEND_ONE,
            "'g500', 5, 'p1', 'k5', 2, '{}', 1, 'r1'",
        ),
        ("RENEW_LEASE", RENEW_LEASE, "'r1', 5.0"),
        ("RELEASE_GAMES", RELEASE_GAMES, "'r1'"),
        ("OWNED_GAMES", OWNED_GAMES, "'r1'"),
        ("LIVE_REPLICAS", LIVE_REPLICAS, ""),
        ("OWNERSHIP", OWNERSHIP, "'g500'"),
        ("CLAIM_GAME", CLAIM_GAME, "'g500', 'r1'"),
        ("CLAIM_ORPHANS", CLAIM_ORPHANS, "'r1', 500"),
        ("SET_POLICY", challenges::SET_POLICY, "'bots', 'p77'"),
        ("PLAYER_POLICY", challenges::PLAYER_POLICY, "'p77'"),
        (
            "VISIBLE_CHALLENGES_BY",
            challenges::VISIBLE_CHALLENGES_BY,
            "'p77', 5000",
        ),
        ("KNOWS", challenges::KNOWS, "'p77', 'p78'"),
        ("INSERT_CONTACT", challenges::INSERT_CONTACT, "'p77', 'p78'"),
        ("FROM_STRANGERS", challenges::FROM_STRANGERS, "'p77', 5000"),
        (
            "INSERT_CHALLENGE",
            challenges::INSERT_CHALLENGE,
            "'cx', 'p77', 2, FALSE, TRUE, 'pending', 1, 2",
        ),
        (
            "INSERT_PARTY",
            challenges::INSERT_PARTY,
            "'c77', 'p5', 2, 'pending', 9",
        ),
        ("CHALLENGE_BY_ID", challenges::CHALLENGE_BY_ID, "'c77'"),
        ("PARTIES_OF", challenges::PARTIES_OF, "'c77'"),
        (
            "UPDATE_CHALLENGE",
            challenges::UPDATE_CHALLENGE,
            "'declined', '', 'c77'",
        ),
        (
            "UPDATE_PARTY",
            challenges::UPDATE_PARTY,
            "'declined', 5, 'c77', 'p78'",
        ),
        (
            "VISIBLE_CHALLENGES",
            challenges::VISIBLE_CHALLENGES,
            "'p77', 600005000",
        ),
        ("SEATING_CHALLENGES", challenges::SEATING_CHALLENGES, "5000"),
        (
            "EXPIRED_CHALLENGES",
            challenges::EXPIRED_CHALLENGES,
            "300005000, 500",
        ),
        ("EXPIRE_CHALLENGE", challenges::EXPIRE_CHALLENGE, "'c100'"),
        (
            "START_CHALLENGE",
            challenges::START_CHALLENGE,
            "'g1', 'c101', 5000",
        ),
        (
            "INSERT_ARRANGED",
            arranged_games::INSERT_ARRANGED,
            "'gx', 'c77'",
        ),
        (
            "ARRANGED_GAMES_OF",
            arranged_games::ARRANGED_GAMES_OF,
            "'p1001'",
        ),
        (
            "UNFINISHED_TOURNAMENTS_OF",
            tournaments::UNFINISHED_TOURNAMENTS_OF,
            "'p77'",
        ),
        (
            "INSERT_TOURNAMENT",
            tournaments::INSERT_TOURNAMENT,
            "'tx', 'Cup', 'p77', 'gauntlet', 2, 2, 'p78', 16, FALSE, 30, 'open', 1",
        ),
        ("TOURNAMENT_BY_ID", tournaments::TOURNAMENT_BY_ID, "'t100'"),
        ("ENTRANTS_OF", tournaments::ENTRANTS_OF, "'t100'"),
        (
            "INSERT_ENTRANT",
            tournaments::INSERT_ENTRANT,
            "'t99', 'p5', 9",
        ),
        ("DELETE_ENTRANT", tournaments::DELETE_ENTRANT, "'t99', 'p5'"),
        (
            "START_TOURNAMENT",
            tournaments::START_TOURNAMENT,
            "9, 't99'",
        ),
        (
            "FINISH_TOURNAMENT",
            tournaments::FINISH_TOURNAMENT,
            "9, 't100'",
        ),
        ("RUNNING_TOURNAMENTS", tournaments::RUNNING_TOURNAMENTS, ""),
        ("TOURNAMENT_GAMES", tournaments::TOURNAMENT_GAMES, "'t100'"),
    ];
    let mut all: Vec<(&'static str, String, &'static str)> = fixed
        .into_iter()
        .map(|(name, sql, args)| (name, sql.to_string(), args))
        .collect();
    all.extend([
        (
            "listing: the lobby (open and running tables)",
            listing(&[GameStatus::Open, GameStatus::Running], None, None),
            "'p77', 'p77', 'p77', 'open', 21, 'p77', 'p77', 'p77', 'running', 21, 21",
        ),
        (
            "listing: finished games",
            listing(&[GameStatus::Finished], None, None),
            "'p77', 'p77', 'p77', 'finished', 21, 21",
        ),
        (
            "listing: a player's own games",
            listing(&[], Some("p77"), None),
            "'p77', 'p77', 'p77', 'p77', 9223372036854775807, 21",
        ),
        (
            "listing: every game, a later page",
            listing(&[], None, Some((25_000, "g25000"))),
            "'p77', 'p77', 'p77', 25000, 'g25000', 21, 21",
        ),
        ("LIST_TOURNAMENTS", tournaments::list_sql(false), "21"),
        (
            "LIST_TOURNAMENTS (running)",
            tournaments::list_sql(true),
            "'running', 21",
        ),
        (
            "listing: the seats of a page",
            listing::seats_of::<Postgres>(&["g1", "g2", "g3"])
                .sql()
                .as_str()
                .to_string(),
            "'g1', 'g2', 'g3'",
        ),
    ]);
    all
}

/// Every variant of the group commit's statement (`Writing`) that a group could be written
/// with, with realistic arguments: a group of turns, a turn and a join, a leave, a game's end.
fn append_statements() -> Vec<(String, String, String)> {
    const GROUPS: [(&str, bool, &str); 4] = [
        (
            "turns",
            false,
            "ARRAY['g500', 'g1000'], ARRAY[5, 5]::bigint[], ARRAY['p1', 'p2'], \
             ARRAY['k5', 'k5'], ARRAY[2, 2], ARRAY['{}', '{}'], ARRAY[1, 1]::bigint[], \
             ARRAY['running', 'running'], ARRAY['', ''], ARRAY['', ''], ARRAY['', ''], 'r1', \
             ARRAY[NULL, NULL]::bigint[], ARRAY[NULL, NULL]::text[], ARRAY[NULL, NULL]::bigint[], \
             ARRAY[FALSE, FALSE], ARRAY[NULL, NULL]::bigint[]",
        ),
        (
            "a turn and a join",
            true,
            "ARRAY['g500', 'g1000'], ARRAY[5, 5]::bigint[], ARRAY['p1', 'p2'], \
             ARRAY['k5', 'k5'], ARRAY[2, 2], ARRAY['{}', '{}'], ARRAY[1, 1]::bigint[], \
             ARRAY['running', 'open'], ARRAY['', ''], ARRAY['', ''], ARRAY['', ''], 'r1', \
             ARRAY[NULL, 1]::bigint[], ARRAY[NULL, 'p2'], ARRAY[NULL, NULL]::bigint[], \
             ARRAY[FALSE, FALSE], ARRAY[NULL, NULL]::bigint[]",
        ),
        (
            "a leave",
            true,
            "ARRAY['g1000'], ARRAY[6]::bigint[], ARRAY['p2'], ARRAY['k6'], ARRAY[2], ARRAY['{}'], \
             ARRAY[1]::bigint[], ARRAY['open'], ARRAY[''], ARRAY[''], ARRAY[''], 'r1', \
             ARRAY[NULL]::bigint[], ARRAY[NULL]::text[], ARRAY[1]::bigint[], ARRAY[FALSE], \
             ARRAY[NULL]::bigint[]",
        ),
        (
            "a game's end",
            true,
            "ARRAY['g500'], ARRAY[90]::bigint[], ARRAY['p2'], ARRAY['k90'], ARRAY[2], ARRAY['{}'], \
             ARRAY[1]::bigint[], ARRAY['finished'], ARRAY['1'], ARRAY['3,8'], ARRAY['1,1'], 'r1', \
             ARRAY[NULL]::bigint[], ARRAY[NULL]::text[], ARRAY[NULL]::bigint[], ARRAY[TRUE], \
             ARRAY[9]::bigint[]",
        ),
    ];
    let mut all = Vec::new();
    for (group, seats, args) in GROUPS {
        for update in [true, false] {
            let writing = Writing { update, seats };
            all.push((
                format!("append_group ({group}, {writing:?})"),
                writing.statement().to_string(),
                args.to_string(),
            ));
        }
    }
    all
}

/// The scans of history tables in a plan (JSON, as `EXPLAIN (FORMAT JSON)` prints it) that
/// read their table whole. An index scan without a condition right under a `Limit` reads
/// only as far as the limit (a page in the index's order), so it is not one.
fn whole_scans(plan: &serde_json::Value, found: &mut Vec<String>) {
    scans_under(plan, "", found);
}

fn scans_under(plan: &serde_json::Value, parent: &str, found: &mut Vec<String>) {
    if let Some(node) = plan.as_object() {
        let kind = node.get("Node Type").and_then(|v| v.as_str()).unwrap_or("");
        let table = node
            .get("Relation Name")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        if HISTORY.contains(&table) {
            let unbounded = match kind {
                "Seq Scan" => true,
                "Index Scan" | "Index Only Scan" => {
                    !node.contains_key("Index Cond") && parent != "Limit"
                }
                _ => false,
            };
            if unbounded {
                let index = node
                    .get("Index Name")
                    .and_then(|v| v.as_str())
                    .map(|i| format!(" using {i}"))
                    .unwrap_or_default();
                found.push(format!("{kind} on {table}{index}"));
            }
        }
        for child in node.values() {
            scans_under(child, if kind.is_empty() { parent } else { kind }, found);
        }
    } else if let Some(items) = plan.as_array() {
        for item in items {
            scans_under(item, parent, found);
        }
    }
}

/// The whole scans of one statement's custom and generic plans.
async fn check(
    conn: &mut PoolConnection<Postgres>,
    sql: &str,
    args: &str,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::raw_sql(AssertSqlSafe(format!("PREPARE checked AS {sql}")))
        .execute(&mut **conn)
        .await?;
    let execute = if args.is_empty() {
        "EXECUTE checked".to_string()
    } else {
        format!("EXECUTE checked({args})")
    };
    let mut found = Vec::new();
    for mode in ["force_custom_plan", "force_generic_plan"] {
        sqlx::raw_sql(AssertSqlSafe(format!("SET plan_cache_mode = {mode}")))
            .execute(&mut **conn)
            .await?;
        let row = sqlx::query(AssertSqlSafe(format!("EXPLAIN (FORMAT JSON) {execute}")))
            .fetch_one(&mut **conn)
            .await?;
        // `json` arrives as its text: read it as such (sqlx's `json` feature is not needed).
        let text: String = row.try_get_unchecked(0)?;
        let plan: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        let mut scans = Vec::new();
        whole_scans(&plan, &mut scans);
        found.extend(scans.into_iter().map(|s| format!("{mode}: {s}")));
    }
    sqlx::raw_sql("DEALLOCATE checked; RESET plan_cache_mode")
        .execute(&mut **conn)
        .await?;
    Ok(found)
}

#[tokio::test]
async fn no_hot_or_periodic_statement_reads_a_history_table_whole_without_statistics() {
    let url = crate::testing::fresh_postgres_url().await;
    let store = PostgresStore::connect(&url).await.unwrap();
    let mut conn = store.pool.acquire().await.unwrap();
    // The server's connections discourage sequential scans; the statements must not need
    // that: checked with them allowed.
    sqlx::raw_sql("SET enable_seqscan = on")
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::raw_sql(SEED).execute(&mut *conn).await.unwrap();
    let analyzed: Option<i64> = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_user_tables WHERE schemaname = current_schema() \
         AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)",
    )
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    assert_eq!(analyzed, Some(0), "the check needs tables never analyzed");
    let mut failures = Vec::new();
    let statements = statements()
        .into_iter()
        .map(|(name, sql, args)| (name.to_string(), sql, args.to_string()))
        .chain(append_statements());
    for (name, sql, args) in statements {
        let found = check(&mut conn, &sql, &args)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        failures.extend(found.into_iter().map(|f| format!("{name}: {f}")));
    }
    assert!(
        failures.is_empty(),
        "statements that read history whole:\n{}",
        failures.join("\n")
    );
}

/// The group commit's statement is planned once per connection, not at every commit, on a
/// store with history (see `connect`'s `plan_cache_mode`): left to choose, PostgreSQL plans
/// it afresh at each execution there.
#[tokio::test]
async fn on_a_store_with_history_the_group_commit_is_planned_once_not_at_every_commit() {
    let url = crate::testing::fresh_postgres_url().await;
    drop(PostgresStore::connect(&url).await.unwrap());
    // The statement's counters are per connection: every commit below is written on the one
    // the writers keep.
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .connect_with(super::connect_options(&url).unwrap())
        .await
        .unwrap();
    sqlx::raw_sql(SEED).execute(&pool).await.unwrap();
    // The group commits' own connection, kept from one to the next.
    let writers = Arc::new(super::Writers::new(pool.clone(), Default::default()));
    let commits = 12;
    for seq in 5..5 + commits {
        let appends: Arc<[Append]> = ["g500", "g1000"]
            .map(|game| Append {
                game_id: game.to_string(),
                seq,
                player_id: Some("p1".to_string()),
                idempotency_key: None,
                format: 2,
                payload: "{}".to_string(),
                at: seq,
                status: "running",
                winners: String::new(),
                money: "1,2".to_string(),
                acted: "1".to_string(),
                row_unchanged: false,
                seating: Seating::Unchanged,
            })
            .into();
        let refused = super::write_group(writers.clone(), None, appends)
            .await
            .unwrap();
        assert!(refused.is_empty(), "refused: {refused:?}");
    }
    let (generic, custom): (i64, i64) = sqlx::query_as(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1",
    )
    .bind(
        Writing {
            update: true,
            seats: false,
        }
        .statement(),
    )
    .fetch_one(&mut writers.take().await.unwrap().0)
    .await
    .unwrap();
    assert_eq!(
        (generic, custom),
        (commits, 0),
        "(executions with the generic plan, with a plan made for their arguments)"
    );
}

#[test]
fn a_sequential_scan_or_an_index_scan_without_a_condition_is_a_whole_read() {
    let plan = serde_json::json!([{ "Plan": {
        "Node Type": "Nested Loop",
        "Plans": [
            { "Node Type": "Seq Scan", "Relation Name": "games" },
            { "Node Type": "Index Scan", "Relation Name": "players", "Index Name": "players_pkey",
              "Index Cond": "(id = 'p1')" },
            { "Node Type": "Index Scan", "Relation Name": "ratings", "Index Name": "ratings_pkey" },
            { "Node Type": "Seq Scan", "Relation Name": "ladder_queue" },
            { "Node Type": "Limit", "Plans": [
                { "Node Type": "Index Scan", "Relation Name": "games", "Index Name": "games_listing" }
            ]}
        ]
    }}]);
    let mut found = Vec::new();
    whole_scans(&plan, &mut found);
    assert_eq!(
        found,
        [
            "Seq Scan on games",
            "Index Scan on ratings using ratings_pkey"
        ]
    );
}

/// Plays `games` 2-player games to their end through gRPC, each seat playing its first legal
/// card without placing, one turn after the other.
async fn play_games(url: &str, games: usize) {
    use theboss::v1;
    let connection = theboss_client::Connection::connect(url).await.unwrap();
    let a = connection.register("Scan A", true).await.unwrap();
    let b = connection.register("Scan B", true).await.unwrap();
    for _ in 0..games {
        let settings = v1::GameSettings {
            players: 2,
            visibility: v1::Visibility::Public as i32,
            ..Default::default()
        };
        let game = a.create_game(settings, None).await.unwrap();
        a.join(&game, Some(0)).await.unwrap();
        b.join(&game, Some(1)).await.unwrap();
        loop {
            let view = a.view(&game).await.unwrap();
            let Some(to_move) = view.to_move else { break };
            let seat = if to_move == 0 { &a } else { &b };
            let mine = seat.view(&game).await.unwrap();
            let card = mine.legal.as_ref().unwrap().cards[0];
            let turn = v1::TurnAction {
                placement: None,
                card: Some(card),
            };
            seat.submit(&game, mine.seq, turn).await.unwrap();
        }
    }
}

/// The other half of the check, through counters: a server that starts on an empty schema
/// (where every table is small, and PostgreSQL, with no statistics, would read a small table
/// whole and keep that plan for a prepared statement as the table grows) plays games, and no
/// history table is read whole more than a few times over.
#[tokio::test]
async fn a_server_playing_from_an_empty_store_reads_no_history_table_whole() {
    let url = crate::testing::fresh_postgres_url().await;
    let store = crate::store::open_shared(&url).await.unwrap().0;
    let server = crate::testing::TestServer::start(store, crate::Options::unlimited()).await;
    play_games(&server.url(), 30).await;
    server.stop().await;
    let probe = PostgresStore::connect(&url).await.unwrap();
    let mut conn = probe.pool.acquire().await.unwrap();
    // The servers' backends report their counters when idle (at most a second later).
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let rows: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT relname::text, seq_tup_read, n_live_tup FROM pg_stat_user_tables \
         WHERE schemaname = current_schema()",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let games: i64 = rows.iter().find(|(t, ..)| t == "games").map_or(0, |r| r.2);
    assert!(games >= 30, "the games were played: {rows:?}");
    let whole: Vec<&(String, i64, i64)> = rows
        .iter()
        .filter(|(table, read, live)| HISTORY.contains(&table.as_str()) && *read > 2 * live + 100)
        .collect();
    assert!(
        whole.is_empty(),
        "history tables read whole (table, rows read by sequential scans, rows): {whole:?}"
    );
}
