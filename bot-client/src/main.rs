//! `boss-bot`: play The Boss through a server, run strategy arenas, generate load.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use theboss_bot::arena::{self, ArenaConfig, Contender};
use theboss_bot::ladder::{self, LadderOptions};
use theboss_bot::load::{self, LoadConfig, SlotPlayers};
use theboss_bot::offers::{self, Accept, OffersOptions};
use theboss_bot::play::{self, PlayOptions, Seating};
use theboss_bot::strategy::StrategyKind;
use theboss_bot::strategy::ismcts::{Budget, Params};
use theboss_client::{Connection, Credentials, Session};
use tracing_subscriber::EnvFilter;

#[derive(Debug, Parser)]
#[command(
    name = "boss-bot",
    version,
    about = "The Boss: sample bot, arena and load generator"
)]
struct Cli {
    /// Log filter (`tracing_subscriber::EnvFilter` syntax).
    #[arg(long, env = "RUST_LOG", default_value = "info", global = true)]
    log: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play games on a server.
    Play(PlayArgs),
    /// Play ladder games: queue, play what the matchmaker seats us in, repeat.
    Ladder(LadderArgs),
    /// Answer challenges and play tournaments: every game a challenge or a tournament seats
    /// us in (`--tournament ID` enters one, and stops when it finishes).
    Offers(OffersArgs),
    /// Strategies against each other, locally with the engine only.
    Arena(ArenaArgs),
    /// Many concurrent complete games through a server, with latency figures.
    Load(LoadArgs),
}

#[derive(Debug, Args)]
struct ServerArgs {
    /// The server's URL, or the URLs of several replicas of one service, comma-separated
    /// (calls fail over from one to the next).
    #[arg(
        long,
        env = "THEBOSS_SERVER",
        default_value = "http://127.0.0.1:50051",
        value_delimiter = ','
    )]
    server: Vec<String>,
    /// Where the API token is saved (default: the user's config directory).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// The name to register with when there is no saved token.
    #[arg(long, default_value = "boss-bot")]
    name: String,
}

#[derive(Debug, Args)]
struct PlayArgs {
    #[command(flatten)]
    server: ServerArgs,
    #[arg(long, default_value = "heuristic")]
    strategy: StrategyKind,
    /// Join this game.
    #[arg(long, conflicts_with_all = ["create", "wait"])]
    game: Option<String>,
    /// In `--game`, take this seat.
    #[arg(long, requires = "game")]
    seat: Option<u32>,
    /// Create a game of this many players and join it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=4))]
    create: Option<u32>,
    /// Wait for an open game with a free seat and join it.
    #[arg(long)]
    wait: bool,
    /// How many games to play one after the other (with `--create` or `--wait`).
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// How many to play at the same time.
    #[arg(long, default_value_t = 1)]
    concurrent: u32,
}

#[derive(Debug, Args)]
struct LadderArgs {
    #[command(flatten)]
    server: ServerArgs,
    #[arg(long, default_value = "heuristic")]
    strategy: StrategyKind,
    /// Players per game: 2, 3 or 4; 0 for any.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=4))]
    players: u32,
    /// Play duplicate series (the same deal once per seat rotation).
    #[arg(long)]
    duplicate: bool,
    /// Stop after this many games (default: play forever).
    #[arg(long)]
    games: Option<u32>,
}

#[derive(Debug, Args)]
struct OffersArgs {
    #[command(flatten)]
    server: ServerArgs,
    #[arg(long, default_value = "heuristic")]
    strategy: StrategyKind,
    /// Which challenges to accept (the others are declined; `none` leaves them to expire).
    #[arg(long, value_enum, default_value = "all")]
    accept: AcceptArg,
    /// Enter this tournament, play its games, and stop when it finishes.
    #[arg(long)]
    tournament: Option<String>,
    /// Stop after this many games.
    #[arg(long)]
    games: Option<u32>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum AcceptArg {
    All,
    Bots,
    None,
}

#[derive(Debug, Args)]
struct ArenaArgs {
    /// One strategy per seat, e.g. `heuristic,random,random,random`; `ismcts-v1` is the first
    /// published search bot, to measure the search against.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "heuristic,random,random,random"
    )]
    lineup: Vec<Contender>,
    #[arg(long, default_value_t = 2000)]
    games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Search time of `ismcts` players per turn, in milliseconds.
    #[arg(long, visible_alias = "think-ms", default_value_t = 150)]
    ismcts_ms: u64,
    /// Or a fixed number of search iterations per turn (reproducible).
    #[arg(long)]
    ismcts_iterations: Option<u32>,
    /// Search parameters to try instead of the bot's, e.g. `exploration=1.5,root_width=6`
    /// (`exploration`, `root_width`, `win_worth`, `against_best`).
    #[arg(long, default_value = "")]
    ismcts_params: Params,
}

#[derive(Debug, Args)]
struct LoadArgs {
    /// The server, or several replicas of one service (comma-separated): games are spread
    /// over them and their seats play through different ones.
    #[arg(
        long,
        env = "THEBOSS_SERVER",
        default_value = "http://127.0.0.1:50051",
        value_delimiter = ','
    )]
    server: Vec<String>,
    /// Concurrent games.
    #[arg(long, default_value_t = 100)]
    games: usize,
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(2..=4))]
    players: u32,
    /// Games each concurrent slot plays one after another.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
    /// Register new players for every game, rather than once for a slot's games.
    #[arg(long)]
    new_players: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_new(&cli.log).context("--log")?)
        .with_writer(std::io::stderr)
        .init();
    match cli.command {
        Command::Play(args) => play(args).await,
        Command::Ladder(args) => {
            let session = login(&args.server).await?;
            // The ladder shows what the bot is: its strategy and parameters.
            session.update_profile(&args.strategy.description()).await?;
            let options = LadderOptions {
                players: args.players,
                duplicate: args.duplicate,
                games: args.games,
                jitter: Duration::from_millis(500),
                play: PlayOptions::default(),
            };
            for result in ladder::run(&session, ladder::factory(args.strategy), &options).await? {
                println!("{result}");
            }
            Ok(())
        }
        Command::Offers(args) => {
            let session = login(&args.server).await?;
            session.update_profile(&args.strategy.description()).await?;
            let options = OffersOptions {
                accept: match args.accept {
                    AcceptArg::All => Accept::All,
                    AcceptArg::Bots => Accept::BotsOnly,
                    AcceptArg::None => Accept::None,
                },
                tournament: args.tournament,
                games: args.games,
                play: PlayOptions::default(),
            };
            for result in offers::run(&session, ladder::factory(args.strategy), &options).await? {
                println!("{result}");
            }
            Ok(())
        }
        Command::Arena(args) => {
            let report = tokio::task::spawn_blocking(move || run_arena(args)).await?;
            print!("{}", report.table());
            Ok(())
        }
        Command::Load(args) => {
            let report = load::run(&LoadConfig {
                servers: args.server,
                games: args.games,
                players: args.players,
                rounds: args.rounds,
                record_acks: false,
                players_of_slot: if args.new_players {
                    SlotPlayers::NewEveryGame
                } else {
                    SlotPlayers::Kept
                },
            })
            .await?;
            print!("{report}");
            anyhow::ensure!(report.errors == 0, "{} errors", report.errors);
            Ok(())
        }
    }
}

/// Connects and authenticates with the saved token, registering if there is none.
async fn login(args: &ServerArgs) -> anyhow::Result<Session> {
    let token_file = match &args.token_file {
        Some(path) => path.clone(),
        None => Credentials::default_path().context("no config directory; use --token-file")?,
    };
    let connection = Connection::connect_any(&args.server)
        .await
        .with_context(|| format!("cannot reach {}", args.server.join(", ")))?;
    Ok(connection
        .authenticate(&token_file, &args.name, true)
        .await?)
}

async fn play(args: PlayArgs) -> anyhow::Result<()> {
    let connection = login(&args.server).await?;
    // Others read what plays them: the strategy, its parameters and version.
    connection
        .update_profile(&args.strategy.description())
        .await?;
    let seating = match (args.game, args.create) {
        (Some(game), _) => Seating::Join {
            game_id: game,
            seat: args.seat,
        },
        (None, Some(players)) => Seating::Create { players },
        (None, None) if args.wait => Seating::Wait,
        (None, None) => anyhow::bail!("say which game: --game ID, --create N or --wait"),
    };
    let options = PlayOptions::default();
    let outcomes = play::play_many(
        &connection,
        seating,
        args.strategy,
        args.games,
        args.concurrent,
        &options,
    )
    .await;
    let mut failed = 0;
    for outcome in outcomes {
        match outcome {
            Ok(result) => println!("{result}"),
            Err(error) => {
                failed += 1;
                eprintln!("a game failed: {error}");
            }
        }
    }
    anyhow::ensure!(failed == 0, "{failed} game(s) failed");
    Ok(())
}

fn run_arena(args: ArenaArgs) -> arena::ArenaReport {
    let config = ArenaConfig {
        lineup: args.lineup,
        games: args.games,
        seed: args.seed,
        threads: args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
        ismcts: match args.ismcts_iterations {
            Some(n) => Budget::iterations(n),
            None => Budget::time(Duration::from_millis(args.ismcts_ms)),
        },
        ismcts_params: args.ismcts_params,
    };
    let players = config.lineup.len() as u64;
    let bar = ProgressBar::new(config.games.div_ceil(players) * players);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {elapsed} (eta {eta})")
            .expect("a valid template"),
    );
    let report = arena::run(&config, &|| bar.inc(1));
    bar.finish_and_clear();
    report
}
