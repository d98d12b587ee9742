//! Load benchmark: many concurrent complete games through an in-process server over real
//! gRPC, every seat watching its stream. Reports actions/s and the latency from sending
//! `SubmitAction` until every seat's stream has delivered the result.
//!
//! ```text
//! cargo bench -p theboss-server --bench load                      # 100 4-player games, PostgreSQL
//! cargo bench -p theboss-server --bench load -- --games 20 --sqlite
//! ```
//! PostgreSQL comes from `DATABASE_URL_TEST` (default `postgres://postgres@127.0.0.1:5432/test`).

#[path = "../tests/common/mod.rs"]
mod common;

use common::{pick, seated_game, submit};
use std::sync::Arc;
use std::time::{Duration, Instant};

use theboss::v1::{self, watch_game_response::Message};
use theboss_engine::GameRng;
use theboss_server::Options;
use theboss_server::testing::{self, TestPlayer, TestServer};
use tokio::sync::mpsc;

struct Args {
    games: usize,
    players: u32,
    sqlite: bool,
}

fn args() -> Args {
    let mut args = Args {
        games: 100,
        players: 4,
        sqlite: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--games" => args.games = it.next().and_then(|v| v.parse().ok()).expect("--games N"),
            "--players" => {
                args.players = it.next().and_then(|v| v.parse().ok()).expect("--players N")
            }
            "--sqlite" => args.sqlite = true,
            _ => {} // cargo passes `--bench`
        }
    }
    args
}

/// Plays one game; returns the latency of each action.
async fn play(server: Arc<TestServer>, players: u32, seed: u64) -> Vec<Duration> {
    let (game_id, seated) = seated_game(&server, players, seed).await;
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, v1::GameView)>();
    for (seat, p) in seated.iter().enumerate() {
        let (p, tx, game_id) = (p.clone(), tx.clone(), game_id.clone());
        tokio::spawn(async move { watch(p, seat, game_id, tx).await });
    }
    drop(tx);
    let mut latest: Vec<Option<v1::GameView>> = vec![None; seated.len()];
    let mut rng = GameRng::from_seed(seed);
    let mut latencies = Vec::new();
    let mut target = 0;
    let mut pending: Option<Instant> = None;
    loop {
        // Wait until every seat has seen the last result.
        while latest
            .iter()
            .any(|v| v.as_ref().is_none_or(|v| v.seq < target))
        {
            let (seat, view) = rx.recv().await.expect("streams stay up until the end");
            latest[seat] = Some(view);
        }
        if let Some(sent) = pending.take() {
            latencies.push(sent.elapsed());
        }
        let Some(to_move) = latest[0].as_ref().unwrap().to_move else {
            break;
        };
        let view = latest[to_move as usize].as_ref().unwrap();
        let action = pick(view, &mut rng);
        let sent = Instant::now();
        let response = submit(&seated[to_move as usize], &game_id, view.seq, "", action)
            .await
            .expect("a legal turn is accepted");
        target = response.seq;
        pending = Some(sent);
    }
    latencies
}

async fn watch(
    p: TestPlayer,
    seat: usize,
    game_id: String,
    tx: mpsc::UnboundedSender<(usize, v1::GameView)>,
) {
    let mut stream = p
        .client
        .clone()
        .watch_game(p.request(v1::WatchGameRequest {
            game_id,
            after_seq: None,
        }))
        .await
        .expect("watch")
        .into_inner();
    while let Ok(Some(message)) = stream.message().await {
        let view = match message.message {
            Some(Message::Snapshot(view)) => view,
            Some(Message::Update(update)) => update.view.expect("updates carry views"),
            _ => continue,
        };
        if tx.send((seat, view)).is_err() {
            return;
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let args = args();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let (store, _dir) = if args.sqlite {
            let (store, dir) = testing::sqlite_store().await;
            (store, Some(dir))
        } else {
            (testing::postgres_store().await, None)
        };
        let server = Arc::new(TestServer::start(store, Options::default()).await);
        let start = Instant::now();
        let games: Vec<_> = (0..args.games)
            .map(|i| tokio::spawn(play(server.clone(), args.players, i as u64)))
            .collect();
        let mut latencies = Vec::new();
        for game in games {
            latencies.extend(game.await.expect("a game task"));
        }
        let elapsed = start.elapsed();
        latencies.sort();
        let backend = if args.sqlite { "SQLite" } else { "PostgreSQL" };
        println!(
            "{} concurrent {}-player games on {backend}: {} actions in {:.2} s",
            args.games,
            args.players,
            latencies.len(),
            elapsed.as_secs_f64()
        );
        println!(
            "  {:.1} games/s, {:.0} actions/s",
            args.games as f64 / elapsed.as_secs_f64(),
            latencies.len() as f64 / elapsed.as_secs_f64()
        );
        println!(
            "  SubmitAction -> every seat's stream: p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            percentile(&latencies, 0.50).as_secs_f64() * 1e3,
            percentile(&latencies, 0.95).as_secs_f64() * 1e3,
            percentile(&latencies, 0.99).as_secs_f64() * 1e3,
            latencies.last().unwrap().as_secs_f64() * 1e3,
        );
    });
}
