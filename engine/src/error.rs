//! The engine's errors: a bad configuration, a broken rule, a log that does not replay, a
//! view that describes no reachable position.
//!
//! Every [`RuleError`] names the rule it enforces ([`RuleError::rule`]) so that callers can
//! report it in a stable, machine-readable form next to the human message.

use thiserror::Error;

use crate::Seat;
use crate::action::Location;
use crate::cards::{Card, City};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    #[error("The Boss is played by 2 to 4 players, not {players}")]
    PlayerCount { players: u8 },
    #[error(
        "{cities:?} is not a city set of the rules for {players} players; use the default set or one of the rulebook's variants"
    )]
    CitySet { players: u8, cities: Vec<City> },
}

/// A turn that breaks a rule. Applying it changed nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    #[error("the game is over")]
    GameOver,
    #[error("there is no seat {seat} in a game of {players} players")]
    NoSuchSeat { seat: Seat, players: u8 },
    #[error("it is seat {to_move}'s turn, not seat {seat}'s")]
    NotYourTurn { seat: Seat, to_move: Seat },
    #[error("{card} is not in your hand")]
    CardNotInHand { card: Card },
    #[error("a placement needs at least one gangster")]
    EmptyPlacement,
    #[error("{city} is not in play in this game")]
    CityNotInPlay { city: City },
    #[error("you are banished from {city} for the rest of the game")]
    Banished { city: City },
    #[error(
        "you may place in Chicago only once you have gangsters in another city, placed on an earlier turn of this round"
    )]
    ChicagoTooEarly,
    #[error("you have {available} Expert(s) available this round, not {requested}")]
    NotEnoughExperts { requested: u8, available: u8 },
    #[error("you have {available} Occasional(s) left, not {requested}")]
    NotEnoughOccasionals { requested: u8, available: u8 },
    #[error(
        "Occasionals in {location} need an Expert: place one with them, or have one there already"
    )]
    OccasionalsNeedExpert { location: Location },
    #[error(
        "you need at least {needed} gangsters in {location} to take the lead: seat {leader} has {leader_count}, you have {yours}"
    )]
    MustTakeLead {
        location: Location,
        /// Gangsters this placement needed to add.
        needed: u8,
        leader: Seat,
        leader_count: u8,
        yours: u8,
    },
}

impl RuleError {
    /// A stable name for the rule, for machine-readable error details.
    pub fn rule(&self) -> &'static str {
        match self {
            RuleError::GameOver => "GAME_OVER",
            RuleError::NoSuchSeat { .. } => "NO_SUCH_SEAT",
            RuleError::NotYourTurn { .. } => "TURN_ORDER",
            RuleError::CardNotInHand { .. } => "CARD_IN_HAND",
            RuleError::EmptyPlacement => "PLACEMENT_NOT_EMPTY",
            RuleError::CityNotInPlay { .. } => "CITY_IN_PLAY",
            RuleError::Banished { .. } => "BANISHED",
            RuleError::ChicagoTooEarly => "CHICAGO_AFTER_ANOTHER_CITY",
            RuleError::NotEnoughExperts { .. } => "EXPERTS_AVAILABLE",
            RuleError::NotEnoughOccasionals { .. } => "OCCASIONALS_AVAILABLE",
            RuleError::OccasionalsNeedExpert { .. } => "OCCASIONALS_NEED_EXPERT",
            RuleError::MustTakeLead { .. } => "STRICT_LEAD",
        }
    }
}

/// A stored action log that the configuration does not replay.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("action {index} of the log is illegal: {error}")]
    Illegal { index: usize, error: RuleError },
}

/// A view that does not describe a reachable position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DeterminizeError {
    #[error("the view is inconsistent: {0}")]
    Inconsistent(&'static str),
}
