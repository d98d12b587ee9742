//! An authenticated player on one service: one typed method per RPC of `GameService` and
//! `LadderService`, each failure a [`ClientError`] naming the call; and how sessions are made
//! from a [`Connection`] (registering, or a saved token).

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use theboss::v1::{
    self, game_service_client::GameServiceClient, ladder_service_client::LadderServiceClient,
};
use tonic::transport::Channel;
use tonic::{Code, Request, Response, Status, Streaming};

use crate::connection::Connection;
use crate::credentials::Credentials;
use crate::error::ClientError;

/// Deadline of unary calls.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// An authenticated player. Cheap to clone.
#[derive(Clone)]
pub struct Session {
    connection: Connection,
    pub credentials: Credentials,
}

/// What became of a turn sent with [`Session::submit_retrying`].
#[derive(Debug, Clone, PartialEq)]
pub enum Submitted {
    Accepted(v1::SubmitActionResponse),
    /// `expected_seq` was stale: the game moved on (a newer view is on its way).
    Stale,
    /// The service stayed unreachable; the turn may or may not have been played (retrying
    /// with the same key later tells).
    GaveUp {
        key: String,
    },
}

impl Session {
    pub(crate) fn new(connection: Connection, credentials: Credentials) -> Session {
        Session {
            connection,
            credentials,
        }
    }

    pub fn player_id(&self) -> &str {
        &self.credentials.player_id
    }

    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// A request with this player's credentials and the unary deadline.
    pub fn request<T>(&self, message: T) -> Request<T> {
        let mut request = self.stream_request(message);
        request.set_timeout(CALL_TIMEOUT);
        request
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

    /// The raw `GameService` client on the current replica, for calls this type does not
    /// wrap (e.g. deliberately malformed requests in tests).
    pub fn game_client(&self) -> GameServiceClient<Channel> {
        GameServiceClient::new(self.connection.channel().1)
    }

    /// The raw `LadderService` client on the current replica.
    pub fn ladder_client(&self) -> LadderServiceClient<Channel> {
        LadderServiceClient::new(self.connection.channel().1)
    }

    /// One call on the current replica. If the replica cannot be reached, the next call goes
    /// to the next one; a `read` (a call with no effect) is tried there at once.
    ///
    /// A replica this client could not reach is left at once. One that answers UNAVAILABLE
    /// itself (its store briefly unavailable, or the replica that runs the game unreachable
    /// while its lease runs out) stays the current one unless a `read` tried on the others
    /// then succeeds on one: calls go to that one from then on. Moved on every such answer,
    /// every session sharing the connection went from replica to replica at each retry while
    /// the game was unavailable everywhere, toward the one that was down.
    ///
    /// Public for calls the typed methods do not make: `f` gets the replica's channel and
    /// makes the call itself (e.g. the load generator's, with a codec that decodes less).
    pub async fn call<T, F, Fut>(
        &self,
        call: &'static str,
        read: bool,
        f: F,
    ) -> Result<T, ClientError>
    where
        F: Fn(Channel) -> Fut,
        Fut: Future<Output = Result<Response<T>, Status>>,
    {
        let attempts = if read {
            self.connection.urls().len()
        } else {
            1
        };
        let mut last = None;
        let (mut tried, mut throttled) = (0, 0);
        let first = self.connection.current();
        while tried < attempts {
            let (i, channel) = self.connection.channel_after(first, tried);
            match f(channel).await.map_err(unanswered) {
                Ok(response) => {
                    // Answered here after the first replica answered UNAVAILABLE: stay here.
                    self.connection.move_on(first, i);
                    return Ok(response.into_inner());
                }
                Err(status) if status.code() == Code::Unavailable => {
                    if made_by_transport(&status) {
                        self.connection.fail_over(i);
                    }
                    last = Some(status);
                    tried += 1;
                }
                Err(status) => match crate::error::throttled_for(&status) {
                    // Over its quota: back off as long as the server says, and again.
                    Some(wait) if throttled < crate::error::THROTTLED_RETRIES => {
                        crate::error::back_off(wait, throttled).await;
                        throttled += 1;
                    }
                    _ => return Err(ClientError::Rpc { call, status }),
                },
            }
        }
        Err(ClientError::Rpc {
            call,
            status: last.expect("at least one attempt"),
        })
    }

    /// Creates a game (with a fixed seed for tests and demonstrations only); returns its id.
    pub async fn create_game(
        &self,
        settings: v1::GameSettings,
        seed: Option<u64>,
    ) -> Result<String, ClientError> {
        self.create_game_with(v1::CreateGameRequest {
            settings: Some(settings),
            seed,
            house_bots: Vec::new(),
        })
        .await
    }

    /// Creates a game as `message` says (house bots, say); returns its id.
    pub async fn create_game_with(
        &self,
        message: v1::CreateGameRequest,
    ) -> Result<String, ClientError> {
        let created = self
            .call("CreateGame", false, |channel| {
                let request = self.request(message.clone());
                async move { GameServiceClient::new(channel).create_game(request).await }
            })
            .await?;
        Ok(created.game_id)
    }

    /// Takes a seat (`None`: the first free one).
    pub async fn join(
        &self,
        game_id: &str,
        seat: Option<u32>,
    ) -> Result<v1::JoinGameResponse, ClientError> {
        let message = v1::JoinGameRequest {
            game_id: game_id.to_string(),
            seat,
        };
        self.call("JoinGame", false, |channel| {
            let request = self.request(message.clone());
            async move { GameServiceClient::new(channel).join_game(request).await }
        })
        .await
    }

    pub async fn leave(&self, game_id: &str) -> Result<(), ClientError> {
        let message = v1::LeaveGameRequest {
            game_id: game_id.to_string(),
        };
        self.call("LeaveGame", false, |channel| {
            let request = self.request(message.clone());
            async move { GameServiceClient::new(channel).leave_game(request).await }
        })
        .await?;
        Ok(())
    }

    pub async fn list_games(
        &self,
        message: v1::ListGamesRequest,
    ) -> Result<v1::ListGamesResponse, ClientError> {
        self.call("ListGames", true, |channel| {
            let request = self.request(message.clone());
            async move { GameServiceClient::new(channel).list_games(request).await }
        })
        .await
    }

    /// The player's current view of a game.
    pub async fn view(&self, game_id: &str) -> Result<v1::GameView, ClientError> {
        let message = v1::GetViewRequest {
            game_id: game_id.to_string(),
        };
        let response = self
            .call("GetView", true, |channel| {
                let request = self.request(message.clone());
                async move { GameServiceClient::new(channel).get_view(request).await }
            })
            .await?;
        Ok(response.view.unwrap_or_default())
    }

    /// The cards of a game's city set, by city in play.
    pub async fn catalogue(&self, game_id: &str) -> Result<Vec<v1::CityCards>, ClientError> {
        let message = v1::GetCatalogueRequest {
            game_id: game_id.to_string(),
        };
        let response = self
            .call("GetCatalogue", true, |channel| {
                let request = self.request(message.clone());
                async move { GameServiceClient::new(channel).get_catalogue(request).await }
            })
            .await?;
        Ok(response.cities)
    }

    pub async fn history(&self, game_id: &str) -> Result<v1::GetHistoryResponse, ClientError> {
        let message = v1::GetHistoryRequest {
            game_id: game_id.to_string(),
        };
        self.call("GetHistory", true, |channel| {
            let request = self.request(message.clone());
            async move { GameServiceClient::new(channel).get_history(request).await }
        })
        .await
    }

    /// A raw `WatchGame` stream: a snapshot first if `after_seq` is `None`, else the updates
    /// after it. [`Session::follow`] adds resumption.
    pub async fn watch(
        &self,
        message: v1::WatchGameRequest,
    ) -> Result<Streaming<v1::WatchGameResponse>, ClientError> {
        // No deadline: the stream lives as long as the game.
        self.call("WatchGame", true, |channel| {
            let request = self.stream_request(message.clone());
            async move { GameServiceClient::new(channel).watch_game(request).await }
        })
        .await
    }

    /// One page of this player's finished games as game records (JSON lines, see
    /// `theboss::record`), newest first, and the token of the next page if more remain.
    pub async fn export_games(
        &self,
        message: v1::ExportGamesRequest,
    ) -> Result<(Vec<String>, Option<String>), ClientError> {
        use v1::export_games_response::Message;
        let mut stream = self
            .call("ExportGames", true, |channel| {
                let request = self.stream_request(message.clone());
                async move { GameServiceClient::new(channel).export_games(request).await }
            })
            .await?;
        let (mut records, mut next) = (Vec::new(), None);
        while let Some(answer) = stream
            .message()
            .await
            .map_err(ClientError::rpc("ExportGames"))?
        {
            match answer.message {
                Some(Message::Record(record)) => records.push(record),
                Some(Message::NextPageToken(token)) => next = Some(token),
                None => {}
            }
        }
        Ok((records, next))
    }

    /// The request that sends `action` once under `key`, as this type's submits send it.
    pub fn submit_request(
        game_id: &str,
        expected_seq: u64,
        key: &str,
        action: v1::TurnAction,
    ) -> v1::SubmitActionRequest {
        v1::SubmitActionRequest {
            game_id: game_id.to_string(),
            expected_seq,
            idempotency_key: key.to_string(),
            action: Some(action),
            // The answer's events; the view that follows comes on the stream.
            update_views: v1::UpdateViews::ActionComplete as i32,
        }
    }

    /// Sends a turn once, under the given idempotency key.
    pub async fn submit_with_key(
        &self,
        game_id: &str,
        expected_seq: u64,
        key: &str,
        action: v1::TurnAction,
    ) -> Result<v1::SubmitActionResponse, ClientError> {
        let message = Session::submit_request(game_id, expected_seq, key, action);
        self.call("SubmitAction", false, |channel| {
            let request = self.request(message.clone());
            async move { GameServiceClient::new(channel).submit_action(request).await }
        })
        .await
    }

    /// Sends a turn once under a fresh idempotency key: any failure is an error.
    pub async fn submit(
        &self,
        game_id: &str,
        expected_seq: u64,
        action: v1::TurnAction,
    ) -> Result<v1::SubmitActionResponse, ClientError> {
        let key = uuid::Uuid::new_v4().to_string();
        self.submit_with_key(game_id, expected_seq, &key, action)
            .await
    }

    /// Sends a turn, retrying transient failures with the same idempotency key (so the turn
    /// is played at most once) with exponential back-off, for `attempts` tries and at least
    /// [`crate::RIDE_THROUGH`] (a failover of the server's database takes seconds). A stale
    /// `expected_seq` is not an error: the game moved on. A refusal is.
    pub async fn submit_retrying(
        &self,
        game_id: &str,
        expected_seq: u64,
        action: v1::TurnAction,
        attempts: u32,
    ) -> Result<Submitted, ClientError> {
        let key = uuid::Uuid::new_v4().to_string();
        let mut outage = crate::error::Outage::default();
        loop {
            match self
                .submit_with_key(game_id, expected_seq, &key, action)
                .await
            {
                Ok(response) => return Ok(Submitted::Accepted(response)),
                Err(e) if e.code() == Code::Aborted => return Ok(Submitted::Stale),
                Err(e) if e.is_transient() => {
                    tracing::warn!(error = %e, "submit failed; retrying with the same key");
                    if !outage.retry(attempts.max(1)).await {
                        break;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(Submitted::GaveUp { key })
    }

    /// Queues for a ladder game of `players` (0: any count), one game at a time: a stream of
    /// `queued`, keep-alives and one `matched`, or the ladder game the player already sits
    /// in.
    pub async fn enqueue(
        &self,
        players: u32,
        duplicate: bool,
    ) -> Result<Streaming<v1::EnqueueResponse>, ClientError> {
        self.enqueue_with(v1::EnqueueRequest {
            players,
            duplicate,
            parallel: 0,
        })
        .await
    }

    /// Queues a ladder request as given (e.g. with `parallel` games at once).
    pub async fn enqueue_with(
        &self,
        message: v1::EnqueueRequest,
    ) -> Result<Streaming<v1::EnqueueResponse>, ClientError> {
        self.call("Enqueue", false, |channel| {
            let request = self.stream_request(message);
            async move { LadderServiceClient::new(channel).enqueue(request).await }
        })
        .await
    }

    /// Leaves the ladder's queue; returns whether the player was queued.
    pub async fn cancel(&self) -> Result<bool, ClientError> {
        let response = self
            .call("Cancel", false, |channel| {
                let request = self.request(v1::CancelRequest {});
                async move { LadderServiceClient::new(channel).cancel(request).await }
            })
            .await?;
        Ok(response.was_queued)
    }

    pub async fn leaderboard(
        &self,
        message: v1::LeaderboardRequest,
    ) -> Result<v1::LeaderboardResponse, ClientError> {
        self.call("Leaderboard", true, |channel| {
            let request = self.request(message.clone());
            async move { LadderServiceClient::new(channel).leaderboard(request).await }
        })
        .await
    }

    /// Sets what others read of this player (its description); returns it as the server
    /// keeps it.
    pub async fn update_profile(&self, description: &str) -> Result<String, ClientError> {
        let message = v1::UpdateProfileRequest {
            description: description.to_string(),
        };
        self.call("UpdateProfile", false, |channel| {
            let request = self.request(message.clone());
            async move {
                GameServiceClient::new(channel)
                    .update_profile(request)
                    .await
            }
        })
        .await
        .map(|r| r.description)
    }

    /// A player's ratings and rating history.
    pub async fn player(&self, player_id: &str) -> Result<v1::GetPlayerResponse, ClientError> {
        let message = v1::GetPlayerRequest {
            player_id: player_id.to_string(),
        };
        self.call("GetPlayer", true, |channel| {
            let request = self.request(message.clone());
            async move { LadderServiceClient::new(channel).get_player(request).await }
        })
        .await
    }
}

/// Making sessions: registering a new player, or one with known credentials.
impl Connection {
    /// Registers a new player.
    pub async fn register(&self, name: &str, is_bot: bool) -> Result<Session, ClientError> {
        self.register_described(name, is_bot, "").await
    }

    /// Registers a new player with a description of itself (for a bot, its strategy and
    /// version), shown on the leaderboard and its profile.
    pub async fn register_described(
        &self,
        name: &str,
        is_bot: bool,
        description: &str,
    ) -> Result<Session, ClientError> {
        let request = v1::RegisterRequest {
            display_name: name.to_string(),
            is_bot,
            description: description.to_string(),
        };
        let mut throttled = 0;
        let registered = loop {
            let (_, channel) = self.channel();
            match GameServiceClient::new(channel)
                .register(request.clone())
                .await
            {
                Ok(response) => break response.into_inner(),
                Err(status) => match crate::error::throttled_for(&status) {
                    // The address registered too many players at once: back off.
                    Some(wait) if throttled < crate::error::THROTTLED_RETRIES => {
                        crate::error::back_off(wait, throttled).await;
                        throttled += 1;
                    }
                    _ => return Err(ClientError::rpc("Register")(status)),
                },
            }
        };
        Ok(self.session(Credentials {
            player_id: registered.player_id,
            api_token: registered.api_token,
            display_name: name.to_string(),
        }))
    }

    /// A session with known credentials.
    pub fn session(&self, credentials: Credentials) -> Session {
        Session::new(self.clone(), credentials)
    }

    /// Uses the token saved for this service in `token_file`, or registers and saves one.
    /// Tokens are saved under the first URL, so every replica list of one service shares it.
    pub async fn authenticate(
        &self,
        token_file: &Path,
        name: &str,
        is_bot: bool,
    ) -> Result<Session, ClientError> {
        let key = &self.urls()[0];
        if let Some(saved) = Credentials::load(token_file, key)? {
            return Ok(self.session(saved));
        }
        let session = self.register(name, is_bot).await?;
        session.credentials.save(token_file, key)?;
        tracing::info!(player = %session.credentials.player_id, file = %token_file.display(), "registered");
        Ok(session)
    }
}

/// Whether a status was made by this client's transport, which gives its cause (the replica
/// could not be reached, the connection failed or was closed), rather than sent by the replica.
fn made_by_transport(status: &Status) -> bool {
    std::error::Error::source(status).is_some()
}

/// A call the replica never answered is UNAVAILABLE, whatever the transport says: a
/// connection the replica closes as it stops (an HTTP/2 GOAWAY) fails the calls it did not
/// take with INTERNAL, which no caller would retry, though the call did nothing.
fn unanswered(status: Status) -> Status {
    if status.code() == Code::Internal && made_by_transport(&status) {
        let mut unavailable = Status::unavailable(status.message().to_string());
        if let Some(cause) = std::error::Error::source(&status) {
            unavailable.set_source(std::sync::Arc::new(std::io::Error::other(
                cause.to_string(),
            )));
        }
        unavailable
    } else {
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;

    /// A replica that answers every call, UNAVAILABLE if `busy`, until `stop` is sent.
    async fn replica(busy: bool) -> (String, tokio::sync::oneshot::Sender<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (_, health) = tonic_health::server::health_reporter();
        let answers = tonic::service::interceptor::InterceptedService::new(health, move |r| {
            if busy {
                Err(Status::unavailable("the game is briefly unavailable"))
            } else {
                Ok(r)
            }
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(answers)
                .serve_with_incoming_shutdown(
                    tokio_stream::wrappers::TcpListenerStream::new(listener),
                    async {
                        let _ = stopped.await;
                    },
                ),
        );
        (url, stop)
    }

    /// An address nothing listens on.
    async fn nobody() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    }

    async fn session(urls: &[String]) -> Session {
        let connection = Connection::connect_any(urls).await.unwrap();
        let credentials = Credentials {
            player_id: "p".into(),
            api_token: "t".into(),
            display_name: "P".into(),
        };
        Session::new(connection, credentials)
    }

    async fn check(channel: Channel) -> Result<Response<()>, Status> {
        HealthClient::new(channel)
            .check(HealthCheckRequest::default())
            .await
            .map(|response| response.map(|_| ()))
    }

    #[tokio::test]
    async fn a_replica_that_answers_unavailable_is_kept_one_that_cannot_be_reached_is_left() {
        let (busy, stop) = replica(true).await;
        let down = nobody().await;
        let session = session(&[busy.clone(), down.clone()]).await;
        // A read is tried on both (the one down cannot be reached), a write on the busy one
        // only: the busy one answered, so calls still go there.
        for read in [true, false] {
            let refused = session.call("Check", read, check).await.unwrap_err();
            assert_eq!(refused.code(), Code::Unavailable, "{refused}");
            assert_eq!(session.connection().url(), busy, "read: {read}");
        }
        // Once it cannot be reached, calls go to the next one.
        stop.send(()).unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while session.connection().url() == busy {
            assert!(tokio::time::Instant::now() < deadline, "never left {busy}");
            let _ = session.call("Check", false, check).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(session.connection().url(), down);
    }

    #[test]
    fn a_call_the_transport_failed_is_unavailable_and_a_replicas_answer_is_kept() {
        let cause = std::sync::Arc::new(std::io::Error::other("GOAWAY NO_ERROR"));
        let mut closed = Status::internal("h2 protocol error: http2 error");
        closed.set_source(cause);
        let closed = unanswered(closed);
        assert_eq!(closed.code(), Code::Unavailable);
        assert!(made_by_transport(&closed));
        assert_eq!(closed.message(), "h2 protocol error: http2 error");
        let answered = unanswered(Status::internal("a replica's own error"));
        assert_eq!(answered.code(), Code::Internal);
        assert!(!made_by_transport(&answered));
    }

    #[tokio::test]
    async fn calls_go_where_a_read_was_answered_after_an_unavailable_replica() {
        let (busy, _stop_busy) = replica(true).await;
        let (healthy, _stop_healthy) = replica(false).await;
        let session = session(&[busy.clone(), healthy.clone()]).await;
        let refused = session.call("Check", false, check).await.unwrap_err();
        assert_eq!(refused.code(), Code::Unavailable, "{refused}");
        assert_eq!(session.connection().url(), busy, "a write is tried once");
        session.call("Check", true, check).await.unwrap();
        assert_eq!(session.connection().url(), healthy);
        session.call("Check", false, check).await.unwrap();
    }
}
