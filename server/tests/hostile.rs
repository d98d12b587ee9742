//! Attacks of one client, tried through the real interface (gRPC, gRPC-Web and raw sockets)
//! the way a hostile client would, and what the server does instead (SECURITY.md lists every
//! surface with the test that attacks it):
//!
//! - a chosen seed: refused on listed games, and marked on unlisted ones;
//! - duplicate deals: another table of one's set is out of reach while it is played, and not
//!   even listed;
//! - Enqueue floods: one request per player (their cost: `hostile_costs.rs`); two Enqueues at
//!   once: one waits, the other is refused;
//! - silent, half-open and idle connections: closed; capped per address;
//! - streams: capped per player, spectators per game, calls of callers not known per address;
//! - farmed ratings: a seat that never played leaves its game unrated;
//! - tables nobody fills: capped per creator, and expired;
//! - huge repeated fields and huge values: INVALID_ARGUMENT at once, with short messages;
//! - random tokens: throttled (their cost: `hostile_costs.rs`);
//! - one code per mistake: any seat out of range, any undecodable gRPC-Web body;
//! - tournaments: a few unfinished per creator; exports paced by the caller's quota.

mod common;

use std::time::Duration;

use common::*;
use theboss::v1::{self, enqueue_response::Message};
use theboss_client::{Connection, Session};
use theboss_server::testing::TestServer;
use theboss_server::{ActorOptions, LadderOptions, Limits, Options};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::Code;
use tonic_types::StatusExt;

/// The longest message a refusal may carry: a short prefix of the input at most.
const SHORT: usize = 300;

fn with_limits(limits: Limits) -> Options {
    Options {
        limits,
        ..Options::default()
    }
}

/// Reads from a socket until the server closes it; returns how long that took.
async fn closed_within(socket: &mut TcpStream, within: Duration) -> Duration {
    let started = std::time::Instant::now();
    let mut buffer = [0u8; 4096];
    tokio::time::timeout(within, async {
        loop {
            match socket.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .expect("the server closes the connection");
    started.elapsed()
}

#[tokio::test]
async fn a_chosen_seed_is_for_unlisted_games_and_is_marked() {
    let server = TestServer::sqlite().await;
    let a = player(&server, "Seeder").await;
    let public = v1::CreateGameRequest {
        settings: Some(settings(2)),
        seed: Some(42),
        house_bots: vec![],
    };
    let refused = assert_code(
        a.game_client().create_game(a.request(public)).await,
        Code::InvalidArgument,
    );
    assert_eq!(
        refused.get_details_bad_request().unwrap().field_violations[0].field,
        "seed"
    );
    // Unlisted, it is accepted, and marked wherever the game shows.
    let (game_id, players) = seated_game(&server, 2, 42).await;
    let mine = players[0]
        .list_games(v1::ListGamesRequest {
            mine: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(mine.games.iter().any(|g| g.game_id == game_id && g.seeded));
    let watched = collect(&players[1], &game_id, Some(0));
    assert!(view(&players[0], &game_id).await.seeded);
    play_to_end(&game_id, &players, 42).await;
    let messages = watched.await.unwrap();
    let views: Vec<_> = updates(&messages)
        .iter()
        .filter_map(|u| u.view.clone())
        .collect();
    assert!(
        !views.is_empty() && views.iter().all(|v| v.seeded),
        "every view"
    );
    assert!(history(&players[0], &game_id).await.seeded);
    // A game with the server's own seed is not.
    let other = create(&a, settings(2), None).await;
    assert!(!view(&a, &other).await.seeded);
    server.stop().await;
}

async fn enqueue(
    p: &Session,
    players: u32,
    duplicate: bool,
) -> tonic::Streaming<v1::EnqueueResponse> {
    p.enqueue(players, duplicate).await.expect("enqueue")
}

async fn matched(stream: &mut tonic::Streaming<v1::EnqueueResponse>) -> v1::LadderMatch {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), stream.message())
            .await
            .expect("the ladder answers")
            .expect("a healthy stream")
            .expect("a match before the end");
        if let Some(Message::Matched(m)) = message.message {
            return m;
        }
    }
}

#[tokio::test]
async fn no_player_of_a_set_sees_a_card_of_a_table_still_played() {
    let server = TestServer::sqlite().await;
    let mut players = Vec::new();
    for name in ["A", "B", "C", "D"] {
        players.push(player(&server, name).await);
    }
    let mut streams = Vec::new();
    for p in &players {
        streams.push(enqueue(p, 2, true).await);
    }
    let mut matches = Vec::new();
    for stream in &mut streams {
        matches.push(matched(stream).await);
    }
    let ((first, at_first), (second, at_second)) = (
        set_table(&matches, &players, 0),
        set_table(&matches, &players, 1),
    );
    let outsider = player(&server, "Outsider").await;
    play_to_end(&first, &at_first, 9).await;
    // The first table is over; the second is still played with the same deal.
    for p in at_first.iter().chain([&outsider]) {
        for refused in [
            p.view(&second).await.unwrap_err(),
            p.history(&second).await.unwrap_err(),
            p.watch(v1::WatchGameRequest {
                game_id: second.clone(),
                ..Default::default()
            })
            .await
            .unwrap_err(),
        ] {
            assert_eq!(refused.code(), Code::PermissionDenied);
            assert_eq!(reason(refused.status().unwrap()), "SET_IN_PROGRESS");
        }
    }
    assert_code(
        outsider
            .game_client()
            .get_view(outsider.request(v1::GetViewRequest {
                game_id: first.clone(),
            }))
            .await,
        Code::PermissionDenied,
    );
    // Nor does a listing reveal anything of a table still played, not even that it exists,
    // to anyone but its own players (the first table's players would read its result).
    let listed = |p: &theboss_client::Session| {
        let p = p.clone();
        async move {
            p.list_games(v1::ListGamesRequest::default())
                .await
                .unwrap()
                .games
                .into_iter()
                .map(|g| g.game_id)
                .collect::<Vec<_>>()
        }
    };
    for p in at_first.iter().chain([&outsider]) {
        let games = listed(p).await;
        assert!(!games.contains(&second), "{games:?}");
    }
    assert!(
        listed(&at_second[0]).await.contains(&second),
        "its own players see it"
    );
    // Their own table's history still shows only what each saw while playing.
    for (seat, p) in at_first.iter().enumerate() {
        let own = history(p, &first).await;
        assert_eq!((own.seed, own.seed_salt.as_ref()), (None, None));
        for entry in &own.entries {
            if let Some(v1::game_event::Kind::HandDealt(hand)) = &entry.event.as_ref().unwrap().kind
            {
                assert_eq!(hand.seat as usize, seat, "another seat's hand");
            }
        }
    }
    play_to_end(&second, &at_second, 10).await;
    assert!(
        listed(&outsider).await.contains(&second),
        "the set is over: listed"
    );
    let revealed = history(&at_first[0], &first).await;
    assert!(revealed.seed.is_some() && revealed.seed_salt.is_some());
    outsider
        .view(&second)
        .await
        .expect("the set is over: anyone may look");
    server.stop().await;
}

#[tokio::test]
async fn one_waiting_request_per_player_however_many_streams_it_opens() {
    let server = TestServer::sqlite().await;
    let flooder = player(&server, "Flooder").await;
    // Many Enqueue calls at once: exactly one is queued, the others are refused.
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..40 {
        let p = flooder.clone();
        tasks.spawn(async move { p.enqueue(2, false).await });
    }
    let (mut queued, mut refused) = (Vec::new(), 0);
    for result in tasks.join_all().await {
        match result {
            Ok(stream) => queued.push(stream),
            Err(error) => {
                assert_eq!(error.code(), Code::FailedPrecondition, "{error}");
                assert_eq!(reason(error.status().unwrap()), "ALREADY_QUEUED");
                refused += 1;
            }
        }
    }
    assert_eq!((queued.len(), refused), (1, 39));
    // A partner comes: the one request gets one game, and the player sits in one game only.
    let partner = player(&server, "Partner").await;
    let mut other = enqueue(&partner, 2, false).await;
    let game = matched(&mut queued[0]).await;
    assert_eq!(matched(&mut other).await.game_id, game.game_id);
    let mine = flooder
        .list_games(v1::ListGamesRequest {
            mine: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(mine.games.len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn silent_half_open_and_idle_connections_are_closed_and_capped() {
    let limits = Limits {
        handshake_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_millis(500),
        idle_timeout: Duration::from_millis(800),
        connections_per_address: 6,
        ..Limits::default()
    };
    let server = TestServer::sqlite_with(with_limits(limits)).await;
    // Nothing at all; only the HTTP/2 preface; half a request's body over HTTP/1.
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    let mut preface = TcpStream::connect(server.addr).await.unwrap();
    preface
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    let mut partial = TcpStream::connect(server.addr).await.unwrap();
    partial
        .write_all(
            b"POST /theboss.v1.GameService/ListGames HTTP/1.1\r\nHost: x\r\n\
              Content-Type: application/grpc-web+proto\r\nContent-Length: 100\r\n\r\n\0\0\0",
        )
        .await
        .unwrap();
    for socket in [&mut silent, &mut preface, &mut partial] {
        let took = closed_within(socket, Duration::from_secs(5)).await;
        assert!(took < Duration::from_secs(3), "{took:?}");
    }
    // A real client's connection lives while used, and is closed once idle; the client
    // reconnects on its next call.
    let p = player(&server, "Honest").await;
    p.list_games(v1::ListGamesRequest::default()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    p.list_games(v1::ListGamesRequest::default())
        .await
        .expect("a new connection after the idle one was closed");
    // Connections past the cap of one address are closed at once.
    let mut held = Vec::new();
    for _ in 0..6 {
        held.push(TcpStream::connect(server.addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut over = TcpStream::connect(server.addr).await.unwrap();
    let took = closed_within(&mut over, Duration::from_secs(2)).await;
    assert!(
        took < Duration::from_millis(400),
        "closed at once: {took:?}"
    );
    // Once the silent ones are gone, clients are served again.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    drop(held);
    p.list_games(v1::ListGamesRequest::default()).await.unwrap();
    server.stop().await;
}

#[tokio::test]
async fn streams_are_capped_per_player_per_game_and_health_watches_per_address() {
    let limits = Limits {
        watch_streams_per_player: 3,
        spectators_per_game: 2,
        unauthenticated_calls_per_address: 2,
        ..Limits::default()
    };
    let server = TestServer::sqlite_with(with_limits(limits)).await;
    let (game_id, players) = seated_game(&server, 2, 5).await;
    let watch = |p: &Session| {
        let (p, game_id) = (p.clone(), game_id.clone());
        async move {
            p.watch(v1::WatchGameRequest {
                game_id,
                ..Default::default()
            })
            .await
        }
    };
    // A player's streams.
    let mut own = Vec::new();
    for _ in 0..3 {
        own.push(watch(&players[0]).await.unwrap());
    }
    let refused = watch(&players[0]).await.unwrap_err();
    let status = refused.status().unwrap();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(reason(status), "TOO_MANY_STREAMS");
    assert_eq!(
        status.get_details_quota_failure().unwrap().violations[0].subject,
        format!("player:{}", players[0].player_id())
    );
    // A stream closed frees its place once the server sees it closed.
    drop(own.pop());
    let mut tries = 0;
    let again = loop {
        match watch(&players[0]).await {
            Ok(stream) => break stream,
            Err(e) if tries < 100 => {
                assert_eq!(reason(e.status().unwrap()), "TOO_MANY_STREAMS");
                tries += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("a stream closed frees its place: {e}"),
        }
    };
    own.push(again);
    // Spectators of one game; the game's own players are never refused for them.
    let fans = [
        player(&server, "Fan 1").await,
        player(&server, "Fan 2").await,
        player(&server, "Fan 3").await,
    ];
    let _a = watch(&fans[0]).await.unwrap();
    let _b = watch(&fans[1]).await.unwrap();
    let refused = watch(&fans[2]).await.unwrap_err();
    assert_eq!(reason(refused.status().unwrap()), "TOO_MANY_SPECTATORS");
    let _seated = watch(&players[1]).await.expect("a seat is not a spectator");
    // Unauthenticated health watches, per address.
    let channel = server.channel().await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    let request = || tonic_health::pb::HealthCheckRequest {
        service: String::new(),
    };
    let w1 = health.watch(request()).await.unwrap();
    let _w2 = health.watch(request()).await.unwrap();
    let refused = health.watch(request()).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted);
    // One mechanism for every call of a caller not known: a Check waits for a place too.
    assert_eq!(
        health.check(request()).await.unwrap_err().code(),
        Code::ResourceExhausted
    );
    drop(w1);
    let mut answered = false;
    for _ in 0..100 {
        if health.check(request()).await.is_ok() {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(answered, "a watch let go frees a place for a Check");
    server.stop().await;
}

#[tokio::test]
async fn a_fresh_account_that_never_plays_farms_no_rating() {
    // 200 ms turns: the sybil forfeits in three of them, and the farmer, polling every 2 ms,
    // never times out three turns in a row even on a loaded machine (then every seat would
    // have forfeited and the game be aborted, which proves nothing about ratings).
    let options = Options {
        actor: ActorOptions {
            clock_second: Duration::from_millis(200),
            ..ActorOptions::default()
        },
        ladder: LadderOptions {
            turn_secs: 1,
            rematch_grace: Duration::ZERO,
            ..LadderOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let farmer = player(&server, "Farmer").await;
    for round in 0..3 {
        // A fresh account per game, enqueued with the farmer, that lets its clock run out.
        let sybil = player(&server, &format!("Sybil {round}")).await;
        let mut mine = enqueue(&farmer, 2, false).await;
        let _theirs = enqueue(&sybil, 2, false).await;
        let m = matched(&mut mine).await;
        let mut rng = theboss_engine::GameRng::from_seed(round);
        loop {
            let now = view(&farmer, &m.game_id).await;
            if now.status != v1::GameStatus::Running as i32 {
                break;
            }
            if now.to_move == Some(m.seat) {
                let action = pick(&now, &mut rng);
                let _ = farmer
                    .submit_with_key(&m.game_id, now.seq, &format!("{}", now.seq), action)
                    .await;
            } else {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
        assert_eq!(
            view(&farmer, &m.game_id).await.status,
            v1::GameStatus::Finished as i32
        );
    }
    let me = farmer.player(farmer.player_id()).await.unwrap();
    assert!(me.ratings.is_empty() && me.history.is_empty(), "{me:?}");
    let board = farmer
        .leaderboard(v1::LeaderboardRequest {
            players: 0,
            page_size: 10,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(board.entries.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn a_creator_has_few_tables_waiting_and_tables_nobody_fills_expire() {
    let options = Options {
        actor: ActorOptions {
            open_ttl: Duration::from_secs(1),
            ..ActorOptions::default()
        },
        limits: Limits {
            open_games_per_player: 3,
            ..Limits::default()
        },
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let spammer = player(&server, "Spammer").await;
    let mut tables = Vec::new();
    for _ in 0..3 {
        tables.push(create(&spammer, settings(4), None).await);
    }
    let refused = spammer.create_game(settings(4), None).await.unwrap_err();
    let status = refused.status().unwrap();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(reason(status), "TOO_MANY_OPEN_GAMES");
    // Nobody joins: they expire, and their places are free again.
    let open = || async {
        spammer
            .list_games(v1::ListGamesRequest {
                statuses: vec![v1::GameStatus::Open as i32],
                mine: false,
                ..Default::default()
            })
            .await
            .unwrap()
            .games
            .into_iter()
            .filter(|g| tables.contains(&g.game_id))
            .count()
    };
    let mut waited = Duration::ZERO;
    while open().await > 0 {
        assert!(waited < Duration::from_secs(10), "the tables expire");
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += Duration::from_millis(100);
    }
    let expired = view(&spammer, &tables[0]).await;
    assert_eq!(expired.status, v1::GameStatus::Aborted as i32);
    create(&spammer, settings(4), None).await;
    server.stop().await;
}

#[tokio::test]
async fn huge_inputs_are_refused_at_once_with_short_messages() {
    let server = TestServer::sqlite().await;
    let p = player(&server, "Huge").await;
    let mut client = p.game_client();
    let huge_statuses = v1::ListGamesRequest {
        statuses: vec![v1::GameStatus::Open as i32; 40_000],
        ..Default::default()
    };
    let status = assert_code(
        client.list_games(p.request(huge_statuses)).await,
        Code::InvalidArgument,
    );
    assert_eq!(
        status.get_details_bad_request().unwrap().field_violations[0].field,
        "statuses"
    );
    let cities = |n| v1::CreateGameRequest {
        settings: Some(v1::GameSettings {
            cities: vec![v1::City::Boston as i32; n],
            ..settings(2)
        }),
        seed: None,
        house_bots: vec![],
    };
    // Over the largest request the services decode: refused before it is decoded.
    let status = assert_code(
        client.create_game(p.request(cities(1_300_000))).await,
        Code::OutOfRange,
    );
    assert!(
        status.message().len() < SHORT,
        "{} bytes",
        status.message().len()
    );
    let status = assert_code(
        client.create_game(p.request(cities(60_000))).await,
        Code::InvalidArgument,
    );
    assert_eq!(
        status.get_details_bad_request().unwrap().field_violations[0].field,
        "settings.cities"
    );
    assert!(
        status.message().len() < SHORT,
        "{} bytes",
        status.message().len()
    );
    let long_id = "x".repeat(60_000);
    let status = assert_code(
        p.ladder_client()
            .get_player(p.request(v1::GetPlayerRequest {
                player_id: long_id.clone(),
            }))
            .await,
        Code::InvalidArgument,
    );
    assert!(status.message().len() < SHORT, "{}", status.message().len());
    for call in [
        client
            .get_view(p.request(v1::GetViewRequest {
                game_id: long_id.clone(),
            }))
            .await
            .map(|_| ()),
        client
            .register(v1::RegisterRequest {
                display_name: long_id.clone(),
                is_bot: true,
                ..Default::default()
            })
            .await
            .map(|_| ()),
    ] {
        let status = assert_code(call, Code::InvalidArgument);
        assert!(status.message().len() < SHORT, "{}", status.message().len());
    }
    server.stop().await;
}

#[tokio::test]
async fn a_flood_of_random_tokens_is_throttled_as_unknown_tokens() {
    let server = TestServer::sqlite().await;
    let mut client =
        theboss::v1::game_service_client::GameServiceClient::new(server.channel().await);
    let mut unauthenticated = 0;
    let throttled = loop {
        let mut request = tonic::Request::new(v1::ListGamesRequest::default());
        let token = format!("Bearer tb_{:064x}", unauthenticated);
        request
            .metadata_mut()
            .insert("authorization", token.parse().unwrap());
        let status = client.list_games(request).await.unwrap_err();
        match status.code() {
            Code::Unauthenticated => unauthenticated += 1,
            _ => break status,
        }
        assert!(unauthenticated <= 100, "the default burst is 100");
    };
    assert_eq!(throttled.code(), Code::ResourceExhausted);
    assert!(
        throttled.message().contains("unknown token"),
        "{}",
        throttled.message()
    );
    // Registrations are another quota: the address may still register, and play.
    let p = Connection::connect(&server.url())
        .await
        .unwrap()
        .register("Real", false)
        .await
        .expect("registrations are not the unknown tokens' quota");
    p.list_games(v1::ListGamesRequest::default()).await.unwrap();
    server.stop().await;
}

#[tokio::test]
async fn one_mistake_one_code_whatever_the_value() {
    let server = TestServer::sqlite().await;
    let p = player(&server, "Seats").await;
    let game_id = create(&p, settings(2), None).await;
    for seat in [2, 7, 255, 256, 70_000] {
        let status = assert_code(
            p.game_client()
                .join_game(p.request(v1::JoinGameRequest {
                    game_id: game_id.clone(),
                    seat: Some(seat),
                }))
                .await,
            Code::InvalidArgument,
        );
        assert_eq!(
            status.get_details_bad_request().unwrap().field_violations[0].field,
            "seat",
            "seat {seat}"
        );
    }
    // A gRPC-Web body that is not base64 is the caller's mistake.
    let mut socket = TcpStream::connect(server.addr).await.unwrap();
    let body = "!!! not base64 !!!";
    let request = format!(
        "POST /theboss.v1.GameService/ListGames HTTP/1.1\r\nHost: x\r\n\
         Content-Type: application/grpc-web-text\r\nX-Grpc-Web: 1\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&response).to_ascii_lowercase();
    let decoded = text
        .split("\r\n\r\n")
        .nth(1)
        .and_then(|body| {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(
                    body.trim()
                        .split("\r\n")
                        .filter(|l| l.len() > 4)
                        .collect::<String>(),
                )
                .ok()
        })
        .map(|bytes| String::from_utf8_lossy(&bytes).to_ascii_lowercase())
        .unwrap_or_default();
    assert!(
        text.contains("grpc-status: 3") || decoded.contains("grpc-status:3"),
        "INVALID_ARGUMENT: {text}\n{decoded}"
    );
    server.stop().await;
}

/// Tournaments: a creator holds a few unfinished ones at most, each with a bounded field.
#[tokio::test]
async fn a_creator_holds_a_few_unfinished_tournaments_with_bounded_fields() {
    let server = TestServer::sqlite().await;
    let organiser = player(&server, "Organiser").await;
    let cup = |max_entrants| v1::CreateTournamentRequest {
        name: "Cup".into(),
        format: v1::TournamentFormat::RoundRobin as i32,
        players: 2,
        max_entrants,
        ..Default::default()
    };
    for _ in 0..theboss_ladder::tournament::MAX_OPEN_TOURNAMENTS {
        organiser
            .create_tournament(cup(0))
            .await
            .expect("within the cap");
    }
    let refused = organiser.create_tournament(cup(0)).await.unwrap_err();
    let status = refused.status().unwrap();
    assert_eq!(
        (status.code(), reason(status).as_str()),
        (Code::ResourceExhausted, "TOO_MANY_TOURNAMENTS")
    );
    let other = player(&server, "Other").await;
    let refused = other
        .create_tournament(cup(theboss_ladder::tournament::MAX_ENTRANTS + 1))
        .await
        .unwrap_err();
    assert_eq!(refused.status().unwrap().code(), Code::InvalidArgument);
    server.stop().await;
}
