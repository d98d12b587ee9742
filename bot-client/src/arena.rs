//! The arena: strategies play each other with the engine alone (no server), on all cores.
//!
//! Every deal is played once per rotation of the seats, so that each strategy gets each seat
//! and each deal equally often: luck of the deal and of the seat cancels out. Wins shared by
//! `k` seats count `1/k`. Results come with a 95% Wilson confidence interval.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use theboss_engine::{Game, GameConfig, Viewer};

use crate::strategy::Strategy;
use crate::strategy::StrategyKind;
use crate::strategy::ismcts::{Budget, Ismcts};

#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// One strategy per seat; its length is the player count.
    pub lineup: Vec<StrategyKind>,
    /// Games to play (rounded up to whole rotations).
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    /// Search budget of `ismcts` players.
    pub ismcts: Budget,
}

/// One strategy's results over the games.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    pub seats_played: u64,
    /// Wins, with shared wins counted fractionally.
    pub wins: f64,
    pub money: u64,
    pub turns: u64,
    pub thinking: Duration,
    pub slowest_turn: Duration,
}

impl Tally {
    pub fn win_rate(&self) -> f64 {
        self.wins / self.seats_played.max(1) as f64
    }

    /// The 95% Wilson score interval of the win rate.
    pub fn confidence_95(&self) -> (f64, f64) {
        wilson(self.wins, self.seats_played as f64, 1.96)
    }

    pub fn mean_money(&self) -> f64 {
        self.money as f64 / self.seats_played.max(1) as f64
    }

    pub fn mean_turn(&self) -> Duration {
        self.thinking / u32::try_from(self.turns.max(1)).unwrap_or(u32::MAX)
    }

    fn add(&mut self, other: &Tally) {
        self.seats_played += other.seats_played;
        self.wins += other.wins;
        self.money += other.money;
        self.turns += other.turns;
        self.thinking += other.thinking;
        self.slowest_turn = self.slowest_turn.max(other.slowest_turn);
    }
}

/// The Wilson score interval for `successes` out of `n` at `z` standard deviations.
pub fn wilson(successes: f64, n: f64, z: f64) -> (f64, f64) {
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let p = successes / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[derive(Debug, Clone)]
pub struct ArenaReport {
    pub players: u8,
    pub games: u64,
    /// By strategy, in the order of first appearance in the lineup.
    pub tallies: Vec<(StrategyKind, Tally)>,
    pub elapsed: Duration,
}

impl ArenaReport {
    pub fn tally(&self, kind: StrategyKind) -> Option<&Tally> {
        self.tallies
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, t)| t)
    }

    /// The result table, one line per strategy.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} games of {} players in {:.1} s\n{:<10} {:>6} {:>9} {:>17} {:>10} {:>10} {:>10}\n",
            self.games,
            self.players,
            self.elapsed.as_secs_f64(),
            "strategy",
            "seats",
            "win rate",
            "95% CI",
            "mean M$",
            "ms/turn",
            "max ms"
        );
        for (kind, t) in &self.tallies {
            let (lo, hi) = t.confidence_95();
            out.push_str(&format!(
                "{:<10} {:>6} {:>8.1}% {:>7.1}% – {:>5.1}% {:>10.2} {:>10.2} {:>10.1}\n",
                kind.name(),
                t.seats_played,
                100.0 * t.win_rate(),
                100.0 * lo,
                100.0 * hi,
                t.mean_money(),
                t.mean_turn().as_secs_f64() * 1e3,
                t.slowest_turn.as_secs_f64() * 1e3,
            ));
        }
        out
    }
}

fn build(kind: StrategyKind, seed: u64, ismcts: Budget) -> Box<dyn Strategy> {
    match kind {
        StrategyKind::Ismcts => Box::new(Ismcts::new(seed, ismcts)),
        other => other.build(seed),
    }
}

/// Plays game number `index`: deal `index / players`, seats rotated by `index % players`.
/// Returns one tally per lineup position.
pub fn play_one(config: &ArenaConfig, index: u64) -> Vec<Tally> {
    let players = config.lineup.len() as u8;
    let deal = index / u64::from(players);
    let rotation = (index % u64::from(players)) as usize;
    // Lineup position of each seat.
    let at: Vec<usize> = (0..players as usize)
        .map(|seat| (seat + rotation) % players as usize)
        .collect();
    let seed = config
        .seed
        .wrapping_add(deal.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut game = Game::new(&GameConfig::new(players, seed)).expect("2 to 4 players");
    let mut bots: Vec<Box<dyn Strategy>> = at
        .iter()
        .enumerate()
        .map(|(seat, &p)| {
            build(
                config.lineup[p],
                seed ^ (index << 8) ^ seat as u64,
                config.ismcts,
            )
        })
        .collect();
    let mut tallies = vec![Tally::default(); players as usize];
    while let Some(seat) = game.to_move() {
        let view = game.view(Viewer::Seat(seat));
        let started = Instant::now();
        let turn = bots[usize::from(seat)].choose(&view, None);
        let took = started.elapsed();
        let tally = &mut tallies[at[usize::from(seat)]];
        tally.turns += 1;
        tally.thinking += took;
        tally.slowest_turn = tally.slowest_turn.max(took);
        game.apply(seat, &turn).unwrap_or_else(|e| {
            panic!(
                "{} played an illegal turn: {e}",
                config.lineup[at[usize::from(seat)]]
            )
        });
    }
    let outcome = game.outcome().expect("the game is over");
    for seat in 0..players {
        let tally = &mut tallies[at[usize::from(seat)]];
        tally.seats_played = 1;
        tally.money = u64::from(game.player(seat).money);
        if outcome.winners.contains(&seat) {
            tally.wins = 1.0 / outcome.winners.len() as f64;
        }
    }
    tallies
}

/// Plays the arena on `config.threads` threads; `progress` is called after every game.
pub fn run(config: &ArenaConfig, progress: &(dyn Fn() + Sync)) -> ArenaReport {
    let players = config.lineup.len() as u64;
    let games = config.games.div_ceil(players) * players;
    let next = AtomicU64::new(0);
    let totals = Mutex::new(vec![Tally::default(); config.lineup.len()]);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let mut mine = vec![Tally::default(); config.lineup.len()];
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    for (total, t) in mine.iter_mut().zip(play_one(config, index)) {
                        total.add(&t);
                    }
                    progress();
                }
                let mut totals = totals.lock().expect("no thread panicked holding it");
                for (total, t) in totals.iter_mut().zip(&mine) {
                    total.add(t);
                }
            });
        }
    });
    let by_position = totals.into_inner().expect("no thread panicked holding it");
    let mut tallies: Vec<(StrategyKind, Tally)> = Vec::new();
    for (kind, tally) in config.lineup.iter().zip(&by_position) {
        match tallies.iter_mut().find(|(k, _)| k == kind) {
            Some((_, total)) => total.add(tally),
            None => tallies.push((*kind, tally.clone())),
        }
    }
    ArenaReport {
        players: config.lineup.len() as u8,
        games,
        tallies,
        elapsed: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(50.0, 100.0, 1.96);
        assert!(
            (lo - 0.404).abs() < 0.001 && (hi - 0.596).abs() < 0.001,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0.0, 0.0, 1.96), (0.0, 1.0));
        let (lo, hi) = wilson(0.0, 10.0, 1.96);
        assert!(lo == 0.0 && hi > 0.2);
    }

    #[test]
    fn every_seat_and_win_is_counted_once() {
        let config = ArenaConfig {
            lineup: vec![
                StrategyKind::Heuristic,
                StrategyKind::Random,
                StrategyKind::Random,
            ],
            games: 30,
            seed: 3,
            threads: 2,
            ismcts: Budget::iterations(10),
        };
        let report = run(&config, &|| {});
        assert_eq!(report.games, 30);
        let seats: u64 = report.tallies.iter().map(|(_, t)| t.seats_played).sum();
        assert_eq!(seats, 90);
        let wins: f64 = report.tallies.iter().map(|(_, t)| t.wins).sum();
        assert!(
            (wins - 30.0).abs() < 1e-9,
            "one win per game, shares included"
        );
        assert_eq!(report.tally(StrategyKind::Random).unwrap().seats_played, 60);
        assert!(report.table().contains("heuristic"));
    }

    #[test]
    fn the_same_config_gives_the_same_results() {
        let config = ArenaConfig {
            lineup: vec![StrategyKind::Random, StrategyKind::Heuristic],
            games: 8,
            seed: 9,
            threads: 1,
            ismcts: Budget::iterations(10),
        };
        let a: Vec<_> = (0..8).map(|i| play_one(&config, i)).collect();
        let b: Vec<_> = (0..8).map(|i| play_one(&config, i)).collect();
        let money = |t: &Vec<Vec<Tally>>| t.iter().flatten().map(|t| t.money).collect::<Vec<_>>();
        assert_eq!(money(&a), money(&b));
    }
}
