//! The physical components as data: cities, city cards, the deck table and the police cards.
//!
//! Everything that docs/RULES.md §1 lists as a component lives here, so a change to the deck is a
//! change to one table.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A city with a character card and city cards. Chicago has no cards and is a [`Location`] only.
///
/// [`Location`]: crate::Location
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum City {
    NewYork = 1,
    Boston = 2,
    Detroit = 3,
    KansasCity = 4,
    Cincinnati = 5,
    Memphis = 6,
    Philadelphia = 7,
}

/// The number of cities that have city cards.
pub const CITY_COUNT: usize = 7;

impl City {
    /// All cities in the order of their numbers.
    pub const ALL: [City; CITY_COUNT] = [
        City::NewYork,
        City::Boston,
        City::Detroit,
        City::KansasCity,
        City::Cincinnati,
        City::Memphis,
        City::Philadelphia,
    ];

    /// The number printed on the character card (1..=7).
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The city with the given character card number.
    pub fn from_number(number: u8) -> Option<City> {
        City::ALL.get(usize::from(number).wrapping_sub(1)).copied()
    }

    /// A dense index (0..7) for per-city arrays.
    pub fn index(self) -> usize {
        self as usize - 1
    }

    pub fn name(self) -> &'static str {
        match self {
            City::NewYork => "New York",
            City::Boston => "Boston",
            City::Detroit => "Detroit",
            City::KansasCity => "Kansas City",
            City::Cincinnati => "Cincinnati",
            City::Memphis => "Memphis",
            City::Philadelphia => "Philadelphia",
        }
    }

    /// The faces of this city's cards, from the deck table.
    pub fn faces(self) -> &'static [Face] {
        DECK[self.index()].1
    }

    /// This city's cards.
    pub fn cards(self) -> impl Iterator<Item = Card> {
        self.faces()
            .iter()
            .map(move |&face| Card { city: self, face })
    }
}

impl fmt::Display for City {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A sanction printed on a city card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sanction {
    /// One Expert is killed: out of the game.
    Revolver,
    /// One Expert misses the next [`PRISON_ROUNDS`](crate::rules::PRISON_ROUNDS) rounds.
    Prison,
    /// One Expert misses the next [`HOSPITAL_ROUNDS`](crate::rules::HOSPITAL_ROUNDS) round.
    Hospital,
    /// The player may not place gangsters in the city for the rest of the game.
    Banished,
}

impl fmt::Display for Sanction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Sanction::Revolver => "Revolver",
            Sanction::Prison => "Prison",
            Sanction::Hospital => "Hospital",
            Sanction::Banished => "Banished",
        })
    }
}

/// What a city card shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    /// Millions of dollars.
    Money(u8),
    Sanction(Sanction),
}

impl Face {
    /// What the face is worth in M$ when summed for Chicago: sanctions count 0.
    pub fn money(self) -> u32 {
        match self {
            Face::Money(value) => u32::from(value),
            Face::Sanction(_) => 0,
        }
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Face::Money(value) => write!(f, "{value} M$"),
            Face::Sanction(sanction) => sanction.fmt(f),
        }
    }
}

/// One city card. Within a city every face is different, so `(city, face)` names a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Card {
    pub city: City,
    pub face: Face,
}

impl Card {
    pub const fn new(city: City, face: Face) -> Card {
        Card { city, face }
    }

    /// Whether this card exists in the deck.
    pub fn exists(self) -> bool {
        self.city.faces().contains(&self.face)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.city, self.face)
    }
}

const fn m(value: u8) -> Face {
    Face::Money(value)
}
const REVOLVER: Face = Face::Sanction(Sanction::Revolver);
const PRISON: Face = Face::Sanction(Sanction::Prison);
const HOSPITAL: Face = Face::Sanction(Sanction::Hospital);
const BANISHED: Face = Face::Sanction(Sanction::Banished);

/// The deck: every city's cards (docs/RULES.md §1). Some values are inferred there; this table is
/// the one place to change them.
pub const DECK: [(City, &[Face]); CITY_COUNT] = [
    (City::NewYork, &[m(0), m(1), m(2), m(3)]),
    (City::Boston, &[m(2), m(3), m(4), PRISON]),
    (City::Detroit, &[m(1), m(2), m(3), m(4), REVOLVER]),
    (City::KansasCity, &[m(2), m(3), REVOLVER]),
    (City::Cincinnati, &[m(1), m(2), m(3), BANISHED]),
    (City::Memphis, &[m(1), m(2), m(3), HOSPITAL]),
    (City::Philadelphia, &[m(3), REVOLVER, PRISON]),
];

/// A police card; its badges count towards the end of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoliceCard {
    Silver,
    Gold,
    /// One silver and one gold badge.
    Double,
}

impl PoliceCard {
    /// (silver, gold) badges on the card.
    pub fn badges(self) -> (u8, u8) {
        match self {
            PoliceCard::Silver => (1, 0),
            PoliceCard::Gold => (0, 1),
            PoliceCard::Double => (1, 1),
        }
    }
}

impl fmt::Display for PoliceCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PoliceCard::Silver => "silver badge",
            PoliceCard::Gold => "gold badge",
            PoliceCard::Double => "double badge",
        })
    }
}

/// The police deck before shuffling.
pub const POLICE_DECK: [PoliceCard; 5] = [
    PoliceCard::Silver,
    PoliceCard::Silver,
    PoliceCard::Gold,
    PoliceCard::Gold,
    PoliceCard::Double,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deck_has_the_sourced_counts() {
        let counts: Vec<usize> = City::ALL.iter().map(|c| c.faces().len()).collect();
        assert_eq!(counts, [4, 4, 5, 3, 4, 4, 3]);
        assert_eq!(counts.iter().sum::<usize>(), 27);
    }

    #[test]
    fn faces_within_a_city_are_distinct() {
        for city in City::ALL {
            let mut faces = city.faces().to_vec();
            faces.sort();
            faces.dedup();
            assert_eq!(faces.len(), city.faces().len(), "{city}");
        }
    }

    #[test]
    fn only_cincinnati_banishes() {
        let banishing: Vec<City> = City::ALL
            .into_iter()
            .filter(|c| c.faces().contains(&BANISHED))
            .collect();
        assert_eq!(banishing, [City::Cincinnati]);
    }

    #[test]
    fn city_numbers_round_trip() {
        for city in City::ALL {
            assert_eq!(City::from_number(city.number()), Some(city));
        }
        assert_eq!(City::from_number(0), None);
        assert_eq!(City::from_number(8), None);
    }

    #[test]
    fn police_deck_has_three_badges_of_each_colour() {
        let (silver, gold) = POLICE_DECK
            .iter()
            .map(|c| c.badges())
            .fold((0, 0), |(s, g), (a, b)| (s + a, g + b));
        assert_eq!((silver, gold), (3, 3));
    }

    #[test]
    fn card_existence() {
        assert!(Card::new(City::NewYork, Face::Money(0)).exists());
        assert!(!Card::new(City::NewYork, Face::Money(4)).exists());
        assert!(!Card::new(City::Boston, REVOLVER).exists());
    }
}
