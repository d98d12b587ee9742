//! The lobby's listing as statements: a page of the games a viewer may see (by status, or a
//! player's own), and the seats of a page, each shaped so that a page costs a page and not
//! the history, with statistics or without (`postgres::plans` and `sqlite::plans` check it).

use sqlx::{Encode, QueryBuilder, Type};

use super::{Backend, rows};
use crate::store::GameQuery;
#[cfg(test)]
use crate::{domain::GameStatus, store::GameCursor};

/// A page of the listing: the games the viewer may see, newest first, one more than the
/// page holds (to tell whether another follows).
///
/// Its cost is bounded by the page, not by the history, on a database with statistics or
/// without: each status asked for is read on its own by the index `games_listing` (status,
/// then the listing's order), at most a page each, and the branches merged. (One scan of every game in the listing's order, filtered
/// by status, reads the whole history to find a page of open tables among finished games.)
/// With `seated`, a player's own games, newest first: read from the player's seats, so a
/// page costs the player's history at most.
pub(in crate::store) fn listing<'q, DB>(query: &'q GameQuery) -> QueryBuilder<DB>
where
    DB: Backend,
    &'q str: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + Encode<'q, DB>,
{
    let limit = i64::from(query.limit) + 1;
    let statuses: Vec<Option<&str>> = if query.statuses.is_empty() {
        vec![None]
    } else {
        query.statuses.iter().map(|s| Some(s.as_str())).collect()
    };
    let mut sql = QueryBuilder::<DB>::new(format!("SELECT {} FROM (", rows::GAME_COLUMNS));
    for (branch, status) in statuses.into_iter().enumerate() {
        if branch > 0 {
            sql.push(" UNION ALL ");
        }
        // A player's own games are found from its seats (by `seats_by_player`), each game
        // then by its key: the player's history, never everyone's.
        match &query.seated {
            Some(player) => {
                sql.push(format!(
                    "SELECT * FROM (SELECT {} FROM seats own JOIN games g ON g.id = own.game_id \
                     WHERE own.player_id = ",
                    rows::GAME_COLUMNS
                ));
                sql.push_bind(player.as_str());
                sql.push(" AND ");
            }
            None => {
                sql.push(format!(
                    "SELECT * FROM (SELECT {} FROM games g WHERE ",
                    rows::GAME_COLUMNS
                ));
            }
        }
        sql.push("(g.visibility = 'public' OR g.created_by = ");
        sql.push_bind(query.viewer.as_str());
        sql.push(" OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.player_id = ");
        sql.push_bind(query.viewer.as_str());
        sql.push("))");
        // A table of a duplicate set still being played shows to its own players only: the
        // others' cards, or its result, are being played at the set's other tables.
        sql.push(" AND (g.series_tables < 2 OR EXISTS (SELECT 1 FROM seats s2 WHERE ");
        sql.push("s2.game_id = g.id AND s2.player_id = ");
        sql.push_bind(query.viewer.as_str());
        sql.push(
            ") OR COALESCE((SELECT x.open_tables FROM series x WHERE x.id = g.series_id), 0) = 0)",
        );
        if let Some(status) = status {
            sql.push(" AND g.status = ");
            sql.push_bind(status);
        }
        if let Some(after) = &query.after {
            // As a row value, which both databases read as a range of the listing's
            // indexes: a later page starts where the last ended, not from the newest game.
            sql.push(" AND (g.created_at, g.id) < (");
            sql.push_bind(after.created_at);
            sql.push(", ");
            sql.push_bind(after.id.as_str());
            sql.push(")");
        }
        if query.seated.is_some() {
            // Every game of the player's, ordered outside. A subquery with a `LIMIT` (here
            // none in effect) is planned on its own: the planner cannot fold the page's
            // order into it and walk every game in the listing's order until the player's
            // page is full. (SQLite has no bare `OFFSET 0`, PostgreSQL no `LIMIT -1`.)
            sql.push(" LIMIT ");
            sql.push_bind(i64::MAX);
        } else {
            sql.push(" ORDER BY g.created_at DESC, g.id DESC LIMIT ");
            sql.push_bind(limit);
        }
        sql.push(format!(") b{branch}"));
    }
    // A total order, and the one the contract promises: the order games are inserted in
    // (`ord`) differs when several are created at once.
    sql.push(") g ORDER BY g.created_at DESC, g.id DESC LIMIT ");
    sql.push_bind(limit);
    sql
}

/// The listing's statement as the plans tests check it: viewer `p77`, 20 games a page.
#[cfg(test)]
pub(in crate::store) fn listing_sql<DB>(
    statuses: &[GameStatus],
    seated: Option<&str>,
    after: Option<(i64, &str)>,
) -> String
where
    DB: Backend,
    for<'q> &'q str: Type<DB> + Encode<'q, DB>,
    for<'q> i64: Type<DB> + Encode<'q, DB>,
{
    let query = GameQuery {
        statuses: statuses.to_vec(),
        seated: seated.map(str::to_string),
        viewer: "p77".into(),
        limit: 20,
        after: after.map(|(created_at, id)| GameCursor {
            created_at,
            id: id.into(),
        }),
    };
    listing::<DB>(&query).sql().as_str().to_string()
}

/// The seats of the listed games, each with its player (looked up by key, one by one: a join
/// could read every player on a database without statistics).
pub(in crate::store) fn seats_of<'q, DB>(game_ids: &[&'q str]) -> QueryBuilder<DB>
where
    DB: Backend,
    &'q str: Type<DB> + Encode<'q, DB>,
{
    let mut sql = QueryBuilder::<DB>::new(
        "SELECT s.game_id, s.seat, s.player_id, \
         (SELECT p.display_name FROM players p WHERE p.id = s.player_id), \
         (SELECT p.is_bot FROM players p WHERE p.id = s.player_id) \
         FROM seats s WHERE s.game_id IN (",
    );
    let mut list = sql.separated(", ");
    for id in game_ids {
        list.push_bind(*id);
    }
    sql.push(")");
    sql
}
