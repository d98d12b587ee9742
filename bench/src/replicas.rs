//! Several replicas of the server on one PostgreSQL database: throughput with 1, 2 and 3
//! replicas on this machine (its two cores are shared by all of them, so the figure shows
//! what replicas cost, not what they gain), the servers' CPU per action (the cost of
//! forwarding and cross-replica fan-out), and the time from a replica's SIGKILL to the next
//! accepted action of a game it ran.

use std::time::{Duration, Instant};

use theboss::convert::{turn_to_wire, view_from_wire};
use theboss::v1;
use theboss_bot::load::{self, LoadConfig, LoadReport, SlotPlayers};
use theboss_bot::strategy::{Strategy, random::Random};
use theboss_client::Connection;

use crate::child::{self, Child};
use crate::stats::Sample;

pub struct Scale {
    pub replicas: usize,
    pub load: LoadReport,
    /// The servers' CPU time per persisted action.
    pub cpu_per_action: Duration,
}

async fn replicas(url: &str, n: usize, lease_secs: u64) -> anyhow::Result<Vec<Child>> {
    let mut replicas = Vec::with_capacity(n);
    for _ in 0..n {
        let lease = lease_secs.to_string();
        let mut flags = vec!["--lease-secs", &lease, "--log", "warn,theboss_server=info"];
        flags.extend(child::UNLIMITED_QUOTAS);
        replicas.push(child::server(url, &flags, Duration::from_secs(60)).await?);
    }
    Ok(replicas)
}

/// `games` concurrent 4-player games spread over `n` replicas, each seat playing through
/// another replica than the game's.
pub async fn throughput(url: &str, n: usize, games: usize) -> anyhow::Result<Scale> {
    let servers = replicas(url, n, 5).await?;
    let before: Duration = servers.iter().filter_map(Child::cpu).sum();
    let load = load::run(&LoadConfig {
        servers: servers.iter().map(|s| s.url.clone()).collect(),
        games,
        players: 4,
        rounds: 1,
        record_acks: false,
        players_of_slot: SlotPlayers::NewEveryGame,
    })
    .await?;
    let after: Duration = servers.iter().filter_map(Child::cpu).sum();
    anyhow::ensure!(load.errors == 0, "{} load games failed", load.errors);
    for server in servers {
        server.stop().await;
    }
    let cpu_per_action = (after - before) / u32::try_from(load.actions.max(1)).unwrap_or(u32::MAX);
    Ok(Scale {
        replicas: n,
        load,
        cpu_per_action,
    })
}

pub struct Failover {
    pub lease: Duration,
    /// SIGKILL of a game's replica → the game's next action accepted, once per game.
    pub times: Sample,
}

/// Three replicas; games run by the first; it is killed, and a player on another replica
/// submits its game's next turn again and again (one idempotency key) until it is accepted.
pub async fn failover(url: &str, games: usize, lease_secs: u64) -> anyhow::Result<Failover> {
    let mut servers = replicas(url, 3, lease_secs).await?;
    let doomed = Connection::connect(&servers[0].url).await?;
    let survivor =
        Connection::connect_any(&[servers[1].url.clone(), servers[2].url.clone()]).await?;
    let mut played = Vec::new();
    for g in 0..games {
        // Created on the replica about to die: it runs them.
        let creator = doomed.register(&format!("Doomed {g}"), true).await?;
        // Seeded, so every run fails over the same deals: a seeded game must be unlisted.
        let settings = v1::GameSettings {
            players: 2,
            visibility: v1::Visibility::Unlisted as i32,
            ..Default::default()
        };
        let game_id = creator.create_game(settings, Some(g as u64)).await?;
        let mut seats = Vec::new();
        for s in 0..2u32 {
            let seat = survivor
                .register(&format!("Survivor {g}.{s}"), true)
                .await?;
            seat.join(&game_id, Some(s)).await?;
            seats.push(seat);
        }
        played.push((game_id, seats));
    }
    let killed = Instant::now();
    servers.remove(0).kill().await;
    let mut tasks = tokio::task::JoinSet::new();
    for (g, (game_id, seats)) in played.into_iter().enumerate() {
        tasks.spawn(async move {
            let mut random = Random::new(g as u64);
            let key = uuid::Uuid::new_v4().to_string();
            loop {
                // Whoever is to move, from wherever the game is answered now.
                let Ok(view) = seats[0].view(&game_id).await else {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let Some(to_move) = view.to_move else {
                    anyhow::bail!("game {game_id} is not running");
                };
                let seat = &seats[to_move as usize];
                let mine = seat.view(&game_id).await?;
                let turn = random.choose(&view_from_wire(&mine)?, None);
                match seat
                    .submit_with_key(&game_id, mine.seq, &key, turn_to_wire(&turn))
                    .await
                {
                    Ok(_) => return Ok(killed.elapsed()),
                    Err(e) if e.is_transient() => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        });
    }
    let mut times = Vec::new();
    while let Some(done) = tasks.join_next().await {
        times.push(done??);
    }
    for server in servers {
        server.stop().await;
    }
    Ok(Failover {
        lease: Duration::from_secs(lease_secs),
        times: Sample::new(times),
    })
}
