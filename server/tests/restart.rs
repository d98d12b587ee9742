//! The real `theboss-server` binary, killed with SIGKILL while players are submitting turns
//! and restarted on the same database, continues every game without losing one
//! acknowledged action: on SQLite and on PostgreSQL (where a server is a replica of a
//! service, restarted here with its replica id, so that it takes its games back at once).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use theboss::v1;
use theboss_client::{Connection, Session};
use theboss_engine::GameRng;
use theboss_server::testing;
use tokio::process::Child;

/// A server child process and the address it reported.
struct Process {
    child: Child,
    url: String,
}

async fn start(database_url: &str) -> Process {
    let (child, url) =
        server_binary(&["--database-url", database_url, "--replica-id", "restarted"]).await;
    Process { child, url }
}

async fn player(url: &str, name: &str) -> Session {
    Connection::connect(url)
        .await
        .unwrap()
        .register(name, true)
        .await
        .unwrap()
}

/// The same players, talking to another server process.
async fn reconnect(players: &[Session], url: &str) -> Vec<Session> {
    let connection = Connection::connect(url).await.unwrap();
    players
        .iter()
        .map(|p| connection.session(p.credentials.clone()))
        .collect()
}

/// One acknowledged turn: the game, the seq it produced, the key it was sent with.
#[derive(Debug, Clone)]
struct Ack {
    game: usize,
    seq: u64,
    key: String,
    seat: u32,
    request: v1::TurnAction,
    response: v1::SubmitActionResponse,
}

async fn kill_and_restart(database_url: &str) {
    let first = start(database_url).await;
    let mut games = Vec::new();
    for (g, n) in [2u32, 3, 4].into_iter().enumerate() {
        let mut players = Vec::new();
        for i in 0..n {
            players.push(player(&first.url, &format!("G{g}P{i}")).await);
        }
        let game_id = create(&players[0], settings(n), Some(g as u64)).await;
        for p in &players {
            p.game_client()
                .join_game(p.request(v1::JoinGameRequest {
                    game_id: game_id.clone(),
                    seat: None,
                }))
                .await
                .unwrap();
        }
        games.push((game_id, players));
    }

    // Every game is played as fast as possible; the server is killed mid-flight.
    let acks = Arc::new(std::sync::Mutex::new(Vec::<Ack>::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let mut drivers = Vec::new();
    for (g, (game_id, players)) in games.iter().cloned().enumerate() {
        let acks = acks.clone();
        let count = count.clone();
        drivers.push(tokio::spawn(async move {
            let mut rng = GameRng::from_seed(g as u64);
            loop {
                let Ok(current) = players[0]
                    .game_client()
                    .get_view(players[0].request(v1::GetViewRequest {
                        game_id: game_id.clone(),
                    }))
                    .await
                else {
                    return;
                };
                let current = current.into_inner().view.unwrap();
                let Some(seat) = current.to_move else { return };
                let p = &players[seat as usize];
                let Ok(mine) = p
                    .game_client()
                    .get_view(p.request(v1::GetViewRequest {
                        game_id: game_id.clone(),
                    }))
                    .await
                else {
                    return;
                };
                let mine = mine.into_inner().view.unwrap();
                let action = pick(&mine, &mut rng);
                let key = format!("g{g}-s{}", mine.seq);
                match submit(p, &game_id, mine.seq, &key, action).await {
                    Ok(response) => {
                        acks.lock().unwrap().push(Ack {
                            game: g,
                            seq: response.seq,
                            key,
                            seat,
                            request: action,
                            response,
                        });
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(_) => return,
                }
            }
        }));
    }
    while count.load(Ordering::SeqCst) < 40 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut first = first;
    first.child.start_kill().expect("SIGKILL");
    first.child.wait().await.unwrap();
    for driver in drivers {
        driver.await.unwrap();
    }
    let acks = acks.lock().unwrap().clone();
    assert!(acks.len() >= 40);

    let second = start(database_url).await;
    for (g, (game_id, players)) in games.iter().enumerate() {
        let players = reconnect(players, &second.url).await;
        let restored = view(&players[0], game_id).await;
        let last_ack = acks.iter().filter(|a| a.game == g).map(|a| a.seq).max();
        assert!(
            restored.seq >= last_ack.unwrap_or(0),
            "game {g}: restored at seq {} but seq {last_ack:?} was acknowledged",
            restored.seq
        );
        // Every acknowledged turn is remembered: retrying it returns the first result.
        for ack in acks.iter().filter(|a| a.game == g) {
            let p = &players[ack.seat as usize];
            let again = submit(p, game_id, ack.seq, &ack.key, ack.request)
                .await
                .expect("a retried, acknowledged turn");
            assert_eq!(again, ack.response);
        }
        play_to_end(game_id, &players, 99).await;
        let end = view(&players[0], game_id).await;
        assert_eq!(end.status, v1::GameStatus::Finished as i32);
    }
    let mut second = second;
    second.child.start_kill().unwrap();
    second.child.wait().await.unwrap();
}

#[tokio::test]
async fn sigkill_loses_no_acknowledged_action_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("kill.db").display());
    kill_and_restart(&url).await;
}

#[tokio::test]
async fn sigkill_loses_no_acknowledged_action_on_postgres() {
    kill_and_restart(&testing::fresh_postgres_url().await).await;
}
