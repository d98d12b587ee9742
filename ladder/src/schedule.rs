//! A tournament's next round, pure: which entrants play which duplicate sets. In a set one
//! deal is played at two tables, and the two players at the same seat of the two tables are
//! compared; a round places each entrant at most once, filling each set with the pairs that
//! were compared least so far, so every pair the format asks for gets its comparisons.

use std::collections::{HashMap, HashSet};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::tournament::Format;

/// One set to play: its two tables, players in seat order; seat `s` of table 0 is compared
/// with seat `s` of table 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetLayout {
    pub tables: [Vec<String>; 2],
}

impl SetLayout {
    /// The pairs it compares.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.tables[0]
            .iter()
            .zip(&self.tables[1])
            .map(|(a, b)| (a.as_str(), b.as_str()))
    }
}

/// How many times each pair was compared.
pub type Counts = HashMap<(String, String), u32>;

/// A pair as counted: the smaller id first.
pub fn pair_key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// What a tournament asks for.
pub struct Plan<'a> {
    pub format: Format,
    /// In the order they entered.
    pub entrants: &'a [String],
    pub hero: Option<&'a str>,
    /// Players per game.
    pub players: usize,
    pub sets_per_pair: u32,
}

impl Plan<'_> {
    /// The pairs to compare, each `sets_per_pair` times.
    fn goals(&self) -> Vec<(String, String)> {
        match (self.format, self.hero) {
            (Format::Gauntlet, Some(hero)) => self
                .entrants
                .iter()
                .filter(|e| e.as_str() != hero)
                .map(|e| pair_key(hero, e))
                .collect(),
            _ => {
                let mut goals = Vec::new();
                for (i, a) in self.entrants.iter().enumerate() {
                    for b in &self.entrants[i + 1..] {
                        goals.push(pair_key(a, b));
                    }
                }
                goals
            }
        }
    }

    /// The pairs still short of their comparisons, given those `done`.
    pub fn pending(&self, done: &Counts) -> Vec<(String, String)> {
        self.goals()
            .into_iter()
            .filter(|p| done.get(p).copied().unwrap_or(0) < self.sets_per_pair)
            .collect()
    }

    /// The next round's sets (none: the tournament is over). `seed` varies who sits where
    /// from round to round.
    pub fn next_round(&self, done: &Counts, seed: u64) -> Vec<SetLayout> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pending = self.pending(done);
        if pending.is_empty() {
            return Vec::new();
        }
        pending.shuffle(&mut rng);
        // Least compared first (stable: the shuffle breaks ties).
        pending.sort_by_key(|p| done.get(p).copied().unwrap_or(0));
        let mut free: Vec<&String> = self.entrants.iter().collect();
        free.shuffle(&mut rng);
        let n = self.players;
        let mut sets = Vec::new();
        while free.len() >= 2 * n {
            let mut used: HashSet<String> = HashSet::new();
            let mut pairs: Vec<(String, String)> = Vec::new();
            for (a, b) in &pending {
                if pairs.len() == n {
                    break;
                }
                let available = |p: &str| free.iter().any(|f| f.as_str() == p) && !used.contains(p);
                if available(a) && available(b) {
                    used.insert(a.clone());
                    used.insert(b.clone());
                    pairs.push((a.clone(), b.clone()));
                }
            }
            if pairs.is_empty() {
                break;
            }
            pending.retain(|p| !pairs.contains(p));
            free.retain(|f| !used.contains(f.as_str()));
            // Seats nobody pending needs: the next free players, compared with each other.
            while pairs.len() < n {
                let a = free.remove(0).clone();
                let b = free.remove(0).clone();
                pairs.push((a, b));
            }
            pairs.shuffle(&mut rng);
            let mut tables = [Vec::with_capacity(n), Vec::with_capacity(n)];
            for (a, b) in pairs {
                // Which of the two sits at the first table does not matter (the tables are
                // alike), but varying it keeps any table effect out of the comparisons.
                let (first, second) = if rand::RngExt::random::<bool>(&mut rng) {
                    (a, b)
                } else {
                    (b, a)
                };
                tables[0].push(first);
                tables[1].push(second);
            }
            sets.push(SetLayout { tables });
        }
        sets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrants(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("p{i}")).collect()
    }

    /// Plays rounds to the end, each set counted as done; returns the rounds.
    fn run(plan: &Plan) -> (Vec<Vec<SetLayout>>, Counts) {
        let mut done = HashMap::new();
        let mut rounds = Vec::new();
        for round in 0.. {
            assert!(round < 1_000, "the tournament ends");
            let sets = plan.next_round(&done, round);
            if sets.is_empty() {
                break;
            }
            let mut seen = HashSet::new();
            for set in &sets {
                assert_eq!(set.tables[0].len(), plan.players);
                assert_eq!(set.tables[1].len(), plan.players);
                for p in set.tables.iter().flatten() {
                    assert!(seen.insert(p.clone()), "{p} sits twice in round {round}");
                }
                for (a, b) in set.pairs() {
                    *done.entry(pair_key(a, b)).or_insert(0) += 1;
                }
            }
            rounds.push(sets);
        }
        (rounds, done)
    }

    #[test]
    fn a_round_robin_compares_every_pair_as_often_as_asked() {
        for (count, players, k) in [(4, 2, 1), (4, 2, 3), (5, 2, 2), (6, 3, 1), (9, 4, 2)] {
            let entrants = entrants(count);
            let plan = Plan {
                format: Format::RoundRobin,
                entrants: &entrants,
                hero: None,
                players,
                sets_per_pair: k,
            };
            let (rounds, done) = run(&plan);
            assert!(plan.pending(&done).is_empty());
            for (i, a) in entrants.iter().enumerate() {
                for b in &entrants[i + 1..] {
                    assert!(done[&pair_key(a, b)] >= k, "{a}-{b}");
                }
            }
            // No round is wasted: each compares at least one pair still pending.
            let pairs = count * (count - 1) / 2;
            assert!(
                rounds.len() <= pairs * k as usize,
                "{} rounds",
                rounds.len()
            );
        }
        // Four players of two-player games: three rounds, each pair once, exactly.
        let four = entrants(4);
        let plan = Plan {
            format: Format::RoundRobin,
            entrants: &four,
            hero: None,
            players: 2,
            sets_per_pair: 1,
        };
        assert_eq!(run(&plan).0.len(), 3);
    }

    #[test]
    fn a_gauntlet_puts_its_hero_in_every_round() {
        let entrants = entrants(6);
        let plan = Plan {
            format: Format::Gauntlet,
            entrants: &entrants,
            hero: Some("p3"),
            players: 2,
            sets_per_pair: 2,
        };
        let (rounds, done) = run(&plan);
        assert_eq!(rounds.len(), 5 * 2, "one hero comparison per round");
        for sets in &rounds {
            assert!(
                sets.iter()
                    .any(|s| s.tables.iter().flatten().any(|p| p == "p3"))
            );
        }
        for e in entrants.iter().filter(|e| *e != "p3") {
            assert_eq!(done[&pair_key("p3", e)], 2);
        }
    }

    #[test]
    fn the_same_history_gives_the_same_round() {
        let entrants = entrants(8);
        let plan = Plan {
            format: Format::RoundRobin,
            entrants: &entrants,
            hero: None,
            players: 2,
            sets_per_pair: 1,
        };
        let done = HashMap::new();
        assert_eq!(plan.next_round(&done, 7), plan.next_round(&done, 7));
    }
}
