//! Playing a game from the terminal (or from a script on stdin): follow the stream, show
//! what happens, and on our turn read commands until a turn is complete, checked locally
//! before it is sent.

use std::io::Write;

use theboss::convert::view_from_wire;
use theboss::v1;
use theboss_client::{ClientError, FeedItem, FeedOptions, Session};
use tokio::sync::mpsc;
use tonic::Code;

use crate::input::{Command, Draft, HELP, parse_line};
use crate::render::{self, Painter};

/// Where lines come from and text goes.
pub struct Io<'a> {
    pub lines: &'a mut mpsc::Receiver<String>,
    pub out: &'a mut (dyn Write + Send),
    pub painter: Painter,
    /// A person is typing: draw the table and prompt. Otherwise a script is: any refused
    /// line is an error.
    pub interactive: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("output: {0}")]
    Output(#[from] std::io::Error),
    #[error("the input ended before the game did")]
    InputEnded,
    #[error("left the game")]
    Quit,
    #[error("line {line:?} refused: {reason}")]
    Refused { line: String, reason: String },
}

/// What the feed has told us so far.
#[derive(Default)]
struct Seen {
    latest: Option<v1::GameView>,
    /// The latest view is complete: a whole view, or the last update of its action.
    settled: bool,
}

impl Seen {
    fn take(&mut self, item: FeedItem, io: &mut Io<'_>) -> Result<(), PlayError> {
        match item {
            FeedItem::View(view) => {
                if self.latest.as_ref().is_none_or(|l| l.seq <= view.seq) {
                    self.latest = Some(view);
                }
                self.settled = true;
            }
            FeedItem::Update(update) => {
                // Only an action's last update carries the view: act once it has arrived.
                self.settled = update.action_complete;
                if let Some(view) = update.view {
                    self.latest = Some(view);
                }
                let names = self.latest.as_ref().map(render::names).unwrap_or_default();
                if let Some(line) = update
                    .event
                    .as_ref()
                    .and_then(|e| render::event_text(e, &names, io.painter))
                {
                    writeln!(io.out, "  {line}")?;
                }
            }
        }
        Ok(())
    }
}

/// Plays until the game is over; returns the final view.
pub async fn play(
    session: &Session,
    game_id: &str,
    io: &mut Io<'_>,
) -> Result<v1::GameView, PlayError> {
    let mut seen = Seen::default();
    let mut answered: Option<u64> = None;
    let mut feed = session.follow(game_id, FeedOptions::default());
    while let Some(item) = feed.next().await? {
        seen.take(item, io)?;
        if !seen.settled {
            continue;
        }
        let Some(view) = seen.latest.clone() else {
            continue;
        };
        let status = v1::GameStatus::try_from(view.status).unwrap_or_default();
        if matches!(status, v1::GameStatus::Finished | v1::GameStatus::Aborted) {
            let engine = view_from_wire(&view).map_err(ClientError::from)?;
            write!(io.out, "\n{}", render::table(&view, &engine, io.painter))?;
            return Ok(view);
        }
        let my_turn = view.viewer_seat.is_some() && view.to_move == view.viewer_seat;
        if my_turn
            && answered.is_none_or(|s| s < view.seq)
            && take_turn(session, game_id, &view, io).await?
        {
            answered = Some(view.seq);
        }
    }
    // The feed ends after the game's last update, which the loop above returns on.
    Err(ClientError::StreamLost(game_id.to_string()).into())
}

/// Reads commands until a turn is sent. Returns false if the game moved on meanwhile.
async fn take_turn(
    session: &Session,
    game_id: &str,
    view: &v1::GameView,
    io: &mut Io<'_>,
) -> Result<bool, PlayError> {
    let engine = view_from_wire(view).map_err(ClientError::from)?;
    if io.interactive {
        write!(io.out, "\n{}", render::table(view, &engine, io.painter))?;
        writeln!(io.out, "Type `help` for how to enter a turn.")?;
    }
    let mut draft = Draft::default();
    loop {
        if io.interactive {
            write!(
                io.out,
                "{}> ",
                if draft.placement.is_some() {
                    "(placed) "
                } else {
                    ""
                }
            )?;
            io.out.flush()?;
        }
        let line = io.lines.recv().await.ok_or(PlayError::InputEnded)?;
        let commands = match parse_line(&line, &engine) {
            Ok(commands) => commands,
            Err(reason) if io.interactive => {
                writeln!(io.out, "  ✗ {reason}")?;
                continue;
            }
            Err(reason) => return Err(PlayError::Refused { line, reason }),
        };
        for command in &commands {
            match command {
                Command::Help => writeln!(io.out, "{HELP}")?,
                Command::Odds => write!(io.out, "{}", render::odds(&engine))?,
                Command::Table => write!(io.out, "{}", render::table(view, &engine, io.painter))?,
                Command::Quit => return Err(PlayError::Quit),
                Command::Place(p) if io.interactive => {
                    draft.apply(command);
                    writeln!(io.out, "  placing {p}; now `play <city> <face>`")?;
                }
                _ => {
                    let Some(turn) = draft.apply(command) else {
                        continue;
                    };
                    let action = theboss::convert::turn_to_wire(&turn);
                    match session.submit(game_id, view.seq, action).await {
                        Ok(_) => return Ok(true),
                        Err(e) if e.code() == Code::Aborted => {
                            writeln!(
                                io.out,
                                "  the game moved on (time ran out?); here is the new state"
                            )?;
                            return Ok(false);
                        }
                        Err(e)
                            if matches!(
                                e.code(),
                                Code::FailedPrecondition | Code::InvalidArgument
                            ) =>
                        {
                            let reason = e.status().map(|s| s.message().to_string());
                            let reason = reason.unwrap_or_else(|| e.to_string());
                            if !io.interactive {
                                return Err(PlayError::Refused { line, reason });
                            }
                            writeln!(io.out, "  ✗ the server refused: {reason}")?;
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
        }
    }
}
