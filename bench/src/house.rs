//! What a house-bot game costs the server: one person (a random player over
//! gRPC, following its `WatchGame` stream as a page does) plays 4-player tables whose other
//! three seats are house bots of one strategy, one game after the other; the server's CPU
//! per game and per house turn, beside the same games with all four seats played by remote
//! clients, measured in the same run on the same server.

use std::fmt;
use std::time::{Duration, Instant};

use theboss::convert::{turn_to_wire, view_from_wire};
use theboss::v1;
use theboss_bot::strategy::{Strategy, random::Random};
use theboss_client::{Connection, Session};

use crate::child::{self, Child};
use crate::latency;

pub struct Row {
    pub label: String,
    pub games: usize,
    /// Turns of every seat, and of the house bots alone.
    pub turns: usize,
    pub house_turns: usize,
    pub server_cpu: Duration,
    pub wall: Duration,
}

pub struct HouseReport {
    pub think_ms: u64,
    pub rows: Vec<Row>,
}

pub async fn run(database_url: &str, games: usize, think_ms: u64) -> anyhow::Result<HouseReport> {
    let think = think_ms.to_string();
    let mut flags = child::UNLIMITED_QUOTAS.to_vec();
    flags.extend(["--house-bot-think-ms", think.as_str()]);
    let server = child::server(database_url, &flags, Duration::from_secs(60)).await?;
    let connection = Connection::connect(&server.url).await?;
    let mut rows = Vec::new();

    let mut seats = Vec::new();
    for i in 0..4 {
        seats.push(connection.register(&format!("remote {i}"), true).await?);
    }
    let (started, before) = (Instant::now(), cpu(&server)?);
    for g in 0..games {
        latency::play_one(
            &seats,
            g as u64,
            &mut Vec::new(),
            &mut Vec::new(),
            None,
            None,
        )
        .await?;
    }
    let (server_cpu, wall) = (cpu(&server)? - before, started.elapsed());
    rows.push(Row {
        label: "four remote players (no house bot)".into(),
        games,
        turns: 0,
        house_turns: 0,
        server_cpu,
        wall,
    });

    let person = connection.register("person", false).await?;
    for (label, strategy) in [
        ("random", v1::BotStrategy::Random),
        ("heuristic", v1::BotStrategy::Heuristic),
        ("ismcts", v1::BotStrategy::Ismcts),
    ] {
        let (started, before) = (Instant::now(), cpu(&server)?);
        let mut ids = Vec::new();
        for g in 0..games {
            ids.push(play_against_house(&person, strategy, g as u64).await?);
        }
        let (server_cpu, wall) = (cpu(&server)? - before, started.elapsed());
        let (mut turns, mut house_turns) = (0, 0);
        for id in &ids {
            for entry in person.history(id).await?.entries {
                if let Some(v1::game_event::Kind::TurnTaken(t)) = entry.event.and_then(|e| e.kind) {
                    turns += 1;
                    house_turns += usize::from(t.seat != 0);
                }
            }
        }
        rows.push(Row {
            label: format!("one person and three {label} house bots"),
            games,
            turns,
            house_turns,
            server_cpu,
            wall,
        });
    }
    server.stop().await;
    Ok(HouseReport { think_ms, rows })
}

fn cpu(server: &Child) -> anyhow::Result<Duration> {
    server
        .cpu()
        .ok_or_else(|| anyhow::anyhow!("cannot read the server's CPU time"))
}

/// One game of `person` (seat 0) against three house bots; returns its id.
async fn play_against_house(
    person: &Session,
    strategy: v1::BotStrategy,
    seed: u64,
) -> anyhow::Result<String> {
    let game_id = person
        .create_game_with(v1::CreateGameRequest {
            settings: Some(v1::GameSettings {
                players: 4,
                ..Default::default()
            }),
            seed: None,
            house_bots: vec![strategy as i32; 3],
        })
        .await?;
    person.join(&game_id, Some(0)).await?;
    let mut stream = person
        .watch(v1::WatchGameRequest {
            game_id: game_id.clone(),
            after_seq: None,
            update_views: v1::UpdateViews::ActionComplete as i32,
        })
        .await?;
    let mut random = Random::new(seed);
    while let Some(message) = stream.message().await? {
        let Some(view) = message.into_view() else {
            continue;
        };
        if view.status == v1::GameStatus::Finished as i32 {
            return Ok(game_id);
        }
        if view.to_move == Some(0) && view.legal.is_some() {
            let turn = random.choose(&view_from_wire(&view)?, None);
            person
                .submit(&game_id, view.seq, turn_to_wire(&turn))
                .await?;
        }
    }
    anyhow::bail!("the stream of game {game_id} ended before the game")
}

impl fmt::Display for HouseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "House bots: server CPU per 4-player game, one game at a time (search: {} ms a turn)",
            self.think_ms
        )?;
        writeln!(
            f,
            "  {:<42} {:>6} {:>18} {:>14} {:>18} {:>12}",
            "tables",
            "games",
            "turns (house) /game",
            "CPU per game",
            "CPU per house turn",
            "wall per game"
        )?;
        for row in &self.rows {
            let games = row.games.max(1) as u32;
            let per_turn = if row.house_turns > 0 {
                format!(
                    "{:.2} ms",
                    row.server_cpu.as_secs_f64() * 1e3 / row.house_turns as f64
                )
            } else {
                "–".to_string()
            };
            let turns = if row.turns > 0 {
                format!(
                    "{:.0} ({:.0})",
                    row.turns as f64 / f64::from(games),
                    row.house_turns as f64 / f64::from(games)
                )
            } else {
                "–".to_string()
            };
            writeln!(
                f,
                "  {:<42} {:>6} {:>18} {:>11.1} ms {:>18} {:>10.2} s",
                row.label,
                row.games,
                turns,
                (row.server_cpu / games).as_secs_f64() * 1e3,
                per_turn,
                (row.wall / games).as_secs_f64()
            )?;
        }
        Ok(())
    }
}
