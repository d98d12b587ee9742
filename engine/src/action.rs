//! What a player does on a turn: an optional placement on one location, then one card.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::cards::{CITY_COUNT, Card, City};

/// Where gangsters can be placed: a city in play, or Chicago.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    City(City),
    Chicago,
}

/// Number of locations: the seven cities and Chicago.
pub const LOCATION_COUNT: usize = CITY_COUNT + 1;

impl Location {
    /// A dense index (0..8) for per-location arrays; Chicago is last.
    pub fn index(self) -> usize {
        match self {
            Location::City(city) => city.index(),
            Location::Chicago => CITY_COUNT,
        }
    }

    pub fn city(self) -> Option<City> {
        match self {
            Location::City(city) => Some(city),
            Location::Chicago => None,
        }
    }
}

impl From<City> for Location {
    fn from(city: City) -> Location {
        Location::City(city)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::City(city) => city.fmt(f),
            Location::Chicago => f.write_str("Chicago"),
        }
    }
}

/// Gangsters put on one location in one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    pub location: Location,
    pub experts: u8,
    pub occasionals: u8,
}

impl Placement {
    pub fn new(location: impl Into<Location>, experts: u8, occasionals: u8) -> Placement {
        Placement {
            location: location.into(),
            experts,
            occasionals,
        }
    }

    pub fn total(&self) -> u8 {
        self.experts.saturating_add(self.occasionals)
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} Expert(s) and {} Occasional(s) in {}",
            self.experts, self.occasionals, self.location
        )
    }
}

/// One turn: the optional placement, then the mandatory card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Turn {
    pub placement: Option<Placement>,
    pub card: Card,
}

impl Turn {
    pub fn play(card: Card) -> Turn {
        Turn {
            placement: None,
            card,
        }
    }

    pub fn place_and_play(placement: Placement, card: Card) -> Turn {
        Turn {
            placement: Some(placement),
            card,
        }
    }
}
