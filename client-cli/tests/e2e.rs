//! The CLI end to end through an in-process server: a whole game against bots with the
//! turns read from a script, then listing, status, watching and replaying it.

use theboss::v1;
use theboss_bot::strategy::heuristic::Heuristic;
use theboss_bot::strategy::{Strategy, StrategyKind};
use theboss_cli::commands;
use theboss_cli::input::turn_text;
use theboss_cli::play::{Io, PlayError};
use theboss_cli::render::Painter;
use theboss_client::Connection;
use theboss_engine::{Game, GameConfig, Viewer};
use theboss_server::testing::TestServer;
use tokio::sync::mpsc;

/// Plays the game the server will deal for `seed` offline, every seat by the (deterministic)
/// heuristic, and writes seat 0's turns as the script a person would type.
fn script_for(seed: u64, players: u8) -> (Vec<String>, theboss_engine::Outcome) {
    let mut game = Game::new(&GameConfig::new(players, seed)).unwrap();
    let mut lines = Vec::new();
    while let Some(seat) = game.to_move() {
        let turn = Heuristic::new().choose(&game.view(Viewer::Seat(seat)), None);
        if seat == 0 {
            lines.push(turn_text(&turn));
        }
        game.apply(seat, &turn).unwrap();
    }
    (lines, game.outcome().unwrap().clone())
}

#[tokio::test]
async fn a_scripted_game_against_bots_then_list_status_watch_and_replay() {
    let server = TestServer::sqlite().await;
    let dir = tempfile::tempdir().unwrap();
    let connection = Connection::connect(&server.url()).await.unwrap();
    let token_file = dir.path().join("creds.json");
    let session = commands::login(&connection, &token_file, "Tester")
        .await
        .unwrap();
    // The saved token is used next time.
    let again = commands::login(&connection, &token_file, "Someone else")
        .await
        .unwrap();
    assert_eq!(again.player_id(), session.player_id());

    let seed = 12;
    let (script, expected) = script_for(seed, 4);
    let (tx, mut lines) = mpsc::channel(script.len() + 1);
    for line in &script {
        tx.send(line.clone()).await.unwrap();
    }
    drop(tx);
    let mut out: Vec<u8> = Vec::new();
    let end = commands::play_against_bots(
        &connection,
        &session,
        3,
        StrategyKind::Heuristic,
        Some(seed),
        &mut Io {
            lines: &mut lines,
            out: &mut out,
            painter: Painter::PLAIN,
            interactive: false,
        },
    )
    .await
    .unwrap();
    assert_eq!(end.status, v1::GameStatus::Finished as i32);
    let outcome = theboss::convert::outcome_from_wire(end.outcome.as_ref().unwrap(), 4).unwrap();
    assert_eq!(outcome, expected, "the game went exactly as scripted");
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("Tester placed") || text.contains("Tester played"),
        "{text}"
    );
    assert!(text.contains("Game over"));
    assert!(!text.contains('\u{1b}'), "plain output has no escape codes");

    let game_id = end.game_id.clone();
    let mut out = Vec::new();
    commands::list(&session, &[v1::GameStatus::Finished], true, true, &mut out)
        .await
        .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(listed[0]["game_id"], game_id.as_str());
    assert_eq!(listed[0]["status"], "finished");
    assert_eq!(listed[0]["seats"].as_array().unwrap().len(), 4);

    let mut out = Vec::new();
    commands::status(
        &connection,
        &session,
        Some(&game_id),
        true,
        &mut out,
        Painter::PLAIN,
    )
    .await
    .unwrap();
    let status: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(status["outcome"]["winners"].is_array());

    let mut out = Vec::new();
    commands::watch(&session, &game_id, true, &mut out, Painter::PLAIN)
        .await
        .unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "a finished game: one snapshot, then the stream ends"
    );

    let mut out = Vec::new();
    let mut steps = 0;
    commands::replay(&session, &game_id, &mut out, Painter::PLAIN, &mut || {
        steps += 1;
        true
    })
    .await
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(steps > 60, "{steps} steps");
    assert!(text.contains("face down: "), "everything is revealed");
    assert!(
        text.starts_with("Shuffle verified: SHA-256(\"theboss-seed-v1:"),
        "the replay checks the seed against the views' commitment first: {}",
        text.lines().next().unwrap_or_default()
    );
    assert!(text.contains("hand of Tester"));
    for line in &script {
        assert!(text.contains(&format!("Tester plays: {line}")), "{line}");
    }

    // The game as a record: exported, then replayed offline with its shuffle checked.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("games.ndjson");
    let mut out = Vec::new();
    commands::export(&session, &file, None, None, &mut out)
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("1 games written to {}\n", file.display())
    );
    let mut out = Vec::new();
    commands::replay_file(&file, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with(&format!("{game_id}: 4 players, ")),
        "{text}"
    );
    assert!(text.contains("shuffle verified"), "{text}");
    assert!(text.ends_with("1 records replayed\n"), "{text}");
    // A record whose seed was changed does not replay to its end.
    let json = std::fs::read_to_string(&file).unwrap();
    let mut record = theboss::record::GameRecord::from_json(json.trim()).unwrap();
    record.seed = (record.seed.parse::<u64>().unwrap() ^ 1).to_string();
    std::fs::write(&file, record.to_json()).unwrap();
    let mut out = Vec::new();
    assert!(commands::replay_file(&file, &mut out).is_err());
    assert!(String::from_utf8(out).unwrap().starts_with("line 1: "));

    // A profile: what the player says it is; nobody established on the leaderboard yet.
    session.update_profile("plays by hand").await.unwrap();
    let mut out = Vec::new();
    commands::profile(&session, session.player_id(), false, &mut out)
        .await
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("Tester (a person), "), "{text}");
    assert!(text.contains("  plays by hand\n"), "{text}");
    assert!(text.contains("No rated games yet."), "{text}");
    // The sample bots say what they are.
    let table = session.view(&game_id).await.unwrap();
    let bot = table.seats[1].player.as_ref().unwrap().player_id.clone();
    let mut out = Vec::new();
    commands::profile(&session, &bot, false, &mut out)
        .await
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("(a bot)"), "{text}");
    assert!(
        text.contains("  heuristic (one-ply rules of thumb); theboss-bots "),
        "{text}"
    );
    let mut out = Vec::new();
    commands::leaderboard(&session, 0, v1::PlayerKind::Person, 20, false, &mut out)
        .await
        .unwrap();
    assert!(String::from_utf8(out).unwrap().starts_with("Nobody yet"));
    server.stop().await;
}

#[tokio::test]
async fn a_refused_script_line_is_an_error_naming_it() {
    let server = TestServer::sqlite().await;
    let dir = tempfile::tempdir().unwrap();
    let connection = Connection::connect(&server.url()).await.unwrap();
    let session = commands::login(&connection, &dir.path().join("c.json"), "Tester")
        .await
        .unwrap();
    let (tx, mut lines) = mpsc::channel(4);
    tx.send("place chicago 1e play ny 1".into()).await.unwrap();
    drop(tx);
    let mut out: Vec<u8> = Vec::new();
    let result = commands::play_against_bots(
        &connection,
        &session,
        1,
        StrategyKind::Random,
        Some(1),
        &mut Io {
            lines: &mut lines,
            out: &mut out,
            painter: Painter::PLAIN,
            interactive: false,
        },
    )
    .await;
    match result {
        Err(commands::CommandError::Play(PlayError::Refused { line, reason })) => {
            assert_eq!(line, "place chicago 1e play ny 1");
            assert!(reason.contains("Chicago"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    server.stop().await;
}

#[tokio::test]
async fn join_resumes_a_game_we_already_sit_in() {
    let server = TestServer::sqlite().await;
    let dir = tempfile::tempdir().unwrap();
    let connection = Connection::connect(&server.url()).await.unwrap();
    let session = commands::login(&connection, &dir.path().join("c.json"), "Tester")
        .await
        .unwrap();
    let seed = 4;
    let game_id = session
        .create_game(commands::settings(2, &[], 0, true), Some(seed))
        .await
        .unwrap();
    // Seated earlier, e.g. before the terminal was closed.
    session.join(&game_id, Some(0)).await.unwrap();
    let bot = connection.register("Nitti", true).await.unwrap();
    let seating = theboss_bot::play::Seating::Join {
        game_id: game_id.clone(),
        seat: Some(1),
    };
    tokio::spawn(async move {
        theboss_bot::play::play_many(
            &bot,
            seating,
            StrategyKind::Heuristic,
            1,
            1,
            &Default::default(),
        )
        .await
    });
    let (script, expected) = script_for(seed, 2);
    let (tx, mut lines) = mpsc::channel(script.len() + 1);
    for line in script {
        tx.send(line).await.unwrap();
    }
    let mut out: Vec<u8> = Vec::new();
    let end = commands::join_and_play(
        &session,
        &game_id,
        None,
        &mut Io {
            lines: &mut lines,
            out: &mut out,
            painter: Painter::PLAIN,
            interactive: false,
        },
    )
    .await
    .unwrap();
    assert!(String::from_utf8(out).unwrap().contains("resuming"));
    let outcome = theboss::convert::outcome_from_wire(end.outcome.as_ref().unwrap(), 2).unwrap();
    assert_eq!(outcome, expected);
    server.stop().await;
}
