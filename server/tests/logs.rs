//! Logs an operator can follow: every line about a game carries its id (RPC spans, the
//! game's actor, its watchers, the store), so one grep of the id shows the game's life.

mod common;

use common::*;
use theboss::v1;
use theboss_server::testing::{LogLines, TestServer};
use tracing_subscriber::layer::SubscriberExt;

/// The server's own logging (`logs::init` given `--log directives`), as this thread's
/// subscriber (so every task's, on a current-thread runtime): what the binary keeps of a span
/// and how it writes it are tested. The lines, and the guard that keeps the subscriber.
fn logging(directives: &str) -> (LogLines, tracing::subscriber::DefaultGuard) {
    let lines = LogLines::default();
    let subscriber = tracing_subscriber::registry()
        .with(theboss_server::logs::filter(directives).unwrap())
        .with(theboss_server::logs::ClientCaused)
        .with(theboss_server::logs::lines(lines.clone(), false));
    (lines, tracing::subscriber::set_default(subscriber))
}

#[tokio::test(flavor = "current_thread")]
async fn one_grep_of_a_game_id_shows_its_whole_life() {
    let (lines, _guard) = logging("theboss_server=debug");

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

/// A game id is the client's text until it is checked, and every line of the call carries
/// it: written as it came, a newline in it would start a line of the client's making.
#[tokio::test(flavor = "current_thread")]
async fn a_game_id_a_client_sends_cannot_forge_a_log_line() {
    let (lines, _guard) = logging("theboss_server=debug");
    let server = TestServer::sqlite().await;
    let mut client = v1::game_service_client::GameServiceClient::new(server.channel().await);
    let forged = "nope\n2026-01-01T00:00:00.000000Z  INFO theboss_server: forged";
    let refused = client
        .get_view(v1::GetViewRequest {
            game_id: forged.into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    server.stop().await;
    let text = lines.text();
    assert!(
        text.lines()
            .any(|l| l.contains(r#"game="nope\n2026-01-01T00:00:00.000000Z  INFO"#)),
        "the call's lines name the game id, escaped:\n{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("2026-01-01T00:00:00.000000Z  INFO")),
        "a line of the client's making:\n{text}"
    );
}

/// An HTTP/2 rapid-reset flood, from many connections: h2 warns once per connection it
/// sends away, and a client could fill the log with those. One line per interval reaches it.
#[tokio::test(flavor = "current_thread")]
async fn a_reset_flood_from_many_connections_is_one_log_line() {
    let (lines, _guard) = logging("warn");
    let server = TestServer::sqlite().await;
    let mut sent_away = 0;
    for _ in 0..12 {
        if reset_flood(server.addr).await {
            sent_away += 1;
        }
    }
    server.stop().await;
    assert!(
        sent_away >= 10,
        "h2 sent {sent_away} of 12 flooding connections away"
    );
    let text = lines.text();
    let warned = text.lines().filter(|l| l.contains("reached limit")).count();
    assert_eq!(warned, 1, "{text}");
}

/// One connection of a rapid-reset flood, written as raw HTTP/2 frames in one write (so the
/// server reads the streams before it accepts any): a hundred requests, each reset at once.
/// Returns whether the server sent it away (GOAWAY ENHANCE_YOUR_CALM).
async fn reset_flood(addr: std::net::SocketAddr) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
        out.extend_from_slice(&(payload.len() as u32).to_be_bytes()[1..]);
        out.extend_from_slice(&[kind, flags]);
        out.extend_from_slice(&stream.to_be_bytes());
        out.extend_from_slice(payload);
    }
    let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    frame(&mut out, 4, 0, 0, &[]); // SETTINGS
    for i in 0..100u32 {
        let stream = 2 * i + 1;
        // HEADERS (END_HEADERS, END_STREAM): :method GET, :scheme http, :path /, indexed.
        frame(&mut out, 1, 0x5, stream, &[0x82, 0x86, 0x84]);
        frame(&mut out, 3, 0, stream, &8u32.to_be_bytes()); // RST_STREAM CANCEL
    }
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    socket.write_all(&out).await.unwrap();
    let mut received = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        socket.read_to_end(&mut received),
    )
    .await;
    // Find a GOAWAY frame (type 7) whose error code is ENHANCE_YOUR_CALM (0xb).
    let mut at = 0;
    while at + 9 <= received.len() {
        let len =
            u32::from_be_bytes([0, received[at], received[at + 1], received[at + 2]]) as usize;
        let kind = received[at + 3];
        if kind == 7 && at + 9 + 8 <= received.len() {
            let code = &received[at + 9 + 4..at + 9 + 8];
            if u32::from_be_bytes(code.try_into().unwrap()) == 0xb {
                return true;
            }
        }
        at += 9 + len;
    }
    false
}
