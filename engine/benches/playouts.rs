//! What one random 4-player game costs, in figures that hold still while other work runs on
//! the machine: the heap allocations it makes (a counting global allocator), and a fixed
//! workload to run under `valgrind --tool=callgrind` for its instruction count. The
//! wall-clock figure printed beside them is only indicative; `benches/engine.rs` (criterion)
//! is the throughput figure of record.
//!
//! `cargo bench -p theboss-engine --bench playouts -- [GAMES] [published|playout]` (default
//! 2000 games, both ways of playing: through the published API that returns lists and
//! events, and as a playout does, into reused buffers). Under callgrind, run the built
//! binary directly with one way and a small GAMES, and divide the difference from a run of
//! 0 games by GAMES.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use theboss_engine::{Game, GameConfig, GameRng, LegalTurns};

/// The system allocator, counting the blocks it hands out (reallocations included: each
/// one is a trip to the allocator, as costly as a fresh block).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator, which the caller's contract
        // is written for.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One game with uniformly random legal turns through the published API, as the criterion
/// bench plays it; returns the number of turns.
fn random_game(players: u8, seed: u64) -> usize {
    let mut game = Game::new(&GameConfig::new(players, seed)).expect("valid config");
    let mut rng = GameRng::from_seed(!seed);
    let mut turns = 0;
    while let Some(seat) = game.to_move() {
        let legal = game.legal_turns(seat).expect("seat to move");
        let turn = legal
            .nth(rng.below(legal.count() as u32) as usize)
            .expect("index below count");
        game.apply(seat, &turn).expect("legal turn");
        turns += 1;
    }
    turns
}

/// The same game (the same turns: the same legal list, indexed alike) as a playout plays it:
/// the legal turns written into one reused list, the events not built.
fn random_playout(players: u8, seed: u64) -> usize {
    let mut game = Game::new(&GameConfig::new(players, seed)).expect("valid config");
    let mut rng = GameRng::from_seed(!seed);
    let mut legal = LegalTurns::default();
    let mut turns = 0;
    while let Some(seat) = game.to_move() {
        game.legal_turns_into(seat, &mut legal);
        let turn = legal
            .nth(rng.below(legal.count() as u32) as usize)
            .expect("index below count");
        game.apply_quiet(seat, &turn).expect("legal turn");
        turns += 1;
    }
    turns
}

/// Plays `games` games with `play`, printing turns, allocations and time per game.
fn measure(name: &str, games: u64, play: impl Fn(u8, u64) -> usize) {
    let allocations = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    let mut turns = 0;
    for seed in 1..=games {
        turns += black_box(play(4, seed));
    }
    let elapsed = start.elapsed();
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - allocations;
    let per_game = |x: f64| x / games as f64;
    println!(
        "{name}: {games} games, {:.1} turns/game, {:.1} allocations/game, {:.2} µs/game ({:.0} games/s)",
        per_game(turns as f64),
        per_game(allocations as f64),
        per_game(elapsed.as_secs_f64() * 1e6),
        games as f64 / elapsed.as_secs_f64(),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games = args
        .iter()
        .find_map(|a| a.parse::<u64>().ok())
        .unwrap_or(2000);
    // A word names the one way to play to measure (for callgrind): "published" or "playout".
    let only = |name: &str| {
        !args.iter().any(|a| a == "published" || a == "playout") || args.iter().any(|a| a == name)
    };
    if only("published") {
        measure("legal_turns + apply", games, random_game);
    }
    if only("playout") {
        measure("legal_turns_into + apply_quiet", games, random_playout);
    }
}
