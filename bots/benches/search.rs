//! How fast the search thinks: SO-ISMCTS at a fixed budget of iterations on a fixed set of
//! positions, so the figure compares builds rather than machines' moods, and a fingerprint of
//! the turns it chose, which must not move when only the speed of the code changes.
//!
//! `cargo bench -p theboss-bots --bench search -- [ITERATIONS] [POSITIONS]` (defaults 400
//! and 24). Under `valgrind --tool=callgrind`, run the built binary directly and divide the
//! instruction count by the iterations printed.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use theboss_bots::Strategy;
use theboss_bots::heuristic::Heuristic;
use theboss_bots::ismcts::{Budget, Ismcts};
use theboss_engine::{Game, GameConfig, Viewer};

fn main() {
    let mut numbers = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<u32>().ok());
    let iterations = numbers.next().unwrap_or(400);
    let positions = numbers.next().unwrap_or(24);

    // Seat 0 searches on each of its turns of 4-player games in which the heuristic plays
    // every seat (the searched turn is not played: the games stay the same whatever it chose).
    let mut searched = 0;
    let mut total_iterations = 0;
    let mut thinking = Duration::ZERO;
    let mut chosen = DefaultHasher::new();
    let mut seed = 0;
    let mut heuristic = Heuristic::new();
    'games: loop {
        seed += 1;
        let mut game = Game::new(&GameConfig::new(4, seed)).expect("valid config");
        while let Some(seat) = game.to_move() {
            let view = game.view(Viewer::Seat(seat));
            if seat == 0 {
                let mut bot = Ismcts::new(seed * 1000 + searched, Budget::iterations(iterations));
                let start = Instant::now();
                let turn = bot.choose(&view, None);
                thinking += start.elapsed();
                total_iterations += bot.iterations();
                turn.hash(&mut chosen);
                searched += 1;
                if searched == u64::from(positions) {
                    break 'games;
                }
            }
            let turn = heuristic.choose(&view, None);
            game.apply(seat, &turn)
                .expect("the heuristic plays legal turns");
        }
    }
    println!(
        "ismcts: {searched} positions, {total_iterations} iterations, {:.0} iterations/s, chosen turns {:016x}",
        total_iterations as f64 / thinking.as_secs_f64(),
        chosen.finish(),
    );
}
