//! The `boss` subcommands, each a function over a session and an output, so tests can run
//! them against an in-process server.

use std::io::Write;
use std::path::Path;

use clap::{Args, ValueEnum};
use serde::Serialize;
use theboss::convert::{view_from_wire, view_to_wire};
use theboss::v1::{self, game_event::Kind};
use theboss_bot::play::{PlayOptions, Seating, play_many};
use theboss_bot::strategy::StrategyKind;
use theboss_client::{ClientError, Connection, FeedItem, FeedOptions, Session};
use theboss_engine::{City, Game, GameConfig, Seat, Viewer};

use crate::names::city_short;
use crate::play::{self, Io, PlayError};
use crate::render::{self, Painter};

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error("output: {0}")]
    Output(#[from] std::io::Error),
    #[error("{0}")]
    Usage(String),
}

/// A saved identity, or a new one registered under `name`.
pub async fn login(
    connection: &Connection,
    token_file: &Path,
    name: &str,
) -> Result<Session, CommandError> {
    Ok(connection.authenticate(token_file, name, false).await?)
}

/// Settings for a new game.
pub fn settings(players: u32, cities: &[City], turn_time: u32, unlisted: bool) -> v1::GameSettings {
    v1::GameSettings {
        players,
        cities: cities
            .iter()
            .map(|&c| theboss::convert::city_to_wire(c) as i32)
            .collect(),
        turn_time_limit_seconds: turn_time,
        visibility: if unlisted {
            v1::Visibility::Unlisted
        } else {
            v1::Visibility::Public
        } as i32,
        // The newest rules.
        rules_version: 0,
    }
}

/// Names of the sample bots a `boss play` game seats.
const BOT_NAMES: [&str; 3] = ["Nitti", "Moran", "Torrio"];

/// `boss play --bots N`: a game of N bots and us, played here.
pub async fn play_against_bots(
    connection: &Connection,
    session: &Session,
    bots: u32,
    strategy: StrategyKind,
    seed: Option<u64>,
    io: &mut Io<'_>,
) -> Result<v1::GameView, CommandError> {
    if !(1..=3).contains(&bots) {
        return Err(CommandError::Usage("--bots takes 1 to 3".into()));
    }
    let game_id = session
        .create_game(settings(bots + 1, &[], 0, true), seed)
        .await?;
    session.join(&game_id, Some(0)).await?;
    writeln!(
        io.out,
        "Game {game_id}: you are seat 0 against {bots} {strategy} bot(s)."
    )?;
    for (i, name) in BOT_NAMES.iter().take(bots as usize).enumerate() {
        let bot = connection
            .register_described(name, true, &strategy.description())
            .await?;
        let seating = Seating::Join {
            game_id: game_id.clone(),
            seat: Some(i as u32 + 1),
        };
        tokio::spawn(async move {
            for result in play_many(&bot, seating, strategy, 1, 1, &PlayOptions::default()).await {
                if let Err(error) = result {
                    eprintln!("a bot stopped: {error}");
                }
            }
        });
    }
    Ok(play::play(session, &game_id, io).await?)
}

/// `boss join GAME`: take a seat and play, or resume a game we sit in.
pub async fn join_and_play(
    session: &Session,
    game_id: &str,
    seat: Option<u32>,
    io: &mut Io<'_>,
) -> Result<v1::GameView, CommandError> {
    match session.join(game_id, seat).await {
        Ok(joined) => writeln!(
            io.out,
            "Seated at seat {}; the game starts when the table is full.",
            joined.seat
        )?,
        // Back to a game we sit in (after closing the terminal, say): play on.
        Err(e) if e.reason() == "ALREADY_SEATED" => {
            writeln!(io.out, "You are already seated here; resuming.")?
        }
        Err(e) => return Err(e.into()),
    }
    Ok(play::play(session, game_id, io).await?)
}

#[derive(Debug, Serialize)]
struct GameLine {
    game_id: String,
    status: String,
    players: u32,
    seats: Vec<String>,
    winners: Vec<u32>,
    ladder: bool,
}

fn status_name(status: i32) -> String {
    v1::GameStatus::try_from(status)
        .unwrap_or_default()
        .as_str_name()
        .trim_start_matches("GAME_STATUS_")
        .to_lowercase()
}

/// `boss list`.
pub async fn list(
    session: &Session,
    statuses: &[v1::GameStatus],
    mine: bool,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let response = session
        .list_games(v1::ListGamesRequest {
            statuses: statuses.iter().map(|s| *s as i32).collect(),
            mine,
            page_size: 50,
            page_token: String::new(),
        })
        .await?;
    let lines: Vec<GameLine> = response
        .games
        .iter()
        .map(|g| GameLine {
            game_id: g.game_id.clone(),
            status: status_name(g.status),
            players: g.settings.as_ref().map_or(0, |s| s.players),
            seats: g.seats.iter().map(|s| s.display_name.clone()).collect(),
            winners: g.winners.clone(),
            ladder: g.ladder,
        })
        .collect();
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string(&lines).expect("plain data")
        )?;
        return Ok(());
    }
    if lines.is_empty() {
        writeln!(out, "No games.")?;
    }
    for g in &lines {
        writeln!(
            out,
            "{}  {:<8}  {}/{} seated: {}",
            g.game_id,
            g.status,
            g.seats.len(),
            g.players,
            g.seats.join(", ")
        )?;
    }
    Ok(())
}

/// `boss export`: every finished game of ours (in the time window) as game records, one
/// JSON per line, newest first.
pub async fn export(
    session: &Session,
    file: &Path,
    since: Option<prost_types::Timestamp>,
    until: Option<prost_types::Timestamp>,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let mut written = std::io::BufWriter::new(std::fs::File::create(file)?);
    let mut token = String::new();
    let mut games = 0;
    loop {
        let (records, next) = session
            .export_games(v1::ExportGamesRequest {
                finished_after: since,
                finished_before: until,
                page_size: 200,
                page_token: token,
            })
            .await?;
        for record in records {
            writeln!(written, "{record}")?;
            games += 1;
        }
        match next {
            Some(next) => token = next,
            None => break,
        }
    }
    written.flush()?;
    writeln!(out, "{games} games written to {}", file.display())?;
    Ok(())
}

/// `boss replay --file`: replays every game record of a file with the engine, offline,
/// checking that it ends as recorded and that its shuffle is the one committed to.
pub fn replay_file(file: &Path, out: &mut dyn Write) -> Result<(), CommandError> {
    use theboss::fairness::Verdict;
    use theboss::record::GameRecord;
    let text = std::fs::read_to_string(file)?;
    let mut failed = 0;
    let mut games = 0;
    for (line, json) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        games += 1;
        let checked = GameRecord::from_json(json).and_then(|r| r.replay().map(|done| (r, done)));
        match checked {
            Ok((record, done)) => {
                let shuffle = match done.shuffle {
                    Verdict::Verified => "shuffle verified".to_string(),
                    Verdict::Unavailable => "no commitment to check".to_string(),
                    Verdict::Mismatch { expected, found } => {
                        failed += 1;
                        format!("SHUFFLE MISMATCH: committed {expected}, revealed {found}")
                    }
                };
                writeln!(
                    out,
                    "{}: {} players, {} turns, winners {:?}; replayed to the recorded end, {shuffle}",
                    record.game_id,
                    record.players,
                    record.turns.len(),
                    record.outcome.winners
                )?;
            }
            Err(error) => {
                failed += 1;
                writeln!(out, "line {}: {error}", line + 1)?;
            }
        }
    }
    if failed > 0 {
        return Err(CommandError::Usage(format!(
            "{failed} of {games} records failed"
        )));
    }
    writeln!(out, "{games} records replayed")?;
    Ok(())
}

/// `boss leaderboard`: a page of established players, best first.
pub async fn leaderboard(
    session: &Session,
    players: u32,
    kind: v1::PlayerKind,
    limit: u32,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let board = session
        .leaderboard(v1::LeaderboardRequest {
            players,
            page_size: limit,
            kind: kind as i32,
            ..Default::default()
        })
        .await?;
    let rows: Vec<BoardLine> = board
        .entries
        .iter()
        .map(|e| {
            let rating = e.rating.unwrap_or_default();
            BoardLine {
                rank: e.rank,
                player_id: e.player_id.clone(),
                display_name: e.display_name.clone(),
                is_bot: e.is_bot,
                score: rating.score,
                mu: rating.mu,
                sigma: rating.sigma,
                games: rating.games,
                description: e.description.clone(),
            }
        })
        .collect();
    if json {
        writeln!(out, "{}", serde_json::to_string(&rows).expect("plain data"))?;
        return Ok(());
    }
    if rows.is_empty() {
        writeln!(
            out,
            "Nobody yet: players are listed after {} rated games.",
            10
        )?;
    }
    for r in &rows {
        let what = if r.is_bot { "bot" } else { "person" };
        writeln!(
            out,
            "{:>3}. {:>6.2}  {:<20} {:<6} {:>4} games  {}",
            r.rank, r.score, r.display_name, what, r.games, r.description
        )?;
    }
    Ok(())
}

#[derive(Debug, Serialize)]
struct BoardLine {
    rank: u32,
    player_id: String,
    display_name: String,
    is_bot: bool,
    score: f64,
    mu: f64,
    sigma: f64,
    games: u32,
    description: String,
}

/// `boss profile`: who a player is, what it says it is, and its ratings.
pub async fn profile(
    session: &Session,
    player_id: &str,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let p = session.player(player_id).await?;
    if json {
        let ratings: Vec<serde_json::Value> = p
            .ratings
            .iter()
            .map(|r| {
                serde_json::json!({
                    "players": r.players, "mu": r.mu, "sigma": r.sigma, "score": r.score,
                    "games": r.games, "provisional": r.provisional,
                })
            })
            .collect();
        let line = serde_json::json!({
            "player_id": p.player_id, "display_name": p.display_name, "is_bot": p.is_bot,
            "description": p.description, "ratings": ratings,
        });
        writeln!(out, "{line}")?;
        return Ok(());
    }
    let what = if p.is_bot { "a bot" } else { "a person" };
    writeln!(out, "{} ({what}), {}", p.display_name, p.player_id)?;
    if !p.description.is_empty() {
        writeln!(out, "  {}", p.description)?;
    }
    if p.ratings.is_empty() {
        writeln!(out, "  No rated games yet.")?;
    }
    for r in &p.ratings {
        let category = match r.players {
            0 => "overall".to_string(),
            n => format!("{n} players"),
        };
        let provisional = if r.provisional { ", provisional" } else { "" };
        writeln!(
            out,
            "  {category:<10} score {:>6.2} (mu {:.2}, sigma {:.2}), {} games{provisional}",
            r.score, r.mu, r.sigma, r.games
        )?;
    }
    Ok(())
}

#[derive(Debug, Serialize)]
struct StatusLine<'a> {
    player_id: &'a str,
    display_name: &'a str,
    server: &'a str,
}

/// `boss status [GAME]`: who we are and our games, or one game's state.
pub async fn status(
    connection: &Connection,
    session: &Session,
    game_id: Option<&str>,
    json: bool,
    out: &mut dyn Write,
    painter: Painter,
) -> Result<(), CommandError> {
    match game_id {
        None => {
            if json {
                let me = StatusLine {
                    player_id: session.player_id(),
                    display_name: &session.credentials.display_name,
                    server: connection.url(),
                };
                writeln!(out, "{}", serde_json::to_string(&me).expect("plain data"))?;
            } else {
                writeln!(
                    out,
                    "You are {} ({}) on {}.",
                    session.credentials.display_name,
                    session.player_id(),
                    connection.url()
                )?;
            }
            list(
                session,
                &[v1::GameStatus::Open, v1::GameStatus::Running],
                true,
                json,
                out,
            )
            .await
        }
        Some(game_id) => {
            let view = session.view(game_id).await?;
            let engine = view_from_wire(&view).map_err(ClientError::from)?;
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(&engine).expect("views serialize")
                )?;
            } else {
                write!(out, "{}", render::table(&view, &engine, painter))?;
            }
            Ok(())
        }
    }
}

#[derive(Debug, Serialize)]
struct WatchLine {
    seq: u64,
    event: Option<String>,
    view: theboss_engine::View,
}

/// `boss watch GAME`: follow a game live until it ends.
pub async fn watch(
    session: &Session,
    game_id: &str,
    json: bool,
    out: &mut dyn Write,
    painter: Painter,
) -> Result<(), CommandError> {
    // Every event is shown with the view after it (a JSON line each with `--json`).
    let options = FeedOptions {
        update_views: v1::UpdateViews::Every,
        ..FeedOptions::default()
    };
    let mut feed = session.follow(game_id, options);
    while let Some(item) = feed.next().await? {
        let (seq, event, view) = match item {
            FeedItem::View(view) => (view.seq, None, view),
            FeedItem::Update(u) => match u.view {
                Some(view) => (u.seq, u.event, view),
                None => continue,
            },
        };
        let engine = view_from_wire(&view).map_err(ClientError::from)?;
        let names = render::names(&view);
        let text = event
            .as_ref()
            .and_then(|e| render::event_text(e, &names, Painter::PLAIN));
        if json {
            let line = WatchLine {
                seq,
                event: text,
                view: engine,
            };
            writeln!(
                out,
                "{}",
                serde_json::to_string(&line).expect("views serialize")
            )?;
            continue;
        }
        match event
            .as_ref()
            .and_then(|e| render::event_text(e, &names, painter))
        {
            Some(line) => writeln!(out, "  {line}")?,
            None => write!(out, "{}", render::table(&view, &engine, painter))?,
        }
        if matches!(event.and_then(|e| e.kind), Some(Kind::TurnTaken(_))) {
            write!(out, "{}", render::table(&view, &engine, painter))?;
        }
    }
    Ok(())
}

/// `boss replay GAME`: a finished game step by step, everything revealed. `step` is called
/// before each turn and may stop the replay by returning false.
/// Checks the revealed seed and salt against the commitment the game's views showed, and
/// says so; a mismatch is an error: the seed is not the one the server committed to.
async fn verify_shuffle(
    session: &Session,
    game_id: &str,
    history: &v1::GetHistoryResponse,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    use theboss::fairness::{Verdict, verify};
    let commitment = session.view(game_id).await?.seed_commitment;
    match verify(&commitment, history.seed, history.seed_salt.as_deref()) {
        Verdict::Verified => writeln!(
            out,
            "Shuffle verified: SHA-256(\"theboss-seed-v1:{}:{}\") is {commitment}, the commitment every view showed from the game's creation.",
            history.seed_salt.as_deref().unwrap_or_default(),
            history.seed.unwrap_or_default(),
        )?,
        Verdict::Mismatch { expected, found } => {
            return Err(CommandError::Usage(format!(
                "the shuffle does NOT verify: the views showed the commitment {expected}, the revealed seed and salt hash to {found}"
            )));
        }
        Verdict::Unavailable => writeln!(
            out,
            "No shuffle commitment to verify: the game was created before commitments existed."
        )?,
    }
    Ok(())
}

pub async fn replay(
    session: &Session,
    game_id: &str,
    out: &mut dyn Write,
    painter: Painter,
    step: &mut dyn FnMut() -> bool,
) -> Result<(), CommandError> {
    let history = session.history(game_id).await?;
    let seed = history
        .seed
        .ok_or_else(|| CommandError::Usage("only finished games can be replayed".into()))?;
    verify_shuffle(session, game_id, &history, out).await?;
    let mut names: Vec<String> = Vec::new();
    let mut config = None;
    let mut turns = Vec::new();
    for entry in &history.entries {
        match entry.event.as_ref().and_then(|e| e.kind.as_ref()) {
            Some(Kind::PlayerJoined(j)) => {
                if let Some(p) = &j.player {
                    let seat = p.seat as usize;
                    if names.len() <= seat {
                        names.resize(seat + 1, String::new());
                    }
                    names[seat] = p.display_name.clone();
                }
            }
            Some(Kind::GameStarted(g)) => {
                let cities = g
                    .cities
                    .iter()
                    .map(|&c| theboss::convert::city_from_wire(c, "cities"))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(ClientError::from)?;
                let rules = theboss::convert::rules_from_wire(g.rules_version, "rules_version")
                    .map_err(ClientError::from)?;
                config = Some(
                    GameConfig::new(g.players as u8, seed)
                        .with_cities(cities)
                        .with_rules(rules),
                );
            }
            Some(Kind::TurnTaken(t)) => {
                let action = t
                    .action
                    .as_ref()
                    .ok_or_else(|| CommandError::Usage("a turn without action".into()))?;
                let turn = theboss::convert::turn_from_wire(action, "action")
                    .map_err(ClientError::from)?;
                turns.push((t.seat as Seat, turn));
            }
            _ => {}
        }
    }
    let config = config.ok_or_else(|| CommandError::Usage("the game never started".into()))?;
    let mut game = Game::new(&config).map_err(|e| CommandError::Usage(e.to_string()))?;
    let wire_names = |view: &theboss_engine::View| {
        let mut wire = view_to_wire(view);
        for (seat, s) in wire.seats.iter_mut().enumerate() {
            s.player = Some(v1::SeatPlayer {
                seat: seat as u32,
                display_name: names.get(seat).cloned().unwrap_or_default(),
                ..Default::default()
            });
        }
        wire.status = v1::GameStatus::Running as i32;
        wire
    };
    for (i, (seat, turn)) in turns.iter().enumerate() {
        if !step() {
            return Ok(());
        }
        let view = game.view(Viewer::Spectator);
        writeln!(out, "── turn {} of {} ──", i + 1, turns.len())?;
        write!(out, "{}", render::table(&wire_names(&view), &view, painter))?;
        for s in 0..game.players() {
            let hand: Vec<String> = game
                .hand(s)
                .iter()
                .map(|c| {
                    format!(
                        "{} {}",
                        city_short(c.city),
                        crate::names::face_short(c.face)
                    )
                })
                .collect();
            writeln!(
                out,
                "  hand of {}: {}",
                names.get(usize::from(s)).map_or("?", String::as_str),
                hand.join(", ")
            )?;
        }
        let down: Vec<String> = game
            .setup()
            .cities()
            .iter()
            .filter_map(|&c| {
                game.face_down(c).map(|card| {
                    format!("{} {}", city_short(c), crate::names::face_short(card.face))
                })
            })
            .collect();
        writeln!(out, "  face down: {}", down.join(", "))?;
        let name = names.get(usize::from(*seat)).map_or("?", String::as_str);
        writeln!(out, "  {name} plays: {}", crate::input::turn_text(turn))?;
        game.apply(*seat, turn)
            .map_err(|e| CommandError::Usage(format!("the history does not replay: {e}")))?;
    }
    let view = game.view(Viewer::Spectator);
    let mut wire = wire_names(&view);
    wire.status = v1::GameStatus::Finished as i32;
    write!(out, "{}", render::table(&wire, &view, painter))?;
    Ok(())
}

/// What `boss create` asks for.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Players at the table.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(2..=4))]
    pub players: u32,
    /// An optional city set, by number (1 New York … 7 Philadelphia), e.g. `--cities 2,3,5`.
    #[arg(long, value_delimiter = ',')]
    pub cities: Vec<u8>,
    /// Seconds per turn (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub turn_time: u32,
    /// Leave the game out of public listings.
    #[arg(long)]
    pub unlisted: bool,
    /// Print the game's id as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `boss create`: a table for others to join.
pub async fn create(
    session: &Session,
    args: &CreateArgs,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let cities = args
        .cities
        .iter()
        .map(|&n| {
            City::from_number(n)
                .ok_or_else(|| CommandError::Usage(format!("{n} is not a city number (1-7)")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let id = session
        .create_game(
            settings(args.players, &cities, args.turn_time, args.unlisted),
            None,
        )
        .await?;
    if args.json {
        writeln!(out, "{}", serde_json::json!({ "game_id": id }))?;
    } else {
        writeln!(out, "Created game {id}. Join it with: boss join {id}")?;
    }
    Ok(())
}

/// `boss register`: who you are, once [`login`] found or made your identity.
pub fn register(
    session: &Session,
    token_file: &Path,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    writeln!(
        out,
        "You are {} ({}); your token is saved in {}.",
        session.credentials.display_name,
        session.player_id(),
        token_file.display()
    )?;
    Ok(())
}

/// Who may challenge you (`boss profile --challenges`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PolicyArg {
    /// Anyone.
    Open,
    /// Bots only.
    Bots,
    /// Nobody.
    Closed,
}

/// `boss profile --description/--challenges`: changes your own profile.
pub async fn update_profile(
    session: &Session,
    description: Option<&str>,
    challenges: Option<PolicyArg>,
) -> Result<(), CommandError> {
    if let Some(description) = description {
        session.update_profile(description).await?;
    }
    if let Some(policy) = challenges {
        let policy = match policy {
            PolicyArg::Open => v1::ChallengePolicy::Open,
            PolicyArg::Bots => v1::ChallengePolicy::BotsOnly,
            PolicyArg::Closed => v1::ChallengePolicy::Closed,
        };
        session.set_challenge_policy(policy).await?;
    }
    Ok(())
}
