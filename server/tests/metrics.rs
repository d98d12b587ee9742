//! The Prometheus endpoint, scraped over HTTP while games are played through real gRPC: the
//! counters an operator watches move with what the server does.

mod common;

use std::time::Duration;

use common::*;
use theboss_engine::GameRng;
use theboss_server::metrics::sample_value as value;
use theboss_server::metrics::scrape as scrape_metrics;
use theboss_server::testing::TestServer;
use theboss_server::{ActorOptions, Options};
use tonic::Code;

async fn scrape(addr: std::net::SocketAddr) -> String {
    scrape_metrics(addr).await.expect("a Prometheus scrape")
}

#[tokio::test]
async fn the_counters_move_with_the_games() {
    let options = Options {
        actor: ActorOptions {
            // One second of a turn clock lasts 20 ms here.
            clock_second: Duration::from_millis(20),
            ..ActorOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::sqlite_with(options).await;
    let metrics = theboss_server::metrics::start(
        "127.0.0.1:0".parse().unwrap(),
        std::future::pending::<()>(),
    )
    .await
    .expect("the metrics endpoint starts");
    let before = scrape(metrics).await;
    for described in [
        "theboss_actions_committed_total",
        "theboss_turn_timeouts_total",
        "theboss_forfeits_total",
        "theboss_game_actors",
        "theboss_watch_streams",
        "theboss_ladder_queue_length",
    ] {
        assert!(
            before.contains(&format!("# HELP {described} ")),
            "{described} is listed before it is used"
        );
    }

    let (game_id, players) = seated_game(&server, 2, 7).await;
    let stream = collect(&players[1], &game_id, None);
    let mut rng = GameRng::from_seed(7);
    for _ in 0..6 {
        assert!(play_one(&game_id, &players, &mut rng).await);
    }
    let to_move = view(&players[0], &game_id).await.to_move.expect("running");
    let mover = &players[to_move as usize];
    let legal = pick(&view(mover, &game_id).await, &mut rng);
    assert_code(
        submit(mover, &game_id, 1, "stale", legal).await,
        Code::Aborted,
    );

    let during = scrape(metrics).await;
    let submitted = [
        ("service", "theboss.v1.GameService"),
        ("method", "SubmitAction"),
    ];
    let ok = value(
        &during,
        "theboss_rpc_handled_total",
        &[submitted[0], submitted[1], ("code", "OK")],
    );
    assert!(ok >= 6.0, "six accepted turns counted, got {ok}");
    let aborted = value(
        &during,
        "theboss_rpc_handled_total",
        &[submitted[1], ("code", "ABORTED")],
    );
    assert!(aborted >= 1.0, "the stale turn counted, got {aborted}");
    assert!(
        value(&during, "theboss_rpc_duration_seconds_count", &submitted) >= ok + aborted,
        "every SubmitAction timed"
    );
    // Two joins and six turns.
    assert!(value(&during, "theboss_actions_committed_total", &[]) >= 8.0);
    assert!(value(&during, "theboss_action_broadcast_seconds_count", &[]) >= 6.0);
    assert!(value(&during, "theboss_watch_streams", &[]) >= 1.0);
    assert!(value(&during, "theboss_game_actors", &[]) >= 1.0);
    assert!(value(&during, "theboss_games_owned", &[]) >= 1.0);
    assert!(
        value(
            &during,
            "theboss_store_duration_seconds_count",
            &[("op", "append_action")]
        ) >= 8.0
    );

    play_to_end(&game_id, &players, 8).await;
    let after = scrape(metrics).await;
    assert!(
        value(&after, "theboss_actions_committed_total", &[])
            > value(&during, "theboss_actions_committed_total", &[]),
        "the rest of the game counted"
    );
    let messages = tokio::time::timeout(Duration::from_secs(10), stream)
        .await
        .expect("the stream ends with the game")
        .expect("the stream's task");
    assert!(!messages.is_empty());

    // A game nobody plays: its clock plays for each seat, three timeouts forfeit a seat.
    let idle = player(&server, "Idle").await;
    let other = player(&server, "Away").await;
    let mut timed = settings(2);
    timed.turn_time_limit_seconds = 1;
    let idle_game = create(&idle, timed, Some(9)).await;
    idle.join(&idle_game, Some(0)).await.expect("join");
    other.join(&idle_game, Some(1)).await.expect("join");
    let forfeited = async {
        loop {
            let now = scrape(metrics).await;
            if value(&now, "theboss_forfeits_total", &[]) >= 2.0 {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let now = tokio::time::timeout(Duration::from_secs(20), forfeited)
        .await
        .expect("both seats forfeit");
    assert!(value(&now, "theboss_turn_timeouts_total", &[]) >= 6.0);
    server.stop().await;
}

#[tokio::test]
async fn a_postgres_store_reports_whether_its_database_gathers_statistics() {
    let metrics = theboss_server::metrics::start(
        "127.0.0.1:0".parse().unwrap(),
        std::future::pending::<()>(),
    )
    .await
    .expect("the metrics endpoint starts");
    let _store = theboss_server::testing::postgres_store().await;
    let text = scrape(metrics).await;
    let sample = text
        .lines()
        .find(|line| line.starts_with("theboss_store_autovacuum_off "))
        .unwrap_or_else(|| panic!("no autovacuum gauge in:\n{text}"));
    let off = value(&text, "theboss_store_autovacuum_off", &[]);
    assert!(off == 0.0 || off == 1.0, "{sample}");
}
