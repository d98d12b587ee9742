//! `theboss-bench`: the service's figures, each printed beside the limit it is bounded by,
//! measured in the same run on the same machine (these machines are noisy; ratios are not).
//!
//! Servers run as child processes of this binary (`theboss-bench serve`, the same code as
//! `theboss-server`), so that what is measured crosses a real socket between processes.
//! One command runs everything: `cargo run --release -p theboss-bench`.

mod attack;
mod child;
mod failover_db;
mod floor;
mod history;
mod house;
mod instructions;
mod latency;
mod limits;
mod replicas;
mod report;
mod restart;
mod seating;
mod soak;
mod stats;
mod streams;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use theboss_bot::load::{self, LoadConfig, SlotPlayers};
use theboss_server::store::PostgresStore;
use tracing_subscriber::EnvFilter;

use crate::report::{Backend, Report};

/// The allocator of `theboss-server`, so that the server this binary runs (`serve`) is that
/// one (see `server/src/main.rs`).
#[cfg(not(feature = "dhat-heap"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// With `dhat-heap`, dhat's allocator, which records every allocation's site.
#[cfg(feature = "dhat-heap")]
#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

#[derive(Debug, Parser)]
#[command(
    name = "theboss-bench",
    version,
    about = "The Boss service's benchmark: its figures beside the limits of the same machine"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs the game server (what `theboss-server` runs); used by the benchmark itself.
    #[command(hide = true)]
    Serve(Box<theboss_server::Config>),
    /// The soak: a ladder of bots of every strategy and rounds of load-generator games
    /// against one server on PostgreSQL, sampled every period; fails on any error or on
    /// memory that keeps growing.
    Soak(SoakArgs),
    /// The database's primary lost under load: rounds on a fresh Patroni cluster each
    /// (`deploy/ha/`; `.ci/install-ha` installs it) with two server replicas and the load
    /// generator, without a failure, then with the primary's PostgreSQL SIGKILLed, then its
    /// whole node: the longest pause, actions/s before and after, acknowledged turns the store
    /// lacks (0), games finished.
    FailoverDb {
        /// Concurrent 4-player games.
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Games each of them plays one after the other (the load must outlast the failure
        /// by a minute or so).
        #[arg(long, default_value_t = 30)]
        rounds: usize,
        /// Seconds of load before the failure.
        #[arg(long, default_value_t = 15)]
        warmup_secs: u64,
    },
    /// What a game against three house bots costs the server, per strategy, beside a game of
    /// four remote players (SQLite store).
    House {
        /// Games per kind of table.
        #[arg(long, default_value_t = 20)]
        games: usize,
        /// The search bot's think time a turn, in ms (the server's `--house-bot-think-ms`).
        #[arg(long, default_value_t = 100)]
        think_ms: u64,
    },
    /// Runs a bare tonic server (health checks only); used by the benchmark itself.
    #[command(hide = true)]
    Echo {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: SocketAddr,
    },
    /// Runs the floor of a turn (see `floor.rs`); used by the benchmark itself.
    #[command(hide = true)]
    Floor {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: SocketAddr,
        /// The database each turn commits a row to (none: no commit).
        #[arg(long)]
        database_url: Option<String>,
        /// The turn's messages, as the benchmark saved them.
        #[arg(long)]
        turn: std::path::PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Part {
    Latency,
    Load,
    Streams,
    Restart,
    Replicas,
    /// The victim's latency under each attack (SECURITY.md), and its house bot's under a flood of
    /// house-bot tables.
    Attack,
    /// The same figures on an empty store and on one with a million finished games.
    History,
    /// Instructions per persisted action, per health check through the game server, per
    /// seat's `GetView` and per bare call, counted under callgrind (valgrind): steadier than
    /// CPU times on a shared machine, to compare builds.
    Instructions,
}

/// Where PostgreSQL is: every measurement runs in a fresh schema of that database.
#[derive(Debug, Args)]
struct Postgres {
    /// The PostgreSQL database to run in (a fresh schema is made for each measurement).
    #[arg(
        long,
        env = "DATABASE_URL_TEST",
        default_value = "postgres://postgres@127.0.0.1:5432/test"
    )]
    postgres_url: String,
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    postgres: Postgres,
    /// Which stores to measure.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "sqlite,postgres"
    )]
    backends: Vec<Backend>,
    /// Which measurements to run (by default all but `history` and `instructions`, which run
    /// only when named).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Part>,
    /// Actions timed one at a time, in games played alone.
    #[arg(long, default_value_t = 1000)]
    latency_actions: usize,
    /// Concurrent 4-player games in the throughput run.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Games each of them plays one after the other in the throughput run: its figures are
    /// those of the steady part, after every table's first game and before any table's last
    /// one ends (at least 3; with 100 tables, 10, so that no table's first game outlasts
    /// another's last; more, for a profile with more samples).
    #[arg(long, default_value_t = 10, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(3..))]
    rounds: usize,
    /// Open `WatchGame` streams in the stream soak.
    #[arg(long, default_value_t = 10_000)]
    streams: usize,
    /// How long the soak holds them open, in seconds.
    #[arg(long, default_value_t = 30)]
    stream_secs: u64,
    /// Finished games written into the store of `--only history`.
    #[arg(long, default_value_t = 1_000_000)]
    history_games: u64,
    /// Unfinished games in the store at the restart.
    #[arg(long, default_value_t = 10_000)]
    restart_games: usize,
    /// Replicas' lease in the failover measurement, in seconds (the server's default).
    #[arg(long, default_value_t = 5)]
    lease_secs: u64,
    /// The victim's actions timed in each phase of the attacks.
    #[arg(long, default_value_t = 400)]
    attack_actions: usize,
    /// Which attacks to run (all by default): enqueue flood, idle connections, watch flood,
    /// token flood, table spam, huge requests, challenge flood, house bot flood.
    #[arg(long, value_delimiter = ',')]
    attacks: Vec<String>,
    /// Attack a server already running at this URL (started with
    /// `--quota-registrations-per-min 0`) instead of one the benchmark starts.
    #[arg(long)]
    attack_server: Option<String>,
}

#[derive(Debug, Args)]
struct SoakArgs {
    #[command(flatten)]
    postgres: Postgres,
    /// How long, in minutes.
    #[arg(long, default_value_t = 30)]
    minutes: u64,
    /// Seconds between samples.
    #[arg(long, default_value_t = 60)]
    period_secs: u64,
    /// Ladder bots of each strategy (random, heuristic, ismcts).
    #[arg(long, default_value_t = 2)]
    bots: usize,
    /// Tables of the load generator (4 seats each), playing games back to back.
    #[arg(long, default_value_t = 20)]
    load_tables: usize,
    /// Actions a second the load generator offers, whatever the server's speed (open loop).
    #[arg(long, default_value_t = 200.0)]
    offered_actions_per_sec: f64,
    /// The most a ladder bot waits (at random) before asking for its next game, in ms.
    #[arg(long, default_value_t = 2000)]
    ladder_pause_ms: u64,
}

impl RunArgs {
    fn runs(&self, part: Part) -> bool {
        self.only.is_empty() || self.only.contains(&part)
    }
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        // The game server on the runtime `theboss-server` starts, so that what is measured
        // is what it serves on; the benchmark and its bare servers on tokio's default.
        Some(Command::Serve(config)) => theboss_server::runtime::build(config.worker_threads)
            .context("starting the server's runtime")?
            .block_on(serve(config)),
        command => tokio::runtime::Runtime::new()
            .context("starting the runtime")?
            .block_on(bench(command, cli.run)),
    }
}

/// What `theboss-bench serve` runs: the game server, as `theboss-server` runs it.
async fn serve(config: Box<theboss_server::Config>) -> anyhow::Result<()> {
    // Written when told (SIGUSR1: the stream soak sends it once every stream is
    // open, so that what is live then is what the held streams cost, not what their
    // calls held while opening), or else when the server stops.
    #[cfg(feature = "dhat-heap")]
    let profiler = dhat::Profiler::builder()
        .file_name(
            std::env::var_os("THEBOSS_BENCH_DHAT").unwrap_or_else(|| "dhat-heap.json".into()),
        )
        .build();
    theboss_server::logs::init(&config.log).context("--log")?;
    let serving = theboss_server::serve(&config, theboss_server::shutdown::signal());
    #[cfg(feature = "dhat-heap")]
    let serving = async move {
        use tokio::signal::unix::{SignalKind, signal};
        let mut told = signal(SignalKind::user_defined1())?;
        let mut serving = std::pin::pin!(serving);
        tokio::select! {
            served = &mut serving => return Ok(served?),
            _ = told.recv() => drop(profiler),
        }
        anyhow::Ok(serving.await?)
    };
    serving.await?;
    Ok(())
}

/// Every command but `serve`.
async fn bench(command: Option<Command>, run_args: RunArgs) -> anyhow::Result<()> {
    match command {
        Some(Command::Serve(_)) => anyhow::bail!("the game server runs on its own runtime"),
        Some(Command::Echo { listen }) => {
            tracing_subscriber::fmt()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .init();
            limits::serve_echo(listen).await
        }
        Some(Command::Floor {
            listen,
            database_url,
            turn,
        }) => {
            tracing_subscriber::fmt()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .init();
            floor::serve(listen, database_url.as_deref(), &turn).await
        }
        Some(Command::Soak(args)) => until_signalled(soak(args)).await,
        Some(Command::FailoverDb {
            games,
            rounds,
            warmup_secs,
        }) => {
            tracing_subscriber::fmt()
                .with_env_filter(EnvFilter::new("warn"))
                .with_writer(std::io::stderr)
                .init();
            until_signalled(async move {
                let rounds =
                    failover_db::run(games, rounds, Duration::from_secs(warmup_secs)).await?;
                println!("{}", failover_db::Table(rounds));
                Ok(())
            })
            .await
        }
        Some(Command::House { games, think_ms }) => {
            tracing_subscriber::fmt()
                .with_env_filter(EnvFilter::new("warn"))
                .with_writer(std::io::stderr)
                .init();
            let dir = tempfile::tempdir()?;
            let url = format!("sqlite://{}", dir.path().join("bench.db").display());
            println!("{}", house::run(&url, games, think_ms).await?);
            Ok(())
        }
        None => until_signalled(run(run_args)).await,
    }
}

/// A run that ends on SIGINT or SIGTERM as on an error: its futures dropped (and with them
/// its child servers, killed), so that `main` returns and the PostgreSQL schemas it made are
/// dropped as the process exits.
async fn until_signalled(
    run: impl std::future::Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<()> {
    tokio::select! {
        result = run => result,
        () = theboss_server::shutdown::signal() => anyhow::bail!("interrupted"),
    }
}

/// A fresh database of a backend: a file in a temporary directory, or a new schema.
struct Database {
    url: String,
    _dir: Option<tempfile::TempDir>,
}

async fn database(backend: Backend, args: &RunArgs) -> anyhow::Result<Database> {
    match backend {
        Backend::Sqlite => {
            let dir = tempfile::tempdir()?;
            let url = format!("sqlite://{}", dir.path().join("bench.db").display());
            Ok(Database {
                url,
                _dir: Some(dir),
            })
        }
        Backend::Postgres => {
            let url = PostgresStore::fresh_schema(&args.postgres.postgres_url, "theboss_bench_")
                .await
                .with_context(|| "PostgreSQL at --postgres-url (or DATABASE_URL_TEST)")?;
            Ok(Database { url, _dir: None })
        }
    }
}

/// How long the floor's CPU is counted under load (after a second of warm-up).
const FLOOR_LOAD: Duration = Duration::from_secs(5);

async fn server(url: &str, extra: &[&str]) -> anyhow::Result<child::Child> {
    child::server(url, extra, Duration::from_secs(600)).await
}

async fn soak(args: SoakArgs) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::new("warn"))
        .with_writer(std::io::stderr)
        .init();
    let url = PostgresStore::fresh_schema(&args.postgres.postgres_url, "theboss_soak_")
        .await
        .with_context(|| "PostgreSQL at --postgres-url (or DATABASE_URL_TEST)")?;
    let soak = soak::run(
        &url,
        &soak::SoakOptions {
            duration: Duration::from_secs(args.minutes * 60),
            period: Duration::from_secs(args.period_secs),
            bots: args.bots,
            load_tables: args.load_tables,
            offered_actions_per_sec: args.offered_actions_per_sec,
            ladder_pause: Duration::from_millis(args.ladder_pause_ms),
        },
    )
    .await?;
    println!("{soak}");
    if !soak.errors.is_empty() {
        anyhow::bail!("the soak saw errors");
    }
    if soak.memory_grows() {
        anyhow::bail!("the server's memory kept growing");
    }
    if !soak.drifts().is_empty() {
        anyhow::bail!("the last third is more than 15% worse than the first");
    }
    Ok(())
}

async fn run(args: RunArgs) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        // sqlx warns of slow statements, which the limits' contention produces on purpose.
        .with_env_filter(EnvFilter::new("warn,sqlx=error"))
        .with_writer(std::io::stderr)
        .init();
    let mut report = Report::default();
    eprintln!("limits: bare tonic unary calls…");
    report.echo = Some(limits::echo(2000, Duration::from_secs(3), 64).await?);
    // The bare call's instructions, counted once for every store's.
    let mut bare_instructions = None;
    for &backend in &args.backends {
        let db = database(backend, &args).await?;
        eprintln!("{backend}: bare commits…");
        report.backend(backend).commits = Some(limits::commits(&db.url, 16).await?);
        if args.runs(Part::Latency) || args.runs(Part::Load) {
            let server = server(&db.url, &child::UNLIMITED_QUOTAS).await?;
            if args.runs(Part::Latency) {
                eprintln!("{backend}: idle unary calls and one game alone…");
                let unloaded =
                    latency::unloaded_in_turns(&server.url, &db.url, args.latency_actions).await?;
                report.backend(backend).unloaded = Some(unloaded);
            }
            if args.runs(Part::Load) {
                eprintln!("{backend}: {} concurrent games…", args.games);
                let rss_before = server.rss().unwrap_or(0);
                let cpu = server.trace_cpu();
                let started = Instant::now();
                let load = load::run(&LoadConfig {
                    servers: vec![server.url.clone()],
                    games: args.games,
                    players: 4,
                    rounds: args.rounds,
                    record_acks: false,
                    players_of_slot: SlotPlayers::Kept,
                })
                .await?;
                let cpu = cpu.finish().await;
                report.backend(backend).load_rss = Some((rss_before, server.rss().unwrap_or(0)));
                anyhow::ensure!(load.errors == 0, "{} load games failed", load.errors);
                let steady = load.steady.ok_or_else(|| {
                    anyhow::anyhow!(
                        "no steady part in {} rounds (pass --rounds 3 or more)",
                        args.rounds
                    )
                })?;
                let per_action = |cpu: Duration, actions: usize| {
                    cpu / u32::try_from(actions.max(1)).unwrap_or(u32::MAX)
                };
                report.backend(backend).load_cpu_per_action = Some(per_action(
                    cpu.between(steady.from, steady.to),
                    steady.actions,
                ));
                report.backend(backend).load_cpu_whole_run = Some(per_action(
                    cpu.between(started, Instant::now()),
                    load.actions,
                ));
                let rate = steady.per_second();
                report.backend(backend).load = Some(load);
                eprintln!("{backend}: the floor under {} tables…", args.games);
                let seats = latency::seats(&server.url, "Floor", 4).await?;
                let turn = floor::Turn::record(&seats, 0, floor::RECORDED_TURN).await?;
                report.backend(backend).floor_load =
                    Some(floor::under_load(&turn, args.games, rate, FLOOR_LOAD).await?);
            }
            server.stop().await;
        }
        // Counted only when asked for: it needs valgrind, and runs at a fiftieth of the speed.
        if args.only.contains(&Part::Instructions) {
            let db = database(backend, &args).await?;
            let bare = match bare_instructions {
                Some(bare) => bare,
                None => {
                    eprintln!("limits: a bare unary call's instructions under callgrind…");
                    *bare_instructions.insert(instructions::count_bare().await?)
                }
            };
            eprintln!("{backend}: instructions under callgrind…");
            let store = format!("{backend:?}").to_lowercase();
            report.backend(backend).instructions =
                Some(instructions::count(&store, &db.url, 20, 3, bare).await?);
        }
        // History is measured only when asked for: it writes a million games.
        if args.only.contains(&Part::History) {
            let empty = database(backend, &args).await?;
            let full = database(backend, &args).await?;
            eprintln!("{backend}: history at scale…");
            report.backend(backend).history = Some(
                history::run(
                    &empty.url,
                    &full.url,
                    args.history_games,
                    args.latency_actions,
                    args.games,
                )
                .await?,
            );
        }
        if args.runs(Part::Restart) {
            let db = database(backend, &args).await?;
            eprintln!(
                "{backend}: writing {} unfinished games…",
                args.restart_games
            );
            let (credentials, ids) = restart::populate(&db.url, args.restart_games).await?;
            eprintln!("{backend}: restarting on them…");
            report.backend(backend).restart =
                Some(restart::measure(&db.url, credentials, &ids).await?);
        }
    }
    if args.runs(Part::Replicas) {
        for n in 1..=3 {
            let db = database(Backend::Postgres, &args).await?;
            eprintln!("replicas: {} concurrent games over {n}…", args.games);
            report
                .scales
                .push(replicas::throughput(&db.url, n, args.games).await?);
        }
        let db = database(Backend::Postgres, &args).await?;
        eprintln!("replicas: failover…");
        report.failover = Some(replicas::failover(&db.url, 10, args.lease_secs).await?);
    }
    if let (true, Some(url)) = (args.runs(Part::Attack), &args.attack_server) {
        eprintln!("the victim alone, then under each attack, at {url}…");
        let backend = args.backends.first().copied().unwrap_or(Backend::Sqlite);
        report.attack = Some((
            backend,
            attack::under_attack(url, args.attack_actions, &args.attacks).await?,
        ));
    } else if args.runs(Part::Attack) {
        let backend = args.backends.first().copied().unwrap_or(Backend::Sqlite);
        let db = database(backend, &args).await?;
        // Production limits and quotas; only the attackers' registrations, from few
        // addresses, are not limited.
        let server = server(&db.url, &child::UNLIMITED_REGISTRATIONS).await?;
        eprintln!("{backend}: the victim alone, then under each attack…");
        report.attack = Some((
            backend,
            attack::under_attack(&server.url, args.attack_actions, &args.attacks).await?,
        ));
        server.stop().await;
    }
    if args.runs(Part::Streams) {
        let db = database(Backend::Sqlite, &args).await?;
        let period = Duration::from_secs(5);
        let mut flags = vec!["--keep-alive-secs", "5"];
        flags.extend(child::UNLIMITED_QUOTAS);
        let server = server(&db.url, &flags).await?;
        eprintln!("streams: opening {}…", args.streams);
        report.streams = Some(
            streams::soak(
                &server,
                args.streams,
                100,
                period,
                Duration::from_secs(args.stream_secs),
            )
            .await?,
        );
        report.stream_period = period;
        server.stop().await;
    }
    print!("{report}");
    Ok(())
}
