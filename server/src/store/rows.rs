//! The shapes of the rows the queries return, and their decoding into domain records
//! (and back, for the few columns stored as text). Bad data becomes `StoreError::Corrupt`,
//! naming what is wrong.

use theboss_engine::{City, RulesVersion, Seat};

use super::{GameListing, StoreError, StoredAction};
use crate::domain::{GameRecord, PlayerInfo, SeriesRef, Settings, Status, Visibility};
use crate::table::Action;

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
    Option<String>,
    i64,
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
        seed_salt,
        rules_version,
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
        seed_salt,
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
