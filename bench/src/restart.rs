//! A restart with many unfinished games in the store: how long until the server answers
//! calls on them, and until every one of them is live again.

use std::time::Duration;

use theboss::v1;
use theboss_client::{Connection, Credentials};
use theboss_engine::GameRng;
use theboss_server::auth::{new_token, token_hash};
use theboss_server::domain::{GameInfo, GameStatus, PlayerInfo, Settings, Visibility};
use theboss_server::store::{self, Effects, NewPlayer, StoredAction, StoredGame};
use theboss_server::table::{Action, TableState};

use theboss_server::metrics::sample_value;
use theboss_server::metrics::scrape as scrape_metrics;

use crate::child;

const PLAYERS: usize = 4;
/// The restored games' turn clock: an hour, longer than any measurement.
const CLOCK_SECS: u32 = 3600;

/// Writes `games` running 4-player games into the store at `url`, each a few turns in, with
/// a turn clock (the server brings such games back at once, their clocks running; one
/// without a clock waits for its first call). Returns the credentials of one of their
/// players and the games' ids.
pub async fn populate(url: &str, games: usize) -> anyhow::Result<(Credentials, Vec<String>)> {
    let store = store::open(url).await?;
    let mut players = Vec::new();
    // Tokens as the server mints them: it refuses others without asking the store.
    let token = new_token();
    for i in 0..PLAYERS {
        let player = PlayerInfo {
            id: uuid::Uuid::new_v4().to_string(),
            display_name: format!("Restart {i}"),
            is_bot: true,
        };
        store
            .create_player(&NewPlayer {
                player: player.clone(),
                description: String::new(),
                token_hash: token_hash(&if i == 0 { token.clone() } else { new_token() }),
                created_at: 0,
            })
            .await?;
        players.push(player);
    }
    let now = theboss_server::domain::now_micros();
    let mut ids = Vec::with_capacity(games);
    let mut batch = Vec::new();
    let mut rng = GameRng::from_seed(7);
    for g in 0..games {
        let record = GameInfo {
            id: uuid::Uuid::new_v4().to_string(),
            settings: Settings::new(PLAYERS as u8, vec![], CLOCK_SECS, Visibility::Unlisted)?,
            seed: g as u64,
            created_by: players[0].id.clone(),
            created_at: 0,
            ladder: false,
            series: None,
            seed_salt: Some(theboss_server::domain::new_seed_salt()),
            seeded: false,
        };
        let mut table = TableState::new(&record.settings);
        let mut actions = Vec::new();
        let mut push = |action: Action, table: &mut TableState| -> anyhow::Result<()> {
            table.apply(&record, &action)?;
            actions.push(StoredAction {
                seq: actions.len() as u64 + 1,
                action,
                player_id: None,
                idempotency_key: None,
                // Played now: every clock runs out long after the measurement.
                at: now,
            });
            Ok(())
        };
        for (seat, player) in players.iter().enumerate() {
            let join = Action::Join {
                seat: seat as u8,
                player: player.clone(),
            };
            push(join, &mut table)?;
        }
        // Between 0 and 30 turns in: games of every length.
        for _ in 0..rng.below(31) {
            let seat = table.to_move().expect("a few turns in, the game runs");
            let turn = table.default_turn(seat).expect("a seat to move can play");
            push(
                Action::Turn {
                    seat,
                    turn,
                    by_timeout: false,
                },
                &mut table,
            )?;
        }
        ids.push(record.id.clone());
        batch.push((
            StoredGame { record, actions },
            Effects {
                status: GameStatus::Running,
                ..Effects::default()
            },
        ));
        if batch.len() == 500 {
            store.import_games(&batch).await?;
            batch.clear();
        }
    }
    store.import_games(&batch).await?;
    let credentials = Credentials {
        player_id: players[0].id.clone(),
        api_token: token,
        display_name: players[0].display_name.clone(),
    };
    Ok((credentials, ids))
}

pub struct Restart {
    pub games: usize,
    /// Start of the process → the first `GetView` of a restored game answered.
    pub first_answer: Duration,
    /// Start of the process → a `GetView` of every sampled game answered.
    pub sample_answered: Duration,
    pub sampled: usize,
    /// Start of the process → every game live again (its actor running, its clock too).
    pub all_live: Duration,
    /// The server's memory with every game live.
    pub rss: u64,
}

/// Starts a server on a store holding `ids` unfinished games and times how soon it answers.
pub async fn measure(
    url: &str,
    credentials: Credentials,
    ids: &[String],
) -> anyhow::Result<Restart> {
    let metrics = child::free_addr()?;
    let metrics_at = metrics.to_string();
    let mut flags = vec!["--log", "info", "--metrics-listen", &metrics_at];
    flags.extend(child::UNLIMITED_QUOTAS);
    let server = child::server(url, &flags, Duration::from_secs(600)).await?;
    let connection = Connection::connect(&server.url).await?;
    let session = connection.session(credentials);
    // A spread of games: the first, the last, and every hundredth between.
    let sample: Vec<&String> = ids
        .iter()
        .step_by((ids.len() / 100).max(1))
        .chain(ids.last())
        .collect();
    let mut first_answer = None;
    for id in &sample {
        loop {
            match session.view(id).await {
                Ok(view) if view.status == v1::GameStatus::Running as i32 => break,
                Ok(view) => anyhow::bail!("game {id} came back {:?}", view.status),
                Err(e) if e.is_transient() => tokio::time::sleep(Duration::from_millis(5)).await,
                Err(e) => return Err(e.into()),
            }
        }
        first_answer.get_or_insert_with(|| server.started.elapsed());
    }
    let sample_answered = server.started.elapsed();
    // Every game live: as many games run by the server as were stored, by its own count
    // (restored in bulk by one process, or claimed in batches by a replica).
    let owned = tokio::time::timeout(Duration::from_secs(600), async {
        loop {
            let scrape = scrape_metrics(metrics).await?;
            if sample_value(&scrape, "theboss_games_owned", &[]) >= ids.len() as f64 {
                return Ok::<_, std::io::Error>(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    anyhow::ensure!(
        matches!(owned, Ok(Ok(()))),
        "the server never ran all {} games",
        ids.len()
    );
    let all_live = server.started.elapsed();
    let rss = server.rss().unwrap_or(0);
    server.stop().await;
    Ok(Restart {
        games: ids.len(),
        first_answer: first_answer.unwrap_or_default(),
        sample_answered,
        sampled: sample.len(),
        all_live,
        rss,
    })
}
