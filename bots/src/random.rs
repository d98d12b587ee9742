//! A uniformly random legal turn: the baseline every other strategy must beat.

use std::time::Duration;

use theboss_engine::{GameRng, LegalTurns, Turn, View};

use super::Strategy;

pub struct Random {
    rng: GameRng,
}

impl Random {
    pub fn new(seed: u64) -> Random {
        Random {
            rng: GameRng::from_seed(seed),
        }
    }

    /// A uniformly random turn among `legal`: all the strategy reads of a view, so a caller
    /// that has only the legal turns (the load generator) need not build the whole view.
    pub fn choose_legal(&mut self, legal: &LegalTurns) -> Turn {
        // Counting and indexing the legal set avoids listing every turn.
        let count = u32::try_from(legal.count()).unwrap_or(u32::MAX);
        legal
            .nth(self.rng.below(count) as usize)
            .expect("an index below count is a turn")
    }
}

impl Strategy for Random {
    fn name(&self) -> &'static str {
        "random"
    }

    fn choose(&mut self, view: &View, _time: Option<Duration>) -> Turn {
        let legal = view
            .legal
            .as_ref()
            .expect("choose is called on the seat's turn");
        self.choose_legal(legal)
    }
}
