//! One person with many accounts, through the real gRPC interface: what one player, or a
//! handful of players acting together, can hold of the server is bounded wherever they hold
//! it, whatever order they go in, and when they go at once.

mod common;

use common::*;
use theboss::v1;
use theboss_client::Session;
use theboss_server::testing::TestServer;
use theboss_server::{Limits, Options};
use tonic::Code;

fn with_limits(limits: Limits) -> Options {
    Options {
        limits,
        ..Options::default()
    }
}

fn house_table(players: u32) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        settings: Some(settings(players)),
        seed: None,
        house_bots: vec![v1::BotStrategy::Random as i32; players as usize - 1],
    }
}

fn refusal(error: &theboss_client::ClientError) -> (Code, String) {
    let status = error.status().expect("a refusal from the server");
    (status.code(), reason(status))
}

/// Tables with house bots are counted when they are created, not only once sat at, and when
/// joined: creating ten before joining any, or having a second account create the tables
/// the first joins, ends at the cap either way; and calls made all at once cannot pass it
/// together.
#[tokio::test]
async fn tables_of_house_bots_are_capped_at_creation_and_at_joining() {
    // The house bots' admission is another test's: here it admits every table.
    let server = TestServer::sqlite_with(Options {
        actor: theboss_server::ActorOptions {
            house: theboss_server::house::HouseOptions {
                tables_per_thread: 0,
                tables_per_address: 0,
                ..Default::default()
            },
            ..Default::default()
        },
        ..with_limits(Limits {
            house_games_per_player: 3,
            ..Limits::default()
        })
    })
    .await;
    let a = player(&server, "A").await;
    let mut created = Vec::new();
    for _ in 0..3 {
        created.push(
            a.create_game_with(house_table(2))
                .await
                .expect("within the cap"),
        );
    }
    let refused = a.create_game_with(house_table(2)).await.unwrap_err();
    assert_eq!(
        refusal(&refused),
        (Code::ResourceExhausted, "TOO_MANY_HOUSE_GAMES".into()),
        "created, not sat at, they count"
    );
    // A second account creates the tables; the first joins them.
    let b = player(&server, "B").await;
    let c = player(&server, "C").await;
    let mut others = Vec::new();
    for _ in 0..3 {
        others.push(b.create_game_with(house_table(2)).await.unwrap());
    }
    for game in &others[..3] {
        c.join(game, None)
            .await
            .expect("C has no table of house bots yet");
    }
    let d = player(&server, "D").await;
    let more = d.create_game_with(house_table(3)).await.unwrap();
    let refused = c.join(&more, None).await.unwrap_err();
    assert_eq!(
        refusal(&refused),
        (Code::ResourceExhausted, "TOO_MANY_HOUSE_GAMES".into()),
        "joined, they count"
    );
    // All at once: exactly the cap passes.
    let e = player(&server, "E").await;
    let attempts = (0..10).map(|_| {
        let e = e.clone();
        tokio::spawn(async move { e.create_game_with(house_table(2)).await })
    });
    let mut passed = 0;
    for attempt in attempts {
        if attempt.await.unwrap().is_ok() {
            passed += 1;
        }
    }
    assert_eq!(passed, 3, "ten creations at once, three places");
    server.stop().await;
}

/// Unfinished games, running as well as waiting, created or joined, are capped per player:
/// pairs of accounts starting clockless games end at the cap instead of at the machine's
/// memory.
#[tokio::test]
async fn unfinished_games_are_capped_per_player_running_or_not() {
    let server = TestServer::sqlite_with(with_limits(Limits {
        unfinished_games_per_player: 4,
        ..Limits::default()
    }))
    .await;
    let (a, b) = (player(&server, "A").await, player(&server, "B").await);
    let start = |a: Session, b: Session| async move {
        let game = a.create_game(settings(2), None).await?;
        a.join(&game, None).await?;
        b.join(&game, None).await?;
        Ok::<_, theboss_client::ClientError>(game)
    };
    for _ in 0..4 {
        start(a.clone(), b.clone()).await.expect("within the cap");
    }
    let refused = a.create_game(settings(2), None).await.unwrap_err();
    assert_eq!(
        refusal(&refused),
        (Code::ResourceExhausted, "TOO_MANY_UNFINISHED_GAMES".into())
    );
    // Joining another's table is one more unfinished game too.
    let c = player(&server, "C").await;
    let cs = c.create_game(settings(2), None).await.unwrap();
    let refused = b.join(&cs, None).await.unwrap_err();
    assert_eq!(
        refusal(&refused),
        (Code::ResourceExhausted, "TOO_MANY_UNFINISHED_GAMES".into())
    );
    // A player who resigns one of them has a place again.
    let listed = a
        .list_games(v1::ListGamesRequest {
            mine: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let first = &listed.games[0].game_id;
    a.leave(first).await.expect("resign");
    b.leave(first).await.expect("resign");
    a.create_game(settings(2), None)
        .await
        .expect("a game that ended frees its place");
    server.stop().await;
}

/// The house bots' thinking is a budget: while the tables it serves fill it, a new table is
/// refused with how long to wait, whoever asks, rather than every admitted table slowed; and
/// one address's accounts together hold at most their address's share of tables.
#[tokio::test]
async fn tables_of_house_bots_are_admitted_while_their_thinking_has_room() {
    use theboss_server::ActorOptions;
    use theboss_server::house::HouseOptions;
    use tonic_types::StatusExt;
    let server = TestServer::sqlite_with(Options {
        actor: ActorOptions {
            house: HouseOptions {
                threads: 1,
                tables_per_thread: 3,
                tables_per_address: 2,
                ..HouseOptions::default()
            },
            ..ActorOptions::default()
        },
        ..Options::default()
    })
    .await;
    let accounts = [
        player(&server, "A").await,
        player(&server, "B").await,
        player(&server, "C").await,
    ];
    accounts[0].create_game_with(house_table(2)).await.unwrap();
    accounts[1].create_game_with(house_table(2)).await.unwrap();
    // The raw call: the client library would wait as RetryInfo says, and try again.
    let refused = accounts[2]
        .game_client()
        .create_game(accounts[2].request(house_table(2)))
        .await
        .unwrap_err();
    let status = &refused;
    assert_eq!(
        (status.code(), reason(status).as_str()),
        (Code::ResourceExhausted, "HOUSE_BOTS_BUSY")
    );
    assert_eq!(
        status.get_details_quota_failure().unwrap().violations[0].subject,
        "peer:127.0.0.1",
        "three accounts, one address"
    );
    assert!(
        status.get_details_retry_info().is_some(),
        "how long to wait"
    );
    // Nothing was created for the refusal.
    let mine = accounts[2]
        .list_games(v1::ListGamesRequest {
            mine: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(mine.games.is_empty());
    server.stop().await;
}
