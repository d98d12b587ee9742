//! The soak: one server on PostgreSQL for a given time, with a ladder of bots of every
//! strategy and rounds of load-generator games, sampled once a period (the server's RSS, its
//! open streams and actions/s from its own `/metrics`, and the load's p99). It fails on any
//! error (a failed game or bot, a store error, an INTERNAL or UNKNOWN status) and on memory
//! that keeps growing once warmed up.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use theboss_bot::ladder::{self, LadderOptions};
use theboss_bot::load::{self, LoadConfig};
use theboss_bot::strategy::StrategyKind;
use theboss_client::Connection;
use theboss_server::metrics::sample_value;
use theboss_server::metrics::scrape as scrape_metrics;
use tokio::task::JoinSet;

use crate::stats::{Ms, Sample};

#[derive(Debug, Clone)]
pub struct SoakOptions {
    pub duration: Duration,
    pub period: Duration,
    /// Ladder bots of each strategy.
    pub bots: usize,
    /// Concurrent 4-player games in each load round.
    pub load_games: usize,
    /// Rest between load rounds (the load is a steady trickle, not a flood: the ladder's
    /// bots must keep their turn clocks).
    pub load_pause: Duration,
}

/// One period of the soak.
pub struct Row {
    pub at: Duration,
    pub rss: u64,
    pub streams: f64,
    pub actors: f64,
    pub actions_per_sec: f64,
    pub load_p99: Duration,
    pub ladder_games: f64,
}

pub struct Soak {
    pub rows: Vec<Row>,
    /// Resident memory once warmed up: the median of the middle third of the samples and
    /// of the last third.
    pub rss_middle: u64,
    pub rss_end: u64,
    pub load_games: usize,
    pub errors: Vec<String>,
}

impl Soak {
    /// Memory that grew by more than 10% (and 16 MiB) from the middle of the run to its end.
    pub fn memory_grows(&self) -> bool {
        let growth = self.rss_end.saturating_sub(self.rss_middle);
        growth > (self.rss_middle / 10).max(16 << 20)
    }
}

/// Latencies of the load rounds that ended since the last sample.
type Latencies = Arc<Mutex<Vec<Duration>>>;

pub async fn run(database_url: &str, options: &SoakOptions) -> anyhow::Result<Soak> {
    let metrics_at = crate::child::free_addr()?;
    let metrics_addr = metrics_at.to_string();
    let mut flags = vec!["--metrics-listen", &metrics_addr];
    flags.extend(crate::child::UNLIMITED_REGISTRATIONS);
    let server = crate::server(database_url, &flags).await?;
    let connection = Connection::connect(&server.url).await?;
    let errors: Arc<Mutex<Vec<String>>> = Arc::default();
    let started = Instant::now();
    let deadline = started + options.duration;

    let mut bots = JoinSet::new();
    for kind in StrategyKind::ALL {
        for i in 0..options.bots {
            let session = connection.register(&format!("{kind} {i}"), true).await?;
            let errors = errors.clone();
            bots.spawn(async move {
                let options = LadderOptions {
                    players: 0,
                    duplicate: false,
                    games: None,
                    jitter: Duration::from_millis(300),
                    play: Default::default(),
                };
                if let Err(error) = ladder::run(&session, ladder::factory(kind), &options).await {
                    errors
                        .lock()
                        .unwrap()
                        .push(format!("ladder bot {kind} {i}: {error}"));
                }
            });
        }
    }

    let latencies: Latencies = Arc::default();
    let load = {
        let (latencies, errors, options) = (latencies.clone(), errors.clone(), options.clone());
        let config = LoadConfig {
            servers: vec![server.url.clone()],
            games: options.load_games,
            players: 4,
            rounds: 1,
        };
        tokio::spawn(async move {
            let mut games = 0;
            while Instant::now() < deadline {
                match load::run(&config).await {
                    Ok(report) => {
                        games += report.games;
                        if report.errors > 0 {
                            errors
                                .lock()
                                .unwrap()
                                .push(format!("{} load games failed", report.errors));
                        }
                        latencies.lock().unwrap().extend(report.latencies);
                    }
                    Err(error) => errors.lock().unwrap().push(format!("load: {error}")),
                }
                tokio::time::sleep(options.load_pause).await;
            }
            games
        })
    };

    let mut rows = Vec::new();
    let mut committed = sample(metrics_at).await?.actions;
    let mut last = Instant::now();
    let mut ticker =
        tokio::time::interval_at(tokio::time::Instant::now() + options.period, options.period);
    while Instant::now() + options.period / 2 < deadline {
        ticker.tick().await;
        let now = sample(metrics_at).await?;
        let elapsed = last.elapsed();
        last = Instant::now();
        let load = Sample::new(std::mem::take(&mut *latencies.lock().unwrap()));
        let row = Row {
            at: started.elapsed(),
            rss: server.rss().context("the server's RSS")?,
            streams: now.streams,
            actors: now.actors,
            actions_per_sec: (now.actions - committed) / elapsed.as_secs_f64(),
            load_p99: load.p99(),
            ladder_games: now.ladder_games,
        };
        committed = now.actions;
        eprintln!("soak: {row}");
        if now.failures > 0.0 {
            errors.lock().unwrap().push(format!(
                "{} store errors or INTERNAL/UNKNOWN answers (see /metrics)",
                now.failures
            ));
        }
        rows.push(row);
        if !errors.lock().unwrap().is_empty() {
            break;
        }
    }
    let load_games = load.await.context("the load task")?;
    bots.shutdown().await;
    server.stop().await;

    if rows.len() < 3 {
        bail!("the soak needs at least three periods: give a longer duration");
    }
    let third = rows.len() / 3;
    let median = |rows: &[Row]| {
        let mut rss: Vec<u64> = rows.iter().map(|r| r.rss).collect();
        rss.sort_unstable();
        rss[rss.len() / 2]
    };
    let errors = errors.lock().unwrap().clone();
    Ok(Soak {
        rss_middle: median(&rows[third..rows.len() - third]),
        rss_end: median(&rows[rows.len() - third..]),
        rows,
        load_games,
        errors,
    })
}

/// What the soak reads from the server's `/metrics`.
struct Scraped {
    actions: f64,
    streams: f64,
    actors: f64,
    ladder_games: f64,
    /// Store errors, and answers that mean a bug.
    failures: f64,
}

async fn sample(addr: std::net::SocketAddr) -> anyhow::Result<Scraped> {
    let text = scrape_metrics(addr).await.context("scraping /metrics")?;
    let value = |name, labels: &[(&str, &str)]| sample_value(&text, name, labels);
    Ok(Scraped {
        actions: value("theboss_actions_committed_total", &[]),
        streams: value("theboss_watch_streams", &[]),
        actors: value("theboss_game_actors", &[]),
        ladder_games: value("theboss_ladder_games_formed_total", &[]),
        failures: value("theboss_store_errors_total", &[])
            + value("theboss_rpc_handled_total", &[("code", "INTERNAL")])
            + value("theboss_rpc_handled_total", &[("code", "UNKNOWN")]),
    })
}

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// One line of the table (also the progress line).
impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "| {:.1} | {:.1} | {} | {} | {:.0} | {} | {} |",
            self.at.as_secs_f64() / 60.0,
            mib(self.rss),
            self.streams,
            self.actors,
            self.actions_per_sec,
            Ms(self.load_p99),
            self.ladder_games
        )
    }
}

impl std::fmt::Display for Soak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "| minute | server RSS (MiB) | open streams | game actors | actions/s | load p99 (SubmitAction → every seat's stream) | ladder games formed |"
        )?;
        writeln!(f, "|---|---|---|---|---|---|---|")?;
        for row in &self.rows {
            writeln!(f, "{row}")?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "Load games played: {}. RSS median, middle third {:.1} MiB, last third {:.1} MiB: {}.",
            self.load_games,
            mib(self.rss_middle),
            mib(self.rss_end),
            if self.memory_grows() {
                "GROWING"
            } else {
                "flat"
            }
        )?;
        if self.errors.is_empty() {
            writeln!(f, "Errors: none.")
        } else {
            writeln!(f, "Errors:")?;
            for error in &self.errors {
                writeln!(f, "- {error}")?;
            }
            Ok(())
        }
    }
}
