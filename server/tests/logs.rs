//! Logs an operator can follow: every line about a game carries its id (RPC spans, the
//! game's actor, its watchers, the store), so one grep of the id shows the game's life.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::*;
use theboss_server::testing::TestServer;
use tracing_subscriber::fmt::MakeWriter;

/// Log lines, kept in memory.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Lines {
    type Writer = Lines;

    fn make_writer(&'a self) -> Lines {
        self.clone()
    }
}

// One thread: the subscriber is this thread's, and so every task's.
#[tokio::test(flavor = "current_thread")]
async fn one_grep_of_a_game_id_shows_its_whole_life() {
    let lines = Lines::default();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter("theboss_server=debug")
        .with_writer(lines.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 2, 8).await;
    let watching = collect(&players[1], &game_id, None);
    play_to_end(&game_id, &players, 8).await;
    watching.await.unwrap();
    server.stop().await;

    let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
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
