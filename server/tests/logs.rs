//! Logs an operator can follow: every line about a game carries its id (RPC spans, the
//! game's actor, its watchers, the store), so one grep of the id shows the game's life.

mod common;

use common::*;
use theboss_server::testing::{LogLines, TestServer};
use tracing_subscriber::layer::SubscriberExt;

// One thread: the subscriber is this thread's, and so every task's.
#[tokio::test(flavor = "current_thread")]
async fn one_grep_of_a_game_id_shows_its_whole_life() {
    let lines = LogLines::default();
    // The server's own filter (`--log`), so that what the binary keeps of a span is tested.
    let subscriber = tracing_subscriber::registry()
        .with(theboss_server::logs::filter("theboss_server=debug").unwrap())
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(lines.clone())
                .with_ansi(false),
        );
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 2, 8).await;
    let watching = collect(&players[1], &game_id, None);
    play_to_end(&game_id, &players, 8).await;
    watching.await.unwrap();
    server.stop().await;

    let text = lines.text();
    let life: Vec<&str> = text.lines().filter(|l| l.contains(&game_id)).collect();
    let has = |what: &str| life.iter().any(|l| l.contains(what));
    for what in [
        "game created",        // CreateGame's span
        "method=\"JoinGame\"", // every RPC about it
        "method=\"SubmitAction\"",
        "game loaded", // its actor
        "action applied",
        "watching", // its watchers
        "stream ended",
    ] {
        assert!(
            has(what),
            "no line with {what:?} names the game:\n{}",
            life.join("\n")
        );
    }
    // The players are on the lines of their calls.
    for p in &players {
        assert!(life.iter().any(|l| l.contains(p.player_id())));
    }
}
