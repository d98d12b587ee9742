//! Bots playing through a real in-process server: a whole game, waiting for a seat, and
//! riding out a server restart in the middle of a game.

use std::time::Duration;

use theboss::v1;
use theboss_bot::client::{Connection, PlayOptions, Seating, play_many};
use theboss_bot::strategy::StrategyKind;
use theboss_server::Options;
use theboss_server::store::SqliteStore;
use theboss_server::testing::TestServer;

fn fast() -> PlayOptions {
    PlayOptions {
        silence: Duration::from_secs(5),
        reconnects: 100,
        poll: Duration::from_millis(20),
    }
}

#[tokio::test]
async fn bots_of_every_strategy_play_a_game_to_the_end() {
    let server = TestServer::sqlite().await;
    let connection = Connection::connect(&server.url()).await.unwrap();
    let creator = connection.register("Creator", true).await.unwrap();
    let game_id = creator
        .create_game(v1::GameSettings {
            players: 3,
            ..Default::default()
        })
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
        results.extend(task.await.unwrap().unwrap());
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
    .await
    .unwrap();
    assert_eq!(created[0].status, v1::GameStatus::Finished);
    for task in waiting {
        let result = task.await.unwrap().unwrap();
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
        .create_game(v1::GameSettings {
            players: 2,
            ..Default::default()
        })
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
    tokio::time::sleep(Duration::from_millis(300)).await;
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let store = std::sync::Arc::new(SqliteStore::connect(&url).await.unwrap());
    let server = TestServer::start_on(listener, store, Options::default());
    let mut winners = Vec::new();
    for bot in bots {
        let result = bot.await.unwrap().unwrap();
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
        .create_game(v1::GameSettings {
            players: 2,
            ..Default::default()
        })
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
        let result = task.await.unwrap().unwrap();
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
    tokio::time::sleep(Duration::from_millis(300)).await;
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
