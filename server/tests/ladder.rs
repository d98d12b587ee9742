//! The ladder through real gRPC: queues forming games, cancellation, one request per player
//! (or `parallel`), never the same player twice at a table, clocks that forfeit and abort,
//! ratings (not for games a seat never played, and provisional players off the leaderboard),
//! duplicate sets played at parallel tables by different players.

mod common;

use std::time::Duration;

use common::*;
use theboss::v1::{self, enqueue_response::Message};
use theboss_client::Session;
use theboss_server::testing::TestServer;
use theboss_server::{ActorOptions, LadderOptions, Options};
use tonic::{Code, Streaming};

async fn enqueue(p: &Session, players: u32, duplicate: bool) -> Streaming<v1::EnqueueResponse> {
    p.enqueue(players, duplicate).await.expect("enqueue")
}

/// The next message that is not a keep-alive.
async fn next(stream: &mut Streaming<v1::EnqueueResponse>) -> Option<Message> {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), stream.message())
            .await
            .expect("the ladder answers")
            .expect("a healthy stream")?;
        match message.message {
            Some(Message::KeepAlive(_)) => continue,
            other => return other,
        }
    }
}

async fn matched(stream: &mut Streaming<v1::EnqueueResponse>) -> v1::LadderMatch {
    loop {
        match next(stream).await {
            Some(Message::Matched(m)) => return m,
            Some(Message::Queued(_)) => continue,
            other => panic!("expected a match, got {other:?}"),
        }
    }
}

async fn ratings(p: &Session) -> v1::GetPlayerResponse {
    p.player(p.player_id()).await.unwrap()
}

#[tokio::test]
async fn queues_form_games_and_cancel_leaves() {
    let server = TestServer::sqlite().await;
    let (a, b, c) = (
        player(&server, "A").await,
        player(&server, "B").await,
        player(&server, "C").await,
    );
    let mut first = enqueue(&a, 2, false).await;
    let queued = next(&mut first).await;
    assert!(
        matches!(queued, Some(Message::Queued(ref q)) if q.waiting == 1),
        "{queued:?}"
    );
    let mut second = enqueue(&b, 0, false).await;
    let (ma, mb) = (matched(&mut first).await, matched(&mut second).await);
    assert_eq!(ma.game_id, mb.game_id);
    assert_eq!((ma.seat, mb.seat, ma.players), (0, 1, 2));
    assert!(
        next(&mut first).await.is_none(),
        "the stream ends after the match"
    );
    let view = view(&a, &ma.game_id).await;
    assert_eq!(view.status, v1::GameStatus::Running as i32);
    assert_eq!(view.settings.unwrap().turn_time_limit_seconds, 30);
    let listed = a
        .game_client()
        .list_games(a.request(v1::ListGamesRequest {
            mine: true,
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.games[0].ladder);

    // C waits for 3 players, then cancels: its stream ends.
    let mut waiting = enqueue(&c, 3, false).await;
    assert!(matches!(next(&mut waiting).await, Some(Message::Queued(_))));
    assert!(c.cancel().await.unwrap(), "C was queued");
    assert!(!c.cancel().await.unwrap(), "and is not any more");
    assert!(next(&mut waiting).await.is_none());

    // A and B already sit in a ladder game: enqueueing sends it back first, with nothing
    // before it, and the stream ends.
    let mut back = enqueue(&a, 2, false).await;
    let Some(Message::Matched(resumed)) = next(&mut back).await else {
        panic!("the seated game comes first");
    };
    assert!(resumed.already_seated && resumed.game_id == ma.game_id);
    assert!(next(&mut back).await.is_none());
    server.stop().await;
}

#[tokio::test]
async fn one_request_at_a_time_unless_asked_and_nobody_is_seated_twice() {
    let server = TestServer::sqlite().await;
    let (a, b) = (player(&server, "A").await, player(&server, "B").await);
    let mut one = enqueue(&a, 2, false).await;
    assert!(matches!(next(&mut one).await, Some(Message::Queued(_))));
    // A second request while the first waits: refused, the rule named.
    let refused = a.enqueue(2, false).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert_eq!(reason(refused.status().unwrap()), "ALREADY_QUEUED");
    // Asking for two games at once: a second request waits beside the first.
    let parallel = |players| v1::EnqueueRequest {
        players,
        duplicate: false,
        parallel: 2,
    };
    let mut two = a.enqueue_with(parallel(2)).await.unwrap();
    assert!(matches!(next(&mut two).await, Some(Message::Queued(_))));
    let mut other = enqueue(&b, 2, false).await;
    let got = matched(&mut other).await;
    let first = matched(&mut one).await;
    assert_eq!(first.game_id, got.game_id);
    assert_ne!(first.seat, got.seat);
    // A's second request is still waiting: a table never seats A twice.
    let still = tokio::time::timeout(Duration::from_millis(300), next(&mut two)).await;
    assert!(!matches!(still, Ok(Some(Message::Matched(_)))), "{still:?}");
    // With a game and a request, A is at its two; a third is refused.
    let refused = a.enqueue_with(parallel(2)).await.unwrap_err();
    assert_eq!(reason(refused.status().unwrap()), "ALREADY_QUEUED");
    for bad in [
        v1::EnqueueRequest {
            players: 5,
            ..parallel(2)
        },
        v1::EnqueueRequest {
            parallel: 9,
            ..parallel(2)
        },
    ] {
        let refused = b.enqueue_with(bad).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_finished_ladder_game_rates_its_players() {
    let server = TestServer::sqlite().await;
    // A bot that says what it is, and a person.
    let bot = theboss_client::Connection::connect(&server.url())
        .await
        .unwrap()
        .register_described("A", true, "heuristic, v1")
        .await
        .unwrap();
    let players = [bot, player(&server, "B").await];
    let mut streams = [
        enqueue(&players[0], 2, false).await,
        enqueue(&players[1], 2, false).await,
    ];
    let m = matched(&mut streams[0]).await;
    play_to_end(&m.game_id, &players, 3).await;
    let board = |page_size| {
        players[0].leaderboard(v1::LeaderboardRequest {
            players: 2,
            page_size,
            ..Default::default()
        })
    };
    assert!(
        board(10).await.unwrap().entries.is_empty(),
        "one game: both are provisional, off the leaderboard"
    );
    for p in &players {
        let me = ratings(p).await;
        assert_eq!(me.ratings.len(), 2, "overall and 2-player");
        assert!(
            me.ratings
                .iter()
                .all(|r| r.games == 1 && r.sigma < 25.0 / 3.0 && r.provisional)
        );
        // One entry per game and category, as the contract says: 2-player and overall.
        assert_eq!(me.history.len(), 2);
        assert!(me.history.iter().all(|h| h.game_id == m.game_id));
        let mut categories: Vec<u32> = me.history.iter().map(|h| h.players).collect();
        categories.sort();
        assert_eq!(categories, [0, 2]);
    }
    // Nine more games, the same two players: they count three (each opponent vouches for
    // three rated games), so neither is established, however often they meet.
    for seed in 0..9 {
        let mut streams = [
            enqueue(&players[0], 2, false).await,
            enqueue(&players[1], 2, false).await,
        ];
        let (ma, mb) = (
            matched(&mut streams[0]).await,
            matched(&mut streams[1]).await,
        );
        let mut seated = players.clone();
        if ma.seat == 1 {
            seated.swap(0, 1);
        }
        assert_eq!(mb.game_id, ma.game_id);
        play_to_end(&ma.game_id, &seated, seed).await;
    }
    for p in &players {
        let me = ratings(p).await;
        assert!(
            me.ratings.iter().all(|r| r.games == 10
                && r.opponents == 1
                && r.counted_games == 3
                && r.provisional)
        );
    }
    assert!(
        board(10).await.unwrap().entries.is_empty(),
        "two accounts that only ever met each other are never established"
    );
    server.stop().await;
}

/// The leaderboards over gRPC: established players (many opponents, enough games), best
/// first, paged, of bots or of people, with what each says it is.
#[tokio::test]
async fn the_leaderboards_list_established_players_best_first() {
    let (store, _dir) = theboss_server::testing::sqlite_store().await;
    let server = TestServer::start(store.clone(), theboss_server::Options::default()).await;
    let bot = theboss_client::Connection::connect(&server.url())
        .await
        .unwrap()
        .register_described("A", true, "heuristic, v1")
        .await
        .unwrap();
    let mut entrants = vec![bot.clone(), player(&server, "B").await];
    for i in 0..4 {
        let bot = theboss_client::Connection::connect(&server.url())
            .await
            .unwrap()
            .register(&format!("Field {i}"), true)
            .await
            .unwrap();
        entrants.push(bot);
    }
    let infos: Vec<_> = entrants
        .iter()
        .enumerate()
        .map(|(i, p)| theboss_server::domain::PlayerInfo {
            id: p.player_id().to_string(),
            display_name: String::new(),
            is_bot: i != 1,
        })
        .collect();
    // Five opponents each, three games a pair: fifteen counted games each.
    theboss_server::testing::rated_round_robin(&*store, &infos, 3).await;
    let players = [bot, entrants[1].clone()];
    let board = |page_size| {
        players[0].leaderboard(v1::LeaderboardRequest {
            players: 2,
            page_size,
            ..Default::default()
        })
    };
    let top = board(1).await.unwrap();
    assert_eq!(top.entries.len(), 1);
    assert!(!top.next_page_token.is_empty());
    assert_eq!(top.entries[0].rank, 1);
    let all = board(10).await.unwrap();
    assert_eq!(all.entries.len(), 6);
    assert!(
        all.entries.windows(2).all(|w| {
            w[0].rating.as_ref().unwrap().score >= w[1].rating.as_ref().unwrap().score
        })
    );
    assert!(all.entries.iter().all(|e| {
        let r = e.rating.as_ref().unwrap();
        r.games == 15 && r.opponents == 5 && !r.provisional
    }));

    // Boards of bots and of people: each ranked in its own list, with what the player says
    // it is.
    let of = |kind: v1::PlayerKind| {
        players[1].leaderboard(v1::LeaderboardRequest {
            players: 2,
            page_size: 10,
            kind: kind as i32,
            ..Default::default()
        })
    };
    let bots = of(v1::PlayerKind::Bot).await.unwrap().entries;
    assert_eq!(bots.len(), 5);
    assert!(bots.iter().all(|b| b.is_bot));
    assert_eq!(
        bots.iter().map(|b| b.rank).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5],
        "ranked in their own list"
    );
    let a = bots
        .iter()
        .find(|b| b.player_id == players[0].player_id())
        .expect("A is a bot");
    assert_eq!(a.description, "heuristic, v1");
    let people = of(v1::PlayerKind::Person).await.unwrap().entries;
    assert_eq!(people.len(), 1);
    assert_eq!(people[0].player_id, players[1].player_id());
    assert_eq!((people[0].rank, people[0].is_bot), (1, false));
    assert_eq!(people[0].description, "");
    // A profile changes through UpdateProfile, normalised as names are.
    assert_eq!(
        players[1]
            .update_profile("  Cafe\u{301} player ")
            .await
            .unwrap(),
        "Caf\u{e9} player"
    );
    let people = of(v1::PlayerKind::Person).await.unwrap().entries;
    assert_eq!(people[0].description, "Caf\u{e9} player");
    let profile = players[0].player(players[1].player_id()).await.unwrap();
    assert_eq!(profile.description, "Caf\u{e9} player");
    // Bad input changes nothing.
    for bad in ["x".repeat(201), "bidi \u{202E}".to_string()] {
        let refused = players[1].update_profile(&bad).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused}");
        assert_eq!(field(&refused), "description");
    }
    let refused = players[1]
        .leaderboard(v1::LeaderboardRequest {
            players: 2,
            kind: 7,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(field(&refused), "kind");
    let profile = players[0].player(players[1].player_id()).await.unwrap();
    assert_eq!(profile.description, "Caf\u{e9} player");
    server.stop().await;
}

/// The field a refusal's BadRequest names.
fn field(error: &theboss_client::ClientError) -> String {
    use tonic_types::StatusExt;
    match error {
        theboss_client::ClientError::Rpc { status, .. } => status
            .get_details_bad_request()
            .expect("BadRequest")
            .field_violations[0]
            .field
            .clone(),
        other => panic!("not a refusal: {other}"),
    }
}

#[tokio::test]
async fn a_game_in_which_a_seat_never_played_is_not_rated() {
    let options = Options {
        actor: ActorOptions {
            clock_second: Duration::from_millis(20),
            ..ActorOptions::default()
        },
        ladder: LadderOptions {
            turn_secs: 1,
            ..LadderOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let players = [
        player(&server, "Present").await,
        player(&server, "Absent").await,
    ];
    let mut streams = [
        enqueue(&players[0], 2, false).await,
        enqueue(&players[1], 2, false).await,
    ];
    let m = matched(&mut streams[0]).await;
    let present = &players[usize::from(m.seat != 0)];
    // The present player plays every turn of its own; the other seat's clock plays for it.
    let mut rng = theboss_engine::GameRng::from_seed(4);
    loop {
        let mine = view(present, &m.game_id).await;
        if mine.status != v1::GameStatus::Running as i32 {
            break;
        }
        if mine.to_move == Some(m.seat) {
            let action = pick(&mine, &mut rng);
            let _ = present
                .submit_with_key(&m.game_id, mine.seq, &format!("k{}", mine.seq), action)
                .await;
        } else {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let end = view(present, &m.game_id).await;
    assert_eq!(
        end.status,
        v1::GameStatus::Finished as i32,
        "the game went on to its end"
    );
    assert!(end.seats.iter().any(|s| s.forfeited));
    for p in &players {
        assert!(
            ratings(p).await.ratings.is_empty(),
            "a game one seat never played is not rated"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn clocks_play_for_absent_seats_and_abort_a_game_nobody_plays() {
    let options = Options {
        actor: ActorOptions {
            clock_second: Duration::from_millis(20),
            ..ActorOptions::default()
        },
        ladder: LadderOptions {
            turn_secs: 1,
            ..LadderOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let players = [player(&server, "A").await, player(&server, "B").await];
    let mut stream = enqueue(&players[0], 2, false).await;
    let _other = enqueue(&players[1], 2, false).await;
    let m = matched(&mut stream).await;
    let mut end = view(&players[0], &m.game_id).await;
    for _ in 0..200 {
        if end.status == v1::GameStatus::Aborted as i32 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        end = view(&players[0], &m.game_id).await;
    }
    assert_eq!(end.status, v1::GameStatus::Aborted as i32);
    assert!(
        end.seats
            .iter()
            .all(|s| s.forfeited && s.timeouts_in_a_row >= 3)
    );
    let history = history(&players[0], &m.game_id).await;
    let timeouts = history
        .entries
        .iter()
        .filter(|e| matches!(&e.event.as_ref().unwrap().kind, Some(v1::game_event::Kind::TurnTaken(t)) if t.by_timeout))
        .count();
    assert_eq!(timeouts, 6, "three timeouts in a row for each seat");
    assert!(
        ratings(&players[0]).await.ratings.is_empty(),
        "aborted games are not rated"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_duplicate_set_plays_one_deal_at_two_tables_by_different_players() {
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
    // Two tables at once, of two players each, nobody at both.
    let set = matches[0].series_id.clone();
    assert!(!set.is_empty() && matches.iter().all(|m| m.series_id == set));
    assert!(
        matches
            .iter()
            .all(|m| m.series_games == 2 && !m.already_seated)
    );
    let tables: std::collections::BTreeSet<&str> =
        matches.iter().map(|m| m.game_id.as_str()).collect();
    assert_eq!(tables.len(), 2);
    let ((first, at_first), (second, at_second)) = (
        set_table(&matches, &players, 0),
        set_table(&matches, &players, 1),
    );
    assert_eq!((at_first.len(), at_second.len()), (2, 2));
    // While the set is played, a table is for its own players only.
    let refused = at_first[0].view(&second).await.unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);
    assert_eq!(reason(refused.status().unwrap()), "SET_IN_PROGRESS");
    let refused = at_first[0]
        .watch(v1::WatchGameRequest {
            game_id: second.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(reason(refused.status().unwrap()), "SET_IN_PROGRESS");
    play_to_end(&first, &at_first, 1).await;
    // One table over: its history reveals nothing yet, and nobody is rated.
    let early = history(&at_first[0], &first).await;
    assert_eq!(early.seed, None);
    assert!(
        !early.entries.iter().any(|e| matches!(
            &e.event.as_ref().unwrap().kind,
            Some(v1::game_event::Kind::HandDealt(h)) if h.seat != 0
        )),
        "another seat's hand is still hidden"
    );
    assert!(ratings(&at_first[0]).await.ratings.is_empty());
    play_to_end(&second, &at_second, 2).await;
    let (h1, h2) = (
        history(&at_first[0], &first).await,
        history(&at_second[0], &second).await,
    );
    assert!(
        h1.seed.is_some() && h1.seed == h2.seed,
        "one deal: {:?} {:?}",
        h1.seed,
        h2.seed
    );
    // Now anyone may look at either table.
    at_first[0].view(&second).await.unwrap();
    for (table, at) in [(&first, &at_first), (&second, &at_second)] {
        for p in at {
            let me = ratings(p).await;
            assert_eq!(me.ratings.len(), 2);
            assert!(me.ratings.iter().all(|r| r.games == 1), "a set counts once");
            assert!(
                me.history.iter().all(|h| h.game_id == **table),
                "named by its own table"
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn players_who_just_met_are_paired_with_others_first() {
    let grace = Duration::from_millis(400);
    let options = Options {
        ladder: LadderOptions {
            rematch_grace: grace,
            ..LadderOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let (a, b, c) = (
        player(&server, "A").await,
        player(&server, "B").await,
        player(&server, "C").await,
    );
    let mut sa = enqueue(&a, 2, false).await;
    let _sb = enqueue(&b, 2, false).await;
    let first = matched(&mut sa).await;
    play_to_end(&first.game_id, &[a.clone(), b.clone()], 7).await;

    // A and B come back together, C right after: A meets C, not B again.
    let mut sa = enqueue(&a, 2, false).await;
    let mut sb = enqueue(&b, 2, false).await;
    let mut sc = enqueue(&c, 2, false).await;
    let (ma, mc) = (matched(&mut sa).await, matched(&mut sc).await);
    assert_eq!(ma.game_id, mc.game_id);
    let still = tokio::time::timeout(grace / 2, next(&mut sb)).await;
    assert!(!matches!(still, Ok(Some(Message::Matched(_)))), "{still:?}");
    play_to_end(&ma.game_id, &[a.clone(), c.clone()], 8).await;

    // B gives up (a dropped stream is withdrawn too, but a moment later: the matchmaker
    // could still pair A with B's request meanwhile). With nobody else around, A and C meet
    // again once the grace has passed.
    b.cancel().await.expect("cancel");
    drop(sb);
    let waited = std::time::Instant::now();
    let mut sa = enqueue(&a, 2, false).await;
    let mut sc = enqueue(&c, 2, false).await;
    let (again, _) = (matched(&mut sa).await, matched(&mut sc).await);
    assert!(waited.elapsed() >= grace, "{:?}", waited.elapsed());
    assert_ne!(again.game_id, ma.game_id);
    server.stop().await;
}
