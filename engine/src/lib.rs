//! # theboss-engine
//!
//! The rules of Alain Ollier's *The Boss* as a pure, deterministic library: no IO, no async,
//! no wire formats. A game is fully defined by its [`GameConfig`] (with its seed) and its log
//! of turns; [`Game::replay`] rebuilds it.
//!
//! ```
//! use theboss_engine::{Game, GameConfig, Viewer};
//!
//! let (mut game, _events) = Game::start(&GameConfig::new(3, 7)).unwrap();
//! let seat = game.to_move().unwrap();
//! let turn = game.legal_actions(seat)[0];
//! let events = game.apply(seat, &turn).unwrap();
//! assert!(!events.is_empty());
//! // Each viewer sees only what it may know.
//! let view = game.view(Viewer::Spectator);
//! assert!(view.hand.is_none());
//! ```
//!
//! Shape, after the *shakmaty* chess crate: an unchecked [`GameConfig`] is validated into a
//! [`Game`]; [`Game::legal_actions`], [`Game::is_legal`] and [`Game::apply`] agree, and
//! `apply` changes nothing when it returns a [`RuleError`]. [`Game::view`] gives a viewer's
//! observation, and every [`LoggedEvent`] carries its [`Visibility`].

pub mod action;
pub mod board;
pub mod cards;
pub mod config;
mod deal;
pub mod deduction;
pub mod error;
pub mod event;
pub mod game;
pub mod hidden;
pub mod legal;
pub mod notation;
pub mod player;
pub mod resolve;
pub mod rng;
pub mod rules;
#[cfg(test)]
mod scenarios;
pub mod version;
pub mod view;

/// A seat number: 0..players, clockwise.
pub type Seat = u8;

/// Who is looking: a seated player, or anyone else. Every module that redacts (views, events)
/// takes one, so it lives at the root they all share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    Seat(Seat),
    Spectator,
}

pub use action::{LOCATION_COUNT, Location, Placement, Turn};
pub use board::{Board, Gangsters};
pub use cards::{CITY_COUNT, Card, City, DECK, Face, POLICE_DECK, PoliceCard, Sanction};
pub use config::{CitySet, GameConfig, Setup};
pub use deduction::{CityOdds, face_down_odds};
pub use error::{ConfigError, DeterminizeError, ReplayError, RuleError};
pub use event::{
    Award, Event, LoggedEvent, Outcome, RoundSummary, SanctionEffect, Standing, Visibility,
};
pub use game::Game;
pub use legal::{LegalTurns, PlacementOption};
pub use player::{PlayerState, Supply};
pub use rng::GameRng;
pub use rules::{MAX_PLAYERS, MIN_PLAYERS};

/// How many players a game of The Boss has: the one place every crate reads it from.
pub const PLAYER_COUNTS: std::ops::RangeInclusive<u8> = MIN_PLAYERS..=MAX_PLAYERS;
pub use version::RulesVersion;
pub use view::{CityCount, LocationView, PoliceView, SeatView, View};
