//! `boss challenge`, `boss challenges`, `boss accept` / `decline` and `boss tournament …`:
//! games arranged for named players. Waiting is done on the `Offers` stream; a game it seats
//! us in is played as `boss join` plays one.

use std::collections::HashSet;
use std::io::Write;
use std::time::Duration;

use clap::{Subcommand, ValueEnum};
use serde::Serialize;
use theboss::v1::{self, offers_response::Message};
use theboss_client::{ClientError, Session};
use tonic::Streaming;

use crate::commands::{CommandError, join_and_play};
use crate::play::Io;

/// How long `boss challenges` listens for more once the stream went quiet.
const QUIET: Duration = Duration::from_millis(500);

fn status_name<T: std::fmt::Debug>(status: T) -> String {
    format!("{status:?}").to_lowercase()
}

#[derive(Debug, Serialize)]
struct ChallengeLine {
    challenge_id: String,
    challenger: String,
    opponents: Vec<String>,
    players: u32,
    duplicate: bool,
    rated: bool,
    status: String,
    game_ids: Vec<String>,
}

impl From<&v1::Challenge> for ChallengeLine {
    fn from(c: &v1::Challenge) -> ChallengeLine {
        ChallengeLine {
            challenge_id: c.challenge_id.clone(),
            challenger: c.challenger_name.clone(),
            opponents: c
                .opponents
                .iter()
                .map(|o| format!("{} ({})", o.display_name, status_name(o.answer())))
                .collect(),
            players: c.players,
            duplicate: c.duplicate,
            rated: c.rated,
            status: status_name(c.status()),
            game_ids: c.game_ids.clone(),
        }
    }
}

fn describe(c: &v1::Challenge) -> String {
    let line = ChallengeLine::from(c);
    let what = if c.duplicate {
        "a duplicate set"
    } else {
        "one game"
    };
    let rated = if c.rated { "rated" } else { "casual" };
    format!(
        "{}  {} challenges {} to {what} of {} players ({rated}): {}",
        line.challenge_id,
        line.challenger,
        line.opponents.join(", "),
        c.players,
        line.status
    )
}

/// The next message of an `Offers` stream that is not a keep-alive.
async fn next(stream: &mut Streaming<v1::OffersResponse>) -> Result<Option<Message>, CommandError> {
    loop {
        match stream.message().await {
            Ok(Some(v1::OffersResponse {
                message: Some(Message::KeepAlive(_)),
            })) => continue,
            Ok(Some(v1::OffersResponse { message })) => return Ok(message),
            Ok(None) => return Ok(None),
            Err(status) => {
                return Err(ClientError::Rpc {
                    call: "Offers",
                    status,
                }
                .into());
            }
        }
    }
}

/// `boss challenge`: makes the challenge; unless `wait` is off, waits for the answers and
/// plays the game it seats us in.
pub async fn challenge(
    session: &Session,
    request: v1::ChallengeRequest,
    wait: bool,
    io: &mut Io<'_>,
) -> Result<(), CommandError> {
    let mut offers = session.offers().await?;
    let made = session.challenge(request).await?;
    writeln!(io.out, "{}", describe(&made))?;
    if !wait {
        return Ok(());
    }
    writeln!(io.out, "Waiting for the answers…")?;
    play_when_started(session, &made.challenge_id, &mut offers, io).await
}

/// `boss accept ID` / `boss decline ID`; an accepted challenge's game is then played.
pub async fn answer(
    session: &Session,
    challenge_id: &str,
    accept: bool,
    play: bool,
    io: &mut Io<'_>,
) -> Result<(), CommandError> {
    let mut offers = session.offers().await?;
    let answered = session.answer_challenge(challenge_id, accept).await?;
    writeln!(io.out, "{}", describe(&answered))?;
    if accept && play {
        play_when_started(session, challenge_id, &mut offers, io).await?;
    }
    Ok(())
}

/// Follows the stream until the challenge starts (then plays our game in it) or closes.
async fn play_when_started(
    session: &Session,
    challenge_id: &str,
    offers: &mut Streaming<v1::OffersResponse>,
    io: &mut Io<'_>,
) -> Result<(), CommandError> {
    let mut games: Option<Vec<String>> = None;
    let mut seated: Vec<v1::LadderMatch> = Vec::new();
    loop {
        if let Some(ids) = &games
            && let Some(m) = seated.iter().find(|m| ids.contains(&m.game_id))
        {
            writeln!(io.out, "Seated in game {} at seat {}.", m.game_id, m.seat)?;
            join_and_play(session, &m.game_id.clone(), Some(m.seat), io).await?;
            return Ok(());
        }
        match next(offers).await? {
            Some(Message::Challenge(c)) if c.challenge_id == challenge_id => match c.status() {
                v1::ChallengeStatus::Started => games = Some(c.game_ids.clone()),
                v1::ChallengeStatus::Pending | v1::ChallengeStatus::Seating => {
                    writeln!(io.out, "{}", describe(&c))?;
                }
                _ => {
                    writeln!(io.out, "{}", describe(&c))?;
                    return Ok(());
                }
            },
            Some(Message::Matched(m)) => seated.push(m),
            Some(_) => {}
            None => {
                return Err(CommandError::Usage(
                    "the server closed the offers stream; run the command again".into(),
                ));
            }
        }
    }
}

/// `boss challenges`: the challenges made to or by us that the server still shows.
pub async fn challenges(
    session: &Session,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let mut offers = session.offers().await?;
    let mut seen: Vec<v1::Challenge> = Vec::new();
    while let Ok(message) = tokio::time::timeout(QUIET, next(&mut offers)).await {
        match message? {
            Some(Message::Challenge(c)) => {
                seen.retain(|s| s.challenge_id != c.challenge_id);
                seen.push(c);
            }
            Some(_) => {}
            None => break,
        }
    }
    if json {
        let lines: Vec<ChallengeLine> = seen.iter().map(ChallengeLine::from).collect();
        writeln!(
            out,
            "{}",
            serde_json::to_string(&lines).expect("plain data")
        )?;
        return Ok(());
    }
    if seen.is_empty() {
        writeln!(out, "No challenges.")?;
    }
    for c in &seen {
        writeln!(out, "{}", describe(c))?;
    }
    Ok(())
}

/// `boss tournament play ID`: enters (if it is open) and plays every game the tournament
/// seats us in until it finishes.
pub async fn play_tournament(
    session: &Session,
    tournament_id: &str,
    io: &mut Io<'_>,
) -> Result<(), CommandError> {
    let t = session.tournament(tournament_id).await?;
    let me = session.player_id();
    let entered = t
        .tournament
        .as_ref()
        .is_some_and(|t| t.entrants.iter().any(|e| e.player_id == me));
    if !entered {
        session.enter_tournament(tournament_id, false).await?;
        writeln!(
            io.out,
            "Entered; your games come when its creator starts it."
        )?;
    }
    let mut played: HashSet<String> = HashSet::new();
    let mut offers = session.offers().await?;
    loop {
        let finished = session
            .tournament(tournament_id)
            .await?
            .tournament
            .is_some_and(|t| t.status() == v1::TournamentStatus::Finished);
        if finished {
            writeln!(io.out, "The tournament is over.")?;
            return show(session, tournament_id, false, io.out).await;
        }
        match tokio::time::timeout(Duration::from_secs(5), next(&mut offers)).await {
            Ok(Ok(Some(Message::Matched(m)))) if played.insert(m.game_id.clone()) => {
                writeln!(io.out, "Next game: {} (seat {}).", m.game_id, m.seat)?;
                join_and_play(session, &m.game_id, Some(m.seat), io).await?;
            }
            Ok(Ok(None)) => offers = session.offers().await?,
            Ok(Err(e)) => return Err(e),
            _ => {}
        }
    }
}

/// `boss tournament show ID`: standings and crosstable.
pub async fn show(
    session: &Session,
    tournament_id: &str,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let report = session.tournament(tournament_id).await?;
    if json {
        writeln!(out, "{}", report_json(&report))?;
        return Ok(());
    }
    let Some(t) = &report.tournament else {
        return Err(CommandError::Usage("the server sent no tournament".into()));
    };
    write!(out, "{}", render_report(t, &report))?;
    Ok(())
}

fn report_json(report: &v1::GetTournamentResponse) -> serde_json::Value {
    let t = report.tournament.clone().unwrap_or_default();
    serde_json::json!({
        "tournament_id": t.tournament_id, "name": t.name,
        "format": status_name(t.format()), "status": status_name(t.status()),
        "players": t.players, "sets_per_pair": t.sets_per_pair,
        "sets_finished": t.sets_finished, "sets_running": t.sets_running,
        "entrants": t.entrants.iter().map(|e| serde_json::json!({
            "player_id": e.player_id, "display_name": e.display_name, "is_bot": e.is_bot,
            "description": e.description,
        })).collect::<Vec<_>>(),
        "standings": report.standings.iter().map(|s| serde_json::json!({
            "rank": s.rank, "player_id": s.player_id, "display_name": s.display_name,
            "sets": s.sets, "points": s.points, "mean_money_diff": s.mean_money_diff,
        })).collect::<Vec<_>>(),
        "crosstable": report.crosstable.iter().map(|c| serde_json::json!({
            "player_id": c.player_id, "opponent_id": c.opponent_id, "sets": c.sets,
            "points": c.points, "mean_money_diff": c.mean_money_diff,
            "interval": c.interval.map(|i| [i.low, i.high]),
        })).collect::<Vec<_>>(),
    })
}

/// The report as text: the tournament, its standings, the crosstable as a matrix (row
/// against column: points / comparisons) and each pair's mean difference with its interval.
pub fn render_report(t: &v1::Tournament, report: &v1::GetTournamentResponse) -> String {
    let mut text = String::new();
    let format = match t.format() {
        v1::TournamentFormat::Gauntlet => "gauntlet",
        _ => "round robin",
    };
    text += &format!(
        "{} — {format} of duplicate sets, {} players a table, {} per pair, {}\n",
        t.name,
        t.players,
        t.sets_per_pair,
        status_name(t.status())
    );
    text += &format!(
        "{} entrants; {} sets finished, {} being played\n",
        t.entrants.len(),
        t.sets_finished,
        t.sets_running
    );
    let name = |id: &str| {
        t.entrants
            .iter()
            .find(|e| e.player_id == id)
            .map_or_else(|| id.to_string(), |e| e.display_name.clone())
    };
    if report.standings.is_empty() {
        text += "No results yet.\n";
        return text;
    }
    let width = t
        .entrants
        .iter()
        .map(|e| e.display_name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 20);
    text += "\nStandings (points: 1 per comparison won, ½ per tie)\n";
    for s in &report.standings {
        text += &format!(
            "{:>3}. {:<width$}  {:>5.1} / {:<3} {:>+8.2} money per set\n",
            s.rank, s.display_name, s.points, s.sets, s.mean_money_diff
        );
    }
    let order: Vec<&str> = report
        .standings
        .iter()
        .map(|s| s.player_id.as_str())
        .collect();
    text += "\nCrosstable (row against column: points / sets)\n";
    // Room for "#12 " before the name.
    let label = width + 4;
    text += &format!("{:<label$}", "");
    for (i, _) in order.iter().enumerate() {
        text += &format!(" {:>9}", format!("#{}", i + 1));
    }
    text += "\n";
    for (i, row) in order.iter().enumerate() {
        text += &format!("{:<label$}", format!("#{} {}", i + 1, name(row)));
        for col in &order {
            let cell = report
                .crosstable
                .iter()
                .find(|c| c.player_id == *row && c.opponent_id == *col);
            text += &match cell {
                Some(c) => format!(" {:>9}", format!("{:.1}/{}", c.points, c.sets)),
                None => format!(" {:>9}", "·"),
            };
        }
        text += "\n";
    }
    text += "\nPairs (mean money difference per set, 95% interval)\n";
    for c in &report.crosstable {
        if order.iter().position(|p| *p == c.player_id)
            > order.iter().position(|p| *p == c.opponent_id)
        {
            continue;
        }
        let interval = c.interval.map_or_else(
            || "(one set: no interval)".to_string(),
            |i| format!("[{:+.2}, {:+.2}]", i.low, i.high),
        );
        text += &format!(
            "  {} vs {}: {:.1}/{}  {:+.2} {interval}\n",
            name(&c.player_id),
            name(&c.opponent_id),
            c.points,
            c.sets,
            c.mean_money_diff
        );
    }
    text
}

/// `boss tournament list`.
pub async fn list(
    session: &Session,
    status: v1::TournamentStatus,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let tournaments = session.tournaments(status, 50).await?;
    if json {
        let lines: Vec<serde_json::Value> = tournaments
            .iter()
            .map(|t| {
                serde_json::json!({
                    "tournament_id": t.tournament_id, "name": t.name,
                    "format": status_name(t.format()), "status": status_name(t.status()),
                    "players": t.players, "entrants": t.entrants.len(),
                    "max_entrants": t.max_entrants,
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::Value::from(lines))?;
        return Ok(());
    }
    if tournaments.is_empty() {
        writeln!(out, "No tournaments.")?;
    }
    for t in &tournaments {
        writeln!(
            out,
            "{}  {}  {} players a table, {}/{} entrants, {}",
            t.tournament_id,
            t.name,
            t.players,
            t.entrants.len(),
            t.max_entrants,
            status_name(t.status())
        )?;
    }
    Ok(())
}

/// What a tournament call answered, in one line.
pub fn tournament_line(t: &v1::Tournament) -> String {
    format!(
        "{}  {}: {} entrants, {}",
        t.tournament_id,
        t.name,
        t.entrants.len(),
        status_name(t.status())
    )
}

#[derive(Debug, Subcommand)]
pub enum TournamentCommand {
    /// Create a tournament, open for entries until you start it.
    Create {
        name: String,
        #[arg(long, value_enum, default_value = "round-robin")]
        format: FormatArg,
        /// Players per game.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..=4))]
        players: u32,
        /// Comparisons of each pair (a gauntlet: of the hero with each entrant).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10))]
        sets: u32,
        /// A gauntlet's hero (a player id).
        #[arg(long)]
        hero: Option<String>,
        /// Most entrants (default 16).
        #[arg(long, default_value_t = 0)]
        max_entrants: u32,
        /// Rate its sets on the ladder.
        #[arg(long)]
        rated: bool,
        /// Do not enter it yourself.
        #[arg(long)]
        no_enter: bool,
    },
    /// Enter a tournament that has not started.
    Enter { tournament: String },
    /// Leave a tournament that has not started.
    Leave { tournament: String },
    /// Start your tournament.
    Start { tournament: String },
    /// Enter (if need be) and play your games until it finishes.
    Play { tournament: String },
    /// Standings and crosstable.
    Show {
        tournament: String,
        #[arg(long)]
        json: bool,
    },
    /// Tournaments, newest first.
    List {
        #[arg(long, value_enum)]
        status: Option<TournamentStatusArg>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    RoundRobin,
    Gauntlet,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TournamentStatusArg {
    Open,
    Running,
    Finished,
}

/// Runs one `boss tournament` subcommand.
pub async fn tournament(
    session: &theboss_client::Session,
    command: TournamentCommand,
    io: &mut Io<'_>,
) -> Result<(), CommandError> {
    let line = match command {
        TournamentCommand::Create {
            name,
            format,
            players,
            sets,
            hero,
            max_entrants,
            rated,
            no_enter,
        } => {
            session
                .create_tournament(v1::CreateTournamentRequest {
                    name,
                    format: match format {
                        FormatArg::RoundRobin => v1::TournamentFormat::RoundRobin,
                        FormatArg::Gauntlet => v1::TournamentFormat::Gauntlet,
                    } as i32,
                    players,
                    sets_per_pair: sets,
                    hero_id: hero.unwrap_or_default(),
                    max_entrants,
                    rated,
                    enter: !no_enter,
                })
                .await?
        }
        TournamentCommand::Enter { tournament } => {
            session.enter_tournament(&tournament, false).await?
        }
        TournamentCommand::Leave { tournament } => {
            session.enter_tournament(&tournament, true).await?
        }
        TournamentCommand::Start { tournament } => session.start_tournament(&tournament).await?,
        TournamentCommand::Play { tournament } => {
            return play_tournament(session, &tournament, io).await;
        }
        TournamentCommand::Show { tournament, json } => {
            return show(session, &tournament, json, io.out).await;
        }
        TournamentCommand::List { status, json } => {
            let status = match status {
                None => v1::TournamentStatus::Unspecified,
                Some(TournamentStatusArg::Open) => v1::TournamentStatus::Open,
                Some(TournamentStatusArg::Running) => v1::TournamentStatus::Running,
                Some(TournamentStatusArg::Finished) => v1::TournamentStatus::Finished,
            };
            return list(session, status, json, io.out).await;
        }
    };
    writeln!(io.out, "{}", tournament_line(&line))?;
    Ok(())
}
