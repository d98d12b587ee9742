//! The database's machine is lost under play, and nothing acknowledged is: the real
//! `theboss-server` binary runs on a Patroni cluster (`deploy/ha/`: PostgreSQL with a
//! synchronous standby, etcd, HAProxy in front) while players submit turns as fast as they
//! can; the primary's node (its Patroni and its PostgreSQL) is SIGKILLed, the standby is
//! promoted, and every game is played to its end through the same server, which was never
//! restarted. Then every acknowledged turn is looked for in the store: each is there, once.
//!
//! Needs Patroni, etcd, HAProxy and pgBackRest (`.ci/install-ha` installs them from Debian's
//! packages; `.ci/run` runs it); the test fails, saying so, when they are missing.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use theboss::v1;
use theboss_client::{ClientError, Connection, Outage, Session};
use theboss_engine::GameRng;
use theboss_server::testing::ha::{HaCluster, Loss};

/// A call tried again while the server cannot answer, as a client rides a failover through.
async fn riding<T, F, Fut>(mut call: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, ClientError>>,
{
    let mut outage = Outage::default();
    loop {
        match call().await {
            Ok(answer) => return answer,
            Err(e) if e.is_transient() && outage.retry(200).await => {}
            Err(e) => panic!("a call failed for good: {e}"),
        }
    }
}

/// An acknowledged turn: the game and the key it was sent with.
struct Ack {
    game: String,
    key: String,
    at: Instant,
}

#[tokio::test(flavor = "multi_thread")]
async fn losing_the_databases_primary_loses_no_acknowledged_turn() {
    let cluster = HaCluster::up(2).unwrap_or_else(|e| panic!("{e}"));
    let (mut server, url) = server_binary(&[
        "--database-url",
        &cluster.url,
        "--quota-registrations-per-min",
        "0",
    ])
    .await;
    let connection = Connection::connect(&url).await.unwrap();

    let mut games = Vec::new();
    for (g, n) in [2u32, 3, 4, 2, 3, 4].into_iter().enumerate() {
        let mut players = Vec::new();
        for i in 0..n {
            players.push(
                connection
                    .register(&format!("G{g}P{i}"), true)
                    .await
                    .unwrap(),
            );
        }
        let game_id = create(&players[0], settings(n), None).await;
        for p in &players {
            p.join(&game_id, None).await.unwrap();
        }
        games.push((game_id, players));
    }

    let acks = Arc::new(Mutex::new(Vec::<Ack>::new()));
    let mut drivers = Vec::new();
    for (g, (game_id, players)) in games.iter().cloned().enumerate() {
        let acks = acks.clone();
        drivers.push(tokio::spawn(async move {
            play_through(&game_id, &players, g as u64, &acks).await
        }));
    }
    // Kill the primary's node once play is well under way.
    let deadline = Instant::now() + Duration::from_secs(120);
    while acks.lock().unwrap().len() < 60 {
        assert!(Instant::now() < deadline, "play never got going");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let killed = Instant::now();
    cluster.lose_the_primary(Loss::Node).unwrap();
    for driver in drivers {
        tokio::time::timeout(Duration::from_secs(300), driver)
            .await
            .expect("every game ends")
            .unwrap();
    }

    // What the players saw: the longest wait between two acknowledgements, across the loss.
    let acks = std::mem::take(&mut *acks.lock().unwrap());
    let mut times: Vec<Instant> = acks.iter().map(|a| a.at).collect();
    times.sort();
    let pause = times
        .windows(2)
        .filter(|w| w[1] > killed)
        .map(|w| w[1] - w[0])
        .max()
        .unwrap();
    eprintln!(
        "{} turns acknowledged; longest pause after the primary's node was lost: {:.1} s",
        acks.len(),
        pause.as_secs_f64()
    );

    // Every acknowledged turn is in the store, once; every game ended.
    let store = theboss_server::store::open(&cluster.url).await.unwrap();
    for (game_id, players) in &games {
        let stored = store.load_game(game_id).await.unwrap().unwrap();
        for ack in acks.iter().filter(|a| a.game == *game_id) {
            let kept = stored
                .actions
                .iter()
                .filter(|a| a.idempotency_key.as_deref() == Some(ack.key.as_str()))
                .count();
            assert_eq!(
                kept, 1,
                "game {game_id}: turn {} is kept {kept} times",
                ack.key
            );
        }
        let end = riding(|| players[0].view(game_id)).await;
        assert_eq!(end.status, v1::GameStatus::Finished as i32);
    }
    server.start_kill().unwrap();
    server.wait().await.unwrap();
}

/// Plays random legal turns for whoever is to move until the game ends, each under a key of
/// its own, retried while the server cannot answer; notes each acknowledgement.
async fn play_through(game_id: &str, players: &[Session], seed: u64, acks: &Mutex<Vec<Ack>>) {
    let mut rng = GameRng::from_seed(seed);
    let mut turn = 0;
    loop {
        let current = riding(|| players[0].view(game_id)).await;
        let Some(seat) = current.to_move else { return };
        let p = &players[seat as usize];
        let mine = riding(|| p.view(game_id)).await;
        if mine.to_move != Some(seat) {
            continue;
        }
        let action = pick(&mine, &mut rng);
        turn += 1;
        let key = format!("{game_id}-{turn}");
        let answer = {
            let mut outage = Outage::default();
            loop {
                match p.submit_with_key(game_id, mine.seq, &key, action).await {
                    Ok(_) => break true,
                    // The game moved on meanwhile (not here: nobody else plays): look again.
                    Err(e) if e.code() == tonic::Code::Aborted => break false,
                    Err(e) if e.is_transient() && outage.retry(200).await => {}
                    Err(e) => panic!("game {game_id}: a turn failed for good: {e}"),
                }
            }
        };
        if answer {
            acks.lock().unwrap().push(Ack {
                game: game_id.to_string(),
                key,
                at: Instant::now(),
            });
        }
    }
}
