//! The load generator through a real in-process server: every game played to its end, every
//! action's latency counted once, the steady part of the run found, and each action's `seq`
//! read from the answer (a stale one would stall the game, a wrong one end it early), and
//! every acknowledged turn kept with its key when asked; a slot's games played by the same
//! players, or by new ones each game, as asked.

use std::collections::HashSet;

use theboss_bot::load::{self, LoadConfig, LoadReport, SlotPlayers};
use theboss_client::Connection;
use theboss_server::testing::TestServer;

/// The distinct sets of players who played the games `report`'s acknowledged turns name.
async fn tables_of(server: &TestServer, report: &LoadReport) -> HashSet<Vec<String>> {
    let connection = Connection::connect(&server.url()).await.unwrap();
    let reader = connection.register("Reader", true).await.unwrap();
    let games: HashSet<&str> = report.acks.iter().map(|a| a.game_id.as_str()).collect();
    let mut tables = HashSet::new();
    for game in games {
        let view = reader.view(game).await.unwrap();
        let players = view.seats.iter().filter_map(|s| s.player.as_ref());
        tables.insert(players.map(|p| p.player_id.clone()).collect());
    }
    tables
}

/// Load on `server`: `games` tables of four, each playing `rounds` games, every
/// acknowledged turn kept.
fn config(server: &TestServer, games: usize, rounds: usize, players: SlotPlayers) -> LoadConfig {
    LoadConfig {
        servers: vec![server.url()],
        games,
        players: 4,
        rounds,
        record_acks: true,
        players_of_slot: players,
    }
}

#[tokio::test]
async fn the_load_plays_every_game_to_its_end() {
    let server = TestServer::sqlite().await;
    let report = load::run(&config(&server, 3, 8, SlotPlayers::Kept))
        .await
        .unwrap();
    assert_eq!(report.errors, 0);
    assert_eq!(report.games, 24);
    assert_eq!(report.latencies.len(), report.actions);
    // A 4-player game takes dozens of turns; a load that stopped at the first would not.
    assert!(report.actions > 24 * 20, "{} actions", report.actions);
    // A game lasts 3 to 5 rounds: no table's first game (its players registered first)
    // outlasts another's eight, even on a machine busy with other work (four were outlasted
    // once, in a run beside a build), so the steady part holds at least a game's worth of
    // actions, and not all of them.
    let steady = report.steady.expect("a steady part");
    assert!(
        steady.actions > 20 && steady.actions < report.actions,
        "{} of {} actions",
        steady.actions,
        report.actions
    );
    // Every turn was acknowledged once, under a key of its own, and delivered to every seat.
    assert_eq!(report.acks.len(), report.actions);
    assert_eq!(report.delivered.len(), report.actions);
    let keys: HashSet<&str> = report.acks.iter().map(|a| a.key.as_str()).collect();
    assert_eq!(keys.len(), report.acks.len());
    assert!(report.delivered.windows(2).all(|w| w[0] <= w[1]));
    // Each slot's eight games were played by its first game's players.
    assert_eq!(tables_of(&server, &report).await.len(), 3);
    server.stop().await;
}

#[tokio::test]
async fn new_players_play_each_game_when_asked() {
    let server = TestServer::sqlite().await;
    let report = load::run(&config(&server, 2, 2, SlotPlayers::NewEveryGame))
        .await
        .unwrap();
    assert_eq!(report.errors, 0);
    assert_eq!(report.games, 4);
    assert_eq!(tables_of(&server, &report).await.len(), 4);
    server.stop().await;
}
