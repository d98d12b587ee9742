//! What a caller the service does not know yet can hold, through the real transport: every
//! call without a known token (reflection's conversations in both versions, health watches,
//! anonymous streams, requests whose message never comes) is counted per connection, per
//! client address and in all, by one mechanism; a known player is never counted, so a flood
//! of strangers cannot crowd the players out. And how clients are told apart: behind a
//! trusted proxy, by the address it forwards; anyone else's forwarding headers are ignored.

mod common;

use std::time::Duration;

use common::*;
use theboss::v1;
use theboss_server::net::address::AddressPolicy;
use theboss_server::quota::QuotaOptions;
use theboss_server::testing::TestServer;
use theboss_server::{Limits, Options};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic_reflection::pb::{v1 as refl, v1alpha as refl_alpha};
use tonic_types::StatusExt;

fn capped(per_connection: u32, per_address: u32, total: u32) -> Options {
    Options {
        limits: Limits {
            unauthenticated_calls_per_connection: per_connection,
            unauthenticated_calls_per_address: per_address,
            unauthenticated_calls: total,
            ..Limits::default()
        },
        ..Options::default()
    }
}

fn list_services() -> refl::ServerReflectionRequest {
    refl::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            refl::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    }
}

/// A reflection conversation (v1 or v1alpha) held open: it never ends by itself.
async fn held_reflection(
    server: &TestServer,
    alpha: bool,
) -> Result<Box<dyn std::any::Any + Send>, tonic::Status> {
    let channel = server.channel().await;
    // The request stream stays open: the conversation is held, as a hostile client would.
    if alpha {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let request = refl_alpha::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(
                refl_alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
            ),
        };
        tx.send(request).await.unwrap();
        let mut stream = refl_alpha::server_reflection_client::ServerReflectionClient::new(channel)
            .server_reflection_info(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await?
            .into_inner();
        stream.next().await.expect("an answer")?;
        Ok(Box::new((tx, stream)))
    } else {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        tx.send(list_services()).await.unwrap();
        let mut stream = refl::server_reflection_client::ServerReflectionClient::new(channel)
            .server_reflection_info(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await?
            .into_inner();
        stream.next().await.expect("an answer")?;
        Ok(Box::new((tx, stream)))
    }
}

#[tokio::test]
async fn reflection_health_and_anonymous_streams_share_one_cap_per_address() {
    let server = TestServer::sqlite_with(capped(0, 4, 0)).await;
    let player = player(&server, "Player").await;
    let game_id = create(&player, settings(2), None).await;
    // A known player's token is cached from its first call on.
    player.view(&game_id).await.unwrap();

    let mut held = Vec::new();
    held.push(held_reflection(&server, false).await.expect("v1"));
    held.push(held_reflection(&server, true).await.expect("v1alpha"));
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await);
    held.push(Box::new(
        health
            .watch(tonic_health::pb::HealthCheckRequest::default())
            .await
            .expect("a health watch"),
    ));
    let mut anonymous = v1::game_service_client::GameServiceClient::new(server.channel().await);
    held.push(Box::new(
        anonymous
            .watch_game(v1::WatchGameRequest {
                game_id: game_id.clone(),
                ..Default::default()
            })
            .await
            .expect("an anonymous stream"),
    ));
    // The address holds four: a fifth call of any kind without a known token is refused,
    // with how long to wait.
    for refused in [
        held_reflection(&server, false)
            .await
            .map(|_| ())
            .unwrap_err(),
        held_reflection(&server, true)
            .await
            .map(|_| ())
            .unwrap_err(),
        health
            .check(tonic_health::pb::HealthCheckRequest::default())
            .await
            .map(|_| ())
            .unwrap_err(),
        anonymous
            .get_view(v1::GetViewRequest {
                game_id: game_id.clone(),
            })
            .await
            .map(|_| ())
            .unwrap_err(),
    ] {
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
        assert_eq!(reason(&refused), "TOO_MANY_UNAUTHENTICATED_CALLS");
        assert_eq!(
            refused.get_details_quota_failure().unwrap().violations[0].subject,
            "peer:127.0.0.1"
        );
        assert!(refused.get_details_retry_info().is_some());
    }
    // The known player plays on, from the same address.
    player
        .view(&game_id)
        .await
        .expect("a known player is never counted");
    // One let go frees one place.
    held.pop();
    let mut freed = false;
    for _ in 0..100 {
        if health
            .check(tonic_health::pb::HealthCheckRequest::default())
            .await
            .is_ok()
        {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(freed, "a closed stream frees its place");
    drop(held);
    server.stop().await;
}

/// Requests whose message never arrives: each held until the request timeout, counted from
/// its headers, so one connection cannot hold more than its cap however many streams HTTP/2
/// lets it open.
#[tokio::test]
async fn requests_whose_message_never_comes_are_capped_per_connection() {
    let server = TestServer::sqlite_with(capped(3, 0, 0)).await;
    let socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (client, connection) = h2::client::handshake(socket).await.unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let mut held = Vec::new();
    let mut answers = Vec::new();
    for _ in 0..5 {
        let request = http::Request::post(format!(
            "http://{}/theboss.v1.GameService/ListGames",
            server.addr
        ))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
        // Headers, and no message: the body stays open.
        let (response, body) = client.send_request(request, false).unwrap();
        held.push(body);
        answers.push(response);
        client = client.ready().await.unwrap();
    }
    let mut refused = 0;
    let mut waiting = 0;
    for answer in answers {
        match tokio::time::timeout(Duration::from_millis(500), answer).await {
            Ok(Ok(response)) => {
                let status = response
                    .headers()
                    .get("grpc-status")
                    .map(|s| s.to_str().unwrap().to_string());
                assert_eq!(status.as_deref(), Some("8"), "RESOURCE_EXHAUSTED");
                refused += 1;
            }
            Ok(Err(error)) => panic!("{error}"),
            Err(_) => waiting += 1,
        }
    }
    assert_eq!((waiting, refused), (3, 2));
    drop(held);
    server.stop().await;
}

#[tokio::test]
async fn a_flood_of_strangers_fills_the_total_but_not_the_players_place() {
    let server = TestServer::sqlite_with(capped(0, 0, 2)).await;
    let player = player(&server, "Player").await;
    let game_id = create(&player, settings(2), None).await;
    player.view(&game_id).await.unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await);
    let _a = health
        .watch(tonic_health::pb::HealthCheckRequest::default())
        .await
        .unwrap();
    let _b = health
        .watch(tonic_health::pb::HealthCheckRequest::default())
        .await
        .unwrap();
    let refused = health
        .watch(tonic_health::pb::HealthCheckRequest::default())
        .await
        .unwrap_err();
    assert_eq!(reason(&refused), "TOO_MANY_UNAUTHENTICATED_CALLS");
    assert_eq!(
        refused.get_details_quota_failure().unwrap().violations[0].subject,
        "server"
    );
    for _ in 0..10 {
        player
            .view(&game_id)
            .await
            .expect("the player's calls pass");
    }
    server.stop().await;
}

fn forwarded(client: &str) -> tonic::Request<v1::RegisterRequest> {
    let mut request = tonic::Request::new(v1::RegisterRequest {
        display_name: "Behind a proxy".into(),
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert("x-forwarded-for", client.parse().unwrap());
    request
}

/// Behind a trusted proxy each client has its own quota, keyed by the address the proxy
/// forwards (an IPv6 client by its /64); without the setting the header means nothing.
#[tokio::test]
async fn clients_behind_a_trusted_proxy_have_quotas_of_their_own() {
    let quotas = QuotaOptions {
        registrations_per_min: 1,
        registration_burst: 1,
        ..QuotaOptions::unlimited()
    };
    let server = TestServer::sqlite_with(Options {
        quotas,
        addresses: AddressPolicy {
            trusted_proxies: vec!["127.0.0.0/8".parse().unwrap()],
            ..AddressPolicy::default()
        },
        ..Options::default()
    })
    .await;
    let mut client = v1::game_service_client::GameServiceClient::new(server.channel().await);
    client.register(forwarded("198.51.100.1")).await.unwrap();
    client.register(forwarded("198.51.100.2")).await.unwrap();
    client
        .register(forwarded("2001:db8:1:2::1"))
        .await
        .expect("another client");
    let refused = client
        .register(forwarded("2001:db8:1:2::ffff"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert_eq!(
        refused.get_details_quota_failure().unwrap().violations[0].subject,
        "peer:2001:db8:1:2::",
        "one /64 is one client"
    );
    // A forged entry left of the one the proxy wrote changes nothing.
    let refused = client
        .register(forwarded("203.0.113.77, 198.51.100.1"))
        .await
        .unwrap_err();
    assert_eq!(
        refused.get_details_quota_failure().unwrap().violations[0].subject,
        "peer:198.51.100.1"
    );
    server.stop().await;

    // Without a trusted proxy, the header is the client's word and is ignored.
    let server = TestServer::sqlite_with(Options {
        quotas,
        ..Options::default()
    })
    .await;
    let mut client = v1::game_service_client::GameServiceClient::new(server.channel().await);
    client.register(forwarded("198.51.100.1")).await.unwrap();
    let refused = client
        .register(forwarded("198.51.100.2"))
        .await
        .unwrap_err();
    assert_eq!(
        refused.get_details_quota_failure().unwrap().violations[0].subject,
        "peer:127.0.0.1"
    );
    server.stop().await;
}
