//! What both SQL backends share: the text of every query (written in `$n` placeholders,
//! which PostgreSQL and SQLite both accept), the row shapes, and their decoding into
//! domain records. [`sql_store!`] implements [`Store`](super::Store) over either pool with them.

use theboss_engine::{City, Seat};

use super::{GameListing, StoreError, StoredAction};
use crate::table::{Action, GameRecord, PlayerInfo, SeriesRef, Settings, Status, Visibility};

pub(super) const INSERT_PLAYER: &str = "INSERT INTO players (id, display_name, is_bot, token_hash, created_at) \
     VALUES ($1, $2, $3, $4, $5)";
pub(super) const PLAYER_BY_TOKEN: &str =
    "SELECT id, display_name, is_bot FROM players WHERE token_hash = $1";
pub(super) const INSERT_GAME: &str = "INSERT INTO games (id, players, cities, seed, turn_time_limit, visibility, ladder, \
     status, winners, created_by, created_at, series_id, series_index) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '', $9, $10, $11, $12)";
pub(super) const GAME_COLUMNS: &str = "g.ord, g.id, g.players, g.cities, g.seed, g.turn_time_limit, g.visibility, \
     g.ladder, g.status, g.winners, g.created_by, g.created_at, g.series_id, g.series_index, g.money";
pub(super) const INSERT_ACTION: &str = "INSERT INTO actions (game_id, seq, player_id, idempotency_key, format, payload, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7)";
pub(super) const UPDATE_GAME_STATUS: &str =
    "UPDATE games SET status = $1, winners = $2, money = $3 WHERE id = $4";
pub(super) const UPSERT_RATING: &str = "INSERT INTO ratings (player_id, players, mu, sigma, games) \
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (player_id, players) \
     DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = excluded.games";
pub(super) const INSERT_RATING_HISTORY: &str = "INSERT INTO rating_history \
     (player_id, players, game_id, mu_before, sigma_before, mu, sigma, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
pub(super) const RATING_OF: &str =
    "SELECT mu, sigma, games FROM ratings WHERE player_id = $1 AND players = $2";
pub(super) const LEADERBOARD: &str = "SELECT p.id, p.display_name, p.is_bot, r.mu, r.sigma, r.games \
     FROM ratings r JOIN players p ON p.id = r.player_id WHERE r.players = $1 \
     ORDER BY r.mu - 3 * r.sigma DESC, p.id LIMIT $2 OFFSET $3";
pub(super) const PLAYER_BY_ID: &str = "SELECT id, display_name, is_bot FROM players WHERE id = $1";
pub(super) const RATINGS_OF: &str =
    "SELECT players, mu, sigma, games FROM ratings WHERE player_id = $1 ORDER BY players";
pub(super) const HISTORY_OF: &str = "SELECT game_id, players, mu_before, sigma_before, mu, sigma, at \
     FROM rating_history WHERE player_id = $1 ORDER BY at DESC, players LIMIT 100";
pub(super) const INSERT_SERIES: &str =
    "INSERT INTO series (id, players, seed, created_at) VALUES ($1, $2, $3, $4)";
pub(super) const SERIES_BY_ID: &str =
    "SELECT id, players, seed, created_at FROM series WHERE id = $1";
pub(super) const SERIES_GAMES: &str = "SELECT g.id, g.series_index, g.status, g.money FROM games g \
     WHERE g.series_id = $1 ORDER BY g.series_index";
pub(super) const SEATS_OF_GAME: &str =
    "SELECT player_id FROM seats WHERE game_id = $1 ORDER BY seat";
pub(super) const OPEN_SERIES: &str = "SELECT s.id FROM series s WHERE NOT EXISTS (SELECT 1 FROM games h \
     WHERE h.series_id = s.id AND h.series_index = h.players - 1 AND h.status IN ('finished', 'aborted')) \
     ORDER BY s.created_at";
pub(super) const LADDER_GAMES_OF: &str = "SELECT g.id, s.seat, g.players, g.series_id, g.series_index FROM games g \
     JOIN seats s ON s.game_id = g.id WHERE s.player_id = $1 AND g.ladder \
     AND g.status IN ('open', 'running') ORDER BY g.ord";
pub(super) const INSERT_SEAT: &str =
    "INSERT INTO seats (game_id, seat, player_id) VALUES ($1, $2, $3)";
pub(super) const DELETE_SEAT: &str = "DELETE FROM seats WHERE game_id = $1 AND seat = $2";
pub(super) const ACTIONS_OF_GAME: &str = "SELECT seq, player_id, idempotency_key, format, payload, at FROM actions \
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
    Option<String>,
    Option<i64>,
    String,
);
pub(super) type ActionRow = (i64, Option<String>, Option<String>, i32, String, i64);
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

pub(super) fn numbers_from_text(text: &str) -> Result<Vec<u8>, StoreError> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| corrupt(format!("number list {text:?}")))
        })
        .collect()
}

pub(super) fn money_to_text(money: &[u32]) -> String {
    money
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn money_from_text(text: &str) -> Result<Vec<u32>, StoreError> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| corrupt(format!("money list {text:?}")))
        })
        .collect()
}

pub(super) fn category(value: i64) -> Result<u8, StoreError> {
    u8::try_from(value).map_err(|_| corrupt(format!("rating category {value}")))
}

pub(super) fn games_count(value: i64) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|_| corrupt(format!("games {value}")))
}

pub(super) fn seed_of(value: i64) -> u64 {
    seed_from_column(value)
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
        series_id,
        series_index,
        _money,
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
        series: match (series_id, series_index) {
            (Some(id), Some(index)) => Some(SeriesRef {
                id,
                index: u8::try_from(index).map_err(|_| corrupt(format!("series index {index}")))?,
            }),
            _ => None,
        },
    };
    Ok((ord, record, status, winners))
}

/// An action's stored format and payload (see [`format`](super::format)).
pub(super) fn action_payload(action: &Action) -> (i32, String) {
    let (format, payload) = super::format::encode(action);
    (i32::from(format), payload)
}

pub(super) fn action_from_row(game_id: &str, row: ActionRow) -> Result<StoredAction, StoreError> {
    let (seq, player_id, idempotency_key, format, payload, at) = row;
    let action = i16::try_from(format)
        .map_err(|_| format!("format {format} is out of range"))
        .and_then(|format| super::format::decode(format, &payload))
        .map_err(|e| corrupt(format!("game {game_id}, action {seq}: {e}")))?;
    Ok(StoredAction {
        seq: u64::try_from(seq)
            .map_err(|_| corrupt(format!("game {game_id}: action seq {seq}")))?,
        action,
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
                    .bind(game.series.as_ref().map(|s| s.id.clone()))
                    .bind(game.series.as_ref().map(|s| i64::from(s.index)))
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
                let (format, payload) = rows::action_payload(&action.action);
                let mut tx = self.pool.begin().await?;
                let inserted = sqlx::query(rows::INSERT_ACTION)
                    .bind(game_id)
                    .bind(seq)
                    .bind(&action.player_id)
                    .bind(&action.idempotency_key)
                    .bind(format)
                    .bind(payload)
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
                    .bind(rows::money_to_text(&effects.money))
                    .bind(game_id)
                    .execute(&mut *tx)
                    .await?;
                for change in &effects.ratings {
                    sqlx::query(rows::UPSERT_RATING)
                        .bind(&change.player_id)
                        .bind(i64::from(change.players))
                        .bind(change.after.mu)
                        .bind(change.after.sigma)
                        .bind(i64::from(change.after.games))
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query(rows::INSERT_RATING_HISTORY)
                        .bind(&change.player_id)
                        .bind(i64::from(change.players))
                        .bind(game_id)
                        .bind(change.before.mu)
                        .bind(change.before.sigma)
                        .bind(change.after.mu)
                        .bind(change.after.sigma)
                        .bind(action.at)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn import_games(
                &self,
                games: &[($crate::store::StoredGame, $crate::store::Effects)],
            ) -> Result<(), $crate::store::StoreError> {
                let mut tx = self.pool.begin().await?;
                for (stored, effects) in games {
                    let game = &stored.record;
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
                        .bind(game.series.as_ref().map(|s| s.id.clone()))
                        .bind(game.series.as_ref().map(|s| i64::from(s.index)))
                        .execute(&mut *tx)
                        .await?;
                    let mut seats = std::collections::BTreeMap::new();
                    for action in &stored.actions {
                        let seq = i64::try_from(action.seq)
                            .map_err(|_| rows::corrupt(format!("action seq {}", action.seq)))?;
                        let (format, payload) = rows::action_payload(&action.action);
                        sqlx::query(rows::INSERT_ACTION)
                            .bind(&game.id)
                            .bind(seq)
                            .bind(&action.player_id)
                            .bind(&action.idempotency_key)
                            .bind(format)
                            .bind(payload)
                            .bind(action.at)
                            .execute(&mut *tx)
                            .await?;
                        match &action.action {
                            $crate::table::Action::Join { seat, player } => {
                                seats.insert(*seat, player.id.clone());
                            }
                            $crate::table::Action::Leave { seat } => {
                                seats.remove(seat);
                            }
                            _ => {}
                        }
                    }
                    for (seat, player_id) in seats {
                        sqlx::query(rows::INSERT_SEAT)
                            .bind(&game.id)
                            .bind(i64::from(seat))
                            .bind(player_id)
                            .execute(&mut *tx)
                            .await?;
                    }
                    sqlx::query(rows::UPDATE_GAME_STATUS)
                        .bind(effects.status.as_str())
                        .bind(rows::numbers_to_text(effects.winners.iter().copied()))
                        .bind(rows::money_to_text(&effects.money))
                        .bind(&game.id)
                        .execute(&mut *tx)
                        .await?;
                }
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
                    .map(|row| rows::action_from_row(game_id, row))
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

            async fn rating(
                &self,
                player_id: &str,
                players: u8,
            ) -> Result<Option<$crate::rating::Rating>, $crate::store::StoreError> {
                let row: Option<(f64, f64, i64)> = sqlx::query_as(rows::RATING_OF)
                    .bind(player_id)
                    .bind(i64::from(players))
                    .fetch_optional(&self.pool)
                    .await?;
                row.map(|(mu, sigma, games)| {
                    Ok($crate::rating::Rating { mu, sigma, games: rows::games_count(games)? })
                })
                .transpose()
            }

            async fn leaderboard(
                &self,
                players: u8,
                limit: u32,
                offset: u64,
            ) -> Result<Vec<($crate::table::PlayerInfo, $crate::rating::Rating)>, $crate::store::StoreError> {
                let rows: Vec<(String, String, bool, f64, f64, i64)> = sqlx::query_as(rows::LEADERBOARD)
                    .bind(i64::from(players))
                    .bind(i64::from(limit))
                    .bind(i64::try_from(offset).unwrap_or(i64::MAX))
                    .fetch_all(&self.pool)
                    .await?;
                rows.into_iter()
                    .map(|(id, display_name, is_bot, mu, sigma, games)| {
                        Ok((
                            $crate::table::PlayerInfo { id, display_name, is_bot },
                            $crate::rating::Rating { mu, sigma, games: rows::games_count(games)? },
                        ))
                    })
                    .collect()
            }

            async fn player_ratings(
                &self,
                player_id: &str,
            ) -> Result<Option<$crate::store::PlayerRatings>, $crate::store::StoreError> {
                let player: Option<rows::PlayerRow> = sqlx::query_as(rows::PLAYER_BY_ID)
                    .bind(player_id)
                    .fetch_optional(&self.pool)
                    .await?;
                let Some(player) = player else { return Ok(None) };
                let ratings: Vec<(i64, f64, f64, i64)> = sqlx::query_as(rows::RATINGS_OF)
                    .bind(player_id)
                    .fetch_all(&self.pool)
                    .await?;
                let history: Vec<(String, i64, f64, f64, f64, f64, i64)> = sqlx::query_as(rows::HISTORY_OF)
                    .bind(player_id)
                    .fetch_all(&self.pool)
                    .await?;
                Ok(Some($crate::store::PlayerRatings {
                    player: rows::player_from_row(player),
                    ratings: ratings
                        .into_iter()
                        .map(|(players, mu, sigma, games)| {
                            Ok((
                                rows::category(players)?,
                                $crate::rating::Rating { mu, sigma, games: rows::games_count(games)? },
                            ))
                        })
                        .collect::<Result<_, $crate::store::StoreError>>()?,
                    history: history
                        .into_iter()
                        .map(|(game_id, players, mu_before, sigma_before, mu, sigma, at)| {
                            Ok($crate::store::RatingRecord {
                                game_id,
                                players: rows::category(players)?,
                                before: $crate::rating::Rating { mu: mu_before, sigma: sigma_before, games: 0 },
                                after: $crate::rating::Rating { mu, sigma, games: 0 },
                                at,
                            })
                        })
                        .collect::<Result<_, $crate::store::StoreError>>()?,
                }))
            }

            async fn create_series(
                &self,
                series: &$crate::store::SeriesRecord,
            ) -> Result<(), $crate::store::StoreError> {
                sqlx::query(rows::INSERT_SERIES)
                    .bind(&series.id)
                    .bind(series.players.join(","))
                    .bind(rows::seed_to_column(series.seed))
                    .bind(series.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn series(
                &self,
                series_id: &str,
            ) -> Result<Option<$crate::store::SeriesRecord>, $crate::store::StoreError> {
                let row: Option<(String, String, i64, i64)> = sqlx::query_as(rows::SERIES_BY_ID)
                    .bind(series_id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(|(id, players, seed, created_at)| $crate::store::SeriesRecord {
                    id,
                    players: players.split(',').map(str::to_string).collect(),
                    seed: rows::seed_of(seed),
                    created_at,
                }))
            }

            async fn series_games(
                &self,
                series_id: &str,
            ) -> Result<Vec<$crate::store::SeriesGame>, $crate::store::StoreError> {
                let games: Vec<(String, i64, String, String)> = sqlx::query_as(rows::SERIES_GAMES)
                    .bind(series_id)
                    .fetch_all(&self.pool)
                    .await?;
                let mut out = Vec::with_capacity(games.len());
                for (game_id, index, status, money) in games {
                    let seats: Vec<(String,)> = sqlx::query_as(rows::SEATS_OF_GAME)
                        .bind(&game_id)
                        .fetch_all(&self.pool)
                        .await?;
                    out.push($crate::store::SeriesGame {
                        index: u8::try_from(index).map_err(|_| rows::corrupt(format!("series index {index}")))?,
                        status: $crate::table::Status::parse(&status)
                            .ok_or_else(|| rows::corrupt(format!("status {status:?}")))?,
                        seats: seats.into_iter().map(|(p,)| p).collect(),
                        money: rows::money_from_text(&money)?,
                        game_id,
                    });
                }
                Ok(out)
            }

            async fn open_series(&self) -> Result<Vec<String>, $crate::store::StoreError> {
                let ids: Vec<(String,)> = sqlx::query_as(rows::OPEN_SERIES)
                    .fetch_all(&self.pool)
                    .await?;
                Ok(ids.into_iter().map(|(id,)| id).collect())
            }

            async fn ladder_games_of(
                &self,
                player_id: &str,
            ) -> Result<Vec<$crate::store::LadderSeat>, $crate::store::StoreError> {
                let rows: Vec<(String, i64, i64, Option<String>, Option<i64>)> =
                    sqlx::query_as(rows::LADDER_GAMES_OF)
                        .bind(player_id)
                        .fetch_all(&self.pool)
                        .await?;
                rows.into_iter()
                    .map(|(game_id, seat, players, series_id, series_index)| {
                        Ok($crate::store::LadderSeat {
                            game_id,
                            seat: u8::try_from(seat).map_err(|_| rows::corrupt(format!("seat {seat}")))?,
                            players: u8::try_from(players).map_err(|_| rows::corrupt(format!("players {players}")))?,
                            series: match (series_id, series_index) {
                                (Some(id), Some(index)) => Some($crate::table::SeriesRef {
                                    id,
                                    index: u8::try_from(index).map_err(|_| rows::corrupt(format!("series index {index}")))?,
                                }),
                                _ => None,
                            },
                        })
                    })
                    .collect()
            }
        }
    };
}

pub(super) use sql_store;
