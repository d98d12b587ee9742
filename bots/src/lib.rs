//! # theboss-bots
//!
//! How a bot chooses its turn: one [`Strategy`] trait, fed with the seat's [`View`] and
//! nothing else, so a strategy cannot use hidden information even by mistake.
//!
//! - [`random`]: a uniformly random legal turn;
//! - [`heuristic`]: one-ply evaluation with deduction of the face-down cards;
//! - [`ismcts`]: information-set Monte-Carlo tree search over determinizations.

pub mod heuristic;
pub mod ismcts;
pub mod random;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use theboss_engine::{Turn, View};

/// Chooses a turn from what one seat may know.
pub trait Strategy: Send {
    fn name(&self) -> &'static str;

    /// A legal turn for the viewing seat. `view.legal` is present (it is the seat's turn).
    /// `time` is how long the caller can wait, if it must answer by a deadline.
    fn choose(&mut self, view: &View, time: Option<Duration>) -> Turn;

    /// Search iterations the last `choose` ran (0 for strategies that do not search): how
    /// fast a search is, per second of thinking.
    fn iterations(&self) -> u64 {
        0
    }
}

/// The strategies by name, for command lines and configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StrategyKind {
    Random,
    Heuristic,
    Ismcts,
}

impl StrategyKind {
    pub const ALL: [StrategyKind; 3] = [
        StrategyKind::Random,
        StrategyKind::Heuristic,
        StrategyKind::Ismcts,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StrategyKind::Random => "random",
            StrategyKind::Heuristic => "heuristic",
            StrategyKind::Ismcts => "ismcts",
        }
    }

    /// What a player of this kind says it is (`RegisterRequest.description`): its strategy,
    /// the parameters it plays with and the version of this crate, so that a rating on the
    /// ladder reads as the strength of one configuration.
    pub fn description(self) -> String {
        let parameters = match self {
            StrategyKind::Random => "a uniformly random legal turn".to_string(),
            StrategyKind::Heuristic => "one-ply rules of thumb".to_string(),
            StrategyKind::Ismcts => {
                let budget = ismcts::Budget::default();
                let params = ismcts::Params::default();
                format!(
                    "SO-ISMCTS, {} ms a turn, root width {}, rounds played out by the heuristic \
                     ({:.0}% of turns), rounds scored directly",
                    budget.time.map_or(0, |t| t.as_millis()),
                    params.root_width,
                    100.0 * params.rollout_heuristic
                )
            }
        };
        format!(
            "{} ({parameters}); theboss-bots {}",
            self.name(),
            env!("CARGO_PKG_VERSION")
        )
    }

    /// A fresh player of this kind; `seed` fixes its random choices.
    pub fn build(self, seed: u64) -> Box<dyn Strategy> {
        match self {
            StrategyKind::Random => Box::new(random::Random::new(seed)),
            StrategyKind::Heuristic => Box::new(heuristic::Heuristic::new()),
            StrategyKind::Ismcts => Box::new(ismcts::Ismcts::new(seed, ismcts::Budget::default())),
        }
    }
}

impl fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy {0:?}: use random, heuristic or ismcts")]
pub struct UnknownStrategy(String);

impl FromStr for StrategyKind {
    type Err = UnknownStrategy;

    fn from_str(s: &str) -> Result<StrategyKind, UnknownStrategy> {
        StrategyKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownStrategy(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::{Game, GameConfig, GameRng, Viewer};

    /// Plays whole games with every seat using `kinds` and checks each chosen turn is legal.
    fn plays_only_legal_turns(kinds: &[StrategyKind], games: u64) {
        for g in 0..games {
            let players = 2 + (g % 3) as u8;
            let mut game = Game::new(&GameConfig::new(players, g)).unwrap();
            let mut bots: Vec<_> = (0..players)
                .map(|s| kinds[usize::from(s) % kinds.len()].build(g * 10 + u64::from(s)))
                .collect();
            let mut rng = GameRng::from_seed(g);
            while let Some(seat) = game.to_move() {
                let view = game.view(Viewer::Seat(seat));
                let turn = bots[usize::from(seat)].choose(&view, None);
                assert!(
                    game.is_legal(seat, &turn),
                    "{} chose an illegal {turn:?}",
                    bots[usize::from(seat)].name()
                );
                game.apply(seat, &turn).unwrap();
                let _ = rng.next_u64();
            }
        }
    }

    #[test]
    fn random_and_heuristic_play_only_legal_turns() {
        plays_only_legal_turns(&[StrategyKind::Random, StrategyKind::Heuristic], 60);
    }

    #[test]
    fn ismcts_plays_only_legal_turns() {
        // A small budget keeps the test fast; legality does not depend on it.
        for g in 0..4u64 {
            let players = 2 + (g % 3) as u8;
            let mut game = Game::new(&GameConfig::new(players, g)).unwrap();
            let mut bot = ismcts::Ismcts::new(g, ismcts::Budget::iterations(40));
            let mut others = heuristic::Heuristic::new();
            while let Some(seat) = game.to_move() {
                let view = game.view(Viewer::Seat(seat));
                let turn = if seat == 0 {
                    bot.choose(&view, None)
                } else {
                    others.choose(&view, None)
                };
                assert!(game.is_legal(seat, &turn), "illegal {turn:?}");
                game.apply(seat, &turn).unwrap();
            }
        }
    }

    #[test]
    fn descriptions_name_the_strategy_and_fit_a_profile() {
        for kind in StrategyKind::ALL {
            let description = kind.description();
            assert!(description.starts_with(kind.name()), "{description}");
            assert!(description.contains(env!("CARGO_PKG_VERSION")));
            assert!(description.chars().count() <= 200, "{description}");
        }
        assert!(StrategyKind::Ismcts.description().contains("150 ms"));
    }

    #[test]
    fn names_parse() {
        for kind in StrategyKind::ALL {
            assert_eq!(kind.name().parse::<StrategyKind>(), Ok(kind));
        }
        assert!("minimax".parse::<StrategyKind>().is_err());
    }
}
