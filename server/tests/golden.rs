//! Games stored by earlier versions of the server must load and replay to the same outcome
//! forever: the same deals, the same money, the same winners.
//!
//! `golden/v1/theboss.db` is an SQLite store written by the server as it was before the log
//! had a versioned format (format 1), holding ten games of every kind: finished games of 2, 3
//! and 4 players with default and optional city sets, turns played by timeout, a game aborted
//! after every seat forfeited, an open table with a leave, a game in its second round, and a
//! rated ladder game. `golden/v1/facts.json` is what that server replayed them to. Neither file
//! is ever regenerated: they are the contract with every store in the field.

mod common;
#[path = "golden/facts.rs"]
mod facts;

use std::path::Path;
use std::sync::Arc;

use facts::GameFacts;
use theboss_engine::{Event, RulesVersion};
use theboss_server::store::prelude::*;
use theboss_server::store::{Effects, SqliteStore, StoredGame, Traced};
use theboss_server::table::{TableEvent, TableState};
use theboss_server::testing::{self, TestServer};
use theboss_server::{Options, store::PostgresStore};

fn golden(version: &str) -> (Vec<GameFacts>, tempfile::TempDir, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(version);
    let facts = serde_json::from_str(&std::fs::read_to_string(dir.join("facts.json")).unwrap())
        .expect("facts.json");
    // A copy: opening a store migrates it.
    let copy = tempfile::tempdir().unwrap();
    std::fs::copy(dir.join("theboss.db"), copy.path().join("theboss.db")).unwrap();
    let url = format!("sqlite://{}", copy.path().join("theboss.db").display());
    (facts, copy, url)
}

/// What a stored game replays to, by today's code.
fn replay(stored: &StoredGame) -> (GameFacts, Effects) {
    let mut table = TableState::new(&stored.record.settings);
    let mut deals = Vec::new();
    let mut events = 0u64;
    for action in &stored.actions {
        let happened = table
            .apply(&stored.record, &action.action)
            .unwrap_or_else(|e| {
                panic!(
                    "game {}: action {} replays: {e}",
                    stored.record.id, action.seq
                )
            });
        events += happened.len() as u64;
        let new_round = happened.iter().any(|e| {
            matches!(e, TableEvent::Game { event, .. } if matches!(event.event, Event::RoundStarted { .. }))
        });
        if new_round {
            deals.push(facts::deal(table.game.as_ref().expect("a dealt game")));
        }
    }
    let facts = GameFacts {
        game_id: stored.record.id.clone(),
        players: stored.record.settings.players(),
        ladder: stored.record.ladder,
        status: table.status.as_str().to_string(),
        actions: stored.actions.len() as u64,
        events,
        money: table.money(),
        winners: table.winners(),
        deals,
    };
    let effects = Effects {
        status: table.status,
        winners: table.winners(),
        money: if table.status.is_over() {
            table.money()
        } else {
            vec![]
        },
        acted: table.acted.clone(),
        row_unchanged: false,
        rating: None,
        caps: None,
    };
    (facts, effects)
}

/// The deals a stored game's first actions make under other rules (its later turns may
/// not even be legal under them).
fn deals_under(stored: &StoredGame) -> Vec<facts::Deal> {
    let mut table = TableState::new(&stored.record.settings);
    let mut deals = Vec::new();
    for action in &stored.actions {
        let Ok(happened) = table.apply(&stored.record, &action.action) else {
            break;
        };
        if happened.iter().any(|e| {
            matches!(e, TableEvent::Game { event, .. } if matches!(event.event, Event::RoundStarted { .. }))
        }) {
            deals.push(facts::deal(table.game.as_ref().expect("a dealt game")));
        }
    }
    deals
}

async fn assert_replays(store: &dyn Store, expected: &[GameFacts]) -> Vec<(StoredGame, Effects)> {
    let mut games = Vec::new();
    for facts in expected {
        let stored = store
            .load_game(&facts.game_id)
            .await
            .expect("a readable game")
            .expect("a stored game");
        assert_eq!(
            stored.record.settings.rules(),
            RulesVersion::V1,
            "game {} was created before rules versions: version 1",
            facts.game_id
        );
        let (replayed, effects) = replay(&stored);
        assert_eq!(&replayed, facts, "game {}", facts.game_id);
        if !facts.deals.is_empty() {
            // Its version matters: under today's deal the same seed deals other hands.
            let mut newest = stored.clone();
            newest.record.settings = newest.record.settings.with_rules(RulesVersion::LATEST);
            let other = deals_under(&newest);
            assert_ne!(other.first(), facts.deals.first(), "game {}", facts.game_id);
        }
        games.push((stored, effects));
    }
    games
}

#[tokio::test]
async fn version_1_games_load_and_replay_to_the_same_outcome() {
    let (expected, _dir, url) = golden("v1");
    assert_eq!(expected.len(), 10);
    let kinds: Vec<(&str, u8)> = expected
        .iter()
        .map(|f| (f.status.as_str(), f.players))
        .collect();
    for kind in [
        ("finished", 2),
        ("finished", 3),
        ("finished", 4),
        ("running", 4),
        ("open", 3),
        ("aborted", 2),
    ] {
        assert!(
            kinds.contains(&kind),
            "the golden store has a {kind:?} game"
        );
    }
    let store = SqliteStore::connect(&url)
        .await
        .expect("the golden store opens");
    let games = assert_replays(&store, &expected).await;

    // The same games moved into PostgreSQL read back the same.
    let pg = PostgresStore::connect(&testing::fresh_postgres_url().await)
        .await
        .unwrap();
    let mut players = std::collections::HashMap::new();
    for (stored, _) in &games {
        for action in &stored.actions {
            if let theboss_server::table::Action::Join { player, .. } = &action.action {
                players.insert(player.id.clone(), player.clone());
            }
        }
    }
    for (i, player) in players.values().enumerate() {
        pg.create_player(&theboss_server::store::NewPlayer {
            player: player.clone(),
            description: String::new(),
            token_hash: format!("golden-{i}"),
            created_at: 0,
        })
        .await
        .unwrap();
    }
    pg.import_games(&games).await.unwrap();
    assert_replays(&pg, &expected).await;
}

#[tokio::test]
async fn a_server_on_a_version_1_store_serves_its_games() {
    let (expected, _dir, url) = golden("v1");
    let store: Arc<dyn Store> = Arc::new(Traced::new(SqliteStore::connect(&url).await.unwrap()));
    // The store's open table was created long ago: served as it is stored, not expired.
    let options = Options {
        actor: theboss_server::ActorOptions {
            open_ttl: std::time::Duration::from_secs(100 * 365 * 86_400),
            ..theboss_server::ActorOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::start(store, options).await;
    let viewer = common::player(&server, "Golden viewer").await;
    for facts in &expected {
        let view = common::view(&viewer, &facts.game_id).await;
        let status = theboss::v1::GameStatus::try_from(view.status).unwrap();
        assert_eq!(
            status
                .as_str_name()
                .trim_start_matches("GAME_STATUS_")
                .to_lowercase(),
            facts.status,
            "game {}",
            facts.game_id
        );
        assert_eq!(view.seq, facts.events, "game {}", facts.game_id);
        assert_eq!(view.settings.as_ref().unwrap().rules_version, 1);
        if facts.status == "finished" {
            let winners: Vec<u32> = facts.winners.iter().map(|&w| u32::from(w)).collect();
            assert_eq!(view.outcome.unwrap().winners, winners);
            assert!(
                common::history(&viewer, &facts.game_id)
                    .await
                    .seed
                    .is_some()
            );
        }
    }
    server.stop().await;
}
