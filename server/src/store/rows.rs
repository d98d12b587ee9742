//! What both SQL backends share: the text of every query (written in `$n` placeholders,
//! which PostgreSQL and SQLite both accept), the row shapes, and their decoding into
//! domain records. [`sql_store!`] implements [`Store`](super::Store) over either pool with them.

use theboss_engine::{City, Seat};

use super::{GameListing, StoreError, StoredAction};
use crate::table::{Action, GameRecord, PlayerInfo, Settings, Status, Visibility};

pub(super) const INSERT_PLAYER: &str = "INSERT INTO players (id, display_name, is_bot, token_hash, created_at) \
     VALUES ($1, $2, $3, $4, $5)";
pub(super) const PLAYER_BY_TOKEN: &str =
    "SELECT id, display_name, is_bot FROM players WHERE token_hash = $1";
pub(super) const INSERT_GAME: &str = "INSERT INTO games (id, players, cities, seed, turn_time_limit, visibility, ladder, \
     status, winners, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '', $9, $10)";
pub(super) const GAME_COLUMNS: &str = "g.ord, g.id, g.players, g.cities, g.seed, g.turn_time_limit, g.visibility, \
     g.ladder, g.status, g.winners, g.created_by, g.created_at";
pub(super) const INSERT_ACTION: &str = "INSERT INTO actions (game_id, seq, player_id, idempotency_key, payload, at) \
     VALUES ($1, $2, $3, $4, $5, $6)";
pub(super) const UPDATE_GAME_STATUS: &str =
    "UPDATE games SET status = $1, winners = $2 WHERE id = $3";
pub(super) const INSERT_SEAT: &str =
    "INSERT INTO seats (game_id, seat, player_id) VALUES ($1, $2, $3)";
pub(super) const DELETE_SEAT: &str = "DELETE FROM seats WHERE game_id = $1 AND seat = $2";
pub(super) const ACTIONS_OF_GAME: &str = "SELECT seq, player_id, idempotency_key, payload, at FROM actions \
     WHERE game_id = $1 ORDER BY seq";
pub(super) const UNFINISHED_GAMES: &str =
    "SELECT id FROM games WHERE status IN ('open', 'running') ORDER BY ord";
pub(super) const SEATS_COLUMNS: &str = "SELECT s.game_id, s.seat, p.id, p.display_name, p.is_bot FROM seats s \
     JOIN players p ON p.id = s.player_id WHERE s.game_id IN (";

pub(super) type GameRow = (
    i64,
    String,
    i64,
    String,
    i64,
    i64,
    String,
    bool,
    String,
    String,
    String,
    i64,
);
pub(super) type ActionRow = (i64, Option<String>, Option<String>, String, i64);
pub(super) type SeatRow = (String, i64, String, String, bool);
pub(super) type PlayerRow = (String, String, bool);

pub(super) fn corrupt(what: impl Into<String>) -> StoreError {
    StoreError::Corrupt(what.into())
}

fn seat_from(value: i64) -> Result<Seat, StoreError> {
    Seat::try_from(value).map_err(|_| corrupt(format!("seat {value}")))
}

pub(super) fn numbers_to_text(numbers: impl IntoIterator<Item = u8>) -> String {
    numbers
        .into_iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn numbers_from_text(text: &str) -> Result<Vec<u8>, StoreError> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| corrupt(format!("number list {text:?}")))
        })
        .collect()
}

pub(super) fn cities_to_text(cities: &[City]) -> String {
    numbers_to_text(cities.iter().map(|c| c.number()))
}

/// The seed's bits as a signed 64-bit column, and back.
pub(super) fn seed_to_column(seed: u64) -> i64 {
    i64::from_ne_bytes(seed.to_ne_bytes())
}

fn seed_from_column(value: i64) -> u64 {
    u64::from_ne_bytes(value.to_ne_bytes())
}

pub(super) fn player_from_row((id, display_name, is_bot): PlayerRow) -> PlayerInfo {
    PlayerInfo {
        id,
        display_name,
        is_bot,
    }
}

/// A game row: its cursor, record, status and winners.
pub(super) fn game_from_row(
    row: GameRow,
) -> Result<(i64, GameRecord, Status, Vec<Seat>), StoreError> {
    let (
        ord,
        id,
        players,
        cities,
        seed,
        turn_time_limit,
        visibility,
        ladder,
        status,
        winners,
        created_by,
        created_at,
    ) = row;
    let cities = numbers_from_text(&cities)?
        .into_iter()
        .map(|n| City::from_number(n).ok_or_else(|| corrupt(format!("city {n}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let players = u8::try_from(players).map_err(|_| corrupt(format!("players {players}")))?;
    let turn_time_limit_secs = u32::try_from(turn_time_limit)
        .map_err(|_| corrupt(format!("turn time limit {turn_time_limit}")))?;
    let visibility = Visibility::parse(&visibility)
        .ok_or_else(|| corrupt(format!("visibility {visibility:?}")))?;
    let settings = Settings::new(players, cities, turn_time_limit_secs, visibility)
        .map_err(|e| corrupt(format!("settings of game {id}: {e}")))?;
    let status = Status::parse(&status).ok_or_else(|| corrupt(format!("status {status:?}")))?;
    let winners = numbers_from_text(&winners)?;
    let record = GameRecord {
        id,
        settings,
        seed: seed_from_column(seed),
        created_by,
        created_at,
        ladder,
    };
    Ok((ord, record, status, winners))
}

pub(super) fn action_payload(action: &Action) -> String {
    serde_json::to_string(action).expect("actions serialize")
}

pub(super) fn action_from_row(row: ActionRow) -> Result<StoredAction, StoreError> {
    let (seq, player_id, idempotency_key, payload, at) = row;
    Ok(StoredAction {
        seq: u64::try_from(seq).map_err(|_| corrupt(format!("action seq {seq}")))?,
        action: serde_json::from_str(&payload)
            .map_err(|e| corrupt(format!("action {seq}: {e}")))?,
        player_id,
        idempotency_key,
        at,
    })
}

/// Attaches seat rows to the listings they belong to.
pub(super) fn seat_listings(
    listings: &mut [GameListing],
    rows: Vec<SeatRow>,
) -> Result<(), StoreError> {
    for (game_id, seat, id, display_name, is_bot) in rows {
        if let Some(listing) = listings.iter_mut().find(|l| l.record.id == game_id) {
            listing.seats.push((
                seat_from(seat)?,
                PlayerInfo {
                    id,
                    display_name,
                    is_bot,
                },
            ));
        }
    }
    for listing in listings {
        listing.seats.sort_by_key(|(seat, _)| *seat);
    }
    Ok(())
}

/// Implements [`Store`](super::Store) for a struct with a `pool` field of the given
/// database, using the shared queries above. Both backends run the same statements; only
/// connecting and migrating differ.
macro_rules! sql_store {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::store::Store for $store {
            async fn create_player(
                &self,
                new: &$crate::store::NewPlayer,
            ) -> Result<(), $crate::store::StoreError> {
                sqlx::query(rows::INSERT_PLAYER)
                    .bind(&new.player.id)
                    .bind(&new.player.display_name)
                    .bind(new.player.is_bot)
                    .bind(&new.token_hash)
                    .bind(new.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn player_by_token_hash(
                &self,
                token_hash: &str,
            ) -> Result<Option<$crate::table::PlayerInfo>, $crate::store::StoreError> {
                let row: Option<rows::PlayerRow> = sqlx::query_as(rows::PLAYER_BY_TOKEN)
                    .bind(token_hash)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(rows::player_from_row))
            }

            async fn create_game(
                &self,
                game: &$crate::table::GameRecord,
            ) -> Result<(), $crate::store::StoreError> {
                sqlx::query(rows::INSERT_GAME)
                    .bind(&game.id)
                    .bind(i64::from(game.settings.players))
                    .bind(rows::cities_to_text(&game.settings.cities))
                    .bind(rows::seed_to_column(game.seed))
                    .bind(i64::from(game.settings.turn_time_limit_secs))
                    .bind(game.settings.visibility.as_str())
                    .bind(game.ladder)
                    .bind($crate::table::Status::Open.as_str())
                    .bind(&game.created_by)
                    .bind(game.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn append_action(
                &self,
                game_id: &str,
                action: &$crate::store::StoredAction,
                effects: &$crate::store::Effects,
            ) -> Result<(), $crate::store::StoreError> {
                let seq = i64::try_from(action.seq)
                    .map_err(|_| rows::corrupt(format!("action seq {}", action.seq)))?;
                let mut tx = self.pool.begin().await?;
                let inserted = sqlx::query(rows::INSERT_ACTION)
                    .bind(game_id)
                    .bind(seq)
                    .bind(&action.player_id)
                    .bind(&action.idempotency_key)
                    .bind(rows::action_payload(&action.action))
                    .bind(action.at)
                    .execute(&mut *tx)
                    .await;
                if let Err(sqlx::Error::Database(e)) = &inserted {
                    if e.is_unique_violation() {
                        return Err($crate::store::StoreError::Conflict {
                            game_id: game_id.to_string(),
                            seq: action.seq,
                        });
                    }
                }
                inserted?;
                match &action.action {
                    $crate::table::Action::Join { seat, player } => {
                        sqlx::query(rows::INSERT_SEAT)
                            .bind(game_id)
                            .bind(i64::from(*seat))
                            .bind(&player.id)
                            .execute(&mut *tx)
                            .await?;
                    }
                    $crate::table::Action::Leave { seat } => {
                        sqlx::query(rows::DELETE_SEAT)
                            .bind(game_id)
                            .bind(i64::from(*seat))
                            .execute(&mut *tx)
                            .await?;
                    }
                    _ => {}
                }
                sqlx::query(rows::UPDATE_GAME_STATUS)
                    .bind(effects.status.as_str())
                    .bind(rows::numbers_to_text(effects.winners.iter().copied()))
                    .bind(game_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn load_game(
                &self,
                game_id: &str,
            ) -> Result<Option<$crate::store::StoredGame>, $crate::store::StoreError> {
                let sql = format!("SELECT {} FROM games g WHERE g.id = $1", rows::GAME_COLUMNS);
                let row: Option<rows::GameRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
                    .bind(game_id)
                    .fetch_optional(&self.pool)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let (_, record, _, _) = rows::game_from_row(row)?;
                let actions: Vec<rows::ActionRow> = sqlx::query_as(rows::ACTIONS_OF_GAME)
                    .bind(game_id)
                    .fetch_all(&self.pool)
                    .await?;
                let actions = actions
                    .into_iter()
                    .map(rows::action_from_row)
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Some($crate::store::StoredGame { record, actions }))
            }

            async fn unfinished_games(&self) -> Result<Vec<String>, $crate::store::StoreError> {
                let ids: Vec<(String,)> = sqlx::query_as(rows::UNFINISHED_GAMES)
                    .fetch_all(&self.pool)
                    .await?;
                Ok(ids.into_iter().map(|(id,)| id).collect())
            }

            async fn list_games(
                &self,
                query: &$crate::store::GameQuery,
            ) -> Result<$crate::store::GamePage, $crate::store::StoreError> {
                let mut sql = sqlx::QueryBuilder::<$db>::new(format!(
                    "SELECT {} FROM games g WHERE (g.visibility = 'public' OR g.created_by = ",
                    rows::GAME_COLUMNS
                ));
                sql.push_bind(&query.viewer);
                sql.push(" OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.player_id = ");
                sql.push_bind(&query.viewer);
                sql.push("))");
                if !query.statuses.is_empty() {
                    sql.push(" AND g.status IN (");
                    let mut list = sql.separated(", ");
                    for status in &query.statuses {
                        list.push_bind(status.as_str());
                    }
                    sql.push(")");
                }
                if let Some(player) = &query.seated {
                    sql.push(" AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.player_id = ");
                    sql.push_bind(player);
                    sql.push(")");
                }
                if let Some(after) = query.after {
                    sql.push(" AND g.ord < ");
                    sql.push_bind(after);
                }
                sql.push(" ORDER BY g.ord DESC LIMIT ");
                sql.push_bind(i64::from(query.limit) + 1);
                let rows: Vec<rows::GameRow> =
                    sql.build_query_as().fetch_all(&self.pool).await?;
                let more = rows.len() > query.limit as usize;
                let mut listings = Vec::with_capacity(rows.len());
                let mut last = None;
                for row in rows.into_iter().take(query.limit as usize) {
                    let (ord, record, status, winners) = rows::game_from_row(row)?;
                    last = Some(ord);
                    listings.push($crate::store::GameListing {
                        record,
                        status,
                        seats: Vec::new(),
                        winners,
                    });
                }
                if !listings.is_empty() {
                    let mut sql = sqlx::QueryBuilder::<$db>::new(rows::SEATS_COLUMNS);
                    let mut list = sql.separated(", ");
                    for listing in &listings {
                        list.push_bind(&listing.record.id);
                    }
                    sql.push(")");
                    let seats: Vec<rows::SeatRow> =
                        sql.build_query_as().fetch_all(&self.pool).await?;
                    rows::seat_listings(&mut listings, seats)?;
                }
                Ok($crate::store::GamePage {
                    games: listings,
                    next: if more { last } else { None },
                })
            }
        }
    };
}

pub(super) use sql_store;
