//! Throughput of the engine: complete random games per second for 2, 3 and 4 players, and
//! `view()` calls per second.
//!
//! A game is played as a playout plays it: the legal turns written into one reused list
//! (`legal_turns_into`), a uniform one drawn by index, applied without building its events
//! (`apply_quiet`); the same games, turn for turn, as through `legal_turns` and `apply`,
//! which `random_game_lists/4` measures for comparison. Target: at least 50,000 complete
//! random 4-player games per second on one core (it was 20,000; the engine then did
//! ~28,600, allocating ~410 times a game; `benches/playouts.rs` counts allocations and gives
//! callgrind a fixed workload).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use theboss_engine::{Game, GameConfig, GameRng, LegalTurns, Viewer};

/// Plays one game with uniformly random legal turns; returns the number of turns.
fn random_game(players: u8, seed: u64) -> usize {
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

/// The same game through the API that returns new lists and the events.
fn random_game_lists(players: u8, seed: u64) -> usize {
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

fn games(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_game");
    group.throughput(Throughput::Elements(1));
    for players in 2..=4u8 {
        let mut seed = 0u64;
        group.bench_with_input(BenchmarkId::from_parameter(players), &players, |b, &p| {
            b.iter(|| {
                seed += 1;
                black_box(random_game(p, seed))
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("random_game_lists");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    group.bench_function("4", |b| {
        b.iter(|| {
            seed += 1;
            black_box(random_game_lists(4, seed))
        })
    });
    group.finish();
}

fn views(c: &mut Criterion) {
    let mut game = Game::new(&GameConfig::new(4, 3)).expect("valid config");
    // A mid-round position: the first two turns of every seat played.
    for _ in 0..8 {
        let seat = game.to_move().expect("game on");
        let turn = game.legal_actions(seat)[1];
        game.apply(seat, &turn).expect("legal");
    }
    let mut group = c.benchmark_group("view");
    group.throughput(Throughput::Elements(1));
    let to_move = game.to_move().expect("game on");
    group.bench_function("seat_to_move", |b| {
        b.iter(|| black_box(game.view(Viewer::Seat(to_move))))
    });
    group.bench_function("spectator", |b| {
        b.iter(|| black_box(game.view(Viewer::Spectator)))
    });
    group.finish();
}

criterion_group!(benches, games, views);
criterion_main!(benches);
