//! The load generator through a real in-process server: every game played to its end, every
//! action's latency counted once, the steady part of the run found, and each action's `seq`
//! read from the answer (a stale one would stall the game, a wrong one end it early), and
//! every acknowledged turn kept with its key when asked.

use theboss_bot::load::{self, LoadConfig};
use theboss_server::testing::TestServer;

#[tokio::test]
async fn the_load_plays_every_game_to_its_end() {
    let server = TestServer::sqlite().await;
    let config = LoadConfig {
        servers: vec![server.url()],
        games: 3,
        players: 4,
        rounds: 8,
        record_acks: true,
    };
    let report = load::run(&config).await.unwrap();
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
    let keys: std::collections::HashSet<&str> =
        report.acks.iter().map(|a| a.key.as_str()).collect();
    assert_eq!(keys.len(), report.acks.len());
    assert!(report.delivered.windows(2).all(|w| w[0] <= w[1]));
    server.stop().await;
}
