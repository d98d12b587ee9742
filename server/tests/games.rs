//! Whole games through real gRPC: every player count, concurrency, audits of finished games,
//! streams and their reconnection, idempotent retries, clocks, listing, health.

mod common;

use common::*;
use theboss::v1::{self, game_event::Kind, watch_game_response::Message};
use theboss_engine::{Game, GameConfig, GameRng};
use theboss_server::testing::TestServer;
use theboss_server::{ActorOptions, Options};
use tonic::Code;

/// Replays a finished game's public history with its revealed seed and checks that the
/// engine reaches the same outcome: what a third party auditing a game would do.
async fn audit(server: &TestServer, game_id: &str) {
    let auditor = player(server, "Auditor").await;
    let history = history(&auditor, game_id).await;
    let seed = history.seed.expect("a finished game reveals its seed");
    let mut players = 0;
    let mut rules = None;
    let mut turns = Vec::new();
    let mut hands_dealt = std::collections::HashSet::new();
    let mut outcome = None;
    for entry in &history.entries {
        match entry.event.as_ref().and_then(|e| e.kind.as_ref()) {
            Some(Kind::GameStarted(started)) => {
                players = started.players;
                rules = theboss_engine::RulesVersion::from_number(started.rules_version);
            }
            Some(Kind::HandDealt(hand)) => {
                hands_dealt.insert(hand.seat);
            }
            Some(Kind::TurnTaken(t)) => {
                let turn =
                    theboss::convert::turn_from_wire(t.action.as_ref().unwrap(), "a").unwrap();
                turns.push((t.seat as u8, turn));
            }
            Some(Kind::GameEnded(ended)) => outcome = ended.outcome.clone(),
            _ => {}
        }
    }
    assert_eq!(
        hands_dealt.len() as u32,
        players,
        "every hand is public once the game is over"
    );
    let rules = rules.expect("the history says which rules the game was played under");
    assert_eq!(
        rules,
        theboss_engine::RulesVersion::LATEST,
        "new games use the newest"
    );
    let config = GameConfig::new(players as u8, seed).with_rules(rules);
    let replayed = Game::replay(&config, &turns).unwrap();
    assert_eq!(
        replayed.outcome().map(theboss::convert::outcome_to_wire),
        outcome
    );
    let seqs: Vec<u64> = history.entries.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
}

async fn complete_game(server: &TestServer, players: u32, seed: u64) {
    let (game_id, seated) = seated_game(server, players, seed).await;
    let streams: Vec<_> = seated
        .iter()
        .map(|p| collect(p, &game_id, Some(0)))
        .collect();
    // Seat 0 also follows with views only on each action's last update.
    let lean = collect_with(
        &seated[0],
        &game_id,
        Some(0),
        v1::UpdateViews::ActionComplete,
    );
    let turns = play_to_end(&game_id, &seated, seed).await;
    assert!(turns >= 3 * 5 * players as usize, "{turns} turns");
    let final_view = view(&seated[0], &game_id).await;
    assert_eq!(final_view.status, v1::GameStatus::Finished as i32);
    let outcome = final_view.outcome.expect("an outcome");
    assert!(!outcome.winners.is_empty());
    for (seat, stream) in streams.into_iter().enumerate() {
        let messages = stream.await.unwrap();
        let updates = updates(&messages);
        assert!(updates.windows(2).all(|w| w[0].seq < w[1].seq));
        // Exactly the last update of each action (they share the action's view) completes it.
        let view_seq = |u: &v1::GameUpdate| u.view.as_ref().unwrap().seq;
        for (i, u) in updates.iter().enumerate() {
            let last_of_action = updates
                .get(i + 1)
                .is_none_or(|next| view_seq(next) != view_seq(u));
            assert_eq!(
                u.action_complete, last_of_action,
                "seat {seat}, seq {}",
                u.seq
            );
        }
        let last = updates.last().unwrap();
        assert_eq!(last.seq, final_view.seq, "seat {seat} saw the end");
        assert!(matches!(
            last.event.as_ref().unwrap().kind,
            Some(Kind::GameEnded(_))
        ));
    }
    let lean_messages = lean.await.unwrap();
    let lean_updates = updates(&lean_messages);
    let full_messages = collect(&seated[0], &game_id, Some(0)).await.unwrap();
    let full = updates(&full_messages);
    assert_eq!(lean_updates.len(), full.len());
    for (l, f) in lean_updates.iter().zip(&full) {
        assert_eq!(
            (l.seq, &l.event, l.action_complete),
            (f.seq, &f.event, f.action_complete)
        );
        if f.action_complete {
            assert_eq!(l.view, f.view, "seq {}", f.seq);
        } else {
            assert_eq!(
                l.view, None,
                "seq {}: no view before the action completes",
                f.seq
            );
        }
    }
    audit(server, &game_id).await;
}

#[tokio::test]
async fn complete_games_for_two_three_and_four_players_on_sqlite() {
    let server = TestServer::sqlite().await;
    for players in 2..=4 {
        complete_game(&server, players, 40 + u64::from(players)).await;
    }
    server.stop().await;
}

#[tokio::test]
async fn complete_four_player_game_on_postgres() {
    let server = TestServer::postgres().await;
    complete_game(&server, 4, 4).await;
    server.stop().await;
}

#[tokio::test]
async fn concurrent_games_do_not_interfere() {
    let server = TestServer::sqlite().await;
    let games = (0..6u64).map(|i| {
        let server = &server;
        async move {
            let (game_id, players) = seated_game(server, 2 + (i % 3) as u32, 100 + i).await;
            play_to_end(&game_id, &players, i).await;
            view(&players[0], &game_id).await
        }
    });
    for finished in futures::future::join_all(games).await {
        assert_eq!(finished.status, v1::GameStatus::Finished as i32);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_reconnecting_watcher_gets_exactly_what_it_missed() {
    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 3, 9).await;
    let mut rng = GameRng::from_seed(9);
    // A full stream from the start is the reference.
    let reference = collect(&players[1], &game_id, Some(0));
    for _ in 0..4 {
        assert!(play_one(&game_id, &players, &mut rng).await);
    }
    // Drop a stream after its snapshot, play on, then resume from the snapshot's seq.
    let first = collect_n(&players[1], &game_id, None, 1).await;
    let Message::Snapshot(snapshot) = &first[0] else {
        panic!("a snapshot first")
    };
    for _ in 0..5 {
        assert!(play_one(&game_id, &players, &mut rng).await);
    }
    let resumed = collect(&players[1], &game_id, Some(snapshot.seq));
    play_to_end(&game_id, &players, 10).await;
    let reference = reference.await.unwrap();
    let resumed = resumed.await.unwrap();
    let expected: Vec<_> = updates(&reference)
        .into_iter()
        .filter(|u| u.seq > snapshot.seq)
        .cloned()
        .collect();
    let got: Vec<_> = updates(&resumed).into_iter().cloned().collect();
    assert!(!got.is_empty());
    assert_eq!(got, expected);
    // Resuming past the end of the game is refused.
    let p = &players[0];
    let status = p
        .game_client()
        .watch_game(p.request(v1::WatchGameRequest {
            game_id: game_id.clone(),
            after_seq: Some(1_000_000),
            update_views: 0,
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    server.stop().await;
}

/// The first `n` messages of a stream, then the stream is dropped.
async fn collect_n(
    p: &theboss_client::Session,
    game_id: &str,
    after_seq: Option<u64>,
    n: usize,
) -> Vec<Message> {
    let mut stream = p
        .game_client()
        .watch_game(p.request(v1::WatchGameRequest {
            game_id: game_id.to_string(),
            after_seq,
            update_views: 0,
        }))
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while out.len() < n {
        out.push(stream.message().await.unwrap().unwrap().message.unwrap());
    }
    out
}

#[tokio::test]
async fn a_retried_submission_returns_the_first_result_and_plays_once() {
    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 2, 5).await;
    let before = view(&players[0], &game_id).await;
    let p = &players[before.to_move.unwrap() as usize];
    let mine = view(p, &game_id).await;
    let action = pick(&mine, &mut GameRng::from_seed(1));
    let first = submit(p, &game_id, mine.seq, "key-1", action)
        .await
        .unwrap();
    let again = submit(p, &game_id, mine.seq, "key-1", action)
        .await
        .unwrap();
    assert_eq!(first, again);
    assert_eq!(view(p, &game_id).await.seq, first.seq, "played once");
    let history_turns = |h: v1::GetHistoryResponse| {
        h.entries
            .iter()
            .filter(|e| matches!(e.event.as_ref().unwrap().kind, Some(Kind::TurnTaken(_))))
            .count()
    };
    let history = history(p, &game_id).await;
    assert_eq!(history_turns(history), 1);
    // The same key for another action is a client bug, and says so.
    let other = v1::TurnAction {
        placement: None,
        card: mine
            .hand
            .iter()
            .find(|c| Some(*c) != action.card.as_ref())
            .cloned(),
    };
    let status = assert_code(
        submit(p, &game_id, first.seq, "key-1", other).await,
        Code::InvalidArgument,
    );
    assert!(status.message().contains("idempotency_key"));
    server.stop().await;
}

#[tokio::test]
async fn an_expired_clock_plays_a_default_turn_and_shows_the_deadline() {
    let server = TestServer::sqlite().await;
    let players = [player(&server, "A").await, player(&server, "B").await];
    let mut s = settings(2);
    s.turn_time_limit_seconds = 1;
    let game_id = create(&players[0], s, Some(3)).await;
    for p in &players {
        p.game_client()
            .join_game(p.request(v1::JoinGameRequest {
                game_id: game_id.clone(),
                seat: None,
            }))
            .await
            .unwrap();
    }
    let start = view(&players[0], &game_id).await;
    let to_move = start.to_move.unwrap();
    let mine = view(&players[to_move as usize], &game_id).await;
    let deadline = mine
        .legal
        .unwrap()
        .deadline
        .expect("a clocked game has deadlines");
    assert!(deadline.seconds > 0);
    let stream = collect_n(&players[0], &game_id, Some(start.seq), 1).await;
    let Message::Update(update) = &stream[0] else {
        panic!("an update")
    };
    let Some(Kind::TurnTaken(turn)) = update.event.as_ref().unwrap().kind.clone() else {
        panic!("a turn")
    };
    assert!(turn.by_timeout);
    assert_eq!(turn.seat, to_move);
    assert!(turn.action.unwrap().placement.is_none());
    let seat = &update.view.as_ref().unwrap().seats[to_move as usize];
    assert_eq!(seat.timeouts_in_a_row, 1);
    server.stop().await;
}

#[tokio::test]
async fn quiet_streams_get_keep_alives_and_end_on_shutdown() {
    let options = Options {
        keep_alive: std::time::Duration::from_millis(50),
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let p = player(&server, "Lonely").await;
    let game_id = create(&p, settings(3), None).await;
    let messages = collect_n(&p, &game_id, None, 3).await;
    assert!(matches!(messages[0], Message::Snapshot(_)));
    assert!(
        messages[1..]
            .iter()
            .all(|m| matches!(m, Message::KeepAlive(k) if k.seq == 0 && k.server_time.is_some()))
    );
    // A stream left open must not keep the server from stopping: it ends with UNAVAILABLE,
    // telling the client how to resume.
    let mut open = p
        .watch(v1::WatchGameRequest {
            game_id: game_id.clone(),
            after_seq: None,
            update_views: 0,
        })
        .await
        .unwrap();
    assert!(matches!(
        open.message().await.unwrap().and_then(|m| m.message),
        Some(Message::Snapshot(_))
    ));
    let ten_seconds = std::time::Duration::from_secs(10);
    tokio::time::timeout(ten_seconds, server.stop())
        .await
        .expect("the server stops with a stream open");
    let end = tokio::time::timeout(ten_seconds, async {
        loop {
            match open.message().await {
                Ok(Some(_)) => continue,
                other => return other,
            }
        }
    })
    .await
    .expect("the open stream ends");
    let status = end.expect_err("the stream ends with a status");
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert!(status.message().contains("after_seq"), "{status:?}");
}

#[tokio::test]
async fn lobby_join_leave_and_listing() {
    let server = TestServer::sqlite().await;
    let a = player(&server, "A").await;
    let b = player(&server, "B").await;
    let open = create(&a, settings(3), None).await;
    let mut unlisted = settings(2);
    unlisted.visibility = v1::Visibility::Unlisted as i32;
    let hidden = create(&a, unlisted, None).await;
    let join = |p: &theboss_client::Session, game: &str, seat: Option<u32>| {
        let p = p.clone();
        let game_id = game.to_string();
        async move {
            p.game_client()
                .join_game(p.request(v1::JoinGameRequest { game_id, seat }))
                .await
        }
    };
    assert_eq!(join(&b, &open, Some(2)).await.unwrap().into_inner().seat, 2);
    let taken = assert_code(join(&a, &open, Some(2)).await, Code::FailedPrecondition);
    assert_eq!(reason(&taken), "SEAT_TAKEN");
    let twice = assert_code(join(&b, &open, None).await, Code::FailedPrecondition);
    assert_eq!(reason(&twice), "ALREADY_SEATED");
    assert_code(join(&b, &open, Some(7)).await, Code::FailedPrecondition);
    // Leaving frees the seat and is announced.
    b.game_client()
        .leave_game(b.request(v1::LeaveGameRequest {
            game_id: open.clone(),
        }))
        .await
        .unwrap();
    let lobby = view(&a, &open).await;
    assert!(lobby.seats.iter().all(|s| s.player.is_none()));
    assert_eq!(lobby.status, v1::GameStatus::Open as i32);
    assert_eq!(lobby.seq, 2, "joined, then left");
    let not_seated = b
        .game_client()
        .leave_game(b.request(v1::LeaveGameRequest {
            game_id: open.clone(),
        }))
        .await;
    assert_code(not_seated, Code::PermissionDenied);

    let list = |p: &theboss_client::Session, request: v1::ListGamesRequest| {
        let p = p.clone();
        async move { p.game_client().list_games(p.request(request)).await }
    };
    let all = list(&b, v1::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        all.games
            .iter()
            .map(|g| g.game_id.clone())
            .collect::<Vec<_>>(),
        vec![open.clone()],
        "unlisted games are not shown to others"
    );
    let mine = list(
        &a,
        v1::ListGamesRequest {
            statuses: vec![v1::GameStatus::Open as i32],
            page_size: 1,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .into_inner();
    assert_eq!(mine.games[0].game_id, hidden);
    assert!(!mine.next_page_token.is_empty());
    let next = list(
        &a,
        v1::ListGamesRequest {
            page_token: mine.next_page_token,
            page_size: 1,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .into_inner();
    assert_eq!(next.games[0].game_id, open);
    assert_eq!(next.next_page_token, "");
    let bad = list(
        &a,
        v1::ListGamesRequest {
            page_size: 1000,
            ..Default::default()
        },
    )
    .await;
    assert_code(bad, Code::InvalidArgument);
    server.stop().await;
}

#[tokio::test]
async fn health_and_reflection_are_served() {
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    let server = TestServer::sqlite().await;
    let mut health = HealthClient::new(server.channel().await);
    for service in ["", "theboss.v1.GameService"] {
        let status = health
            .check(HealthCheckRequest {
                service: service.to_string(),
            })
            .await
            .unwrap()
            .into_inner()
            .status;
        assert_eq!(
            status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32
        );
    }
    // Reflection in both versions tools speak: each lists the game service.
    use tonic_reflection::pb::{v1, v1alpha};
    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let answer = v1::server_reflection_client::ServerReflectionClient::new(server.channel().await)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection v1")
        .into_inner()
        .message()
        .await
        .unwrap()
        .and_then(|r| r.message_response);
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) = answer
    else {
        panic!("v1 lists services: {answer:?}");
    };
    assert!(
        list.service
            .iter()
            .any(|s| s.name == "theboss.v1.GameService")
    );
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    };
    let answer =
        v1alpha::server_reflection_client::ServerReflectionClient::new(server.channel().await)
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .expect("reflection v1alpha")
            .into_inner()
            .message()
            .await
            .unwrap()
            .and_then(|r| r.message_response);
    let Some(v1alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        answer
    else {
        panic!("v1alpha lists services: {answer:?}");
    };
    assert!(
        list.service
            .iter()
            .any(|s| s.name == "theboss.v1.GameService")
    );

    let addr = server.addr;
    server.stop().await;
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "the listener is closed after a graceful stop"
    );
}

#[tokio::test]
async fn a_slow_reader_gets_every_update_in_order() {
    let options = Options {
        actor: ActorOptions {
            watch_buffer: 1,
            ..ActorOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let (game_id, players) = seated_game(&server, 2, 31).await;
    let p = &players[0];
    let mut slow = p
        .game_client()
        .watch_game(p.request(v1::WatchGameRequest {
            game_id: game_id.clone(),
            after_seq: Some(0),
            update_views: 0,
        }))
        .await
        .unwrap()
        .into_inner();
    // Nobody reads the stream while the whole game is played.
    play_to_end(&game_id, &players, 31).await;
    let mut seqs = Vec::new();
    while let Some(message) = slow.message().await.unwrap() {
        if let Some(Message::Update(update)) = message.message {
            seqs.push(update.seq);
        }
    }
    let history = history(p, &game_id).await;
    // Once the game is over the history shows every event; the seat saw all but the other
    // seat's hands, in order, once each.
    let expected: Vec<u64> = history
        .entries
        .iter()
        .filter(
            |e| !matches!(&e.event.as_ref().unwrap().kind, Some(Kind::HandDealt(h)) if h.seat != 0),
        )
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, expected);
    server.stop().await;
}

#[tokio::test]
async fn a_game_may_be_created_under_an_earlier_rules_version() {
    let server = TestServer::sqlite().await;
    let p = player(&server, "Archivist").await;
    let older = v1::GameSettings {
        rules_version: 1,
        ..settings(2)
    };
    let game_id = create(&p, older, Some(31)).await;
    p.join(&game_id, Some(0)).await.unwrap();
    let other = player(&server, "Other").await;
    other.join(&game_id, Some(1)).await.unwrap();
    let view = view(&p, &game_id).await;
    assert_eq!(view.settings.as_ref().unwrap().rules_version, 1);
    assert_eq!(view.rules_version, 1);
    // Dealt as the engine deals under version 1, not as it deals today.
    let hand = |rules| {
        let game = Game::new(&GameConfig::new(2, 31).with_rules(rules)).unwrap();
        game.hand(0)
            .iter()
            .map(|&c| theboss::convert::card_to_wire(c))
            .collect::<Vec<_>>()
    };
    assert_eq!(view.hand, hand(theboss_engine::RulesVersion::V1));
    assert_ne!(view.hand, hand(theboss_engine::RulesVersion::LATEST));
    // Without a version, the newest.
    let newest = create(&p, settings(2), None).await;
    let view = common::view(&p, &newest).await;
    assert_eq!(
        view.settings.unwrap().rules_version,
        theboss_engine::RulesVersion::LATEST.number()
    );
    server.stop().await;
}

/// `SubmitActionResponse.seq` may number an event the caller never sees (another seat's hand
/// dealt at a round's end); the contract's rule for being caught up still holds: every seat
/// gets a view, on its action's last update, whose seq is the response's.
#[tokio::test]
async fn a_caller_knows_it_is_caught_up_by_its_views_seq() {
    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 3, 41).await;
    let streams: Vec<_> = players
        .iter()
        .map(|p| collect_with(p, &game_id, Some(0), v1::UpdateViews::ActionComplete))
        .collect();
    let mut rng = GameRng::from_seed(41);
    let mut answered = Vec::new();
    loop {
        let current = view(&players[0], &game_id).await;
        let Some(to_move) = current.to_move else {
            break;
        };
        let p = &players[to_move as usize];
        let mine = view(p, &game_id).await;
        let key = format!("{}-{to_move}", mine.seq);
        let response = submit(p, &game_id, mine.seq, &key, pick(&mine, &mut rng))
            .await
            .expect("a legal turn is accepted");
        answered.push((to_move as usize, response.seq));
    }
    let mut unseen = 0;
    for (seat, stream) in streams.into_iter().enumerate() {
        let messages = stream.await.unwrap();
        let updates = updates(&messages);
        for &(mover, seq) in &answered {
            let caught_up = updates
                .iter()
                .any(|u| u.action_complete && u.view.as_ref().is_some_and(|v| v.seq == seq));
            assert!(caught_up, "seat {seat} gets a view at seq {seq}");
            if mover == seat && !updates.iter().any(|u| u.seq == seq) {
                unseen += 1;
            }
        }
    }
    assert!(
        unseen > 0,
        "some turn's last event is one its player never sees (a round's deal)"
    );
    server.stop().await;
}

/// The deck is in the contract: a game's catalogue lists exactly the engine's cards of the
/// cities in play, so a client needs no rules document to know which cards exist.
#[tokio::test]
async fn the_catalogue_lists_every_card_of_the_cities_in_play() {
    let server = TestServer::sqlite().await;
    for players in 2..=4 {
        let (game_id, seated) = seated_game(&server, players, 50 + u64::from(players)).await;
        let p = &seated[0];
        let in_play = view(p, &game_id).await.cities;
        let catalogue = p.catalogue(&game_id).await.expect("the catalogue");
        let cities: Vec<i32> = catalogue.iter().map(|c| c.city).collect();
        assert_eq!(
            cities, in_play,
            "{players} players: the cities in play, in order"
        );
        let mut total = 0;
        for city in &catalogue {
            let engine_city = theboss::convert::city_from_wire(city.city, "city").unwrap();
            let expected: Vec<v1::Card> = engine_city
                .cards()
                .map(theboss::convert::card_to_wire)
                .collect();
            assert_eq!(city.cards, expected, "{engine_city}'s cards");
            total += city.cards.len();
        }
        let setup = GameConfig::new(players as u8, 0).validate().unwrap();
        assert_eq!(total, setup.card_count(), "every card of the game, once");
    }
    let p = player(&server, "Curious").await;
    let unknown = p.catalogue("00000000-0000-4000-8000-000000000000").await;
    assert_eq!(
        unknown.unwrap_err().status().map(|s| s.code()),
        Some(Code::NotFound)
    );
    let malformed = p.catalogue("not a game").await;
    assert_eq!(
        malformed.unwrap_err().status().map(|s| s.code()),
        Some(Code::InvalidArgument)
    );
    server.stop().await;
}

/// Provable shuffles: every view, from the game's creation, shows one commitment to the
/// seed; the salt stays secret while the game runs; the finished game's history reveals
/// seed and salt, and they hash to the commitment.
#[tokio::test]
async fn a_finished_games_seed_matches_the_commitment_its_views_showed() {
    let server = TestServer::sqlite().await;
    let creator = player(&server, "Creator").await;
    let game_id = create(&creator, settings(2), None).await;
    let commitment = view(&creator, &game_id).await.seed_commitment;
    assert_eq!(commitment.len(), 64, "a SHA-256 in hex, before anyone sits");
    let second = player(&server, "Second").await;
    creator.join(&game_id, Some(0)).await.unwrap();
    second.join(&game_id, Some(1)).await.unwrap();
    let players = [creator, second];
    let running = history(&players[0], &game_id).await;
    assert_eq!(
        (running.seed, running.seed_salt),
        (None, None),
        "secret while it runs"
    );
    let stream = collect(&players[1], &game_id, Some(0));
    play_to_end(&game_id, &players, 71).await;
    for message in stream.await.unwrap() {
        let view = match message {
            Message::Snapshot(view) => Some(view),
            Message::Update(update) => update.view,
            Message::KeepAlive(_) => None,
        };
        if let Some(view) = view {
            assert_eq!(view.seed_commitment, commitment, "the same in every view");
        }
    }
    let finished = history(&players[0], &game_id).await;
    let salt = finished.seed_salt.clone().expect("revealed at the end");
    assert_eq!(
        theboss::fairness::verify(&commitment, finished.seed, Some(&salt)),
        theboss::fairness::Verdict::Verified
    );
    // Another seed would not match: the commitment binds it.
    assert_ne!(
        theboss::fairness::verify(&commitment, finished.seed.map(|s| s ^ 1), Some(&salt)),
        theboss::fairness::Verdict::Verified
    );
    server.stop().await;
}

/// Resigning: LeaveGame in a running game forfeits the seat; the server plays it to the end,
/// everyone hears it, and resigning again changes nothing.
#[tokio::test]
async fn a_player_who_resigns_is_played_for_until_the_end() {
    let server = TestServer::sqlite().await;
    let (game_id, players) = seated_game(&server, 3, 11).await;
    let mut rng = GameRng::from_seed(11);
    for _ in 0..4 {
        play_one(&game_id, &players, &mut rng).await;
    }
    let watching = collect(
        &players[0],
        &game_id,
        Some(view(&players[0], &game_id).await.seq),
    );
    players[1].leave(&game_id).await.expect("resign");
    players[1]
        .leave(&game_id)
        .await
        .expect("resigning again changes nothing");
    let seen = view(&players[0], &game_id).await;
    assert!(seen.seats[1].forfeited, "{:?}", seen.seats[1]);
    assert_eq!(seen.status, v1::GameStatus::Running as i32);
    // The others play on; seat 1's turns are the server's.
    let mut turns = 0;
    while turns < 400 {
        let current = view(&players[0], &game_id).await;
        if current.status != v1::GameStatus::Running as i32 {
            break;
        }
        let Some(seat) = current.to_move else { break };
        assert_ne!(seat, 1, "the server plays a resigned seat at once");
        play_one(&game_id, &players, &mut rng).await;
        turns += 1;
    }
    assert_eq!(
        view(&players[0], &game_id).await.status,
        v1::GameStatus::Finished as i32
    );
    let messages = watching.await.unwrap();
    let updates = updates(&messages);
    let resigned = updates
        .iter()
        .find_map(|u| match u.event.as_ref()?.kind.as_ref()? {
            v1::game_event::Kind::PlayerLeft(left) => Some(left.clone()),
            _ => None,
        })
        .expect("everyone hears the resignation");
    assert!(resigned.resigned);
    assert_eq!(resigned.player.unwrap().seat, 1);
    let played_for = updates
        .iter()
        .filter_map(|u| match u.event.as_ref()?.kind.as_ref()? {
            v1::game_event::Kind::TurnTaken(t) if t.seat == 1 => Some(t.by_timeout),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert!(!played_for.is_empty() && played_for.iter().all(|b| *b));
    // Over: nothing left to resign.
    let refused = players[2].leave(&game_id).await.unwrap_err();
    assert_eq!(refused.status().unwrap().code(), Code::FailedPrecondition);
    server.stop().await;
}
