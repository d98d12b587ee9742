//! The gRPC side of a bot, written as the reference for integrators:
//!
//! 1. connect, then register once and keep the token ([`Connection::authenticate`]);
//! 2. get a seat: join a given game, create one, or wait for an open one ([`Seating`]);
//! 3. follow the game **only** through `WatchGame`; when the stream drops or goes quiet for
//!    longer than three keep-alives, reconnect with `after_seq` = the last sequence number
//!    seen, so nothing is missed or seen twice;
//! 4. on the seat's turn, choose from the view (within the turn's deadline) and submit with
//!    `expected_seq` = the view's `seq` and a fresh idempotency key; a transport error is
//!    retried with the same key, a stale `expected_seq` (`ABORTED`) is ignored because a
//!    newer view is on its way;
//! 5. stop when the game ends.

use std::fmt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use theboss::convert::view_from_wire;
use theboss::v1::{
    self, game_service_client::GameServiceClient, ladder_service_client::LadderServiceClient,
    watch_game_response::Message,
};
use tokio::task::JoinSet;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};

use crate::credentials::Credentials;
use crate::strategy::{Strategy, StrategyKind};

/// Deadline of unary calls.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot connect: {0}")]
    Connect(#[from] tonic::transport::Error),
    #[error("{call}: {status}")]
    Rpc { call: &'static str, status: Status },
    #[error("credentials file: {0}")]
    Credentials(#[from] std::io::Error),
    #[error("the server sent a view the engine does not understand: {0}")]
    BadView(#[from] theboss::convert::WireError),
    #[error("the stream of game {0} kept failing; giving up")]
    StreamLost(String),
    #[error("the server refused our turn: {0}")]
    Refused(Status),
}

fn rpc(call: &'static str) -> impl FnOnce(Status) -> ClientError {
    move |status| ClientError::Rpc { call, status }
}

/// A channel to a server, before authentication.
#[derive(Clone)]
pub struct Connection {
    channel: Channel,
    url: String,
}

impl Connection {
    pub async fn connect(url: &str) -> Result<Connection, ClientError> {
        let channel = Endpoint::from_shared(url.to_string())?
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true)
            .connect()
            .await?;
        Ok(Connection {
            channel,
            url: url.to_string(),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Registers a new player.
    pub async fn register(&self, name: &str, is_bot: bool) -> Result<Session, ClientError> {
        let registered = GameServiceClient::new(self.channel.clone())
            .register(v1::RegisterRequest {
                display_name: name.to_string(),
                is_bot,
            })
            .await
            .map_err(rpc("Register"))?
            .into_inner();
        Ok(self.session(Credentials {
            player_id: registered.player_id,
            api_token: registered.api_token,
            display_name: name.to_string(),
        }))
    }

    /// A session with known credentials.
    pub fn session(&self, credentials: Credentials) -> Session {
        Session {
            client: GameServiceClient::new(self.channel.clone()),
            ladder: LadderServiceClient::new(self.channel.clone()),
            credentials,
        }
    }

    /// Uses the token saved for this server in `token_file`, or registers and saves one.
    pub async fn authenticate(
        &self,
        token_file: &Path,
        name: &str,
        is_bot: bool,
    ) -> Result<Session, ClientError> {
        if let Some(saved) = Credentials::load(token_file, &self.url)? {
            return Ok(self.session(saved));
        }
        let session = self.register(name, is_bot).await?;
        session.credentials.save(token_file, &self.url)?;
        tracing::info!(player = %session.credentials.player_id, file = %token_file.display(), "registered");
        Ok(session)
    }
}

/// An authenticated player on one server. Cheap to clone.
#[derive(Clone)]
pub struct Session {
    client: GameServiceClient<Channel>,
    ladder: LadderServiceClient<Channel>,
    pub credentials: Credentials,
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
    /// Give up on a stream that sent nothing, not even a keep-alive, for this long.
    pub silence: Duration,
    /// Reconnection attempts in a row before giving up.
    pub reconnects: u32,
    /// How often `Seating::Wait` looks for open games.
    pub poll: Duration,
}

impl Default for PlayOptions {
    fn default() -> PlayOptions {
        PlayOptions {
            silence: Duration::from_secs(45),
            reconnects: 20,
            poll: Duration::from_millis(500),
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
        )
    }
}

impl Session {
    pub fn player_id(&self) -> &str {
        &self.credentials.player_id
    }

    /// A request with this player's credentials and a deadline.
    pub fn request<T>(&self, message: T) -> Request<T> {
        let mut request = self.stream_request(message);
        request.set_timeout(CALL_TIMEOUT);
        request
    }

    fn client(&self) -> GameServiceClient<Channel> {
        self.client.clone()
    }

    pub async fn create_game(&self, settings: v1::GameSettings) -> Result<String, ClientError> {
        self.create_seeded_game(settings, None).await
    }

    pub async fn join(&self, game_id: &str, seat: Option<u32>) -> Result<u32, ClientError> {
        Ok(self
            .client()
            .join_game(self.request(v1::JoinGameRequest {
                game_id: game_id.to_string(),
                seat,
            }))
            .await
            .map_err(rpc("JoinGame"))?
            .into_inner()
            .seat)
    }

    /// Joins the first open game with a free seat, waiting until there is one.
    pub async fn join_any(&self, poll: Duration) -> Result<String, ClientError> {
        loop {
            let open = self
                .client()
                .list_games(self.request(v1::ListGamesRequest {
                    statuses: vec![v1::GameStatus::Open as i32],
                    page_size: 100,
                    ..Default::default()
                }))
                .await
                .map_err(rpc("ListGames"))?
                .into_inner();
            for game in open.games.iter().rev() {
                let players = game.settings.as_ref().map_or(0, |s| s.players) as usize;
                let mine = game.seats.iter().any(|s| s.player_id == self.player_id());
                if mine || game.seats.len() >= players {
                    continue;
                }
                match self.join(&game.game_id, None).await {
                    Ok(_) => return Ok(game.game_id.clone()),
                    // Someone else was faster: look again.
                    Err(ClientError::Rpc { status, .. })
                        if status.code() == Code::FailedPrecondition => {}
                    Err(e) => return Err(e),
                }
            }
            tokio::time::sleep(poll).await;
        }
    }

    /// Gets a seat as `seating` says; returns the game id.
    pub async fn seat(&self, seating: &Seating, poll: Duration) -> Result<String, ClientError> {
        match seating {
            Seating::Join { game_id, seat } => {
                match self.join(game_id, *seat).await {
                    Ok(_) => {}
                    // Already seated there (e.g. after a restart of the bot): play on.
                    Err(ClientError::Rpc { status, .. }) if reason(&status) == "ALREADY_SEATED" => {
                    }
                    Err(e) => return Err(e),
                }
                Ok(game_id.clone())
            }
            Seating::Create { players } => {
                let game_id = self
                    .create_game(v1::GameSettings {
                        players: *players,
                        visibility: v1::Visibility::Public as i32,
                        ..Default::default()
                    })
                    .await?;
                self.join(&game_id, None).await?;
                Ok(game_id)
            }
            Seating::Wait => self.join_any(poll).await,
        }
    }

    /// The ladder's client, for requests made with [`Session::request`] (or a streaming
    /// request with [`Session::stream_request`]).
    pub fn ladder_client(&self) -> LadderServiceClient<Channel> {
        self.ladder.clone()
    }

    /// A request with this player's credentials and no deadline, for long-lived streams.
    pub fn stream_request<T>(&self, message: T) -> Request<T> {
        let mut request = Request::new(message);
        request.metadata_mut().insert(
            "authorization",
            format!("Bearer {}", self.credentials.api_token)
                .parse()
                .expect("tokens are ASCII"),
        );
        request
    }

    /// The player's current view of a game.
    pub async fn view(&self, game_id: &str) -> Result<v1::GameView, ClientError> {
        Ok(self
            .client()
            .get_view(self.request(v1::GetViewRequest {
                game_id: game_id.to_string(),
            }))
            .await
            .map_err(rpc("GetView"))?
            .into_inner()
            .view
            .unwrap_or_default())
    }

    pub async fn list_games(
        &self,
        request: v1::ListGamesRequest,
    ) -> Result<v1::ListGamesResponse, ClientError> {
        Ok(self
            .client()
            .list_games(self.request(request))
            .await
            .map_err(rpc("ListGames"))?
            .into_inner())
    }

    pub async fn history(&self, game_id: &str) -> Result<v1::GetHistoryResponse, ClientError> {
        Ok(self
            .client()
            .get_history(self.request(v1::GetHistoryRequest {
                game_id: game_id.to_string(),
            }))
            .await
            .map_err(rpc("GetHistory"))?
            .into_inner())
    }

    /// Creates a game with a fixed seed (tests and demonstrations only).
    pub async fn create_seeded_game(
        &self,
        settings: v1::GameSettings,
        seed: Option<u64>,
    ) -> Result<String, ClientError> {
        Ok(self
            .client()
            .create_game(self.request(v1::CreateGameRequest {
                settings: Some(settings),
                seed,
            }))
            .await
            .map_err(rpc("CreateGame"))?
            .into_inner()
            .game_id)
    }

    /// A `WatchGame` stream resuming after `after_seq` (from a snapshot if `None`).
    pub async fn watch_from(
        &self,
        game_id: &str,
        after_seq: Option<u64>,
    ) -> Result<tonic::Streaming<v1::WatchGameResponse>, ClientError> {
        self.watch(game_id, after_seq)
            .await
            .map_err(rpc("WatchGame"))
    }

    /// A `WatchGame` stream from a snapshot.
    pub async fn watch_stream(
        &self,
        game_id: &str,
    ) -> Result<tonic::Streaming<v1::WatchGameResponse>, ClientError> {
        self.watch(game_id, None).await.map_err(rpc("WatchGame"))
    }

    /// Submits a turn once: any refusal is an error.
    pub async fn submit_once(
        &self,
        game_id: &str,
        expected_seq: u64,
        action: v1::TurnAction,
    ) -> Result<v1::SubmitActionResponse, ClientError> {
        Ok(self
            .client()
            .submit_action(self.request(v1::SubmitActionRequest {
                game_id: game_id.to_string(),
                expected_seq,
                idempotency_key: uuid::Uuid::new_v4().to_string(),
                action: Some(action),
            }))
            .await
            .map_err(rpc("SubmitAction"))?
            .into_inner())
    }

    async fn watch(
        &self,
        game_id: &str,
        after_seq: Option<u64>,
    ) -> Result<tonic::Streaming<v1::WatchGameResponse>, Status> {
        // No deadline: the stream lives as long as the game.
        let request = self.stream_request(v1::WatchGameRequest {
            game_id: game_id.to_string(),
            after_seq,
        });
        Ok(self.client().watch_game(request).await?.into_inner())
    }

    /// Submits a turn, retrying transport failures with the same idempotency key.
    async fn submit(
        &self,
        game_id: &str,
        expected_seq: u64,
        action: v1::TurnAction,
    ) -> Result<Submitted, ClientError> {
        let key = uuid::Uuid::new_v4().to_string();
        let mut delay = Duration::from_millis(50);
        for _ in 0..6 {
            let result = self
                .client()
                .submit_action(self.request(v1::SubmitActionRequest {
                    game_id: game_id.to_string(),
                    expected_seq,
                    idempotency_key: key.clone(),
                    action: Some(action),
                }))
                .await;
            match result {
                Ok(_) => return Ok(Submitted::Accepted),
                // A newer view is on its way; act on that one.
                Err(status) if status.code() == Code::Aborted => return Ok(Submitted::Stale),
                Err(status) if transient(status.code()) => {
                    tracing::warn!(%status, "submit failed; retrying with the same key");
                    tokio::time::sleep(delay).await;
                    delay *= 2;
                }
                Err(status) => return Err(ClientError::Refused(status)),
            }
        }
        Ok(Submitted::GaveUp)
    }

    /// Plays a game the bot is seated in until it ends.
    pub async fn play_game(
        &self,
        game_id: &str,
        strategy: Box<dyn Strategy>,
        options: &PlayOptions,
    ) -> Result<GameResult, ClientError> {
        let mut game = Follower {
            session: self,
            game_id,
            strategy: Some(strategy),
            last_seq: None,
            answered: None,
            turns_played: 0,
            latest: None,
        };
        let mut failures = 0;
        loop {
            match game.follow(options).await? {
                Some(result) => return Ok(result),
                None => {
                    failures += 1;
                    if failures > options.reconnects {
                        return Err(ClientError::StreamLost(game_id.to_string()));
                    }
                    tokio::time::sleep(Duration::from_millis(50 * u64::from(failures.min(20))))
                        .await;
                }
            }
        }
    }
}

/// What became of a submitted turn.
enum Submitted {
    Accepted,
    /// `expected_seq` was stale: the game moved on.
    Stale,
    /// The server stayed unreachable.
    GaveUp,
}

/// One bot following one game.
struct Follower<'a> {
    session: &'a Session,
    game_id: &'a str,
    /// Lent to the blocking thread while it thinks.
    strategy: Option<Box<dyn Strategy>>,
    /// The last sequence number seen, to resume from.
    last_seq: Option<u64>,
    /// The view whose turn the server has answered (accepted or found stale).
    answered: Option<u64>,
    turns_played: u32,
    latest: Option<v1::GameView>,
}

impl Follower<'_> {
    /// Follows one stream until it ends. Returns the result once the game is over, `None`
    /// when the stream must be reopened.
    async fn follow(&mut self, options: &PlayOptions) -> Result<Option<GameResult>, ClientError> {
        let resumed = self.last_seq.is_some();
        let mut stream = match self.session.watch(self.game_id, self.last_seq).await {
            Ok(stream) => stream,
            Err(status) if transient(status.code()) => return Ok(None),
            Err(status) => {
                return Err(ClientError::Rpc {
                    call: "WatchGame",
                    status,
                });
            }
        };
        if resumed {
            // The backlog may be empty (e.g. our last turn never arrived): act on the
            // current view too.
            match self.session.view(self.game_id).await {
                Ok(view) => {
                    if !self.on_view(view).await? {
                        return Ok(None);
                    }
                }
                Err(ClientError::Rpc { status, .. }) if transient(status.code()) => {
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
        }
        loop {
            let message = match tokio::time::timeout(options.silence, stream.message()).await {
                Ok(Ok(Some(message))) => message,
                Ok(Ok(None)) => break,
                Ok(Err(status)) => {
                    tracing::debug!(%status, "stream dropped; resuming");
                    break;
                }
                Err(_) => {
                    tracing::warn!(game = self.game_id, "stream silent; reconnecting");
                    break;
                }
            };
            let view = match message.message {
                Some(Message::Snapshot(view)) => view,
                Some(Message::Update(update)) => {
                    self.last_seq = Some(update.seq);
                    match update.view {
                        Some(view) => view,
                        None => continue,
                    }
                }
                Some(Message::KeepAlive(_)) | None => continue,
            };
            if !self.on_view(view).await? {
                return Ok(None);
            }
        }
        Ok(self.finished())
    }

    /// Acts on a view if it is our turn. Returns false if the server could not be reached.
    async fn on_view(&mut self, view: v1::GameView) -> Result<bool, ClientError> {
        self.last_seq = Some(self.last_seq.unwrap_or(0).max(view.seq));
        let my_turn = view.viewer_seat.is_some() && view.to_move == view.viewer_seat;
        let newer = self.latest.as_ref().is_none_or(|l| l.seq <= view.seq);
        if my_turn && newer && self.answered.is_none_or(|s| s < view.seq) {
            let strategy = self.strategy.take().expect("not lent out");
            let (turn, strategy) = decide(&view, strategy).await?;
            self.strategy = Some(strategy);
            match self.session.submit(self.game_id, view.seq, turn).await? {
                Submitted::Accepted => {
                    self.turns_played += 1;
                    self.answered = Some(view.seq);
                }
                Submitted::Stale => self.answered = Some(view.seq),
                Submitted::GaveUp => return Ok(false),
            }
        }
        if newer {
            self.latest = Some(view);
        }
        Ok(true)
    }

    fn finished(&self) -> Option<GameResult> {
        let view = self.latest.as_ref()?;
        let status = v1::GameStatus::try_from(view.status).unwrap_or_default();
        matches!(status, v1::GameStatus::Finished | v1::GameStatus::Aborted)
            .then(|| result(self.game_id, view, self.turns_played))
    }
}

/// The machine-readable reason of a refusal (`google.rpc.ErrorInfo`), if any.
pub fn reason(status: &Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_default()
}

/// Failures worth retrying: the server or the connection was briefly away.
pub(crate) fn transient(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable | Code::Cancelled | Code::Unknown | Code::DeadlineExceeded
    )
}

/// Runs the strategy off the async threads, within the turn's deadline.
async fn decide(
    view: &v1::GameView,
    mut strategy: Box<dyn Strategy>,
) -> Result<(v1::TurnAction, Box<dyn Strategy>), ClientError> {
    let engine_view = view_from_wire(view)?;
    let time = view
        .legal
        .as_ref()
        .and_then(|l| l.deadline)
        .and_then(|d| SystemTime::try_from(d).ok())
        .and_then(|d| d.duration_since(SystemTime::now()).ok());
    let (turn, strategy) = tokio::task::spawn_blocking(move || {
        let turn = strategy.choose(&engine_view, time);
        (turn, strategy)
    })
    .await
    .expect("strategies do not panic");
    Ok((theboss::convert::turn_to_wire(&turn), strategy))
}

fn result(game_id: &str, view: &v1::GameView, turns_played: u32) -> GameResult {
    let seat = view.viewer_seat.unwrap_or(0);
    GameResult {
        game_id: game_id.to_string(),
        seat,
        status: v1::GameStatus::try_from(view.status).unwrap_or_default(),
        winners: view
            .outcome
            .as_ref()
            .map(|o| o.winners.clone())
            .unwrap_or_default(),
        money: view.seats.get(seat as usize).map_or(0, |s| s.money),
        turns_played,
    }
}

/// Plays `games` games, `concurrent` at a time, each seated as `seating` says.
pub async fn play_many(
    session: &Session,
    seating: Seating,
    strategy: StrategyKind,
    games: u32,
    concurrent: u32,
    options: &PlayOptions,
) -> Result<Vec<GameResult>, ClientError> {
    let mut set = JoinSet::new();
    let mut results = Vec::new();
    let mut started = 0;
    loop {
        while started < games && set.len() < concurrent.max(1) as usize {
            let (session, seating, options) = (session.clone(), seating.clone(), options.clone());
            let seed = u64::from(started);
            set.spawn(async move {
                let game_id = session.seat(&seating, options.poll).await?;
                tracing::info!(game = %game_id, "seated");
                session
                    .play_game(&game_id, strategy.build(seed), &options)
                    .await
            });
            started += 1;
        }
        match set.join_next().await {
            Some(done) => results.push(done.expect("game tasks do not panic")?),
            None => return Ok(results),
        }
    }
}
