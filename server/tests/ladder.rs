//! The ladder through real gRPC: queues forming games, cancellation, never the same player
//! twice at a table, clocks that forfeit and abort, ratings, the leaderboard, duplicate series.

mod common;

use std::time::Duration;

use common::*;
use theboss::v1::{self, enqueue_response::Message};
use theboss_client::Session;
use theboss_server::testing::TestServer;
use theboss_server::{ActorOptions, Options};
use tonic::Streaming;

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
    assert!(matches!(next(&mut first).await, Some(Message::Queued(q)) if q.waiting == 1));
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

    // A and B already sit in a ladder game: enqueueing sends it back, and the stream ends.
    let mut back = enqueue(&a, 2, false).await;
    let resumed = matched(&mut back).await;
    assert!(resumed.already_seated && resumed.game_id == ma.game_id);
    assert!(next(&mut back).await.is_none());
    server.stop().await;
}

#[tokio::test]
async fn nobody_is_seated_twice_and_bad_requests_are_refused() {
    let server = TestServer::sqlite().await;
    let (a, b) = (player(&server, "A").await, player(&server, "B").await);
    let mut one = enqueue(&a, 2, false).await;
    let mut two = enqueue(&a, 2, false).await;
    assert!(matches!(next(&mut one).await, Some(Message::Queued(_))));
    assert!(matches!(next(&mut two).await, Some(Message::Queued(_))));
    let mut other = enqueue(&b, 2, false).await;
    let got = matched(&mut other).await;
    let first = matched(&mut one).await;
    assert_eq!(first.game_id, got.game_id);
    assert_ne!(first.seat, got.seat);
    // A's second request is still waiting: a table never seats A twice.
    let still = tokio::time::timeout(Duration::from_millis(300), next(&mut two)).await;
    assert!(!matches!(still, Ok(Some(Message::Matched(_)))), "{still:?}");
    let refused = a.enqueue(5, false).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    server.stop().await;
}

#[tokio::test]
async fn a_finished_ladder_game_rates_its_players() {
    let server = TestServer::sqlite().await;
    let players = [player(&server, "A").await, player(&server, "B").await];
    let mut streams = [
        enqueue(&players[0], 2, false).await,
        enqueue(&players[1], 2, false).await,
    ];
    let m = matched(&mut streams[0]).await;
    play_to_end(&m.game_id, &players, 3).await;
    let end = view(&players[0], &m.game_id).await;
    let winners = end.outcome.unwrap().winners;
    let board = players[0]
        .leaderboard(v1::LeaderboardRequest {
            players: 2,
            page_size: 1,
            page_token: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(board.entries.len(), 1);
    assert!(!board.next_page_token.is_empty());
    let top = &board.entries[0];
    assert_eq!(top.rank, 1);
    if winners.len() == 1 {
        assert_eq!(
            top.player_id,
            players[winners[0] as usize].player_id(),
            "the winner leads"
        );
    }
    for p in &players {
        let me = ratings(p).await;
        assert_eq!(me.ratings.len(), 2, "overall and 2-player");
        assert!(
            me.ratings
                .iter()
                .all(|r| r.games == 1 && r.sigma < 25.0 / 3.0)
        );
        // One entry per game and category, as the contract says: 2-player and overall.
        assert_eq!(me.history.len(), 2);
        assert!(me.history.iter().all(|h| h.game_id == m.game_id));
        let mut categories: Vec<u32> = me.history.iter().map(|h| h.players).collect();
        categories.sort();
        assert_eq!(categories, [0, 2]);
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
        ladder_turn_secs: 1,
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
async fn a_duplicate_series_rotates_the_seats_and_is_rated_once() {
    let server = TestServer::sqlite().await;
    let players = [player(&server, "A").await, player(&server, "B").await];
    let mut a = enqueue(&players[0], 2, true).await;
    let mut b = enqueue(&players[1], 2, true).await;
    let first = matched(&mut a).await;
    let _ = matched(&mut b).await;
    assert_eq!(
        (first.series_game, first.series_games, first.seat),
        (0, 2, 0)
    );
    play_to_end(&first.game_id, &players, 1).await;
    assert!(
        ratings(&players[0]).await.ratings.is_empty(),
        "rated after the series"
    );
    // The next game of the series comes to A when it asks again.
    let mut again = enqueue(&players[0], 2, true).await;
    let second = matched(&mut again).await;
    assert_eq!(second.series_id, first.series_id);
    assert_eq!((second.series_game, second.seat), (1, 1), "seats rotated");
    assert!(second.already_seated);
    let rotated = [players[1].clone(), players[0].clone()];
    play_to_end(&second.game_id, &rotated, 2).await;
    let seed = |game_id: String| {
        let p = players[0].clone();
        async move {
            p.game_client()
                .get_history(p.request(v1::GetHistoryRequest { game_id }))
                .await
                .unwrap()
                .into_inner()
                .seed
        }
    };
    let (s1, s2) = (
        seed(first.game_id.clone()).await,
        seed(second.game_id.clone()).await,
    );
    assert!(s1.is_some() && s1 == s2, "the same deal: {s1:?} {s2:?}");
    for p in &players {
        let me = ratings(p).await;
        assert_eq!(me.ratings.len(), 2);
        assert!(
            me.ratings.iter().all(|r| r.games == 1),
            "a series counts once"
        );
        assert!(me.history.iter().all(|h| h.game_id == second.game_id));
    }
    server.stop().await;
}

#[tokio::test]
async fn players_who_just_met_are_paired_with_others_first() {
    let grace = Duration::from_millis(400);
    let options = Options {
        ladder_rematch_grace: grace,
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

    // B gives up. With nobody else around, A and C meet again once the grace has passed.
    drop(sb);
    let waited = std::time::Instant::now();
    let mut sa = enqueue(&a, 2, false).await;
    let mut sc = enqueue(&c, 2, false).await;
    let (again, _) = (matched(&mut sa).await, matched(&mut sc).await);
    assert!(waited.elapsed() >= grace, "{:?}", waited.elapsed());
    assert_ne!(again.game_id, ma.game_id);
    server.stop().await;
}
