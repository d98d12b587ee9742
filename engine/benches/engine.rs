//! Throughput of the engine: complete random games per second for 2, 3 and 4 players, and
//! `view()` calls per second. Target: at least 20,000 complete random 4-player games
//! per second on one core.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use theboss_engine::{Game, GameConfig, GameRng, Viewer};

/// Plays one game with uniformly random legal turns; returns the number of turns.
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
