//! Three real `theboss-server` processes on one PostgreSQL database form one service. Bots
//! connected to different replicas play games to the end while one replica is killed
//! (SIGKILL) and another is restarted gracefully (SIGTERM, then started again on its
//! address). Every game finishes; every acknowledged turn is in the game's log; no stream
//! skips or repeats an event; every view a seat receives is exactly its own redaction. And a
//! view or the odds asked of a replica that does not run the game are the seat's own.

mod common;

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{check_redaction, engine_part};
use theboss::convert::{odds_to_wire, turn_to_wire, view_from_wire, view_to_wire};
use theboss::v1::{self, game_event::Kind};
use theboss_client::{Connection, FeedItem, FeedOptions, Session, Submitted};
use theboss_engine::{Game, GameConfig, GameRng, Viewer, face_down_odds};
use theboss_server::testing;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Seconds a dead replica keeps its games.
const LEASE_SECS: &str = "2";

struct Replica {
    child: Child,
    addr: String,
}

impl Replica {
    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Starts a replica listening on `listen` and waits until it serves.
async fn start(database_url: &str, listen: &str) -> Replica {
    let mut child = Command::new(env!("CARGO_BIN_EXE_theboss-server"))
        .args(["--listen", listen, "--database-url", database_url])
        .args(["--lease-secs", LEASE_SECS])
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start theboss-server");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = common::served_addr(&mut lines, Duration::from_secs(30)).await;
    // Kept for a failure's diagnosis when THEBOSS_TEST_LOGS names a directory.
    let keep = std::env::var_os("THEBOSS_TEST_LOGS").map(|dir| {
        std::path::PathBuf::from(dir).join(format!("replica-{}.log", addr.replace(':', "_")))
    });
    tokio::spawn(async move {
        let mut kept = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if keep.is_some() {
                kept.push(line);
                if let Some(path) = &keep {
                    let _ = std::fs::write(path, kept.join("\n"));
                }
            }
        }
    });
    Replica { child, addr }
}

/// The URLs of the replicas, starting with the `first`th: a client's preferred replica,
/// then the others to fail over to.
fn rotated(urls: &[String], first: usize) -> Vec<String> {
    (0..urls.len())
        .map(|i| urls[(first + i) % urls.len()].clone())
        .collect()
}

/// What one seat saw and did.
struct SeatLog {
    seat: u8,
    /// Turns the service acknowledged: the view's seq they were chosen from, the turn.
    acks: Vec<(u64, v1::TurnAction)>,
    updates: Vec<v1::GameUpdate>,
    end: v1::GameView,
}

/// Plays one seat of a game to its end through a resuming feed (a view on every update),
/// choosing random legal turns, and records everything.
async fn play_seat(
    session: Session,
    game_id: String,
    game: usize,
    seat: u8,
    acked: Acked,
) -> SeatLog {
    let options = FeedOptions {
        silence: Duration::from_secs(6),
        reconnects: 400,
        update_views: v1::UpdateViews::Every,
    };
    let mut feed = session.follow_after(&game_id, 0, options);
    let mut rng = GameRng::from_seed(u64::from(seat) + 100);
    let mut log = SeatLog {
        seat,
        acks: Vec::new(),
        updates: Vec::new(),
        end: v1::GameView::default(),
    };
    let mut answered: Option<u64> = None;
    let mut latest = v1::GameView::default();
    while let Some(item) = feed.next().await.expect("the feed keeps going") {
        let view = match item {
            FeedItem::View(view) => view,
            FeedItem::Update(update) => {
                log.updates.push(update.clone());
                match (update.action_complete, update.view) {
                    (true, Some(view)) => view,
                    _ => continue,
                }
            }
        };
        if view.seq < latest.seq {
            continue;
        }
        latest = view.clone();
        let mine = view.viewer_seat == Some(u32::from(seat)) && view.to_move == view.viewer_seat;
        if !mine || answered.is_some_and(|a| a >= view.seq) {
            continue;
        }
        let engine = view_from_wire(&view).unwrap();
        let legal = engine.legal.as_ref().expect("my turn has legal turns");
        let turn = legal.nth(rng.below(legal.count() as u32) as usize).unwrap();
        let action = turn_to_wire(&turn);
        match session
            .submit_retrying(&game_id, view.seq, action, 60)
            .await
            .expect("a legal turn is not refused")
        {
            Submitted::Accepted(_) => {
                log.acks.push((view.seq, action));
                answered = Some(view.seq);
                acked.lock().unwrap().push((game, Instant::now()));
            }
            Submitted::Stale => answered = Some(view.seq),
            Submitted::GaveUp { .. } => {}
        }
    }
    log.end = latest;
    log
}

/// Every acknowledged turn: its game, and when.
type Acked = Arc<Mutex<Vec<(usize, Instant)>>>;

fn count(acked: &Acked) -> usize {
    acked.lock().unwrap().len()
}

async fn wait_for(acked: &Acked, at_least: usize, deadline: Instant) {
    while count(acked) < at_least {
        assert!(
            Instant::now() < deadline,
            "the games stalled at {} turns",
            count(acked)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `GetView` and `GetOdds` asked of a replica that does not run the game are answered by the
/// one that does: the seat's own view, exactly, and the engine's deduction from it, turn
/// after turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_and_the_odds_asked_of_another_replica_are_the_seats_own() {
    let database_url = testing::fresh_postgres_url().await;
    let replicas = [
        start(&database_url, "127.0.0.1:0").await,
        start(&database_url, "127.0.0.1:0").await,
    ];
    let mut seats = Vec::new();
    for (i, replica) in replicas.iter().enumerate() {
        let connection = Connection::connect(&replica.url()).await.unwrap();
        seats.push(
            connection
                .register(&format!("Seat {i}"), true)
                .await
                .unwrap(),
        );
    }
    // Created on replica 0, which runs it; seat 1 asks replica 1.
    let seed = 901;
    let settings = v1::GameSettings {
        players: 2,
        visibility: v1::Visibility::Unlisted as i32,
        ..Default::default()
    };
    let game_id = seats[0].create_game(settings, Some(seed)).await.unwrap();
    for (i, session) in seats.iter().enumerate() {
        session.join(&game_id, Some(i as u32)).await.unwrap();
    }
    let mut game = Game::new(&GameConfig::new(2, seed)).unwrap();
    let mut face_down = 0;
    for turn in 0..8 {
        let mut to_move = None;
        for (seat, session) in seats.iter().enumerate() {
            let viewer = Viewer::Seat(seat as u8);
            let view = session.view(&game_id).await.unwrap();
            assert_eq!(
                engine_part(&view),
                view_to_wire(&game.view(viewer)),
                "seat {seat}, turn {turn}"
            );
            let odds = session
                .game_client()
                .get_odds(session.request(v1::GetOddsRequest {
                    game_id: game_id.clone(),
                }))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(odds.seq, view.seq);
            let expected: Vec<v1::CityOdds> = face_down_odds(&game.view(viewer))
                .iter()
                .map(odds_to_wire)
                .collect();
            assert_eq!(odds.cities, expected, "seat {seat}, turn {turn}");
            face_down += odds.cities.len();
            if view.to_move == view.viewer_seat {
                to_move = Some((seat, view));
            }
        }
        let (seat, view) = to_move.expect("a seat to move");
        let legal = view_from_wire(&view).unwrap().legal.expect("legal turns");
        let chosen = legal.nth(0).unwrap();
        seats[seat]
            .submit(&game_id, view.seq, turn_to_wire(&chosen))
            .await
            .unwrap();
        game.apply(seat as u8, &chosen).unwrap();
    }
    assert!(face_down > 0, "no face-down card was ever deduced");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_lose_nothing_when_one_dies_and_another_restarts() {
    let database_url = testing::fresh_postgres_url().await;
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(start(&database_url, "127.0.0.1:0").await);
    }
    let urls: Vec<String> = replicas.iter().map(Replica::url).collect();

    // Six games of 2, 3 and 4 players, each created on a different replica (which runs
    // it), each seat's player preferring yet another replica.
    let acked: Acked = Arc::default();
    let mut games = Vec::new();
    let mut seats = Vec::new();
    for (g, n) in [2u8, 3, 4, 2, 3, 4].into_iter().enumerate() {
        let creator = Connection::connect_any(&rotated(&urls, g))
            .await
            .unwrap()
            .register(&format!("Creator {g}"), true)
            .await
            .unwrap();
        // Seeded, to check every view against the engine's own redaction: so unlisted.
        let settings = v1::GameSettings {
            players: u32::from(n),
            visibility: v1::Visibility::Unlisted as i32,
            ..Default::default()
        };
        let seed = 500 + g as u64;
        let game_id = creator.create_game(settings, Some(seed)).await.unwrap();
        for seat in 0..n {
            let session = Connection::connect_any(&rotated(&urls, g + 1 + usize::from(seat)))
                .await
                .unwrap()
                .register(&format!("G{g}S{seat}"), true)
                .await
                .unwrap();
            session.join(&game_id, Some(u32::from(seat))).await.unwrap();
            seats.push(tokio::spawn(play_seat(
                session,
                game_id.clone(),
                g,
                seat,
                acked.clone(),
            )));
        }
        games.push((game_id, n, seed));
    }

    let deadline = Instant::now() + Duration::from_secs(240);
    // Mid-game, replica 0 (which runs games 0 and 3, created there) dies without a word.
    wait_for(&acked, 40, deadline).await;
    let killed_at = Instant::now();
    replicas[0].child.start_kill().expect("SIGKILL");
    replicas[0].child.wait().await.unwrap();
    // Play goes on: the games replica 0 ran are taken over once its lease ends.
    let resumed = loop {
        let first = acked
            .lock()
            .unwrap()
            .iter()
            // Answers already on their way when it died do not count.
            .find(|(g, at)| g % 3 == 0 && *at > killed_at + Duration::from_millis(100))
            .map(|(_, at)| *at);
        if let Some(at) = first {
            break at - killed_at;
        }
        assert!(
            Instant::now() < deadline,
            "the dead replica's games never resumed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };

    // Replica 1 is restarted gracefully: it hands its games over, stops, and comes back.
    let addr = replicas[1].addr.clone();
    let pid = replicas[1].child.id().unwrap();
    let terminated = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .await
        .unwrap();
    assert!(terminated.success());
    let status = tokio::time::timeout(Duration::from_secs(30), replicas[1].child.wait())
        .await
        .expect("a replica asked to stop stops")
        .unwrap();
    assert!(status.success(), "a graceful stop exits cleanly: {status}");
    replicas[1] = start(&database_url, &addr).await;

    let mut logs = Vec::new();
    for seat in seats {
        let log = tokio::time::timeout(deadline - Instant::now(), seat)
            .await
            .expect("every game finishes in time")
            .unwrap();
        logs.push(log);
    }

    // The checks, game by game, against the game's whole history (revealed at its end).
    let auditor = Connection::connect_any(&rotated(&urls, 2))
        .await
        .unwrap()
        .register("Auditor", true)
        .await
        .unwrap();
    let mut turns_checked = 0;
    let mut per_game: HashMap<&str, Vec<&SeatLog>> = HashMap::new();
    let mut log_iter = logs.iter();
    for (game_id, n, _) in &games {
        per_game.insert(game_id, log_iter.by_ref().take(usize::from(*n)).collect());
    }
    for (game_id, n, seed) in &games {
        let history = auditor.history(game_id).await.unwrap();
        assert!(history.seed.is_some(), "game {game_id} finished");
        let events: HashMap<u64, &v1::GameEvent> = history
            .entries
            .iter()
            .map(|e| (e.seq, e.event.as_ref().unwrap()))
            .collect();
        for log in &per_game[game_id.as_str()] {
            assert_eq!(
                log.end.status,
                v1::GameStatus::Finished as i32,
                "seat {} saw the end",
                log.seat
            );
            // Every acknowledged turn is the first event after the view it was chosen from.
            for (seq, action) in &log.acks {
                match events.get(&(seq + 1)).and_then(|e| e.kind.as_ref()) {
                    Some(Kind::TurnTaken(t)) => {
                        assert_eq!(t.seat, u32::from(log.seat));
                        assert_eq!(t.action.as_ref(), Some(action));
                        turns_checked += 1;
                    }
                    other => panic!("acknowledged turn at {} is lost: {other:?}", seq + 1),
                }
            }
            // The stream: every event this seat may see, once, in order.
            let seen: Vec<u64> = log.updates.iter().map(|u| u.seq).collect();
            let expected: Vec<u64> = history
                .entries
                .iter()
                .filter(|e| match e.event.as_ref().and_then(|e| e.kind.as_ref()) {
                    Some(Kind::HandDealt(h)) => h.seat == u32::from(log.seat),
                    _ => true,
                })
                .map(|e| e.seq)
                .collect();
            assert_eq!(
                seen, expected,
                "game {game_id} seat {}: no skip, no repeat",
                log.seat
            );
            // Every view is the seat's own redaction.
            let updates: Vec<&v1::GameUpdate> = log.updates.iter().collect();
            let checked = check_redaction(&updates, Viewer::Seat(log.seat), *seed, *n);
            assert!(
                checked >= seen.len() - usize::from(*n) - 1,
                "{checked} views checked"
            );
        }
    }
    assert!(
        turns_checked >= 100,
        "{turns_checked} acknowledged turns checked"
    );
    println!(
        "the dead replica's games resumed {resumed:?} after its SIGKILL (lease {LEASE_SECS} s)"
    );
    for mut replica in replicas.into_iter().skip(1) {
        let _ = replica.child.start_kill();
        let _ = replica.child.wait().await;
    }
}
