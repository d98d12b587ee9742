//! House bots through the real gRPC interface: one person creates a table with bots run by
//! the server and plays it to the end; the bots carry on after a restart; requests for more
//! bots than a table allows are refused and change nothing.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{assert_code, pick, player, settings, submit, view};
use theboss::v1;
use theboss_client::{Connection, Session};
use theboss_engine::GameRng;
use theboss_server::testing::{self, TestServer};
use theboss_server::{Options, store};
use tonic::Code;
use tonic_types::StatusExt;

fn with_bots(players: u32, bots: &[v1::BotStrategy]) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        settings: Some(settings(players)),
        seed: None,
        house_bots: bots.iter().map(|b| *b as i32).collect(),
    }
}

/// Waits until `me` is to move (Some(view)) or the game is over (None).
async fn my_turn(p: &Session, game_id: &str, me: u32) -> Option<v1::GameView> {
    for _ in 0..3000 {
        let current = view(p, game_id).await;
        if current.status == v1::GameStatus::Finished as i32 {
            return None;
        }
        if current.to_move == Some(me) {
            return Some(current);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the house bots did not play within 15 s");
}

/// Plays `me`'s turns (random legal ones) until the game ends, or `turns` of them.
async fn play_mine(p: &Session, game_id: &str, me: u32, turns: usize, rng: &mut GameRng) -> usize {
    let mut played = 0;
    while played < turns {
        let Some(mine) = my_turn(p, game_id, me).await else {
            break;
        };
        let key = format!("turn-{}", mine.seq);
        submit(p, game_id, mine.seq, &key, pick(&mine, rng))
            .await
            .expect("a legal turn is accepted");
        played += 1;
    }
    played
}

#[tokio::test]
async fn one_person_plays_a_whole_game_against_three_house_bots() {
    let server = TestServer::sqlite().await;
    let alice = player(&server, "Alice").await;
    let game_id = alice
        .create_game_with(with_bots(
            4,
            &[
                v1::BotStrategy::Heuristic,
                v1::BotStrategy::Random,
                v1::BotStrategy::Ismcts,
            ],
        ))
        .await
        .expect("create");
    let joined = alice.join(&game_id, None).await.expect("join");
    assert_eq!(joined.seat, 0, "the bots take the last seats");
    assert!(joined.started, "the creator's seat was the last free one");

    let table = view(&alice, &game_id).await;
    let house: Vec<_> = table
        .seats
        .iter()
        .map(|s| {
            let p = s.player.as_ref().expect("seated");
            (p.seat, p.house_bot, p.is_bot)
        })
        .collect();
    assert_eq!(
        house,
        vec![
            (0, v1::BotStrategy::Unspecified as i32, false),
            (1, v1::BotStrategy::Heuristic as i32, true),
            (2, v1::BotStrategy::Random as i32, true),
            (3, v1::BotStrategy::Ismcts as i32, true),
        ]
    );

    let mut rng = GameRng::from_seed(5);
    let turns = play_mine(&alice, &game_id, 0, usize::MAX, &mut rng).await;
    assert!(turns >= 4, "Alice played {turns} turns");
    let end = view(&alice, &game_id).await;
    assert_eq!(end.status, v1::GameStatus::Finished as i32);

    // Every house turn was the bot's own, none played by a clock (there is none) or twice.
    let history = alice.history(&game_id).await.expect("history");
    let by_seat = |seat: u32| {
        history
            .entries
            .iter()
            .filter_map(|e| e.event.as_ref()?.kind.as_ref())
            .filter(|kind| {
                matches!(kind, v1::game_event::Kind::TurnTaken(t) if t.seat == seat && !t.by_timeout)
            })
            .count()
    };
    for seat in 1..4 {
        assert_eq!(
            by_seat(seat),
            by_seat(0),
            "seat {seat} played as often as Alice"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn house_bots_carry_on_after_a_restart() {
    let url = testing::fresh_postgres_url().await;
    let open = || async {
        let store: Arc<dyn store::Store> = Arc::from(store::open(&url).await.expect("open"));
        store
    };
    let server = TestServer::start(open().await, Options::default()).await;
    let bob = player(&server, "Bob").await;
    let game_id = bob
        .create_game_with(with_bots(3, &[v1::BotStrategy::Heuristic; 2]))
        .await
        .expect("create");
    bob.join(&game_id, None).await.expect("join");
    let mut rng = GameRng::from_seed(9);
    assert_eq!(play_mine(&bob, &game_id, 0, 2, &mut rng).await, 2);
    let before = view(&bob, &game_id).await.seq;
    server.stop().await;

    let server = TestServer::start(open().await, Options::default()).await;
    let bob = Connection::connect(&server.url())
        .await
        .expect("connect")
        .session(bob.credentials.clone());
    let turns = play_mine(&bob, &game_id, 0, usize::MAX, &mut rng).await;
    assert!(turns > 0, "the game went on after the restart");
    let end = view(&bob, &game_id).await;
    assert_eq!(end.status, v1::GameStatus::Finished as i32);
    assert!(end.seq > before);
    server.stop().await;
}

#[tokio::test]
async fn a_table_cannot_be_all_house_bots_and_a_refusal_creates_nothing() {
    let server = TestServer::sqlite().await;
    let carol = player(&server, "Carol").await;
    let mut client =
        theboss::v1::game_service_client::GameServiceClient::new(server.channel().await);
    for (players, bots) in [
        (2, vec![v1::BotStrategy::Random as i32; 2]),
        (4, vec![v1::BotStrategy::Heuristic as i32; 4]),
        (3, vec![v1::BotStrategy::Random as i32, 42]),
    ] {
        let request = v1::CreateGameRequest {
            settings: Some(settings(players)),
            seed: None,
            house_bots: bots,
        };
        let status = assert_code(
            client.create_game(carol.request(request)).await,
            Code::InvalidArgument,
        );
        let violations = status.get_details_bad_request().expect("a BadRequest");
        assert_eq!(violations.field_violations[0].field, "house_bots");
    }
    let mine = carol
        .list_games(v1::ListGamesRequest {
            mine: true,
            ..Default::default()
        })
        .await
        .expect("list");
    assert!(
        mine.games.is_empty(),
        "nothing was created: {:?}",
        mine.games
    );
    server.stop().await;
}

#[tokio::test]
async fn a_player_sits_at_few_games_with_house_bots() {
    let server = TestServer::sqlite().await;
    let dave = player(&server, "Dave").await;
    for _ in 0..3 {
        let game_id = dave
            .create_game_with(with_bots(2, &[v1::BotStrategy::Random]))
            .await
            .expect("create");
        dave.join(&game_id, None).await.expect("join");
    }
    let mut client = v1::game_service_client::GameServiceClient::new(server.channel().await);
    let status = assert_code(
        client
            .create_game(dave.request(with_bots(2, &[v1::BotStrategy::Random])))
            .await,
        Code::ResourceExhausted,
    );
    assert_eq!(
        status.get_details_error_info().expect("a reason").reason,
        "TOO_MANY_HOUSE_GAMES"
    );
    // Tables without house bots are not counted against it.
    dave.create_game(settings(2), None)
        .await
        .expect("a table for people");
    server.stop().await;
}

/// A person who resigns a table of house bots ends it: nobody is left to play for, and the
/// table no longer counts among the person's unfinished games.
#[tokio::test]
async fn resigning_a_table_of_house_bots_aborts_it_at_once() {
    let server = TestServer::sqlite().await;
    let alice = player(&server, "Alice").await;
    let game_id = alice
        .create_game_with(with_bots(
            3,
            &[v1::BotStrategy::Random, v1::BotStrategy::Heuristic],
        ))
        .await
        .expect("create");
    alice.join(&game_id, None).await.expect("join");
    let mut rng = GameRng::from_seed(3);
    play_mine(&alice, &game_id, 0, 2, &mut rng).await;
    alice.leave(&game_id).await.expect("resign");
    let end = view(&alice, &game_id).await;
    assert_eq!(end.status, v1::GameStatus::Aborted as i32);
    let history = alice.history(&game_id).await.expect("history");
    let kinds: Vec<_> = history
        .entries
        .iter()
        .rev()
        .take(2)
        .filter_map(|e| e.event.as_ref()?.kind.clone())
        .collect();
    assert!(
        matches!(&kinds[..], [v1::game_event::Kind::GameAborted(_), v1::game_event::Kind::PlayerLeft(left)] if left.resigned),
        "{kinds:?}"
    );
    // Its place among Alice's tables with house bots is free again.
    for _ in 0..3 {
        alice
            .create_game_with(with_bots(2, &[v1::BotStrategy::Random]))
            .await
            .expect("a new table");
    }
    server.stop().await;
}
