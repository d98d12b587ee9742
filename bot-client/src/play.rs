//! A bot at the table: get a seat, follow the game through a [`GameFeed`], and on the seat's
//! turn ask the strategy (off the async threads, within the turn's deadline) and submit with
//! the view's `seq` as `expected_seq` and one idempotency key per turn.
//!
//! A strategy that panics costs its game, not the process: the bot plays the server's own
//! default turn (no placement, the first legal card) for the rest of that game and reports
//! the panic in the game's result.

use std::fmt;
use std::time::{Duration, SystemTime};

use theboss::convert::view_from_wire;
use theboss::v1;
use theboss_client::{ClientError, FeedItem, FeedOptions, Session, Submitted};
use theboss_engine::{Turn, View};
use tokio::task::JoinSet;

use crate::strategy::{Strategy, StrategyKind};

#[derive(Debug, thiserror::Error)]
pub enum BotError {
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("the server refused our turn: {0}")]
    Refused(ClientError),
    #[error("a game task failed: {0}")]
    Task(String),
}

/// How a bot gets a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seating {
    Join {
        game_id: String,
        seat: Option<u32>,
    },
    Create {
        players: u32,
    },
    /// Join the first open game with a free seat, polling until there is one.
    Wait,
}

#[derive(Debug, Clone)]
pub struct PlayOptions {
    pub feed: FeedOptions,
    /// How often `Seating::Wait` looks for open games.
    pub poll: Duration,
    /// Tries of one turn's submission while the service is unreachable.
    pub submit_attempts: u32,
}

impl Default for PlayOptions {
    fn default() -> PlayOptions {
        PlayOptions {
            feed: FeedOptions::default(),
            poll: Duration::from_millis(500),
            submit_attempts: 6,
        }
    }
}

/// How a game ended for the bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    pub game_id: String,
    pub seat: u32,
    pub status: v1::GameStatus,
    pub winners: Vec<u32>,
    pub money: u32,
    pub turns_played: u32,
    /// Set if the strategy panicked: the rest of the game was played by default turns.
    pub strategy_panic: Option<String>,
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.status {
            v1::GameStatus::Aborted => "aborted".to_string(),
            _ if self.winners.contains(&self.seat) => "won".to_string(),
            _ => format!("lost (winners: {:?})", self.winners),
        };
        write!(
            f,
            "game {} seat {}: {verdict}, {} M$, {} turns",
            self.game_id, self.seat, self.money, self.turns_played
        )?;
        if let Some(panic) = &self.strategy_panic {
            write!(f, " (the strategy panicked: {panic})")?;
        }
        Ok(())
    }
}

/// Joins the first open game with a free seat, waiting until there is one.
pub async fn join_any(session: &Session, poll: Duration) -> Result<String, ClientError> {
    loop {
        let open = session
            .list_games(v1::ListGamesRequest {
                statuses: vec![v1::GameStatus::Open as i32],
                page_size: 100,
                ..Default::default()
            })
            .await?;
        for game in open.games.iter().rev() {
            let players = game.settings.as_ref().map_or(0, |s| s.players) as usize;
            let mine = game
                .seats
                .iter()
                .any(|s| s.player_id == session.player_id());
            if mine || game.seats.len() >= players {
                continue;
            }
            match session.join(&game.game_id, None).await {
                Ok(_) => return Ok(game.game_id.clone()),
                // Someone else was faster: look again.
                Err(e) if e.code() == tonic::Code::FailedPrecondition => {}
                Err(e) => return Err(e),
            }
        }
        tokio::time::sleep(poll).await;
    }
}

/// Gets a seat as `seating` says; returns the game id.
pub async fn seat(
    session: &Session,
    seating: &Seating,
    poll: Duration,
) -> Result<String, ClientError> {
    match seating {
        Seating::Join { game_id, seat } => {
            match session.join(game_id, *seat).await {
                Ok(_) => {}
                // Already seated there (e.g. after a restart of the bot): play on.
                Err(e) if e.reason() == "ALREADY_SEATED" => {}
                Err(e) => return Err(e),
            }
            Ok(game_id.clone())
        }
        Seating::Create { players } => {
            let settings = v1::GameSettings {
                players: *players,
                visibility: v1::Visibility::Public as i32,
                ..Default::default()
            };
            let game_id = session.create_game(settings, None).await?;
            session.join(&game_id, None).await?;
            Ok(game_id)
        }
        Seating::Wait => join_any(session, poll).await,
    }
}

/// Plays a game the bot is seated in until it ends.
pub async fn play_game(
    session: &Session,
    game_id: &str,
    strategy: Box<dyn Strategy>,
    options: &PlayOptions,
) -> Result<GameResult, BotError> {
    let mut bot = Bot {
        session,
        game_id,
        strategy: Some(strategy),
        strategy_panic: None,
        answered: None,
        turns_played: 0,
        latest: None,
        options,
    };
    let mut feed = session.follow(game_id, options.feed.clone());
    while let Some(item) = feed.next().await? {
        let view = match item {
            FeedItem::View(view) => view,
            FeedItem::Update(update) => match update.view {
                Some(view) => view,
                None => continue,
            },
        };
        bot.on_view(view).await?;
    }
    bot.result()
        .ok_or_else(|| BotError::Client(ClientError::StreamLost(game_id.to_string())))
}

/// One bot playing one game.
struct Bot<'a> {
    session: &'a Session,
    game_id: &'a str,
    /// Lent to the blocking thread while it thinks.
    strategy: Option<Box<dyn Strategy>>,
    strategy_panic: Option<String>,
    /// The view whose turn the server has answered (accepted or found stale).
    answered: Option<u64>,
    turns_played: u32,
    latest: Option<v1::GameView>,
    options: &'a PlayOptions,
}

impl Bot<'_> {
    /// Acts on a view if it is our turn.
    async fn on_view(&mut self, view: v1::GameView) -> Result<(), BotError> {
        let my_turn = view.viewer_seat.is_some() && view.to_move == view.viewer_seat;
        let newer = self.latest.as_ref().is_none_or(|l| l.seq <= view.seq);
        if my_turn && newer && self.answered.is_none_or(|s| s < view.seq) {
            let turn = self.decide(&view).await?;
            let action = theboss::convert::turn_to_wire(&turn);
            let submitted = self
                .session
                .submit_retrying(self.game_id, view.seq, action, self.options.submit_attempts)
                .await
                .map_err(|e| {
                    if e.is_transient() {
                        BotError::Client(e)
                    } else {
                        BotError::Refused(e)
                    }
                })?;
            match submitted {
                Submitted::Accepted(_) => {
                    self.turns_played += 1;
                    self.answered = Some(view.seq);
                }
                Submitted::Stale => self.answered = Some(view.seq),
                // The feed's next view (after it reconnects) gives the turn another chance.
                Submitted::GaveUp { .. } => {}
            }
        }
        if newer {
            self.latest = Some(view);
        }
        Ok(())
    }

    /// Runs the strategy off the async threads, within the turn's deadline. If it panics,
    /// this game goes on with default turns.
    async fn decide(&mut self, view: &v1::GameView) -> Result<Turn, BotError> {
        let engine_view = view_from_wire(view).map_err(ClientError::from)?;
        let time = view
            .legal
            .as_ref()
            .and_then(|l| l.deadline)
            .and_then(|d| SystemTime::try_from(d).ok())
            .and_then(|d| d.duration_since(SystemTime::now()).ok());
        let mut strategy = self
            .strategy
            .take()
            .unwrap_or_else(|| Box::new(DefaultTurn));
        let thinking = tokio::task::spawn_blocking(move || {
            let turn = strategy.choose(&engine_view, time);
            (turn, strategy)
        })
        .await;
        match thinking {
            Ok((turn, strategy)) => {
                self.strategy = Some(strategy);
                Ok(turn)
            }
            Err(error) => {
                let message = panic_message(error);
                tracing::error!(game = self.game_id, panic = %message, "the strategy panicked; playing default turns for the rest of this game");
                self.strategy_panic = Some(message);
                self.strategy = Some(Box::new(DefaultTurn));
                let engine_view = view_from_wire(view).map_err(ClientError::from)?;
                Ok(DefaultTurn.choose(&engine_view, None))
            }
        }
    }

    fn result(&self) -> Option<GameResult> {
        let view = self.latest.as_ref()?;
        let status = v1::GameStatus::try_from(view.status).unwrap_or_default();
        if !matches!(status, v1::GameStatus::Finished | v1::GameStatus::Aborted) {
            return None;
        }
        let seat = view.viewer_seat.unwrap_or(0);
        Some(GameResult {
            game_id: self.game_id.to_string(),
            seat,
            status,
            winners: view
                .outcome
                .as_ref()
                .map(|o| o.winners.clone())
                .unwrap_or_default(),
            money: view.seats.get(seat as usize).map_or(0, |s| s.money),
            turns_played: self.turns_played,
            strategy_panic: self.strategy_panic.clone(),
        })
    }
}

/// The turn the server itself plays for a seat whose clock ran out: no placement and the
/// first legal card.
struct DefaultTurn;

impl Strategy for DefaultTurn {
    fn name(&self) -> &'static str {
        "default"
    }

    fn choose(&mut self, view: &View, _time: Option<Duration>) -> Turn {
        let legal = view.legal.as_ref().expect("called on the seat's turn");
        Turn::play(legal.cards[0])
    }
}

/// What a failed task said: its panic message, or why it stopped.
pub(crate) fn panic_message(error: tokio::task::JoinError) -> String {
    match error.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string()),
        Err(error) => error.to_string(),
    }
}

/// Plays `games` games, `concurrent` at a time, each seated as `seating` says. One game's
/// failure is its own result; the others go on.
pub async fn play_many(
    session: &Session,
    seating: Seating,
    strategy: StrategyKind,
    games: u32,
    concurrent: u32,
    options: &PlayOptions,
) -> Vec<Result<GameResult, BotError>> {
    let mut set = JoinSet::new();
    let mut results = Vec::new();
    let mut started = 0;
    loop {
        while started < games && set.len() < concurrent.max(1) as usize {
            let (session, seating, options) = (session.clone(), seating.clone(), options.clone());
            let seed = u64::from(started);
            set.spawn(async move {
                let game_id = seat(&session, &seating, options.poll).await?;
                tracing::info!(game = %game_id, "seated");
                play_game(&session, &game_id, strategy.build(seed), &options).await
            });
            started += 1;
        }
        match set.join_next().await {
            Some(Ok(result)) => results.push(result),
            Some(Err(error)) => results.push(Err(BotError::Task(panic_message(error)))),
            None => return results,
        }
    }
}
