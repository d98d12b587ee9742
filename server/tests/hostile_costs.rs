//! What floods cost the server, counted by its own metrics (the store calls it makes),
//! through real gRPC:
//!
//! - requests waiting in the ladder's queue cost no store call per waiter: a dozen players
//!   waiting for seconds cost a handful of reads in all;
//! - challenges made and withdrawn while their players hold `Offers` streams cost one read
//!   of each change for the whole server, none per stream;
//! - a flood of random tokens costs at most as many store lookups as its address's quota of
//!   unknown tokens allows, however many calls it makes.
//!
//! One test, so that nothing else in this process calls the store meanwhile.

mod common;

use std::time::Duration;

use common::*;
use theboss::v1;
use theboss_server::metrics::{sample_value, scrape};
use theboss_server::testing::TestServer;
use tonic::Code;

async fn store_calls(metrics: std::net::SocketAddr, op: &str) -> f64 {
    let text = scrape(metrics).await.expect("a Prometheus scrape");
    sample_value(&text, "theboss_store_duration_seconds_count", &[("op", op)])
}

#[tokio::test]
async fn floods_cost_the_store_nothing_per_waiter_and_nothing_past_the_quota() {
    let server = TestServer::sqlite().await;
    let metrics = theboss_server::metrics::start(
        "127.0.0.1:0".parse().unwrap(),
        std::future::pending::<()>(),
    )
    .await
    .expect("the metrics endpoint starts");

    // Row 3: twelve players wait for 4-player games that never form (each asks for 4 with
    // the duplicate choice nobody else made, so nothing matches).
    let mut waiting = Vec::new();
    for i in 0..12 {
        let p = player(&server, &format!("Waiter {i}")).await;
        let request = v1::EnqueueRequest {
            players: 2 + (i % 3),
            duplicate: i % 2 == 0,
            parallel: 0,
        };
        waiting.push(p.enqueue_with(request).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let reads = ["ladder_queue", "ladder_answers"];
    let mut before = 0.0;
    for op in reads {
        before += store_calls(metrics, op).await;
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    let mut after = 0.0;
    for op in reads {
        after += store_calls(metrics, op).await;
    }
    // Nothing changed: no queue read; one read of this replica's answers every 5 s.
    assert!(
        after - before <= 2.0,
        "{} queue or answer reads in 4 s with 12 waiting",
        after - before
    );
    drop(waiting);

    // Challenges: twelve accounts each hold four Offers streams and make a casual 4-player
    // duplicate challenge naming seven of the others, then withdraw it. Each change is read
    // once (for the whole server) and handed to the streams as it is: the streams read the
    // store when they open, never again for the others' challenges.
    let accounts: Vec<_> = {
        let mut accounts = Vec::new();
        for i in 0..12 {
            accounts.push(player(&server, &format!("Challenger {i}")).await);
        }
        accounts
    };
    let mut streams = Vec::new();
    for account in &accounts {
        for _ in 0..4 {
            streams.push(account.offers().await.unwrap());
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (reads_before, rereads_before) = (
        store_calls(metrics, "challenge").await,
        store_calls(metrics, "challenges_of").await,
    );
    let mut changes = 0;
    for (i, account) in accounts.iter().enumerate() {
        let opponents = (1..=7)
            .map(|k| accounts[(i + k) % 12].player_id().to_string())
            .collect();
        let made = account
            .challenge(v1::ChallengeRequest {
                opponents,
                players: 4,
                duplicate: true,
                rated: false,
                expires_in_secs: 600,
            })
            .await
            .unwrap();
        account
            .answer_challenge(&made.challenge_id, false)
            .await
            .unwrap();
        changes += 2;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let reads = store_calls(metrics, "challenge").await - reads_before;
    let rereads = store_calls(metrics, "challenges_of").await - rereads_before;
    assert!(
        reads <= f64::from(changes),
        "{reads} reads of a challenge for {changes} changes seen by 48 streams"
    );
    assert_eq!(rereads, 0.0, "the streams read nothing more themselves");
    drop(streams);

    // Row 10: two thousand calls with random tokens from one address, fifty at a time
    // (each refusal comes after a pause: a flood in series would slow itself down).
    let lookups_before = store_calls(metrics, "player_by_token_hash").await;
    let channel = server.channel().await;
    let started = std::time::Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..50u64 {
        let mut client = v1::game_service_client::GameServiceClient::new(channel.clone());
        tasks.spawn(async move {
            let mut codes = Vec::new();
            for i in 0..40u64 {
                let mut request = tonic::Request::new(v1::ListGamesRequest::default());
                let token = format!("Bearer tb_{:064x}", (t * 40 + i) * 7_919 + 1);
                request
                    .metadata_mut()
                    .insert("authorization", token.parse().unwrap());
                codes.push(client.list_games(request).await.unwrap_err().code());
            }
            codes
        });
    }
    let codes = tasks.join_all().await.concat();
    let unknown = codes
        .iter()
        .filter(|c| **c == Code::Unauthenticated)
        .count();
    let throttled = codes
        .iter()
        .filter(|c| **c == Code::ResourceExhausted)
        .count();
    assert_eq!(unknown + throttled, 2000, "{codes:?}");
    let lookups = store_calls(metrics, "player_by_token_hash").await - lookups_before;
    // The default quota: a burst of 100, then 60 a minute; each lookup refused its charge
    // blocks the address until the next place, so lookups never outrun the quota.
    let quota = 100.0 + started.elapsed().as_secs_f64() + 1.0;
    assert!(
        throttled >= 1890,
        "{unknown} unknown, {throttled} throttled"
    );
    assert!(
        lookups <= quota,
        "{lookups} store lookups for 2,000 bad tokens in {:?}",
        started.elapsed()
    );
    server.stop().await;
}
