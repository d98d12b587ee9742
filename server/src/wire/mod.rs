//! The server's own types on the wire. Everything engine-shaped goes through
//! `theboss::convert`, the one engine↔wire mapping; this module adds what the server knows on
//! top (ids, seats' players, sequence numbers, deadlines, clocks), in three parts: a game's
//! [`views`] and updates (with the encodings every stream of a step shares), the lobby's
//! [`listing`], and the [`ladder`]'s messages (ratings, challenges, tournaments).
//!
//! Only answers are made here: what a request may ask is checked by the RPC that receives
//! it (`rpc`).

pub mod ladder;
pub mod listing;
pub mod views;

use std::time::{Duration, UNIX_EPOCH};

use theboss::convert::city_to_wire;
use theboss::encoded::SeatPlayer;
use theboss::v1;
use theboss_bots::StrategyKind;
use theboss_engine::Seat;

use crate::domain::{GameStatus, PlayerInfo, Settings, Visibility};

pub use ladder::*;
pub use listing::*;
pub use views::*;

pub fn timestamp(micros: i64) -> prost_types::Timestamp {
    let time = UNIX_EPOCH + Duration::from_micros(u64::try_from(micros).unwrap_or(0));
    prost_types::Timestamp::from(time)
}

pub fn status_to_wire(status: GameStatus) -> v1::GameStatus {
    match status {
        GameStatus::Open => v1::GameStatus::Open,
        GameStatus::Running => v1::GameStatus::Running,
        GameStatus::Finished => v1::GameStatus::Finished,
        GameStatus::Aborted => v1::GameStatus::Aborted,
    }
}

pub fn settings_to_wire(settings: &Settings) -> v1::GameSettings {
    v1::GameSettings {
        players: u32::from(settings.players()),
        cities: settings
            .cities()
            .iter()
            .map(|&c| city_to_wire(c) as i32)
            .collect(),
        turn_time_limit_seconds: settings.turn_time_limit_secs(),
        rules_version: settings.rules().number(),
        visibility: match settings.visibility() {
            Visibility::Public => v1::Visibility::Public,
            Visibility::Unlisted => v1::Visibility::Unlisted,
        } as i32,
    }
}

pub fn player_to_wire(seat: Seat, player: &PlayerInfo) -> v1::SeatPlayer {
    seat_player(player).to_wire(seat)
}

/// Who sits at a seat, borrowed, as a view written straight to its encoding takes it.
pub fn seat_player(player: &PlayerInfo) -> SeatPlayer<'_> {
    SeatPlayer {
        player_id: &player.id,
        display_name: &player.display_name,
        is_bot: player.is_bot,
        house_bot: crate::house::kind_of(&player.id)
            .map_or(v1::BotStrategy::Unspecified, strategy_to_wire),
    }
}

pub fn strategy_to_wire(kind: StrategyKind) -> v1::BotStrategy {
    match kind {
        StrategyKind::Random => v1::BotStrategy::Random,
        StrategyKind::Heuristic => v1::BotStrategy::Heuristic,
        StrategyKind::Ismcts => v1::BotStrategy::Ismcts,
    }
}
