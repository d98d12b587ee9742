//! The shapes of the rows the queries return, and their decoding into domain records
//! (and back, for the few columns stored as text). Bad data becomes `StoreError::Corrupt`,
//! naming what is wrong.

use sqlx::{ColumnIndex, Database, Decode, Row, Type};
use theboss_engine::{City, RulesVersion, Seat};

use crate::domain::{GameInfo, GameStatus, PlayerInfo, SeriesRef, Settings, Visibility};
use crate::store::{GameListing, StoreError, StoredAction};
use crate::table::Action;

/// The columns of a game row every query reads, in [`GameColumns::read`]'s order.
pub(in crate::store) const GAME_COLUMNS: &str = "g.id, g.players, g.cities, g.seed, g.turn_time_limit, \
     g.visibility, g.ladder, g.status, g.winners, g.created_by, g.created_at, g.series_id, \
     g.series_index, g.series_tables, g.seed_salt, g.rules_version, g.seeded";

/// A game row as read, before it is checked.
pub(in crate::store) struct GameColumns {
    id: String,
    players: i64,
    cities: String,
    seed: i64,
    turn_time_limit: i64,
    visibility: String,
    ladder: bool,
    status: String,
    winners: String,
    created_by: String,
    created_at: i64,
    series_id: Option<String>,
    series_index: Option<i64>,
    series_tables: i64,
    seed_salt: Option<String>,
    rules_version: i64,
    seeded: bool,
}

impl GameColumns {
    /// Reads [`GAME_COLUMNS`] from the start of a row.
    pub(in crate::store) fn read<R>(row: &R) -> Result<GameColumns, sqlx::Error>
    where
        R: Row,
        usize: ColumnIndex<R>,
        for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
        for<'r> bool: Decode<'r, R::Database> + Type<R::Database>,
        for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
        for<'r> Option<String>: Decode<'r, R::Database> + Type<R::Database>,
        for<'r> Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
        R::Database: Database,
    {
        Ok(GameColumns {
            id: row.try_get(0)?,
            players: row.try_get(1)?,
            cities: row.try_get(2)?,
            seed: row.try_get(3)?,
            turn_time_limit: row.try_get(4)?,
            visibility: row.try_get(5)?,
            ladder: row.try_get(6)?,
            status: row.try_get(7)?,
            winners: row.try_get(8)?,
            created_by: row.try_get(9)?,
            created_at: row.try_get(10)?,
            series_id: row.try_get(11)?,
            series_index: row.try_get(12)?,
            series_tables: row.try_get(13)?,
            seed_salt: row.try_get(14)?,
            rules_version: row.try_get(15)?,
            seeded: row.try_get(16)?,
        })
    }
}

pub(in crate::store) type ActionRow = (i64, Option<String>, Option<String>, i32, String, i64);
pub(in crate::store) type SeatRow = (String, i64, String, String, bool);
pub(in crate::store) type PlayerRow = (String, String, bool);

pub(in crate::store) fn corrupt(what: impl Into<String>) -> StoreError {
    StoreError::Corrupt(what.into())
}

/// A value its column's text named (`what` and the text say which, if it names none).
pub(in crate::store) fn parsed<T>(
    value: Option<T>,
    what: &str,
    text: &str,
) -> Result<T, StoreError> {
    value.ok_or_else(|| corrupt(format!("{what} {text:?}")))
}

pub(in crate::store) fn seat_from(value: i64) -> Result<Seat, StoreError> {
    Seat::try_from(value).map_err(|_| corrupt(format!("seat {value}")))
}

pub(in crate::store) fn numbers_to_text(numbers: impl IntoIterator<Item = u8>) -> String {
    numbers
        .into_iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

pub(in crate::store) fn numbers_from_text(text: &str) -> Result<Vec<u8>, StoreError> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| corrupt(format!("number list {text:?}")))
        })
        .collect()
}

pub(in crate::store) fn money_to_text(money: &[u32]) -> String {
    money
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

pub(in crate::store) fn money_from_text(text: &str) -> Result<Vec<u32>, StoreError> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| corrupt(format!("money list {text:?}")))
        })
        .collect()
}

pub(in crate::store) fn category(value: i64) -> Result<u8, StoreError> {
    u8::try_from(value).map_err(|_| corrupt(format!("rating category {value}")))
}

pub(in crate::store) fn games_count(value: i64) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|_| corrupt(format!("games {value}")))
}

pub(in crate::store) fn cities_to_text(cities: &[City]) -> String {
    numbers_to_text(cities.iter().map(|c| c.number()))
}

/// The seed's bits as a signed 64-bit column, and back.
pub(in crate::store) fn seed_to_column(seed: u64) -> i64 {
    i64::from_ne_bytes(seed.to_ne_bytes())
}

pub(in crate::store) fn seed_from_column(value: i64) -> u64 {
    u64::from_ne_bytes(value.to_ne_bytes())
}

pub(in crate::store) fn player_from_row((id, display_name, is_bot): PlayerRow) -> PlayerInfo {
    PlayerInfo {
        id,
        display_name,
        is_bot,
    }
}

/// A game row: its record, status and winners.
pub(in crate::store) fn game_from_row(
    row: GameColumns,
) -> Result<(GameInfo, GameStatus, Vec<Seat>), StoreError> {
    let GameColumns {
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
        series_tables,
        seed_salt,
        rules_version,
        seeded,
    } = row;
    let cities = numbers_from_text(&cities)?
        .into_iter()
        .map(|n| City::from_number(n).ok_or_else(|| corrupt(format!("city {n}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let players = u8::try_from(players).map_err(|_| corrupt(format!("players {players}")))?;
    let turn_time_limit_secs = u32::try_from(turn_time_limit)
        .map_err(|_| corrupt(format!("turn time limit {turn_time_limit}")))?;
    let visibility = Visibility::parse(&visibility)
        .ok_or_else(|| corrupt(format!("visibility {visibility:?}")))?;
    let rules = u32::try_from(rules_version)
        .ok()
        .and_then(RulesVersion::from_number)
        .ok_or_else(|| {
            corrupt(format!(
                "game {id} is played under rules version {rules_version}, unknown to this server"
            ))
        })?;
    let settings = Settings::new(players, cities, turn_time_limit_secs, visibility)
        .map_err(|e| corrupt(format!("settings of game {id}: {e}")))?
        .with_rules(rules);
    let status = GameStatus::parse(&status).ok_or_else(|| corrupt(format!("status {status:?}")))?;
    let winners = numbers_from_text(&winners)?;
    let series = match (series_id, series_index) {
        (Some(id), Some(index)) => Some(SeriesRef {
            id,
            index: small(index, "series index")?,
            tables: small(series_tables, "series tables")?,
        }),
        _ => None,
    };
    let record = GameInfo {
        id,
        settings,
        seed: seed_from_column(seed),
        created_by,
        created_at,
        ladder,
        series,
        seed_salt,
        seeded,
    };
    Ok((record, status, winners))
}

/// A small count or index column (a seat, a player count, a table).
pub(in crate::store) fn small(value: i64, what: &str) -> Result<u8, StoreError> {
    u8::try_from(value).map_err(|_| corrupt(format!("{what} {value}")))
}

/// Whether each seat played a turn itself, as `games.acted` keeps it.
pub(in crate::store) fn acted_to_text(acted: &[bool]) -> String {
    acted
        .iter()
        .map(|a| if *a { "1" } else { "0" })
        .collect::<Vec<_>>()
        .join(",")
}

pub(in crate::store) fn acted_from_text(text: &str) -> Result<Vec<bool>, StoreError> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| match s {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(corrupt(format!("acted list {text:?}"))),
        })
        .collect()
}

/// An action's stored format and payload (see [`format`](super::format)).
pub(in crate::store) fn action_payload(action: &Action) -> (i32, String) {
    let (format, payload) = crate::store::format::encode(action);
    (i32::from(format), payload)
}

pub(in crate::store) fn action_from_row(
    game_id: &str,
    row: ActionRow,
) -> Result<StoredAction, StoreError> {
    let (seq, player_id, idempotency_key, format, payload, at) = row;
    let action = i16::try_from(format)
        .map_err(|_| format!("format {format} is out of range"))
        .and_then(|format| crate::store::format::decode(format, &payload))
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
pub(in crate::store) fn seat_listings(
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
