//! `boss`: the reference command-line client of The Boss.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use theboss::v1;
use theboss_bot::strategy::StrategyKind;
use theboss_cli::arranged;
use theboss_cli::commands::{self, CommandError};
use theboss_cli::play::{Io, PlayError};
use theboss_cli::render::Painter;
use theboss_client::{Connection, Credentials};
use tokio::sync::mpsc;

#[derive(Debug, Parser)]
#[command(name = "boss", version, about = "Play The Boss from a terminal")]
struct Cli {
    /// The server's URL.
    #[arg(
        long,
        env = "THEBOSS_SERVER",
        default_value = "http://127.0.0.1:50051",
        global = true
    )]
    server: String,
    /// Where your API token is kept (default: your config directory).
    #[arg(long, global = true)]
    token_file: Option<PathBuf>,
    /// Your name, used when registering.
    #[arg(long, env = "USER", default_value = "player", global = true)]
    name: String,
    /// Read turns from stdin without prompts; any refused line ends the game with an error.
    #[arg(long, global = true)]
    script: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start a game against sample bots and play it.
    Play {
        /// How many bots (1 to 3).
        #[arg(long, default_value_t = 3)]
        bots: u32,
        /// The bots' strategy: ismcts, the strongest; heuristic or random for a casual game.
        #[arg(long, default_value = "ismcts")]
        strategy: StrategyKind,
        /// Fix the deal (for demonstrations and tests).
        #[arg(long, hide = true)]
        seed: Option<u64>,
    },
    /// Register (or show) your identity on the server.
    Register,
    /// Create a game for others to join.
    Create(commands::CreateArgs),
    /// Take a seat in a game and play it.
    Join {
        game: String,
        #[arg(long)]
        seat: Option<u32>,
    },
    /// List games.
    List {
        #[arg(long, value_enum)]
        status: Vec<StatusArg>,
        /// Only games you are seated in.
        #[arg(long)]
        mine: bool,
        #[arg(long)]
        json: bool,
    },
    /// Who you are and your games, or one game's state.
    Status {
        game: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Follow a game live.
    Watch {
        game: String,
        #[arg(long)]
        json: bool,
    },
    /// The ladder's leaderboard: established players, best first.
    Leaderboard {
        /// Ratings in games of this many players (2 to 4); 0: overall.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=4))]
        players: u32,
        /// Only bots.
        #[arg(long, conflicts_with = "people")]
        bots: bool,
        /// Only people.
        #[arg(long)]
        people: bool,
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100))]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// A player's profile and ratings (yours by default); `--description` changes yours.
    Profile {
        /// Another player's id.
        #[arg(long)]
        player: Option<String>,
        /// Say what you are (a bot: its strategy and version), on the leaderboard and here.
        #[arg(long, conflicts_with = "player")]
        description: Option<String>,
        /// Who may challenge you.
        #[arg(long, value_enum, conflicts_with = "player")]
        challenges: Option<commands::PolicyArg>,
        #[arg(long)]
        json: bool,
    },
    /// Challenge players (by id) to one game or one duplicate set; waits for their answers
    /// and plays the game.
    Challenge {
        #[arg(required = true)]
        opponents: Vec<String>,
        /// Players per game (default: you and those you name).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=4))]
        players: u32,
        /// One duplicate set instead of one game: you and your first opponent hold the same
        /// cards at two tables.
        #[arg(long)]
        duplicate: bool,
        /// Rated on the ladder (the seats you do not name are filled from its queue).
        #[arg(long)]
        rated: bool,
        /// Seconds they have to answer (default 300).
        #[arg(long, default_value_t = 0)]
        expires: u32,
        /// Do not wait for the answers.
        #[arg(long)]
        no_wait: bool,
    },
    /// The challenges made to you or by you.
    Challenges {
        #[arg(long)]
        json: bool,
    },
    /// Accept a challenge, and play its game.
    Accept {
        challenge: String,
        /// Only answer: play later with `boss join`.
        #[arg(long)]
        no_play: bool,
    },
    /// Decline a challenge (or call off your own).
    Decline { challenge: String },
    /// Tournaments of duplicate sets: create, enter, start, play, show, list.
    Tournament {
        #[command(subcommand)]
        command: arranged::TournamentCommand,
    },
    /// Write your finished games as game records, one JSON line each (NDJSON).
    Export {
        /// The file to write.
        #[arg(long)]
        out: PathBuf,
        /// Only games that finished at or after this time (RFC 3339, e.g. 2026-11-01T00:00:00Z).
        #[arg(long)]
        since: Option<prost_types::Timestamp>,
        /// Only games that finished before this time (RFC 3339).
        #[arg(long)]
        until: Option<prost_types::Timestamp>,
    },
    /// Step through a finished game with everything revealed; or, with `--file`, replay the
    /// game records of a file (from `boss export`) with the engine and check each shuffle.
    Replay {
        #[arg(required_unless_present = "file")]
        game: Option<String>,
        /// A file of game records (one JSON per line), replayed offline.
        #[arg(long, conflicts_with = "game")]
        file: Option<PathBuf>,
        /// Print every step without waiting for Enter.
        #[arg(long)]
        all: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum StatusArg {
    Open,
    Running,
    Finished,
    Aborted,
}

impl From<StatusArg> for v1::GameStatus {
    fn from(s: StatusArg) -> v1::GameStatus {
        match s {
            StatusArg::Open => v1::GameStatus::Open,
            StatusArg::Running => v1::GameStatus::Running,
            StatusArg::Finished => v1::GameStatus::Finished,
            StatusArg::Aborted => v1::GameStatus::Aborted,
        }
    }
}

/// Lines of stdin, read on a thread of their own so the game can go on meanwhile.
fn stdin_lines() -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel(16);
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.blocking_send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("boss: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    // Records replay offline: no server, no identity.
    if let Command::Replay {
        file: Some(file), ..
    } = &cli.command
    {
        let mut out = anstream::AutoStream::auto(std::io::stdout());
        return Ok(commands::replay_file(file, &mut out)?);
    }
    let token_file = match cli.token_file.clone() {
        Some(path) => path,
        None => Credentials::path_in_config_dir("cli-credentials.json")
            .context("no config directory; use --token-file")?,
    };
    let connection = Connection::connect(&cli.server)
        .await
        .with_context(|| format!("cannot reach the server at {} (is it running?)", cli.server))?;
    let session = commands::login(&connection, &token_file, &cli.name).await?;
    let stdout = std::io::stdout();
    let colour = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let painter = Painter { colour };
    let interactive = !cli.script && std::io::stdin().is_terminal();
    // Strips colour codes when stdout is not a terminal or NO_COLOR is set.
    let mut out = anstream::AutoStream::auto(stdout);
    let mut lines = stdin_lines();
    let result: Result<(), CommandError> = match cli.command {
        Command::Play {
            bots,
            strategy,
            seed,
        } => commands::play_against_bots(
            &connection,
            &session,
            bots,
            strategy,
            seed,
            &mut Io {
                lines: &mut lines,
                out: &mut out,
                painter,
                interactive,
            },
        )
        .await
        .map(drop),
        Command::Register => commands::register(&session, &token_file, &mut out),
        Command::Create(args) => commands::create(&session, &args, &mut out).await,
        Command::Join { game, seat } => commands::join_and_play(
            &session,
            &game,
            seat,
            &mut Io {
                lines: &mut lines,
                out: &mut out,
                painter,
                interactive,
            },
        )
        .await
        .map(drop),
        Command::List { status, mine, json } => {
            let statuses: Vec<v1::GameStatus> = status.into_iter().map(Into::into).collect();
            commands::list(&session, &statuses, mine, json, &mut out).await
        }
        Command::Status { game, json } => {
            commands::status(
                &connection,
                &session,
                game.as_deref(),
                json,
                &mut out,
                painter,
            )
            .await
        }
        Command::Watch { game, json } => {
            commands::watch(&session, &game, json, &mut out, painter).await
        }
        Command::Leaderboard {
            players,
            bots,
            people,
            limit,
            json,
        } => {
            let kind = match (bots, people) {
                (true, _) => v1::PlayerKind::Bot,
                (_, true) => v1::PlayerKind::Person,
                _ => v1::PlayerKind::Unspecified,
            };
            commands::leaderboard(&session, players, kind, limit, json, &mut out).await
        }
        Command::Profile {
            player,
            description,
            challenges,
            json,
        } => {
            commands::update_profile(&session, description.as_deref(), challenges).await?;
            let player = player.unwrap_or_else(|| session.player_id().to_string());
            commands::profile(&session, &player, json, &mut out).await
        }
        Command::Challenge {
            opponents,
            players,
            duplicate,
            rated,
            expires,
            no_wait,
        } => {
            let request = v1::ChallengeRequest {
                opponents,
                players,
                duplicate,
                rated,
                expires_in_secs: expires,
            };
            let mut io = Io {
                lines: &mut lines,
                out: &mut out,
                painter,
                interactive,
            };
            arranged::challenge(&session, request, !no_wait, &mut io).await
        }
        Command::Challenges { json } => arranged::challenges(&session, json, &mut out).await,
        Command::Accept { challenge, no_play } => {
            let mut io = Io {
                lines: &mut lines,
                out: &mut out,
                painter,
                interactive,
            };
            arranged::answer(&session, &challenge, true, !no_play, &mut io).await
        }
        Command::Decline { challenge } => {
            let mut io = Io {
                lines: &mut lines,
                out: &mut out,
                painter,
                interactive,
            };
            arranged::answer(&session, &challenge, false, false, &mut io).await
        }
        Command::Tournament { command } => {
            let mut io = Io {
                lines: &mut lines,
                out: &mut out,
                painter,
                interactive,
            };
            arranged::tournament(&session, command, &mut io).await
        }
        Command::Export {
            out: file,
            since,
            until,
        } => commands::export(&session, &file, since, until, &mut out).await,
        Command::Replay { game, all, .. } => {
            let game = game.expect("clap requires a game without --file");
            let wait = interactive && !all;
            let mut step = || {
                if !wait {
                    return true;
                }
                print!("[Enter: next turn, q: quit] ");
                let _ = std::io::stdout().flush();
                let mut answer = String::new();
                std::io::stdin().read_line(&mut answer).is_ok() && answer.trim() != "q"
            };
            commands::replay(&session, &game, &mut out, painter, &mut step).await
        }
    };
    match result {
        Err(CommandError::Play(PlayError::Quit)) => Ok(()),
        other => Ok(other?),
    }
}
