//! The ladder of a service of several replicas: one queue (in the database) and one
//! matchmaker (elected), whichever replica a player queues on; the queue survives the
//! matchmaker's replica going away, and games, streams and history work from any replica.

mod common;

use std::time::Duration;

use common::*;
use theboss::v1::{self, enqueue_response::Message};
use theboss_client::Session;
use theboss_server::Options;
use theboss_server::testing::{self, TestServer};
use tonic::Streaming;

async fn matched(stream: &mut Streaming<v1::EnqueueResponse>) -> v1::LadderMatch {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(15), stream.message())
            .await
            .expect("the ladder answers")
            .expect("a healthy stream")
            .expect("a message before the end");
        if let Some(Message::Matched(m)) = message.message {
            return m;
        }
    }
}

async fn queued(p: &Session, players: u32) -> Streaming<v1::EnqueueResponse> {
    p.enqueue(players, false).await.expect("enqueue")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_queue_and_one_matchmaker_for_every_replica() {
    let url = testing::fresh_postgres_url().await;
    let first = TestServer::replica(&url, Options::default()).await;
    let second = TestServer::replica(&url, Options::default()).await;
    // Two players on two replicas meet in one game.
    let (a, b) = (player(&first, "A").await, player(&second, "B").await);
    let (mut sa, mut sb) = (queued(&a, 2).await, queued(&b, 2).await);
    let (ma, mb) = (matched(&mut sa).await, matched(&mut sb).await);
    assert_eq!(ma.game_id, mb.game_id);
    assert_ne!(ma.seat, mb.seat);
    // The game plays through either replica, and each sees it.
    let players = if ma.seat == 0 { [a, b] } else { [b, a] };
    play_to_end(&ma.game_id, &players, 3).await;
    for p in &players {
        assert_eq!(
            view(p, &ma.game_id).await.status,
            v1::GameStatus::Finished as i32
        );
    }

    // C waits on the second replica; the first replica (which started first and runs the
    // matchmaker) goes away; D queues: the second replica becomes the matchmaker, finds C's
    // request in the queue, and pairs them.
    let c = player(&second, "C").await;
    // Enqueue answers once the request is stored: the queue holds it from here on.
    let mut sc = queued(&c, 2).await;
    first.stop().await;
    let d = player(&second, "D").await;
    let mut sd = queued(&d, 2).await;
    let (mc, md) = (matched(&mut sc).await, matched(&mut sd).await);
    assert_eq!(mc.game_id, md.game_id, "the queue survived its matchmaker");
    second.stop().await;
}
