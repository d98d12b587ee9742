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

fn challenge_to(opponent: &Session) -> v1::ChallengeRequest {
    v1::ChallengeRequest {
        opponents: vec![opponent.player_id().to_string()],
        players: 2,
        duplicate: false,
        rated: false,
        expires_in_secs: 600,
    }
}

/// The next challenge an `Offers` stream tells, skipping keep-alives.
async fn next_challenge(
    stream: &mut tonic::Streaming<v1::OffersResponse>,
) -> Option<v1::Challenge> {
    loop {
        let message = tokio::time::timeout(std::time::Duration::from_millis(800), stream.message())
            .await
            .ok()?
            .expect("a healthy stream")
            .expect("the stream stays open");
        match message.message {
            Some(v1::offers_response::Message::Challenge(c)) => return Some(c),
            _ => continue,
        }
    }
}

/// Thirteen bot accounts of one person send a player all the challenges they may: past a
/// crowd of twenty from players it does not know, strangers' challenges to it are refused,
/// each stranger shows on its stream twice at most, and a friend's challenge (a player it
/// challenged before) is shown first, however much spam came after it.
#[tokio::test]
async fn spam_cannot_hide_a_friends_challenge() {
    use theboss_server::quota::QuotaOptions;
    use tonic_types::StatusExt;
    let server = TestServer::sqlite_with(Options {
        quotas: QuotaOptions {
            challenges_per_min: 0,
            ..QuotaOptions::default()
        },
        ..Options::default()
    })
    .await;
    let victim = player(&server, "Victim").await;
    let friend = player(&server, "Friend").await;
    // The victim knows the friend: it challenged the friend once (declined since).
    let once = victim.challenge(challenge_to(&friend)).await.unwrap();
    victim
        .answer_challenge(&once.challenge_id, false)
        .await
        .unwrap();
    let theirs = friend.challenge(challenge_to(&victim)).await.unwrap();

    // Bot accounts, each sending the eight it may, until refused; then a few more accounts,
    // each refused at once.
    let mut sent = 0;
    let mut crowded = None;
    'bots: for i in 0..13 {
        let bot = player(&server, &format!("Spam {i}")).await;
        for _ in 0..8 {
            match bot.challenge(challenge_to(&victim)).await {
                Ok(_) => sent += 1,
                Err(e) => {
                    crowded = e.status().cloned();
                    if i >= 5 {
                        break 'bots;
                    }
                    break;
                }
            }
        }
    }
    assert_eq!(sent, 20, "twenty strangers' challenges at most");
    let crowded = crowded.expect("the rest refused");
    assert_eq!(crowded.code(), Code::ResourceExhausted);
    assert_eq!(reason(&crowded), "TOO_MANY_CHALLENGES");
    assert_eq!(
        crowded.get_details_quota_failure().unwrap().violations[0].subject,
        format!("player:{}", victim.player_id())
    );
    // The friend still gets through: the victim knows it.
    let again = friend.challenge(challenge_to(&victim)).await.unwrap();

    let mut offers = victim.offers().await.unwrap();
    let first = next_challenge(&mut offers).await.unwrap();
    // Its own challenge (to the friend, declined), then the friend's.
    assert_eq!(first.challenge_id, once.challenge_id);
    let mut friends = Vec::new();
    for _ in 0..2 {
        friends.push(next_challenge(&mut offers).await.unwrap().challenge_id);
    }
    friends.sort();
    let mut expected = vec![theirs.challenge_id.clone(), again.challenge_id.clone()];
    expected.sort();
    assert_eq!(
        friends, expected,
        "a friend's challenges come before any stranger's"
    );
    let mut per_stranger = std::collections::HashMap::<String, usize>::new();
    while let Some(c) = next_challenge(&mut offers).await {
        *per_stranger.entry(c.challenger_id).or_default() += 1;
    }
    // Three strangers sent the twenty (8, 8 and 4): two of each are shown.
    assert_eq!(per_stranger.len(), 3, "{per_stranger:?}");
    assert!(per_stranger.values().all(|n| *n == 2), "{per_stranger:?}");

    // A change reaches an open stream as that change: the friend withdraws one.
    friend
        .answer_challenge(&again.challenge_id, false)
        .await
        .unwrap();
    let changed = next_challenge(&mut offers).await.expect("told at once");
    assert_eq!(changed.challenge_id, again.challenge_id);
    assert_eq!(changed.status(), v1::ChallengeStatus::Withdrawn);
    server.stop().await;
}

/// Two fresh accounts of one person play rated challenges against each other: the first
/// game rates them, the others that day rate nothing; and a rated duplicate challenge that
/// would seat strangers from the queue beside named players is refused.
#[tokio::test]
async fn rated_challenges_between_the_same_two_count_once_a_day() {
    let server = TestServer::sqlite().await;
    let (a, b) = (
        player(&server, "Puppet A").await,
        player(&server, "Puppet B").await,
    );
    let rated = |duplicate: bool, opponents: Vec<String>| v1::ChallengeRequest {
        opponents,
        players: 2,
        duplicate,
        rated: true,
        expires_in_secs: 600,
    };
    // Named players and strangers from the queue at a duplicate set's two tables: no.
    let c = player(&server, "C").await;
    let refused = a
        .challenge(rated(
            true,
            vec![b.player_id().to_string(), c.player_id().to_string()],
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.status().unwrap().code(), Code::InvalidArgument);
    let games_of = |p: Session| async move {
        p.player(p.player_id())
            .await
            .unwrap()
            .ratings
            .iter()
            .find(|r| r.players == 2)
            .map(|r| (r.games, r.mu))
    };
    let mut offers = b.offers().await.unwrap();
    let mut a_offers = a.offers().await.unwrap();
    let mut first_mu = None;
    for n in 0..3 {
        let made = a
            .challenge(rated(false, vec![b.player_id().to_string()]))
            .await
            .unwrap();
        b.answer_challenge(&made.challenge_id, true).await.unwrap();
        let game = loop {
            let message =
                tokio::time::timeout(std::time::Duration::from_secs(15), offers.message())
                    .await
                    .expect("seated in time")
                    .unwrap()
                    .unwrap();
            if let Some(v1::offers_response::Message::Matched(m)) = message.message {
                break m.game_id;
            }
        };
        // A's stream tells it too; keep it drained.
        while let Ok(Ok(Some(_))) =
            tokio::time::timeout(std::time::Duration::from_millis(50), a_offers.message()).await
        {
        }
        let table = view(&a, &game).await;
        let seated = if table.viewer_seat == Some(0) {
            [a.clone(), b.clone()]
        } else {
            [b.clone(), a.clone()]
        };
        play_to_end(&game, &seated, 40 + n).await;
        let (games_a, mu_a) = games_of(a.clone()).await.expect("rated once");
        assert_eq!(
            games_a, 1,
            "game {n}: the same two, the same day, count once"
        );
        match first_mu {
            None => first_mu = Some(mu_a),
            Some(mu) => assert_eq!(mu_a, mu, "game {n} moved nothing"),
        }
    }
    server.stop().await;
}
