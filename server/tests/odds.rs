//! `GetOdds` through real gRPC: each caller gets what its own view lets it deduce of the
//! face-down cards, the engine's deduction of that view and nothing more.

mod common;

use common::*;
use theboss::convert::{card_from_wire, view_from_wire};
use theboss::v1;
use theboss_client::Session;
use theboss_engine::{GameRng, face_down_odds};
use theboss_server::testing::TestServer;
use tonic::Code;

async fn odds(p: &Session, game_id: &str) -> Result<v1::GetOddsResponse, tonic::Status> {
    p.game_client()
        .get_odds(p.request(v1::GetOddsRequest {
            game_id: game_id.to_string(),
        }))
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn every_caller_gets_the_deduction_of_its_own_view() {
    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 3, 77).await;
    let spectator = player(&server, "Spectator").await;
    let mut rng = GameRng::from_seed(77);
    for turn in 0..12 {
        for (who, p) in players.iter().chain([&spectator]).enumerate() {
            let view = view(p, &game_id).await;
            let answer = odds(p, &game_id).await.unwrap();
            assert_eq!(answer.seq, view.seq);
            let expected: Vec<v1::CityOdds> = face_down_odds(&view_from_wire(&view).unwrap())
                .iter()
                .map(theboss::convert::odds_to_wire)
                .collect();
            assert_eq!(answer.cities, expected, "caller {who}, turn {turn}");
            let hand: Vec<_> = view
                .hand
                .iter()
                .map(|c| card_from_wire(c, "hand").unwrap())
                .collect();
            for city in &answer.cities {
                let total: f64 = city.cards.iter().map(|c| c.probability).sum();
                assert!((total - 1.0).abs() < 1e-9, "{total}");
                // Never a card the caller holds.
                for c in &city.cards {
                    let card = card_from_wire(c.card.as_ref().unwrap(), "card").unwrap();
                    assert!(!hand.contains(&card));
                }
            }
        }
        assert!(play_one(&game_id, &players, &mut rng).await);
    }
    // A seat knows its own hand, so it can rule out more than a spectator can.
    let seat = odds(&players[0], &game_id).await.unwrap();
    let outside = odds(&spectator, &game_id).await.unwrap();
    let candidates =
        |o: &v1::GetOddsResponse| o.cities.iter().map(|c| c.cards.len()).sum::<usize>();
    assert!(candidates(&seat) <= candidates(&outside));

    let unknown = odds(&players[0], "00000000-0000-4000-8000-000000000000")
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Code::NotFound);
    let malformed = odds(&players[0], "nope").await.unwrap_err();
    assert_eq!(malformed.code(), Code::InvalidArgument);
    // Over: nothing is face down any more.
    play_to_end(&game_id, &players, 78).await;
    assert!(odds(&players[1], &game_id).await.unwrap().cities.is_empty());
    server.stop().await;
}
