//! Bots playing through a real in-process server: a whole game, waiting for a seat, and
//! riding out a server restart in the middle of a game.

use std::time::Duration;

use theboss::v1;
use theboss_bot::play::{GameResult, PlayOptions, Seating, play_many};
use theboss_bot::strategy::{Strategy, StrategyKind};
use theboss_client::{Connection, FeedOptions};
use theboss_server::Options;
use theboss_server::store::SqliteStore;
use theboss_server::testing::TestServer;

fn fast() -> PlayOptions {
    PlayOptions {
        feed: FeedOptions {
            silence: Duration::from_secs(5),
            reconnects: 100,
            ..FeedOptions::default()
        },
        poll: Duration::from_millis(20),
        submit_attempts: 20,
    }
}

/// The results of games that must all have been played.
fn played(results: Vec<Result<GameResult, theboss_bot::play::BotError>>) -> Vec<GameResult> {
    results
        .into_iter()
        .map(|r| r.expect("the game was played"))
        .collect()
}

#[tokio::test]
async fn bots_of_every_strategy_play_a_game_to_the_end() {
    let server = TestServer::sqlite().await;
    let connection = Connection::connect(&server.url()).await.unwrap();
    let creator = connection.register("Creator", true).await.unwrap();
    let game_id = creator
        .create_game(
            v1::GameSettings {
                players: 3,
                ..Default::default()
            },
            None,
        )
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for (i, kind) in StrategyKind::ALL.into_iter().enumerate() {
        let session = connection
            .register(&format!("{kind} bot"), true)
            .await
            .unwrap();
        let seating = Seating::Join {
            game_id: game_id.clone(),
            seat: Some(i as u32),
        };
        tasks.push(tokio::spawn(async move {
            play_many(&session, seating, kind, 1, 1, &fast()).await
        }));
    }
    let mut results = Vec::new();
    for task in tasks {
        results.extend(played(task.await.unwrap()));
    }
    assert_eq!(results.len(), 3);
    let winners = &results[0].winners;
    assert!(!winners.is_empty());
    for r in &results {
        assert_eq!(r.status, v1::GameStatus::Finished);
        assert_eq!(&r.winners, winners, "every bot saw the same end");
        assert!(r.turns_played >= 15, "{r}");
    }
    server.stop().await;
}

#[tokio::test]
async fn waiting_bots_fill_a_created_game() {
    let server = TestServer::sqlite().await;
    let connection = Connection::connect(&server.url()).await.unwrap();
    let mut waiting = Vec::new();
    for i in 0..2 {
        let session = connection
            .register(&format!("waiter {i}"), true)
            .await
            .unwrap();
        waiting.push(tokio::spawn(async move {
            play_many(&session, Seating::Wait, StrategyKind::Random, 1, 1, &fast()).await
        }));
    }
    let creator = connection.register("creator", true).await.unwrap();
    let created = play_many(
        &creator,
        Seating::Create { players: 3 },
        StrategyKind::Heuristic,
        1,
        1,
        &fast(),
    )
    .await;
    let created = played(created);
    assert_eq!(created[0].status, v1::GameStatus::Finished);
    for task in waiting {
        let result = played(task.await.unwrap());
        assert_eq!(result[0].game_id, created[0].game_id);
    }
    server.stop().await;
}

#[tokio::test]
async fn bots_resume_after_the_server_restarts_mid_game() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("restart.db").display());
    let store = std::sync::Arc::new(SqliteStore::connect(&url).await.unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = TestServer::start_on(listener, store, Options::default());
    let connection = Connection::connect(&server.url()).await.unwrap();
    let a = connection.register("A", true).await.unwrap();
    let b = connection.register("B", true).await.unwrap();
    let game_id = a
        .create_game(
            v1::GameSettings {
                players: 2,
                ..Default::default()
            },
            None,
        )
        .await
        .unwrap();
    let bots: Vec<_> = [a.clone(), b]
        .into_iter()
        .map(|session| {
            let seating = Seating::Join {
                game_id: game_id.clone(),
                seat: None,
            };
            tokio::spawn(async move {
                play_many(&session, seating, StrategyKind::Random, 1, 1, &fast()).await
            })
        })
        .collect();
    // Let some turns happen, then stop the server under the bots' feet.
    let watcher = a.clone();
    loop {
        let view = watcher.view(&game_id).await.unwrap();
        if view.seq > 20 {
            assert_eq!(
                view.status,
                v1::GameStatus::Running as i32,
                "stopped mid-game"
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.stop().await;
    down(addr).await;
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let store = std::sync::Arc::new(SqliteStore::connect(&url).await.unwrap());
    let server = TestServer::start_on(listener, store, Options::default());
    let mut winners = Vec::new();
    for bot in bots {
        let result = played(bot.await.unwrap());
        assert_eq!(result[0].status, v1::GameStatus::Finished);
        winners.push(result[0].winners.clone());
    }
    assert_eq!(winners[0], winners[1]);
    server.stop().await;
}

#[tokio::test]
async fn a_bot_restarted_in_a_game_it_sits_in_plays_on() {
    let server = TestServer::sqlite().await;
    let connection = Connection::connect(&server.url()).await.unwrap();
    let a = connection.register("A", true).await.unwrap();
    let b = connection.register("B", true).await.unwrap();
    let game_id = a
        .create_game(
            v1::GameSettings {
                players: 2,
                ..Default::default()
            },
            None,
        )
        .await
        .unwrap();
    // A took its seat in an earlier life.
    a.join(&game_id, Some(0)).await.unwrap();
    let tasks: Vec<_> = [a, b]
        .into_iter()
        .map(|session| {
            let seating = Seating::Join {
                game_id: game_id.clone(),
                seat: None,
            };
            tokio::spawn(async move {
                play_many(&session, seating, StrategyKind::Heuristic, 1, 1, &fast()).await
            })
        })
        .collect();
    for task in tasks {
        let result = played(task.await.unwrap());
        assert_eq!(result[0].status, v1::GameStatus::Finished);
    }
    server.stop().await;
}

#[tokio::test]
async fn ladder_bots_ride_out_a_server_restart() {
    use theboss_bot::ladder::{self, LadderOptions};
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("ladder.db").display());
    let store = std::sync::Arc::new(SqliteStore::connect(&url).await.unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = TestServer::start_on(listener, store, Options::default());
    let connection = Connection::connect(&server.url()).await.unwrap();
    let mut bots = Vec::new();
    let mut sessions = Vec::new();
    for name in ["A", "B"] {
        let session = connection.register(name, true).await.unwrap();
        sessions.push(session.clone());
        let options = LadderOptions {
            players: 2,
            duplicate: false,
            games: Some(2),
            jitter: Duration::ZERO,
            play: fast(),
        };
        bots.push(tokio::spawn(async move {
            ladder::run(&session, ladder::factory(StrategyKind::Random), &options).await
        }));
    }
    // Wait until the first ladder game is under way, then restart the server.
    loop {
        let games = sessions[0]
            .list_games(v1::ListGamesRequest {
                mine: true,
                ..Default::default()
            })
            .await
            .unwrap();
        if let Some(game) = games.games.first() {
            let view = sessions[0].view(&game.game_id).await.unwrap();
            if view.seq > 10 {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.stop().await;
    down(addr).await;
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let store = std::sync::Arc::new(SqliteStore::connect(&url).await.unwrap());
    let server = TestServer::start_on(listener, store, Options::default());
    for bot in bots {
        let results = bot.await.unwrap().unwrap();
        assert_eq!(results.len(), 2);
        assert!(results.iter().all(|r| r.status == v1::GameStatus::Finished));
    }
    server.stop().await;
}

/// Panics on its third turn.
struct Fragile {
    inner: Box<dyn Strategy>,
    turns: u32,
}

impl Strategy for Fragile {
    fn name(&self) -> &'static str {
        "fragile"
    }

    fn choose(
        &mut self,
        view: &theboss_engine::View,
        time: Option<Duration>,
    ) -> theboss_engine::Turn {
        self.turns += 1;
        assert!(
            self.turns < 3,
            "the fragile strategy breaks on turn {}",
            self.turns
        );
        self.inner.choose(view, time)
    }
}

#[tokio::test]
async fn a_panicking_strategy_costs_its_game_and_not_the_others() {
    use theboss_bot::play::play_game;
    let server = TestServer::sqlite().await;
    let connection = Connection::connect(&server.url()).await.unwrap();
    let fragile = connection.register("Fragile", true).await.unwrap();
    let steady = connection.register("Steady", true).await.unwrap();
    let settings = v1::GameSettings {
        players: 2,
        ..Default::default()
    };
    let mut games = Vec::new();
    for _ in 0..2 {
        let game_id = fragile.create_game(settings.clone(), None).await.unwrap();
        fragile.join(&game_id, Some(0)).await.unwrap();
        steady.join(&game_id, Some(1)).await.unwrap();
        games.push(game_id);
    }
    let mut tasks = Vec::new();
    for (i, game_id) in games.iter().enumerate() {
        // In the first game the strategy breaks; in the second it plays on normally.
        let strategy: Box<dyn Strategy> = if i == 0 {
            Box::new(Fragile {
                inner: StrategyKind::Heuristic.build(1),
                turns: 0,
            })
        } else {
            StrategyKind::Heuristic.build(1)
        };
        let (session, id) = (fragile.clone(), game_id.clone());
        tasks.push(tokio::spawn(async move {
            play_game(&session, &id, strategy, &fast()).await
        }));
        let (session, game_id) = (steady.clone(), game_id.clone());
        tasks.push(tokio::spawn(async move {
            play_game(&session, &game_id, StrategyKind::Random.build(2), &fast()).await
        }));
    }
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.expect("no task dies with the strategy").unwrap());
    }
    for r in &results {
        assert_eq!(r.status, v1::GameStatus::Finished, "{r}");
    }
    let broken = &results[0];
    assert_eq!(broken.game_id, games[0]);
    assert!(
        broken
            .strategy_panic
            .as_deref()
            .is_some_and(|p| p.contains("breaks on turn 3")),
        "{broken}"
    );
    assert!(
        broken.turns_played >= 15,
        "the game was played to its end: {broken}"
    );
    assert!(results[1..].iter().all(|r| r.strategy_panic.is_none()));
    server.stop().await;
}

/// Waits until nothing answers on `addr`: the stopped server's listener is closed, so the
/// bots meet a server that is down before the new one listens.
async fn down(addr: std::net::SocketAddr) {
    while tokio::net::TcpStream::connect(addr).await.is_ok() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
