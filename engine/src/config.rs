//! A game's configuration: the unchecked [`GameConfig`] a caller writes, and its validation
//! into the [`Setup`] the engine plays with.

use serde::{Deserialize, Serialize};

use crate::cards::City;
use crate::error::ConfigError;
use crate::rules;
use crate::version::{self, RulesVersion};

/// Which cities are in play.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CitySet {
    /// The rulebook's set for the player count (docs/RULES.md §2).
    #[default]
    Default,
    /// One of the rulebook's optional sets for the player count, in any order.
    Cities(Vec<City>),
}

/// What a caller asks for; nothing is checked until [`GameConfig::validate`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameConfig {
    pub players: u8,
    #[serde(default)]
    pub cities: CitySet,
    /// Every shuffle and the first start player come from this seed.
    pub seed: u64,
    /// The rules the game is played under (a configuration written before versions
    /// existed reads as version 1).
    #[serde(default = "version::unversioned")]
    pub rules: RulesVersion,
}

impl GameConfig {
    /// A game under the newest rules.
    pub fn new(players: u8, seed: u64) -> GameConfig {
        GameConfig {
            players,
            cities: CitySet::Default,
            seed,
            rules: RulesVersion::LATEST,
        }
    }

    pub fn with_cities(mut self, cities: Vec<City>) -> GameConfig {
        self.cities = CitySet::Cities(cities);
        self
    }

    /// Under an earlier version of the rules (e.g. to replay a game created under it).
    pub fn with_rules(mut self, rules: RulesVersion) -> GameConfig {
        self.rules = rules;
        self
    }

    /// Checks the configuration against the rules.
    pub fn validate(&self) -> Result<Setup, ConfigError> {
        if !(rules::MIN_PLAYERS..=rules::MAX_PLAYERS).contains(&self.players) {
            return Err(ConfigError::PlayerCount {
                players: self.players,
            });
        }
        let cities = match &self.cities {
            CitySet::Default => rules::default_cities(self.players)
                .expect("player count checked above")
                .to_vec(),
            CitySet::Cities(requested) => {
                let mut sorted = requested.clone();
                sorted.sort();
                let numbers: Vec<u8> = sorted.iter().map(|c| c.number()).collect();
                let is_default =
                    rules::default_cities(self.players).is_some_and(|d| d == sorted.as_slice());
                let is_optional =
                    rules::optional_city_sets(self.players).contains(&numbers.as_slice());
                if !is_default && !is_optional {
                    return Err(ConfigError::CitySet {
                        players: self.players,
                        cities: requested.clone(),
                    });
                }
                sorted
            }
        };
        Ok(Setup {
            players: self.players,
            cities,
            seed: self.seed,
            rules: self.rules,
        })
    }
}

/// A validated configuration: the row of cities (by number, left to right, Chicago not
/// included), the seed and the rules version. Its serialized form is its configuration, and
/// it deserializes only through [`GameConfig::validate`]: no setup the rules refuse can be
/// built.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "GameConfig", into = "GameConfig")]
pub struct Setup {
    pub(crate) players: u8,
    pub(crate) cities: Vec<City>,
    pub(crate) seed: u64,
    pub(crate) rules: RulesVersion,
}

/// Written out so that `clone_from` reuses the list of cities (see `Game`'s `Clone`).
impl Clone for Setup {
    fn clone(&self) -> Setup {
        Setup {
            players: self.players,
            cities: self.cities.clone(),
            seed: self.seed,
            rules: self.rules,
        }
    }

    fn clone_from(&mut self, source: &Setup) {
        let Setup {
            players,
            cities,
            seed,
            rules,
        } = source;
        self.players = *players;
        self.cities.clone_from(cities);
        self.seed = *seed;
        self.rules = *rules;
    }
}

impl TryFrom<GameConfig> for Setup {
    type Error = ConfigError;

    fn try_from(config: GameConfig) -> Result<Setup, ConfigError> {
        config.validate()
    }
}

impl From<Setup> for GameConfig {
    fn from(setup: Setup) -> GameConfig {
        setup.config()
    }
}

impl Setup {
    pub fn players(&self) -> u8 {
        self.players
    }

    /// Cities in play, left to right, without Chicago.
    pub fn cities(&self) -> &[City] {
        &self.cities
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn rules(&self) -> RulesVersion {
        self.rules
    }

    /// The configuration this setup was validated from, in its canonical form.
    pub fn config(&self) -> GameConfig {
        GameConfig {
            players: self.players,
            cities: CitySet::Cities(self.cities.clone()),
            seed: self.seed,
            rules: self.rules,
        }
    }

    /// Number of city cards in play.
    pub fn card_count(&self) -> usize {
        self.cities.iter().map(|c| c.faces().len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::HAND_SIZE;

    #[test]
    fn player_counts_outside_two_to_four_are_rejected() {
        for players in [0, 1, 5, 9] {
            assert_eq!(
                GameConfig::new(players, 0).validate(),
                Err(ConfigError::PlayerCount { players })
            );
        }
    }

    #[test]
    fn default_sets_match_the_table() {
        let counts: Vec<(usize, usize)> = (2..=4)
            .map(|n| {
                let setup = GameConfig::new(n, 0).validate().unwrap();
                (setup.cities().len(), setup.card_count())
            })
            .collect();
        assert_eq!(counts, [(3, 13), (5, 20), (7, 27)]);
    }

    #[test]
    fn every_allowed_set_deals_five_cards_to_every_player() {
        for players in 2..=4u8 {
            let mut sets: Vec<Vec<City>> = vec![rules::default_cities(players).unwrap().to_vec()];
            for numbers in rules::optional_city_sets(players) {
                sets.push(
                    numbers
                        .iter()
                        .map(|&n| City::from_number(n).unwrap())
                        .collect(),
                );
            }
            for cities in sets {
                let setup = GameConfig::new(players, 0)
                    .with_cities(cities.clone())
                    .validate()
                    .unwrap();
                assert_eq!(
                    setup.card_count() - setup.cities().len(),
                    HAND_SIZE * usize::from(players),
                    "{players} players, {cities:?}"
                );
            }
        }
    }

    #[test]
    fn sets_are_accepted_in_any_order_and_stored_sorted() {
        let setup = GameConfig::new(2, 0)
            .with_cities(vec![City::Cincinnati, City::Boston, City::Detroit])
            .validate()
            .unwrap();
        assert_eq!(
            setup.cities(),
            [City::Boston, City::Detroit, City::Cincinnati]
        );
    }

    #[test]
    fn other_sets_are_rejected() {
        let bad = [
            (2, vec![City::NewYork, City::Boston]),
            (2, vec![City::NewYork, City::Boston, City::Memphis]),
            (3, vec![City::NewYork, City::Boston, City::Detroit]),
            (4, vec![City::NewYork, City::Boston, City::Detroit]),
            (2, vec![City::NewYork, City::NewYork, City::Boston]),
        ];
        for (players, cities) in bad {
            let err = GameConfig::new(players, 0)
                .with_cities(cities.clone())
                .validate()
                .unwrap_err();
            assert_eq!(err, ConfigError::CitySet { players, cities });
        }
    }
}
