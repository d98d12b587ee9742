//! Hidden information stays hidden on the wire: every update each seat and a spectator
//! receive carries exactly the engine's own redaction for that viewer (which the engine's
//! tests prove leak-free by re-dealing hidden cards), private events reach only their seat,
//! and neither streams nor a running game's history reveal the seed.

mod common;

use common::*;
use theboss::convert::view_to_wire;
use theboss::v1::{self, game_event::Kind, watch_game_response::Message};
use theboss_engine::{Game, GameConfig, Viewer};
use theboss_server::testing::TestServer;

/// The server's view without what the server adds on top of the engine's.
fn engine_part(view: &v1::GameView) -> v1::GameView {
    let mut view = view.clone();
    view.game_id.clear();
    view.status = 0;
    view.settings = None;
    view.seq = 0;
    for seat in &mut view.seats {
        seat.player = None;
        seat.timeouts_in_a_row = 0;
        seat.forfeited = false;
    }
    if let Some(legal) = view.legal.as_mut() {
        legal.deadline = None;
    }
    view
}

/// Follows one viewer's stream with a local engine game, comparing every view.
fn check_stream(messages: &[Message], viewer: Viewer, seed: u64, players: u8) {
    let mut game: Option<Game> = None;
    let mut checked = 0;
    for message in messages {
        let Message::Update(update) = message else {
            continue;
        };
        let kind = update.event.as_ref().unwrap().kind.as_ref().unwrap();
        match kind {
            Kind::GameStarted(_) => {
                game = Some(Game::new(&GameConfig::new(players, seed)).unwrap());
            }
            Kind::TurnTaken(t) => {
                let turn =
                    theboss::convert::turn_from_wire(t.action.as_ref().unwrap(), "a").unwrap();
                game.as_mut()
                    .unwrap()
                    .apply(t.seat as u8, &turn)
                    .expect("the stream's turns replay");
            }
            Kind::HandDealt(hand) => {
                assert_eq!(
                    viewer,
                    Viewer::Seat(hand.seat as u8),
                    "a hand reached a viewer it does not belong to"
                );
            }
            _ => {}
        }
        if let Some(game) = &game {
            let expected = view_to_wire(&game.view(viewer));
            assert_eq!(engine_part(update.view.as_ref().unwrap()), expected);
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} views were checked");
}

#[tokio::test]
async fn every_stream_carries_only_its_viewers_redaction() {
    let server = TestServer::sqlite().await;
    let seed = 2024;
    let (game_id, players) = seated_game(&server, 4, seed).await;
    let spectator = player(&server, "Spectator").await;
    let seat_streams: Vec<_> = players
        .iter()
        .map(|p| collect(p, &game_id, Some(0)))
        .collect();
    let spectator_stream = collect(&spectator, &game_id, Some(0));

    // Halfway through, a seat's history holds only its own hands and no seed.
    let mut rng = theboss_engine::GameRng::from_seed(seed);
    for _ in 0..30 {
        assert!(play_one(&game_id, &players, &mut rng).await);
    }
    let history = history(&players[2], &game_id).await;
    assert_eq!(history.seed, None);
    let hands: Vec<u32> = history
        .entries
        .iter()
        .filter_map(|e| match e.event.as_ref()?.kind.as_ref()? {
            Kind::HandDealt(h) => Some(h.seat),
            _ => None,
        })
        .collect();
    assert!(
        !hands.is_empty() && hands.iter().all(|&s| s == 2),
        "{hands:?}"
    );
    // A spectator's snapshot shows no hand and no legal turns.
    let seen = view(&spectator, &game_id).await;
    assert!(seen.hand.is_empty() && seen.legal.is_none() && seen.viewer_seat.is_none());

    play_to_end(&game_id, &players, seed + 1).await;
    for (seat, stream) in seat_streams.into_iter().enumerate() {
        check_stream(&stream.await.unwrap(), Viewer::Seat(seat as u8), seed, 4);
    }
    let spectator_messages = spectator_stream.await.unwrap();
    check_stream(&spectator_messages, Viewer::Spectator, seed, 4);
    assert!(
        !spectator_messages.iter().any(|m| matches!(
            m,
            Message::Update(u) if matches!(u.event.as_ref().unwrap().kind, Some(Kind::HandDealt(_)))
        )),
        "a spectator never receives a hand"
    );
    server.stop().await;
}
