//! The arena: strategies play each other with the engine alone (no server), on all cores.
//!
//! Every deal is played once per rotation of the seats (duplicate deals), so that each
//! strategy gets each seat and each hand equally often: luck of the deal and of the seat
//! cancels out. Wins shared by `k` seats count `1/k`. Results come with a 95% Wilson interval
//! over seats, and, since the games of one deal are not independent, with 95% intervals over
//! deals (the deal is the unit: [`DealStats`]) for the win share, the mean money and the mean
//! rank, and how many games would bring a win share to ±3 points.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use theboss_engine::{Game, GameConfig, Viewer};

use crate::strategy::Strategy;
use crate::strategy::StrategyKind;
use crate::strategy::ismcts::{Budget, Ismcts, Params};

/// Who plays a seat: a strategy, or the first published search bot (`ismcts-v1`, the
/// search with [`Params::V1`]), kept to measure the search against its past.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Contender {
    Strategy(StrategyKind),
    IsmctsV1,
}

impl Contender {
    pub fn name(self) -> &'static str {
        match self {
            Contender::Strategy(kind) => kind.name(),
            Contender::IsmctsV1 => "ismcts-v1",
        }
    }
}

impl From<StrategyKind> for Contender {
    fn from(kind: StrategyKind) -> Contender {
        Contender::Strategy(kind)
    }
}

impl std::fmt::Display for Contender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Contender {
    type Err = String;

    fn from_str(s: &str) -> Result<Contender, String> {
        if s.eq_ignore_ascii_case("ismcts-v1") {
            return Ok(Contender::IsmctsV1);
        }
        s.parse::<StrategyKind>()
            .map(Contender::Strategy)
            .map_err(|e| format!("{e} (or ismcts-v1)"))
    }
}

#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// One contender per seat; its length is the player count.
    pub lineup: Vec<Contender>,
    /// Games to play (rounded up to whole rotations).
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    /// Search budget of `ismcts` players.
    pub ismcts: Budget,
    /// Search parameters of `ismcts` players (experiments; the default is the bot's).
    /// `ismcts-v1` players always search with [`Params::V1`].
    pub ismcts_params: Params,
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
    /// Search iterations, for strategies that search.
    pub iterations: u64,
    pub slowest_turn: Duration,
    /// Places in the final standings (1 = best), summed over seats.
    pub ranks: u64,
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

    /// Search iterations per second of thinking (0 for strategies that do not search).
    pub fn iterations_per_sec(&self) -> f64 {
        self.iterations as f64 / self.thinking.as_secs_f64().max(1e-9)
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
        self.iterations += other.iterations;
        self.slowest_turn = self.slowest_turn.max(other.slowest_turn);
        self.ranks += other.ranks;
    }
}

/// A mean with its 95% confidence half-width, from independent samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    /// The samples' standard deviation.
    pub sd: f64,
    pub half_width: f64,
    pub samples: u64,
}

impl Estimate {
    pub fn of(samples: &[f64]) -> Estimate {
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n.max(1.0);
        let sd = if samples.len() > 1 {
            (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Estimate {
            mean,
            sd,
            half_width: 1.96 * sd / n.max(1.0).sqrt(),
            samples: samples.len() as u64,
        }
    }

    /// Samples needed for a 95% half-width of `target` at this spread.
    pub fn samples_for(&self, target: f64) -> u64 {
        ((1.96 * self.sd / target).powi(2)).ceil() as u64
    }
}

/// One strategy's results with the deal as the unit: per deal, the mean over the strategy's
/// seats in all the deal's rotations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DealStats {
    pub win_share: Estimate,
    pub money: Estimate,
    pub rank: Estimate,
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
    /// By contender, in the order of first appearance in the lineup.
    pub tallies: Vec<(Contender, Tally)>,
    /// Deals played (each under every rotation of the seats).
    pub deals: u64,
    /// By contender, as `tallies`.
    pub by_deal: Vec<(Contender, DealStats)>,
    pub elapsed: Duration,
}

impl ArenaReport {
    pub fn tally(&self, kind: impl Into<Contender>) -> Option<&Tally> {
        let kind = kind.into();
        self.tallies
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, t)| t)
    }

    /// The result table, one line per strategy.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} games of {} players in {:.1} s\n{:<10} {:>6} {:>9} {:>17} {:>10} {:>10} {:>10} {:>12}\n",
            self.games,
            self.players,
            self.elapsed.as_secs_f64(),
            "strategy",
            "seats",
            "win rate",
            "95% CI",
            "mean M$",
            "ms/turn",
            "max ms",
            "iter/s"
        );
        for (kind, t) in &self.tallies {
            let (lo, hi) = t.confidence_95();
            out.push_str(&format!(
                "{:<10} {:>6} {:>8.1}% {:>7.1}% – {:>5.1}% {:>10.2} {:>10.2} {:>10.1} {:>12}\n",
                kind.name(),
                t.seats_played,
                100.0 * t.win_rate(),
                100.0 * lo,
                100.0 * hi,
                t.mean_money(),
                t.mean_turn().as_secs_f64() * 1e3,
                t.slowest_turn.as_secs_f64() * 1e3,
                if t.iterations > 0 {
                    format!("{:.0}", t.iterations_per_sec())
                } else {
                    "–".to_string()
                },
            ));
        }
        out.push_str(&format!(
            "by deal ({} deals, each under all {} rotations; 95% intervals):\n{:<10} {:>16} {:>16} {:>14} {:>22}\n",
            self.deals, self.players, "strategy", "win share", "mean M$", "mean rank", "games for ±3 points"
        ));
        for (kind, s) in &self.by_deal {
            out.push_str(&format!(
                "{:<10} {:>8.1}% ± {:>4.1} {:>9.2} ± {:>4.2} {:>7.2} ± {:>4.2} {:>22}\n",
                kind.name(),
                100.0 * s.win_share.mean,
                100.0 * s.win_share.half_width,
                s.money.mean,
                s.money.half_width,
                s.rank.mean,
                s.rank.half_width,
                s.win_share.samples_for(0.03) * u64::from(self.players),
            ));
        }
        out
    }

    pub fn deal_stats(&self, kind: impl Into<Contender>) -> Option<&DealStats> {
        let kind = kind.into();
        self.by_deal
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, s)| s)
    }
}

fn build(who: Contender, seed: u64, ismcts: Budget, params: Params) -> Box<dyn Strategy> {
    match who {
        Contender::Strategy(StrategyKind::Ismcts) => {
            Box::new(Ismcts::with_params(seed, ismcts, params))
        }
        Contender::IsmctsV1 => Box::new(Ismcts::with_params(seed, ismcts, Params::V1)),
        Contender::Strategy(other) => other.build(seed),
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
                config.ismcts_params,
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
        tally.iterations += bots[usize::from(seat)].iterations();
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
        tally.ranks = outcome
            .standings
            .iter()
            .position(|s| s.seat == seat)
            .map_or(u64::from(players), |i| i as u64 + 1);
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
    let played = Mutex::new(Vec::with_capacity(games as usize));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    mine.push((index, play_one(config, index)));
                    progress();
                }
                played
                    .lock()
                    .expect("no thread panicked holding it")
                    .extend(mine);
            });
        }
    });
    let mut played = played.into_inner().expect("no thread panicked holding it");
    played.sort_by_key(|(index, _)| *index);
    let mut by_position = vec![Tally::default(); config.lineup.len()];
    for (_, game) in &played {
        for (total, t) in by_position.iter_mut().zip(game) {
            total.add(t);
        }
    }
    let mut tallies: Vec<(Contender, Tally)> = Vec::new();
    for (kind, tally) in config.lineup.iter().zip(&by_position) {
        match tallies.iter_mut().find(|(k, _)| k == kind) {
            Some((_, total)) => total.add(tally),
            None => tallies.push((*kind, tally.clone())),
        }
    }
    let by_deal = deal_stats(config, &played, &tallies);
    ArenaReport {
        players: config.lineup.len() as u8,
        games,
        tallies,
        deals: games / players,
        by_deal,
        elapsed: started.elapsed(),
    }
}

/// Each strategy's per-deal means (over its seats in all the deal's rotations), estimated.
fn deal_stats(
    config: &ArenaConfig,
    played: &[(u64, Vec<Tally>)],
    kinds: &[(Contender, Tally)],
) -> Vec<(Contender, DealStats)> {
    let players = config.lineup.len();
    kinds
        .iter()
        .map(|(kind, _)| {
            let (mut wins, mut money, mut rank) = (Vec::new(), Vec::new(), Vec::new());
            for deal in played.chunks(players) {
                let mut total = Tally::default();
                for (_, game) in deal {
                    for (position, t) in game.iter().enumerate() {
                        if config.lineup[position] == *kind {
                            total.add(t);
                        }
                    }
                }
                let seats = total.seats_played.max(1) as f64;
                wins.push(total.wins / seats);
                money.push(total.money as f64 / seats);
                rank.push(total.ranks as f64 / seats);
            }
            (
                *kind,
                DealStats {
                    win_share: Estimate::of(&wins),
                    money: Estimate::of(&money),
                    rank: Estimate::of(&rank),
                },
            )
        })
        .collect()
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
                StrategyKind::Heuristic.into(),
                StrategyKind::Random.into(),
                StrategyKind::Random.into(),
            ],
            games: 30,
            seed: 3,
            threads: 2,
            ismcts: Budget::iterations(10),
            ismcts_params: Params::default(),
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
        // By deal: ten deals of three rotations; the shares over deals add up to the wins.
        assert_eq!(report.deals, 10);
        let heuristic = report.deal_stats(StrategyKind::Heuristic).unwrap();
        let random = report.deal_stats(StrategyKind::Random).unwrap();
        assert_eq!(heuristic.win_share.samples, 10);
        let share = heuristic.win_share.mean + 2.0 * random.win_share.mean;
        assert!((share - 1.0).abs() < 1e-9, "{share}");
        let ranks = heuristic.rank.mean + 2.0 * random.rank.mean;
        assert!(
            (ranks - 6.0).abs() < 1e-9,
            "ranks 1, 2, 3 in every game: {ranks}"
        );
        assert!(heuristic.rank.mean < random.rank.mean);
        assert!(report.table().contains("games for ±3 points"));
    }

    #[test]
    fn contenders_are_strategies_and_the_first_search() {
        assert_eq!(
            "heuristic".parse::<Contender>(),
            Ok(Contender::Strategy(StrategyKind::Heuristic))
        );
        assert_eq!("ISMCTS-v1".parse::<Contender>(), Ok(Contender::IsmctsV1));
        assert!("alphazero".parse::<Contender>().is_err());
        assert_eq!(Contender::IsmctsV1.to_string(), "ismcts-v1");
    }

    #[test]
    fn an_estimate_is_a_mean_with_its_interval() {
        let e = Estimate::of(&[0.0, 1.0, 0.0, 1.0]);
        assert!((e.mean - 0.5).abs() < 1e-12);
        assert!((e.sd - (1.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((e.half_width - 1.96 * e.sd / 2.0).abs() < 1e-12);
        // Four times the samples halve the interval.
        let n = e.samples_for(e.half_width / 2.0);
        assert!((15..=17).contains(&n), "{n}");
        assert_eq!(Estimate::of(&[2.0]).half_width, 0.0);
    }

    #[test]
    fn the_same_config_gives_the_same_results() {
        let config = ArenaConfig {
            lineup: vec![StrategyKind::Random.into(), StrategyKind::Heuristic.into()],
            games: 8,
            seed: 9,
            threads: 1,
            ismcts: Budget::iterations(10),
            ismcts_params: Params::default(),
        };
        let a: Vec<_> = (0..8).map(|i| play_one(&config, i)).collect();
        let b: Vec<_> = (0..8).map(|i| play_one(&config, i)).collect();
        let money = |t: &Vec<Vec<Tally>>| t.iter().flatten().map(|t| t.money).collect::<Vec<_>>();
        assert_eq!(money(&a), money(&b));
    }
}
