//! Hidden information stays hidden on the wire: every update each seat and a spectator
//! receive carries exactly the engine's own redaction for that viewer (which the engine's
//! tests prove leak-free by re-dealing hidden cards), private events reach only their seat,
//! and neither streams nor a running game's history reveal the seed.

mod common;

use common::*;
use theboss::v1::{game_event::Kind, watch_game_response::Message};
use theboss_engine::Viewer;
use theboss_server::testing::TestServer;

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
        let messages = stream.await.unwrap();
        let checked = check_redaction(&updates(&messages), Viewer::Seat(seat as u8), seed, 4);
        assert!(checked > 50, "only {checked} views were checked");
    }
    let spectator_messages = spectator_stream.await.unwrap();
    let checked = check_redaction(&updates(&spectator_messages), Viewer::Spectator, seed, 4);
    assert!(checked > 50, "only {checked} views were checked");
    assert!(
        !spectator_messages.iter().any(|m| matches!(
            m,
            Message::Update(u) if matches!(u.event.as_ref().unwrap().kind, Some(Kind::HandDealt(_)))
        )),
        "a spectator never receives a hand"
    );
    server.stop().await;
}
