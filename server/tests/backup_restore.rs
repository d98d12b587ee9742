//! A backup that restores: the server binary plays games on a Patroni cluster
//! (`deploy/ha/`), pgBackRest takes a full backup, more games are played before and after a
//! chosen moment, and the backup with the archived WAL is restored up to that moment into a
//! new PostgreSQL. A server started on the restored copy serves every game finished before
//! the moment, each rebuilt from its log to the very view the live server gave (money,
//! outcome, the seed revealed), and knows nothing of the game played after it.
//!
//! Needs Patroni, etcd, HAProxy and pgBackRest (`.ci/install-ha`; `.ci/run` runs it).

mod common;

use std::time::Duration;

use common::*;
use theboss::v1;
use theboss_client::{Connection, Session};
use theboss_server::testing::ha::HaCluster;
use tonic::Code;

/// Two players, a two-player game played to its end; its final view as the first sees it.
async fn a_finished_game(url: &str, seed: u64) -> (String, Vec<Session>, v1::GameView) {
    let connection = Connection::connect(url).await.unwrap();
    let mut players = Vec::new();
    for i in 0..2 {
        players.push(
            connection
                .register(&format!("S{seed}P{i}"), true)
                .await
                .unwrap(),
        );
    }
    let game_id = create(&players[0], settings(2), None).await;
    for p in &players {
        p.join(&game_id, None).await.unwrap();
    }
    play_to_end(&game_id, &players, seed).await;
    let end = view(&players[0], &game_id).await;
    assert_eq!(end.status, v1::GameStatus::Finished as i32);
    (game_id, players, end)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_backup_restored_to_a_moment_serves_every_game_finished_before_it() {
    let cluster = HaCluster::up(2).unwrap_or_else(|e| panic!("{e}"));
    let quotas = ["--quota-registrations-per-min", "0"];
    let (mut live, url) =
        server_binary(&[&["--database-url", cluster.url.as_str()][..], &quotas[..]].concat()).await;

    let before_backup = a_finished_game(&url, 1).await;
    cluster.back_up().unwrap();
    let after_backup = a_finished_game(&url, 2).await;
    // The moment to restore to, on the database's own clock, between two commits. It comes
    // at least a whole second after the backup ended: pgBackRest keeps a backup's stop time
    // in whole seconds and restores to a time only from a backup that stopped before it
    // (0.5 s once gave "unable to find backup set with stop time less than" the moment).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let moment = cluster.now().unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let too_late = a_finished_game(&url, 3).await;
    live.start_kill().unwrap();
    live.wait().await.unwrap();

    let restored = cluster
        .restore(Some(&moment))
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut server, url) =
        server_binary(&[&["--database-url", restored.as_str()][..], &quotas[..]].concat()).await;
    let connection = Connection::connect(&url).await.unwrap();
    for (game_id, players, end) in [&before_backup, &after_backup] {
        let player = connection.session(players[0].credentials.clone());
        let again = view(&player, game_id).await;
        assert_eq!(again.status, v1::GameStatus::Finished as i32);
        assert_eq!(
            again.seq, end.seq,
            "game {game_id}: the whole log came back"
        );
        assert_eq!(
            again.outcome, end.outcome,
            "game {game_id}: the same outcome"
        );
        assert_eq!(
            again.seats, end.seats,
            "game {game_id}: the same money and seats"
        );
        assert_eq!(again.seed_commitment, end.seed_commitment);
        // The deal the restored history reveals is the one every live view committed to.
        let history = history(&player, game_id).await;
        assert_eq!(
            theboss::fairness::verify(
                &end.seed_commitment,
                history.seed,
                history.seed_salt.as_deref()
            ),
            theboss::fairness::Verdict::Verified,
            "game {game_id}"
        );
    }
    let (game_id, players, _) = &too_late;
    let stranger = connection.session(players[0].credentials.clone());
    // Its players registered after the moment: they are unknown, and so is the game.
    let refused = stranger.view(game_id).await.unwrap_err();
    assert!(
        matches!(refused.code(), Code::Unauthenticated | Code::NotFound),
        "{refused}"
    );
    server.start_kill().unwrap();
    server.wait().await.unwrap();
}
