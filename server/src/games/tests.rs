//! The directory's own tests: actors that stop, games loaded on demand, tables that expire.

use std::time::Duration;

use super::*;
use crate::actor::fixtures;
use crate::domain::{GameInfo, PlayerInfo, Settings, Visibility, now_micros};

/// Nobody plays: every seat forfeits within milliseconds and the game is aborted; then,
/// unwatched, its actor stops at once.
fn abandoned() -> ActorOptions {
    ActorOptions {
        clock_second: Duration::from_millis(1),
        idle_unload: Duration::from_millis(1),
        finished_unload: Duration::from_millis(1),
        ..ActorOptions::default()
    }
}

/// A started 2-player game with a one-second clock that nobody plays.
async fn abandoned_game(games: &Games, g: u64, players: &[PlayerInfo]) -> GameHandle {
    let record = GameInfo {
        id: format!("g{g}"),
        settings: Settings::new(2, vec![], 1, Visibility::Public).unwrap(),
        seed: g,
        created_by: "p0".into(),
        created_at: now_micros(),
        ladder: false,
        series: None,
        seed_salt: None,
        seeded: false,
    };
    let handle = games.create(record).await.unwrap();
    for (seat, p) in players.iter().enumerate() {
        handle.join(p.clone(), Some(seat as u8)).await.unwrap();
    }
    handle
}

async fn stopped(handles: &[GameHandle]) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while !handles.iter().all(GameHandle::is_closed) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the abandoned games end and their actors stop");
}

#[tokio::test]
async fn a_finished_game_stops_once_its_last_watcher_leaves() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let players = fixtures::two_players(&*store).await;
    let games = Games::new(store, abandoned(), &Limits::unlimited(), None);
    let handle = abandoned_game(&games, 0, &players).await;
    let mut watching = handle.watch(None).await.unwrap();
    while !watching.latest.state.status.is_over() {
        watching.latest = watching.live.recv().await.unwrap();
    }
    assert!(!handle.is_closed(), "watched, the game stays");
    // The watcher leaves; nothing else ever asks for the game again.
    drop(watching);
    stopped(&[handle]).await;
}

#[tokio::test]
async fn the_directory_forgets_games_whose_actors_stopped() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let players = fixtures::two_players(&*store).await;
    let games = Games::new(store, abandoned(), &Limits::unlimited(), None);
    games.sweep_at.store(3, Ordering::Relaxed);
    let mut handles = Vec::new();
    for g in 0..3 {
        handles.push(abandoned_game(&games, g, &players).await);
    }
    stopped(&handles).await;
    assert_eq!(games.directory_len(), 3, "not swept before it is due");
    // The next game looked up sweeps the three stopped ones away.
    let _ = games.get("unknown").await;
    assert_eq!(games.directory_len(), 0);
    // A stopped game is loaded again when asked for.
    let again = games.get("g0").await.unwrap();
    assert!(again.latest().await.unwrap().state.status.is_over());
}

/// A game that is over is let go sooner than one still to be played: nothing will happen to
/// it any more, and a server that finishes many games an hour would otherwise hold each for
/// the idle delay meant for games that wait for their players.
#[tokio::test]
async fn a_finished_game_is_let_go_sooner_than_an_idle_running_one() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let players = fixtures::two_players(&*store).await;
    let options = ActorOptions {
        clock_second: Duration::from_millis(1),
        idle_unload: Duration::from_secs(3600),
        finished_unload: Duration::from_millis(20),
        ..ActorOptions::default()
    };
    let games = Games::new(store, options, &Limits::unlimited(), None);
    let finished = abandoned_game(&games, 0, &players).await;
    running_game(&games, "clockless", 0, &players).await;
    stopped(&[finished]).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        games.handle("clockless").is_some(),
        "a game still to be played keeps the longer delay"
    );
    let again = games.get("g0").await.unwrap();
    assert!(again.latest().await.unwrap().state.status.is_over());
}

/// A started 2-player game with a clock of `clock` seconds (0: none).
async fn running_game(games: &Games, id: &str, clock: u32, players: &[PlayerInfo]) {
    let record = GameInfo {
        settings: Settings::new(2, vec![], clock, Visibility::Public).unwrap(),
        ..table(id, now_micros())
    };
    let handle = games.create(record).await.unwrap();
    for (seat, p) in players.iter().enumerate() {
        handle.join(p.clone(), Some(seat as u8)).await.unwrap();
    }
}

/// A running game without a clock that nobody plays or watches holds no actor: it is
/// let go, loaded again when asked for, and neither a restart nor a takeover loads it;
/// one with a clock runs all the time, its clock must fire.
#[tokio::test]
async fn games_without_a_clock_load_only_when_asked_for() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let players = fixtures::two_players(&*store).await;
    let options = ActorOptions {
        idle_unload: Duration::from_millis(20),
        ..ActorOptions::default()
    };
    let games = Games::new(store.clone(), options.clone(), &Limits::unlimited(), None);
    running_game(&games, "clockless", 0, &players).await;
    running_game(&games, "clocked", 3600, &players).await;
    tokio::time::timeout(Duration::from_secs(10), async {
        while games.handle("clockless").is_some() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the game without a clock is let go");
    assert!(games.handle("clocked").is_some(), "a clock keeps its game");
    let again = games.get("clockless").await.unwrap();
    assert_eq!(
        again.latest().await.unwrap().state.status,
        crate::domain::GameStatus::Running
    );

    // A restart restores only the game whose clock must run.
    let restarted = Arc::new(Games::new(
        store.clone(),
        options.clone(),
        &Limits::unlimited(),
        None,
    ));
    assert_eq!(restarted.restore().await.unwrap(), 1);
    tokio::time::timeout(Duration::from_secs(10), async {
        while restarted.handle("clocked").is_none() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the clocked game is restored");
    assert!(restarted.handle("clockless").is_none());
    // A takeover of both runs the clocked one at once, the other when asked for.
    let taking_over = Games::new(store, options, &Limits::unlimited(), None);
    Directory::adopt(&taking_over, &["clockless".into(), "clocked".into()]).await;
    assert!(taking_over.handle("clocked").is_some());
    assert!(taking_over.handle("clockless").is_none());
}

fn table(id: &str, created_at: i64) -> GameInfo {
    GameInfo {
        id: id.into(),
        settings: Settings::new(2, vec![], 0, Visibility::Public).unwrap(),
        seed: 1,
        created_by: "p0".into(),
        created_at,
        ladder: false,
        series: None,
        seed_salt: None,
        seeded: false,
    }
}

#[tokio::test]
async fn a_creator_has_few_tables_waiting_and_a_table_not_filled_in_time_expires() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    fixtures::two_players(&*store).await;
    let options = ActorOptions {
        open_ttl: Duration::from_secs(60),
        ..ActorOptions::default()
    };
    let games = Games::new(
        store.clone(),
        options,
        &Limits {
            open_games_per_player: 2,
            ..Limits::unlimited()
        },
        None,
    );
    // One table created long ago (its actor unloaded, say, by a restart), one now.
    let old = now_micros() - 120_000_000;
    store
        .create_game(&table("old", old), &[], None)
        .await
        .unwrap()
        .unwrap();
    games.create(table("new", now_micros())).await.unwrap();
    let Err(GameError::Limit { kind, subject, .. }) =
        games.create(table("third", now_micros())).await
    else {
        panic!("a third table waiting");
    };
    assert_eq!(
        (kind, subject.as_str()),
        (crate::game_error::LimitKind::OpenGames, "player:p0")
    );
    assert_eq!(games.sweep_expired().await.unwrap(), 1, "only the old one");
    let expired = games.get("old").await.unwrap().latest().await.unwrap();
    assert_eq!(expired.state.status, crate::domain::GameStatus::Aborted);
    assert!(matches!(
        &expired.events[..],
        [crate::table::TableEvent::Aborted { reason }] if reason == crate::table::EXPIRED
    ));
    // Its place is free again.
    games.create(table("third", now_micros())).await.unwrap();
    assert_eq!(games.sweep_expired().await.unwrap(), 0);
}

#[tokio::test]
async fn a_loaded_table_expires_on_its_own_clock() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    fixtures::two_players(&*store).await;
    let options = ActorOptions {
        open_ttl: Duration::from_millis(100),
        ..ActorOptions::default()
    };
    let games = Games::new(store, options, &Limits::unlimited(), None);
    let handle = games.create(table("soon", now_micros())).await.unwrap();
    let mut watching = handle.watch(None).await.unwrap();
    let aborted = tokio::time::timeout(Duration::from_secs(10), watching.live.recv())
        .await
        .expect("expired within its time")
        .unwrap();
    assert_eq!(aborted.state.status, crate::domain::GameStatus::Aborted);
}
