//! The plans SQLite makes for the statements the server runs on a hot path or periodically,
//! checked with `EXPLAIN QUERY PLAN` on a database that was never analyzed (SQLite's planner
//! then works from rules, not from the data): none may scan a history table whole. An
//! ordered walk of an index that the statement's `LIMIT` stops (a page of the listing) is
//! bounded by the page, and allowed. PostgreSQL's counterpart is `postgres::plans`.

use sqlx::{AssertSqlSafe, Sqlite};

use super::SqliteStore;
use crate::domain::GameStatus;
use crate::store::sql::{
    arranged_games, challenges, games, listing, players, queue, ratings, tournaments,
};

/// Tables that grow with the service's history, by the names and aliases the statements
/// give them (SQLite's plans name the alias).
const HISTORY: [(&str, &str); 23] = [
    ("games", "games"),
    ("g", "games"),
    ("players", "players"),
    ("p", "players"),
    ("actions", "actions"),
    ("seats", "seats"),
    ("s", "seats"),
    ("own", "seats"),
    ("h", "seats"),
    ("series", "series"),
    ("ratings", "ratings"),
    ("rating_history", "rating_history"),
    ("challenges", "challenges"),
    ("challenge_players", "challenge_players"),
    ("cp", "challenge_players"),
    ("tournaments", "tournaments"),
    ("tournament_entrants", "tournament_entrants"),
    ("e", "tournament_entrants"),
    ("arranged_games", "arranged_games"),
    ("a", "arranged_games"),
    ("contacts", "contacts"),
    ("k", "contacts"),
    ("rated_pairs", "rated_pairs"),
];

/// The statements both backends share (PostgreSQL's own are checked in `postgres::plans`).
fn statements() -> Vec<(&'static str, String)> {
    let listing = listing::listing_sql::<Sqlite>;
    let fixed = [
        ("PLAYER_BY_TOKEN", players::PLAYER_BY_TOKEN),
        ("PLAYER_BY_ID", players::PLAYER_BY_ID),
        ("DESCRIPTION_OF", players::DESCRIPTION_OF),
        ("FINISHED_GAMES_OF", games::FINISHED_GAMES_OF),
        ("UPDATE_DESCRIPTION", players::UPDATE_DESCRIPTION),
        (
            "INSERT_RATING_IF_MISSING",
            ratings::INSERT_RATING_IF_MISSING,
        ),
        ("OPEN_GAMES_OF", games::OPEN_GAMES_OF),
        ("UPDATE_GAME_STATUS", games::UPDATE_GAME_STATUS),
        ("SEATS_OVER", games::SEATS_OVER),
        ("DELETE_SEAT", games::DELETE_SEAT),
        ("ACTIONS_OF_GAME", games::ACTIONS_OF_GAME),
        ("CLOCKED_GAMES", games::CLOCKED_GAMES),
        ("UNFINISHED_GAMES_OF", games::UNFINISHED_GAMES_OF),
        ("HOUSE_GAMES_OF", games::HOUSE_GAMES_OF),
        ("EXPIRED_OPEN_GAMES", games::EXPIRED_OPEN_GAMES),
        ("SET_PROGRESS", games::SET_PROGRESS),
        ("WAITING_OF", queue::WAITING_OF),
        ("LADDER_QUEUE", queue::LADDER_QUEUE),
        ("LADDER_GAMES_OF", queue::LADDER_GAMES_OF),
        ("MARK_LADDER_ANSWERED", queue::MARK_LADDER_ANSWERED),
        ("FORGET_LADDER_ENTRY", queue::FORGET_LADDER_ENTRY),
        ("CANCEL_LADDER", queue::CANCEL_LADDER),
        ("UPDATE_RATING", ratings::UPDATE_RATING),
        ("PAIR_OF", ratings::PAIR_OF),
        ("RECORD_PAIR", ratings::RECORD_PAIR),
        ("ARRANGED_BY", ratings::ARRANGED_BY),
        ("RATING_OF", ratings::RATING_OF),
        ("LEADERBOARD", ratings::LEADERBOARD),
        ("LEADERBOARD_OF_KIND", ratings::LEADERBOARD_OF_KIND),
        ("RATINGS_OF", ratings::RATINGS_OF),
        ("HISTORY_OF", ratings::HISTORY_OF),
        ("TABLE_ENDED", ratings::TABLE_ENDED),
        ("SET_TABLES", ratings::SET_TABLES),
    ];
    let fixed = fixed.into_iter().chain(arranged_statements());
    let mut all: Vec<(&'static str, String)> = fixed
        .into_iter()
        .map(|(name, sql)| (name, sql.to_string()))
        .collect();
    all.extend([
        (
            "listing: the lobby",
            listing(&[GameStatus::Open, GameStatus::Running], None, None),
        ),
        (
            "listing: a player's own games",
            listing(&[], Some("p77"), None),
        ),
        (
            "listing: every game, a later page",
            listing(&[], None, Some((25_000, "g25000"))),
        ),
        (
            "listing: the seats of a page",
            listing::seats_of::<Sqlite>(&["g1", "g2"])
                .sql()
                .as_str()
                .to_string(),
        ),
        ("LIST_TOURNAMENTS", tournaments::list_sql(false)),
        (
            "LIST_TOURNAMENTS (of a status)",
            tournaments::list_sql(true),
        ),
    ]);
    all
}

/// Challenges' and tournaments' statements (both backends check them).
pub(in crate::store) fn arranged_statements() -> [(&'static str, &'static str); 29] {
    use arranged_games::*;
    use challenges::*;
    use tournaments::*;
    [
        ("SET_POLICY", SET_POLICY),
        ("PLAYER_POLICY", PLAYER_POLICY),
        ("VISIBLE_CHALLENGES_BY", VISIBLE_CHALLENGES_BY),
        ("KNOWS", KNOWS),
        ("INSERT_CONTACT", INSERT_CONTACT),
        ("FROM_STRANGERS", FROM_STRANGERS),
        ("INSERT_CHALLENGE", INSERT_CHALLENGE),
        ("INSERT_PARTY", INSERT_PARTY),
        ("CHALLENGE_BY_ID", CHALLENGE_BY_ID),
        ("PARTIES_OF", PARTIES_OF),
        ("UPDATE_CHALLENGE", UPDATE_CHALLENGE),
        ("UPDATE_PARTY", UPDATE_PARTY),
        ("VISIBLE_CHALLENGES", VISIBLE_CHALLENGES),
        ("SEATING_CHALLENGES", SEATING_CHALLENGES),
        ("EXPIRED_CHALLENGES", EXPIRED_CHALLENGES),
        ("EXPIRE_CHALLENGE", EXPIRE_CHALLENGE),
        ("START_CHALLENGE", START_CHALLENGE),
        ("INSERT_ARRANGED", INSERT_ARRANGED),
        ("ARRANGED_GAMES_OF", ARRANGED_GAMES_OF),
        ("UNFINISHED_TOURNAMENTS_OF", UNFINISHED_TOURNAMENTS_OF),
        ("INSERT_TOURNAMENT", INSERT_TOURNAMENT),
        ("TOURNAMENT_BY_ID", TOURNAMENT_BY_ID),
        ("ENTRANTS_OF", ENTRANTS_OF),
        ("INSERT_ENTRANT", INSERT_ENTRANT),
        ("DELETE_ENTRANT", DELETE_ENTRANT),
        ("START_TOURNAMENT", START_TOURNAMENT),
        ("FINISH_TOURNAMENT", FINISH_TOURNAMENT),
        ("RUNNING_TOURNAMENTS", RUNNING_TOURNAMENTS),
        ("TOURNAMENT_GAMES", TOURNAMENT_GAMES),
    ]
}

/// The steps of a plan (`EXPLAIN QUERY PLAN`'s details) that read a history table whole.
fn whole_scans(sql: &str, details: &[String]) -> Vec<String> {
    let paged = sql.contains("LIMIT") && !details.iter().any(|d| d.contains("TEMP B-TREE"));
    details
        .iter()
        .filter(|detail| {
            let Some(rest) = detail.strip_prefix("SCAN ") else {
                return false;
            };
            let name = rest.split_whitespace().next().unwrap_or("");
            let history = HISTORY.iter().any(|(alias, _)| *alias == name);
            // An ordered walk of an index that the page's LIMIT stops.
            let walk = rest.contains(" USING INDEX ") || rest.contains(" USING COVERING INDEX ");
            history && !(paged && walk)
        })
        .cloned()
        .collect()
}

#[tokio::test]
async fn no_hot_or_periodic_statement_reads_a_history_table_whole() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("plans.db").display());
    let store = SqliteStore::connect(&url).await.unwrap();
    let mut failures = Vec::new();
    for (name, sql) in statements() {
        let rows: Vec<(i64, i64, i64, String)> =
            sqlx::query_as(AssertSqlSafe(format!("EXPLAIN QUERY PLAN {sql}")))
                .fetch_all(&store.pool)
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        let details: Vec<String> = rows.into_iter().map(|(_, _, _, d)| d).collect();
        tracing::debug!(name, ?details, "plan");
        failures.extend(
            whole_scans(&sql, &details)
                .into_iter()
                .map(|scan| format!("{name}: {scan}")),
        );
    }
    assert!(
        failures.is_empty(),
        "statements that read history whole:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_scan_of_a_history_table_is_a_whole_read_unless_a_page_stops_it() {
    let details = |d: &[&str]| d.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        whole_scans(
            "SELECT 1",
            &details(&["SCAN g", "SEARCH p USING INDEX x (id=?)"])
        ),
        ["SCAN g"]
    );
    assert!(
        whole_scans(
            "SELECT 1 LIMIT 5",
            &details(&["SCAN g USING INDEX games_by_creation"])
        )
        .is_empty()
    );
    assert_eq!(
        whole_scans(
            "SELECT 1 LIMIT 5",
            &details(&["SCAN g USING INDEX x", "USE TEMP B-TREE FOR ORDER BY"])
        ),
        ["SCAN g USING INDEX x"]
    );
    assert!(whole_scans("SELECT 1", &details(&["SCAN ladder_queue"])).is_empty());
}
