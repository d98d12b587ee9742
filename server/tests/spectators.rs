//! Watching without an account: a shared link opens a game for someone who never registered.
//! Through the real gRPC interface, anonymous calls read exactly what a registered spectator
//! reads (views, streams, histories, odds, the catalogue, public listings and the ladder's
//! standings), never anything of a seat, change nothing, and are charged to their address.

mod common;

use common::*;
use theboss::v1::{self, watch_game_response::Message};
use theboss_engine::GameRng;
use theboss_server::quota::QuotaOptions;
use theboss_server::testing::TestServer;
use theboss_server::{Limits, Options};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic_types::StatusExt;

type Games = v1::game_service_client::GameServiceClient<tonic::transport::Channel>;

/// A client that sends no `authorization` metadata at all.
async fn nobody(server: &TestServer) -> Games {
    Games::new(server.channel().await)
}

#[tokio::test]
async fn nobody_reads_what_a_spectator_reads_and_nothing_more() {
    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game_public(&server, 3).await;
    let spectator = player(&server, "Registered spectator").await;
    let mut anonymous = nobody(&server).await;
    let mut rng = GameRng::from_seed(5);
    for _ in 0..7 {
        play_one(&game_id, &players, &mut rng).await;
    }

    // The same view as a registered spectator's: no seat, no hand, no legal turns.
    let seen = anonymous
        .get_view(v1::GetViewRequest {
            game_id: game_id.clone(),
        })
        .await
        .expect("an anonymous view")
        .into_inner()
        .view
        .unwrap();
    assert_eq!(seen, view(&spectator, &game_id).await);
    assert_eq!(seen.viewer_seat, None);
    assert!(seen.hand.is_empty() && seen.legal.is_none());

    // The same stream: a snapshot, then each update as a spectator sees it.
    let mut stream = anonymous
        .watch_game(v1::WatchGameRequest {
            game_id: game_id.clone(),
            ..Default::default()
        })
        .await
        .expect("an anonymous stream")
        .into_inner();
    play_one(&game_id, &players, &mut rng).await;
    let Some(Ok(v1::WatchGameResponse {
        message: Some(Message::Snapshot(snapshot)),
    })) = stream.next().await
    else {
        panic!("a snapshot first");
    };
    assert_eq!(snapshot, seen);
    let mut anonymous_updates = Vec::new();
    while let Some(Ok(message)) = stream.next().await {
        if let Some(Message::Update(update)) = message.message {
            let complete = update.action_complete;
            anonymous_updates.push(update);
            if complete {
                break;
            }
        }
    }
    assert!(!anonymous_updates.is_empty());
    for update in &anonymous_updates {
        if let Some(v1::game_event::Kind::HandDealt(_)) =
            update.event.as_ref().and_then(|e| e.kind.as_ref())
        {
            panic!("a hand reached nobody: {update:?}");
        }
    }
    drop(stream);

    // History, odds and the catalogue, as a spectator's.
    let history = anonymous
        .get_history(v1::GetHistoryRequest {
            game_id: game_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let theirs = spectator.history(&game_id).await.unwrap();
    assert_eq!(history.entries, theirs.entries);
    assert_eq!(history.seed, None, "the seed of a running game");
    let odds = anonymous
        .get_odds(v1::GetOddsRequest {
            game_id: game_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(odds.seq >= seen.seq);
    anonymous
        .get_catalogue(v1::GetCatalogueRequest {
            game_id: game_id.clone(),
        })
        .await
        .unwrap();

    // Nothing of a seat's: no turn, no seat, no game.
    let before = view(&players[0], &game_id).await.seq;
    let refused = anonymous
        .submit_action(v1::SubmitActionRequest {
            game_id: game_id.clone(),
            expected_seq: before,
            ..Default::default()
        })
        .await;
    assert_code(refused, Code::Unauthenticated);
    assert_code(
        anonymous
            .join_game(v1::JoinGameRequest {
                game_id: game_id.clone(),
                seat: None,
            })
            .await,
        Code::Unauthenticated,
    );
    assert_code(
        anonymous
            .leave_game(v1::LeaveGameRequest {
                game_id: game_id.clone(),
            })
            .await,
        Code::Unauthenticated,
    );
    assert_eq!(view(&players[0], &game_id).await.seq, before);
    server.stop().await;
}

async fn seated_game_public(server: &TestServer, n: u32) -> (String, Vec<theboss_client::Session>) {
    let mut players = Vec::new();
    for i in 0..n {
        players.push(player(server, &format!("Player {i}")).await);
    }
    let game_id = create(&players[0], settings(n), None).await;
    for p in &players {
        p.join(&game_id, None).await.expect("join");
    }
    (game_id, players)
}

#[tokio::test]
async fn nobody_lists_public_games_and_standings_but_no_unlisted_game() {
    let server = TestServer::sqlite().await;
    let creator = player(&server, "Creator").await;
    let public = create(&creator, settings(2), None).await;
    let mut hidden = settings(2);
    hidden.visibility = v1::Visibility::Unlisted as i32;
    let unlisted = create(&creator, hidden, None).await;
    let mut anonymous = nobody(&server).await;
    let listed: Vec<String> = anonymous
        .list_games(v1::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.game_id)
        .collect();
    assert!(listed.contains(&public), "{listed:?}");
    assert!(!listed.contains(&unlisted), "{listed:?}");
    // Whoever knows an unlisted game's id may watch it, as a spectator.
    anonymous
        .get_view(v1::GetViewRequest { game_id: unlisted })
        .await
        .expect("an unlisted game by its id");
    let mut ladder = v1::ladder_service_client::LadderServiceClient::new(server.channel().await);
    ladder
        .leaderboard(v1::LeaderboardRequest::default())
        .await
        .expect("the leaderboard, anonymously");
    ladder
        .get_player(v1::GetPlayerRequest {
            player_id: creator.player_id().to_string(),
        })
        .await
        .expect("a player's page, anonymously");
    // Anything of one's own needs a token.
    assert_code(
        ladder.offers(v1::OffersRequest {}).await,
        Code::Unauthenticated,
    );
    server.stop().await;
}

#[tokio::test]
async fn anonymous_calls_are_charged_to_their_address() {
    let server = TestServer::sqlite_with(Options {
        quotas: QuotaOptions {
            anonymous_calls_per_sec: 1,
            anonymous_call_burst: 3,
            ..QuotaOptions::unlimited()
        },
        limits: Limits::unlimited(),
        ..Options::default()
    })
    .await;
    let mut anonymous = nobody(&server).await;
    for _ in 0..3 {
        anonymous
            .list_games(v1::ListGamesRequest::default())
            .await
            .expect("within the burst");
    }
    let refused = anonymous
        .list_games(v1::ListGamesRequest::default())
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted);
    let failure = refused.get_details_quota_failure().expect("QuotaFailure");
    assert_eq!(failure.violations[0].subject, "peer:127.0.0.1");
    assert!(
        failure.violations[0]
            .description
            .contains("anonymous calls per address"),
        "{failure:?}"
    );
    assert!(refused.get_details_retry_info().is_some());
    // A player at the same address has its own quota.
    let p = player(&server, "Registered").await;
    p.list_games(v1::ListGamesRequest::default())
        .await
        .expect("a player's call is not the address's anonymous quota");
    server.stop().await;
}
