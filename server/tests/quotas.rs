//! Quotas through real gRPC: a client that floods the server is throttled with
//! RESOURCE_EXHAUSTED, RetryInfo and QuotaFailure, and the other players' game goes on,
//! never throttled, at its usual pace.

mod common;

use std::time::{Duration, Instant};

use common::*;
use theboss::v1;
use theboss_engine::GameRng;
use theboss_server::quota::QuotaOptions;
use theboss_server::testing::TestServer;
use theboss_server::{ActorOptions, Options};
use tonic::Code;
use tonic_types::StatusExt;

fn options() -> Options {
    Options {
        quotas: QuotaOptions {
            calls_per_sec: 50,
            call_burst: 100,
            registrations_per_min: 60,
            registration_burst: 5,
            unknown_tokens_per_min: 60,
            unknown_token_burst: 5,
            ..QuotaOptions::default()
        },
        actor: ActorOptions::default(),
        ..Options::default()
    }
}

/// A status over its quota, and the subject the server named.
fn throttled(status: &tonic::Status) -> String {
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let retry = status.get_details_retry_info().expect("RetryInfo");
    let wait = retry.retry_delay.expect("a delay");
    assert!(
        wait > Duration::ZERO && wait <= Duration::from_secs(60),
        "{wait:?}"
    );
    let failure = status.get_details_quota_failure().expect("QuotaFailure");
    failure.violations[0].subject.clone()
}

/// Plays `turns` turns at a steady pace (one every `pace`); returns each turn's time.
async fn paced_turns(
    game_id: &str,
    players: &[theboss_client::Session],
    rng: &mut GameRng,
    turns: usize,
    pace: Duration,
) -> Vec<Duration> {
    let mut times = Vec::new();
    for _ in 0..turns {
        let started = Instant::now();
        assert!(play_one(game_id, players, rng).await, "the game goes on");
        times.push(started.elapsed());
        tokio::time::sleep(pace.saturating_sub(started.elapsed())).await;
    }
    times
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

#[tokio::test]
async fn a_flooding_client_is_throttled_and_the_others_play_on() {
    let server = TestServer::sqlite_with(options()).await;
    let (game_id, players) = seated_game(&server, 2, 61).await;
    let mut rng = GameRng::from_seed(61);
    let pace = Duration::from_millis(60);
    let before = median(paced_turns(&game_id, &players, &mut rng, 8, pace).await);

    // A third player floods GetView from many tasks at once, without backing off.
    let flooder = player(&server, "Flood").await;
    let flood = {
        let (flooder, game_id) = (flooder.clone(), game_id.clone());
        tokio::spawn(async move {
            let mut tasks = tokio::task::JoinSet::new();
            for _ in 0..8 {
                let (flooder, game_id) = (flooder.clone(), game_id.clone());
                tasks.spawn(async move {
                    let mut refused = Vec::new();
                    for _ in 0..150 {
                        let request = flooder.request(v1::GetViewRequest {
                            game_id: game_id.clone(),
                        });
                        if let Err(status) = flooder.game_client().get_view(request).await {
                            refused.push(status);
                        }
                    }
                    refused
                });
            }
            tasks.join_all().await.concat()
        })
    };
    let during = paced_turns(&game_id, &players, &mut rng, 8, pace).await;
    let refused = flood.await.unwrap();
    assert!(
        refused.len() > 500,
        "1,200 calls at once, a burst of 100 and 50 a second: most refused ({})",
        refused.len()
    );
    for status in &refused {
        assert_eq!(throttled(status), format!("player:{}", flooder.player_id()));
    }
    let during = median(during);
    assert!(
        during < before * 5 + Duration::from_millis(50),
        "the others' turns keep their pace: median {before:?} before the flood, {during:?} during it"
    );

    // Registrations and calls without a valid token count against the address.
    let mut client = players[0].game_client();
    let mut registered = 0;
    let subject = loop {
        let answer = client
            .register(v1::RegisterRequest {
                display_name: format!("Sybil {registered}"),
                is_bot: true,
                ..Default::default()
            })
            .await;
        match answer {
            Ok(_) => registered += 1,
            Err(status) => break throttled(&status),
        }
        assert!(registered <= 10, "registrations are limited");
    };
    assert_eq!(subject, "peer:127.0.0.1");
    // Calls with a bad token count against the address too, under a quota of their own,
    // named as such.
    let mut guesses = 0;
    let status = loop {
        let mut guess = tonic::Request::new(v1::ListGamesRequest::default());
        let token = format!("Bearer tb_{guesses:064x}");
        guess
            .metadata_mut()
            .insert("authorization", token.parse().unwrap());
        let status = client.list_games(guess).await.unwrap_err();
        if status.code() != Code::Unauthenticated {
            break status;
        }
        guesses += 1;
        assert!(guesses <= 5, "bad tokens are limited");
    };
    assert_eq!(throttled(&status), "peer:127.0.0.1");
    let quota = &status.get_details_quota_failure().unwrap().violations[0].description;
    assert!(quota.contains("unknown token"), "{quota}");
    assert!(
        status.message().contains("unknown token"),
        "{}",
        status.message()
    );
    // The seated players are not the address's registrations: they play on.
    paced_turns(&game_id, &players, &mut rng, 4, pace).await;
    server.stop().await;
}

#[tokio::test]
async fn the_client_library_backs_off_as_the_server_asks() {
    let server = TestServer::sqlite_with(Options {
        quotas: QuotaOptions {
            calls_per_sec: 20,
            call_burst: 5,
            ..QuotaOptions::unlimited()
        },
        ..Options::default()
    })
    .await;
    let (game_id, players) = seated_game(&server, 2, 62).await;
    // Forty views at once: the burst, then the rest at 20 a second, none failing.
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..40 {
        let (p, game_id) = (players[0].clone(), game_id.clone());
        tasks.spawn(async move { p.view(&game_id).await });
    }
    for view in tasks.join_all().await {
        view.expect("a throttled call is tried again after RetryInfo's delay");
    }
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "35 calls over the burst at 20 a second take 1.75 s: {:?}",
        started.elapsed()
    );
    server.stop().await;
}

fn authorized<T>(token: &str, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    request
}

/// The `ratelimit-*` metadata of a response or a refusal, as numbers and the policy.
fn budget(metadata: &tonic::metadata::MetadataMap) -> (u32, u32, u64, String) {
    let read = |name: &str| {
        metadata
            .get(name)
            .unwrap_or_else(|| panic!("{name} in {metadata:?}"))
            .to_str()
            .unwrap()
            .to_string()
    };
    (
        read("ratelimit-limit").parse().unwrap(),
        read("ratelimit-remaining").parse().unwrap(),
        read("ratelimit-reset").parse().unwrap(),
        read("ratelimit-policy"),
    )
}

#[tokio::test]
async fn every_answer_tells_the_caller_what_is_left_of_its_quota() {
    let server = TestServer::sqlite_with(Options {
        // One call a second: the counts below hold unless a call takes a whole second.
        quotas: QuotaOptions {
            calls_per_sec: 1,
            call_burst: 4,
            registrations_per_min: 60,
            registration_burst: 3,
            unknown_tokens_per_min: 60,
            unknown_token_burst: 2,
            ..QuotaOptions::default()
        },
        ..Options::default()
    })
    .await;
    let mut client = theboss::v1::game_service_client::GameServiceClient::connect(server.url())
        .await
        .unwrap();

    // A registration: the address's registration quota.
    let answer = client
        .register(v1::RegisterRequest {
            display_name: "Pacer".into(),
            is_bot: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let (limit, remaining, reset, policy) = budget(answer.metadata());
    assert_eq!((limit, remaining), (3, 2));
    assert_eq!(reset, 1, "one registration a second comes back");
    assert_eq!(policy, "3;w=3;name=\"registrations per address\"");
    let token = answer.into_inner().api_token;

    // Calls of a player, unary and streaming: the player's quota, counting down.
    let call = |message| authorized(&token, message);
    let listed = client
        .list_games(call(v1::ListGamesRequest::default()))
        .await
        .unwrap();
    assert_eq!(budget(listed.metadata()).0, 4);
    assert_eq!(budget(listed.metadata()).1, 3);
    assert_eq!(
        budget(listed.metadata()).3,
        "4;w=4;name=\"calls per player\""
    );
    let game_id = client
        .create_game(authorized(
            &token,
            v1::CreateGameRequest {
                settings: Some(settings(2)),
                seed: None,
                house_bots: vec![],
            },
        ))
        .await
        .unwrap();
    assert_eq!(budget(game_id.metadata()).1, 2);
    let game_id = game_id.into_inner().game_id;
    let stream = client
        .watch_game(authorized(
            &token,
            v1::WatchGameRequest {
                game_id: game_id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap();
    assert_eq!(
        budget(stream.metadata()).1,
        1,
        "a stream's head carries it too"
    );
    let view = client
        .get_view(authorized(
            &token,
            v1::GetViewRequest {
                game_id: game_id.clone(),
            },
        ))
        .await
        .unwrap();
    let (_, remaining, reset, _) = budget(view.metadata());
    assert_eq!(remaining, 0);
    assert!(reset >= 1, "the bucket refills in {reset} s");

    // Over the quota: the refusal says nothing is left, as RetryInfo does.
    let refused = client
        .get_view(authorized(&token, v1::GetViewRequest { game_id }))
        .await
        .unwrap_err();
    throttled(&refused);
    let (limit, remaining, reset, _) = budget(refused.metadata());
    assert_eq!((limit, remaining), (4, 0));
    assert!((1..=5).contains(&reset), "{reset}");

    // A bad token counts against the address's quota of its own, named in the policy.
    let mut guess = tonic::Request::new(v1::ListGamesRequest::default());
    guess
        .metadata_mut()
        .insert("authorization", "Bearer nonsense".parse().unwrap());
    let refused = client.list_games(guess).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    let (limit, remaining, _, policy) = budget(refused.metadata());
    assert_eq!((limit, remaining), (2, 1));
    assert!(policy.contains("unknown token"), "{policy}");
    server.stop().await;
}
