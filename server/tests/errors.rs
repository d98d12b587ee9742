//! Every way a request can be refused: the gRPC code, the machine-readable detail, and that
//! nothing changed.

mod common;

use common::*;
use theboss::v1;
use theboss_client::Session;
use theboss_server::testing::TestServer;
use tonic::Code;
use tonic_types::StatusExt;

fn field(status: &tonic::Status) -> String {
    status
        .get_details_bad_request()
        .map(|b| b.field_violations[0].field.clone())
        .unwrap_or_default()
}

async fn history_len(p: &Session, game_id: &str) -> usize {
    history(p, game_id).await.entries.len()
}

#[tokio::test]
async fn credentials_are_required_and_checked() {
    let server = TestServer::sqlite().await;
    let mut client = v1::game_service_client::GameServiceClient::new(server.channel().await);
    let list = || v1::ListGamesRequest::default();
    // Reading what anyone may see needs no token; anything of one's own does.
    assert_code(
        client
            .create_game(v1::CreateGameRequest {
                settings: Some(settings(2)),
                ..Default::default()
            })
            .await,
        Code::Unauthenticated,
    );
    let mine = v1::ListGamesRequest {
        mine: true,
        ..Default::default()
    };
    assert_code(client.list_games(mine).await, Code::Unauthenticated);
    client
        .list_games(list())
        .await
        .expect("an anonymous listing");
    // A token that is there but wrong is never taken for nobody.
    let mut wrong = tonic::Request::new(list());
    wrong
        .metadata_mut()
        .insert("authorization", "Bearer tb_not-a-token".parse().unwrap());
    assert_code(client.list_games(wrong).await, Code::Unauthenticated);
    let mut basic = tonic::Request::new(list());
    basic
        .metadata_mut()
        .insert("authorization", "Basic dXNlcjpwYXNz".parse().unwrap());
    assert_code(client.list_games(basic).await, Code::Unauthenticated);
    let status = assert_code(
        client
            .register(v1::RegisterRequest {
                display_name: "  ".into(),
                is_bot: false,
                ..Default::default()
            })
            .await,
        Code::InvalidArgument,
    );
    assert_eq!(field(&status), "display_name");
    // Invisible and direction-changing characters a client author found accepted: each
    // refused, naming the character.
    for (name, code) in [
        ("Al\u{0085}ice", "U+0085"),
        ("\u{202E}ecilA", "U+202E"),
        ("Ali\u{200B}ce", "U+200B"),
        ("\u{2066}Alice", "U+2066"),
    ] {
        let status = assert_code(
            client
                .register(v1::RegisterRequest {
                    display_name: name.into(),
                    is_bot: false,
                    ..Default::default()
                })
                .await,
            Code::InvalidArgument,
        );
        assert_eq!(field(&status), "display_name");
        assert!(status.message().contains(code), "{status:?}");
    }
    let long = "x".repeat(33);
    assert_code(
        client
            .register(v1::RegisterRequest {
                display_name: long,
                is_bot: false,
                ..Default::default()
            })
            .await,
        Code::InvalidArgument,
    );
    server.stop().await;
}

#[tokio::test]
async fn malformed_settings_and_ids_name_their_field() {
    let server = TestServer::sqlite().await;
    let p = player(&server, "P").await;
    let create = |settings: Option<v1::GameSettings>| {
        let p = p.clone();
        async move {
            p.game_client()
                .create_game(p.request(v1::CreateGameRequest {
                    settings,
                    seed: None,
                    house_bots: vec![],
                }))
                .await
        }
    };
    let cases = [
        (None, "settings"),
        (Some(settings(5)), "settings.players"),
        (
            Some(v1::GameSettings {
                cities: vec![1, 2],
                ..settings(2)
            }),
            "settings.cities",
        ),
        (
            Some(v1::GameSettings {
                cities: vec![99],
                ..settings(2)
            }),
            "settings.cities[0]",
        ),
        (
            Some(v1::GameSettings {
                visibility: 9,
                ..settings(2)
            }),
            "settings.visibility",
        ),
        (
            Some(v1::GameSettings {
                turn_time_limit_seconds: 1_000_000,
                ..settings(2)
            }),
            "settings.turn_time_limit_seconds",
        ),
        (
            Some(v1::GameSettings {
                rules_version: 99,
                ..settings(2)
            }),
            "settings.rules_version",
        ),
    ];
    for (settings, expected) in cases {
        let status = assert_code(create(settings).await, Code::InvalidArgument);
        assert_eq!(field(&status), expected, "{status:?}");
    }
    let get = |game_id: &str| {
        let p = p.clone();
        let game_id = game_id.to_string();
        async move {
            p.game_client()
                .get_view(p.request(v1::GetViewRequest { game_id }))
                .await
        }
    };
    let status = assert_code(get("not-a-game").await, Code::InvalidArgument);
    assert_eq!(field(&status), "game_id");
    assert_code(
        get("7f1c2d3e-0000-4000-8000-000000000000").await,
        Code::NotFound,
    );
    let game_id = common::create(&p, settings(2), None).await;
    let status = assert_code(
        p.game_client()
            .watch_game(p.request(v1::WatchGameRequest {
                game_id,
                after_seq: None,
                update_views: 7,
            }))
            .await,
        Code::InvalidArgument,
    );
    assert_eq!(field(&status), "update_views");
    server.stop().await;
}

#[tokio::test]
async fn refused_turns_say_why_and_change_nothing() {
    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 3, 77).await;
    let outsider = player(&server, "Outsider").await;
    let start = view(&players[0], &game_id).await;
    let to_move = start.to_move.unwrap() as usize;
    let mover = &players[to_move];
    let waiting = &players[(to_move + 1) % 3];
    let mine = view(mover, &game_id).await;
    let legal = pick(&mine, &mut theboss_engine::GameRng::from_seed(2));
    let events_before = history_len(mover, &game_id).await;

    // Malformed: no card, or a card that does not exist.
    let status = assert_code(
        submit(
            mover,
            &game_id,
            mine.seq,
            "k1",
            v1::TurnAction {
                placement: None,
                card: None,
            },
        )
        .await,
        Code::InvalidArgument,
    );
    assert_eq!(field(&status), "action.card");
    let no_such_card = v1::Card {
        city: v1::City::NewYork as i32,
        face: Some(v1::card::Face::Money(9)),
    };
    let status = assert_code(
        submit(
            mover,
            &game_id,
            mine.seq,
            "k2",
            v1::TurnAction {
                placement: None,
                card: Some(no_such_card),
            },
        )
        .await,
        Code::InvalidArgument,
    );
    assert_eq!(field(&status), "action.card");
    assert!(
        status.message().contains("no New York 9"),
        "{}",
        status.message()
    );

    // Out of turn, and not seated at all.
    let theirs = view(waiting, &game_id).await;
    let card = theirs.hand[0];
    let status = assert_code(
        submit(
            waiting,
            &game_id,
            theirs.seq,
            "k3",
            v1::TurnAction {
                placement: None,
                card: Some(card),
            },
        )
        .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "TURN_ORDER");
    let status = assert_code(
        submit(&outsider, &game_id, mine.seq, "k4", legal).await,
        Code::PermissionDenied,
    );
    assert_eq!(reason(&status), "NOT_SEATED");

    // Rules: a card from someone else's hand; Chicago before any other city.
    let status = assert_code(
        submit(
            mover,
            &game_id,
            mine.seq,
            "k5",
            v1::TurnAction {
                placement: None,
                card: Some(card),
            },
        )
        .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "CARD_IN_HAND");
    let chicago = v1::TurnAction {
        placement: Some(v1::Placement {
            location: v1::Location::Chicago as i32,
            experts: 1,
            occasionals: 0,
        }),
        card: legal.card,
    };
    let status = assert_code(
        submit(mover, &game_id, mine.seq, "k6", chicago).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "CHICAGO_AFTER_ANOTHER_CITY");
    assert!(status.message().contains("Chicago"), "{}", status.message());

    // A stale sequence number.
    let status = assert_code(
        submit(mover, &game_id, mine.seq - 1, "k7", legal).await,
        Code::Aborted,
    );
    assert_eq!(reason(&status), "STALE_SEQ");
    // One ahead of the game is as stale: the caller's view is not the game's.
    let status = assert_code(
        submit(mover, &game_id, mine.seq + 1, "k8", legal).await,
        Code::Aborted,
    );
    assert_eq!(reason(&status), "STALE_SEQ");

    // Joining a running game.
    let status = assert_code(
        outsider
            .game_client()
            .join_game(outsider.request(v1::JoinGameRequest {
                game_id: game_id.clone(),
                seat: None,
            }))
            .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "GAME_NOT_OPEN");

    assert_eq!(view(mover, &game_id).await, mine, "nothing changed");
    assert_eq!(history_len(mover, &game_id).await, events_before);
    // The legal turn, refused above for the wrong reasons only, is accepted.
    submit(mover, &game_id, mine.seq, "k8", legal)
        .await
        .unwrap();
    server.stop().await;
}

#[tokio::test]
async fn turns_before_the_start_and_after_the_end_are_refused() {
    let server = TestServer::sqlite().await;
    let a = player(&server, "A").await;
    let lobby = create(&a, settings(2), Some(1)).await;
    a.game_client()
        .join_game(a.request(v1::JoinGameRequest {
            game_id: lobby.clone(),
            seat: None,
        }))
        .await
        .unwrap();
    let any_card = v1::TurnAction {
        placement: None,
        card: Some(v1::Card {
            city: v1::City::NewYork as i32,
            face: Some(v1::card::Face::Money(1)),
        }),
    };
    let status = assert_code(
        submit(&a, &lobby, 1, "k", any_card).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "GAME_NOT_RUNNING");

    let (game_id, players) = seated_game(&server, 2, 8).await;
    play_to_end(&game_id, &players, 8).await;
    let end = view(&players[0], &game_id).await;
    let status = assert_code(
        submit(&players[0], &game_id, end.seq, "late", any_card).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "GAME_OVER");
    server.stop().await;
}

/// What the transport answers before the service sees a request: a body that is not the
/// request message is the caller's fault; an oversized one is OUT_OF_RANGE.
#[tokio::test]
async fn undecodable_and_oversized_requests_are_refused_as_documented() {
    let server = TestServer::sqlite().await;
    let path = http::uri::PathAndQuery::from_static("/theboss.v1.GameService/Register");
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.unwrap();
    // Field 1 of RegisterRequest is a string; a Duration sends it as a varint.
    let wrong_wire_type = prost_types::Duration {
        seconds: 5,
        nanos: 0,
    };
    let codec = tonic_prost::ProstCodec::<prost_types::Duration, v1::RegisterResponse>::default();
    let status = grpc
        .unary(tonic::Request::new(wrong_wire_type), path.clone(), codec)
        .await
        .expect_err("the body does not decode");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains("decode"), "{status:?}");

    grpc.ready().await.unwrap();
    let huge = v1::RegisterRequest {
        display_name: "x".repeat(theboss_server::MAX_REQUEST_BYTES + 1),
        is_bot: false,
        ..Default::default()
    };
    let codec = tonic_prost::ProstCodec::<v1::RegisterRequest, v1::RegisterResponse>::default();
    let status = grpc
        .unary(tonic::Request::new(huge), path, codec)
        .await
        .expect_err("64 KiB is the limit");
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    server.stop().await;
}
