//! `theboss.v1.GameService`: thin RPC methods that check the request's shape, authenticate
//! the caller, and hand the work to the registry, a game's actor or the store.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, game_service_client::GameServiceClient, game_service_server::GameService};
use tokio::sync::watch as signal;
use tokio_stream::wrappers::ReceiverStream;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use crate::actor::{GameHandle, Submit};
use crate::auth::{self, Authenticator};
use crate::domain::now_micros;
use crate::domain::{GameRecord, PlayerInfo};
use crate::error::ApiError;
use crate::games::{Games, Route};
use crate::store::{GameQuery, NewPlayer, Store};
use crate::watch::{self, WatchItem};
use crate::wire;

const MAX_IDEMPOTENCY_KEY_BYTES: usize = 128;

pub struct Service {
    store: Arc<dyn Store>,
    games: Arc<Games>,
    auth: Authenticator,
    keep_alive: Duration,
    /// Becomes true when the server shuts down, so that open streams end.
    stopping: signal::Receiver<bool>,
}

impl Service {
    pub fn new(
        store: Arc<dyn Store>,
        auth: Authenticator,
        games: Arc<Games>,
        keep_alive: Duration,
        stopping: signal::Receiver<bool>,
    ) -> Service {
        Service {
            auth,
            store,
            games,
            keep_alive,
            stopping,
        }
    }

    /// Who calls, also noted on the call's span.
    async fn caller<T>(&self, request: &Request<T>) -> Result<PlayerInfo, ApiError> {
        let player = self.auth.caller(request).await?;
        tracing::Span::current().record("player", player.id.as_str());
        Ok(player)
    }

    /// Runs a call where the game is run: `local` on its actor here, or `remote` on the
    /// replica that runs it (the call forwarded with the caller's credentials and deadline).
    /// Tried again if the actor stopped in between (a finished game unloading) or the game
    /// moved to another replica meanwhile.
    async fn on_owner<T, L, LF, R, RF>(
        &self,
        game_id: &str,
        metadata: &MetadataMap,
        local: L,
        remote: R,
    ) -> Result<T, ApiError>
    where
        L: Fn(GameHandle) -> LF,
        LF: Future<Output = Result<T, ApiError>>,
        R: FnOnce(GameServiceClient<Channel>, MetadataMap) -> RF,
        RF: Future<Output = Result<Response<T>, Status>>,
    {
        let game_id = checked_game_id(game_id)?;
        let mut last = ApiError::Moved;
        for _ in 0..3 {
            match self.games.route(game_id).await? {
                Route::Local(game) => match local(game).await {
                    Err(error @ (ApiError::Moved | ApiError::Unavailable)) => last = error,
                    other => return other,
                },
                // One hop at most: the game moved again meanwhile, and the caller retries.
                Route::Remote(_) if metadata.contains_key(FORWARDED) => {
                    return Err(ApiError::Moved);
                }
                Route::Remote(owner) => {
                    let cluster = self.games.cluster().ok_or(ApiError::Moved)?;
                    let channel = cluster.peer(&owner.url).map_err(|_| ApiError::Moved)?;
                    tracing::debug!(to = %owner.url, "forwarded");
                    return remote(GameServiceClient::new(channel), forwarded(metadata))
                        .await
                        .map(Response::into_inner)
                        .map_err(ApiError::Forwarded);
                }
            }
        }
        Err(last)
    }
}

/// Marks a call forwarded by a replica to the one that runs the game.
const FORWARDED: &str = "x-theboss-forwarded";

/// The metadata a call is forwarded with: the caller's credentials and deadline, and the mark.
fn forwarded(metadata: &MetadataMap) -> MetadataMap {
    let mut kept = MetadataMap::new();
    for key in ["authorization", "grpc-timeout"] {
        if let Some(value) = metadata.get(key) {
            kept.insert(key, value.clone());
        }
    }
    kept.insert(FORWARDED, MetadataValue::from_static("1"));
    kept
}

/// A request carrying `message` and `metadata`.
fn request_with<T>(message: T, metadata: MetadataMap) -> Request<T> {
    let mut request = Request::new(message);
    *request.metadata_mut() = metadata;
    request
}

fn checked_game_id(game_id: &str) -> Result<&str, ApiError> {
    uuid::Uuid::parse_str(game_id)
        .map(|_| game_id)
        .map_err(|_| ApiError::invalid("game_id", "not a game id (a UUID)"))
}

fn checked_name(name: &str) -> Result<String, ApiError> {
    crate::domain::display_name(name).map_err(|e| ApiError::invalid("display_name", e.to_string()))
}

fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    u64::from_le_bytes(bytes)
}

type RpcResult<T> = Result<Response<T>, Status>;

fn reply<T>(result: Result<T, ApiError>) -> RpcResult<T> {
    match result {
        Ok(answer) => {
            tracing::debug!("answered");
            Ok(Response::new(answer))
        }
        Err(error) => {
            let status = Status::from(error);
            tracing::debug!(code = ?status.code(), message = status.message(), "refused");
            Err(status)
        }
    }
}

#[tonic::async_trait]
impl GameService for Service {
    #[tracing::instrument(name = "rpc", skip_all, fields(method = "Register", player = tracing::field::Empty))]
    async fn register(
        &self,
        request: Request<v1::RegisterRequest>,
    ) -> RpcResult<v1::RegisterResponse> {
        reply(
            async {
                self.auth.registration(&request)?;
                let request = request.into_inner();
                let player = PlayerInfo {
                    id: uuid::Uuid::new_v4().to_string(),
                    display_name: checked_name(&request.display_name)?,
                    is_bot: request.is_bot,
                };
                let token = auth::new_token();
                self.store
                    .create_player(&NewPlayer {
                        player: player.clone(),
                        token_hash: auth::token_hash(&token),
                        created_at: now_micros(),
                    })
                    .await?;
                tracing::Span::current().record("player", player.id.as_str());
                tracing::info!(name = %player.display_name, bot = player.is_bot, "registered");
                Ok(v1::RegisterResponse {
                    player_id: player.id,
                    api_token: token,
                })
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "CreateGame", player = tracing::field::Empty, game = tracing::field::Empty))]
    async fn create_game(
        &self,
        request: Request<v1::CreateGameRequest>,
    ) -> RpcResult<v1::CreateGameResponse> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let request = request.into_inner();
                let record = GameRecord {
                    id: uuid::Uuid::new_v4().to_string(),
                    settings: wire::settings_from_wire(request.settings.as_ref())?,
                    seed: request.seed.unwrap_or_else(random_seed),
                    created_by: player.id,
                    created_at: now_micros(),
                    ladder: false,
                    series: None,
                    seed_salt: Some(crate::domain::new_seed_salt()),
                };
                let game_id = record.id.clone();
                tracing::Span::current().record("game", game_id.as_str());
                tracing::info!(players = record.settings.players(), "game created");
                self.games.create(record).await?;
                Ok(v1::CreateGameResponse { game_id })
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "JoinGame", game = %request.get_ref().game_id, player = tracing::field::Empty))]
    async fn join_game(
        &self,
        request: Request<v1::JoinGameRequest>,
    ) -> RpcResult<v1::JoinGameResponse> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let metadata = request.metadata().clone();
                let request = request.into_inner();
                let seat = request
                    .seat
                    .map(|s| u8::try_from(s).map_err(|_| ApiError::invalid("seat", "no such seat")))
                    .transpose()?;
                let game_id = request.game_id.clone();
                self.on_owner(
                    &game_id,
                    &metadata,
                    |game| {
                        let player = player.clone();
                        async move {
                            let joined = game.join(player, seat).await?;
                            Ok(v1::JoinGameResponse {
                                seat: u32::from(joined.seat),
                                started: joined.started,
                            })
                        }
                    },
                    |mut peer, metadata| async move {
                        peer.join_game(request_with(request, metadata)).await
                    },
                )
                .await
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "LeaveGame", game = %request.get_ref().game_id, player = tracing::field::Empty))]
    async fn leave_game(
        &self,
        request: Request<v1::LeaveGameRequest>,
    ) -> RpcResult<v1::LeaveGameResponse> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let metadata = request.metadata().clone();
                let request = request.into_inner();
                let game_id = request.game_id.clone();
                self.on_owner(
                    &game_id,
                    &metadata,
                    |game| {
                        let player_id = player.id.clone();
                        async move {
                            game.leave(player_id).await?;
                            Ok(v1::LeaveGameResponse {})
                        }
                    },
                    |mut peer, metadata| async move {
                        peer.leave_game(request_with(request, metadata)).await
                    },
                )
                .await
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "ListGames", player = tracing::field::Empty))]
    async fn list_games(
        &self,
        request: Request<v1::ListGamesRequest>,
    ) -> RpcResult<v1::ListGamesResponse> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let request = request.into_inner();
                let limit = wire::page_size(request.page_size)?;
                let after = match request.page_token.as_str() {
                    "" => None,
                    token => Some(wire::cursor_from_token(token)?),
                };
                let statuses = request
                    .statuses
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| wire::status_from_wire(s, &format!("statuses[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                let page = self
                    .store
                    .list_games(&GameQuery {
                        statuses,
                        seated: request.mine.then(|| player.id.clone()),
                        viewer: player.id,
                        limit,
                        after,
                    })
                    .await?;
                Ok(v1::ListGamesResponse {
                    games: page.games.iter().map(wire::listing_to_wire).collect(),
                    next_page_token: page.next.as_ref().map(wire::page_token).unwrap_or_default(),
                })
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetCatalogue", game = %request.get_ref().game_id, player = tracing::field::Empty))]
    async fn get_catalogue(
        &self,
        request: Request<v1::GetCatalogueRequest>,
    ) -> RpcResult<v1::GetCatalogueResponse> {
        reply(
            async {
                self.caller(&request).await?;
                let game_id = checked_game_id(&request.get_ref().game_id)?;
                let latest = self.games.get(game_id).await?.latest().await?;
                wire::catalogue(&latest.record)
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetView", game = %request.get_ref().game_id, player = tracing::field::Empty))]
    async fn get_view(
        &self,
        request: Request<v1::GetViewRequest>,
    ) -> RpcResult<v1::GetViewResponse> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let metadata = request.metadata().clone();
                let request = request.into_inner();
                let game_id = request.game_id.clone();
                // From where the game is run: a view answered after a turn includes it.
                self.on_owner(
                    &game_id,
                    &metadata,
                    |game| {
                        let player_id = player.id.clone();
                        async move {
                            let latest = game.latest().await?;
                            let viewer = wire::viewer_of(&latest.state, &player_id);
                            Ok(v1::GetViewResponse {
                                view: Some(wire::batch_view(&latest, viewer)),
                            })
                        }
                    },
                    |mut peer, metadata| async move {
                        peer.get_view(request_with(request, metadata)).await
                    },
                )
                .await
            }
            .await,
        )
    }

    type WatchGameStream = ReceiverStream<WatchItem>;

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "WatchGame", game = %request.get_ref().game_id, player = tracing::field::Empty))]
    async fn watch_game(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> RpcResult<Self::WatchGameStream> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let request = request.into_inner();
                let after_seq = request.after_seq;
                let views = wire::views_on_from_wire(request.update_views)?;
                let game_id = checked_game_id(&request.game_id)?;
                let mut game = self.games.get(game_id).await?;
                let subscription = match game.watch(after_seq).await {
                    Err(ApiError::Unavailable) => {
                        game = self.games.get(game_id).await?;
                        game.watch(after_seq).await?
                    }
                    other => other?,
                };
                let rx = watch::spawn(
                    game,
                    player.id,
                    subscription,
                    after_seq,
                    views,
                    self.keep_alive,
                    self.stopping.clone(),
                );
                Ok(ReceiverStream::new(rx))
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "SubmitAction", game = %request.get_ref().game_id, player = tracing::field::Empty))]
    async fn submit_action(
        &self,
        request: Request<v1::SubmitActionRequest>,
    ) -> RpcResult<v1::SubmitActionResponse> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let metadata = request.metadata().clone();
                let request = request.into_inner();
                if request.idempotency_key.len() > MAX_IDEMPOTENCY_KEY_BYTES {
                    return Err(ApiError::invalid(
                        "idempotency_key",
                        format!("at most {MAX_IDEMPOTENCY_KEY_BYTES} bytes"),
                    ));
                }
                let views = wire::views_on_from_wire(request.update_views)?;
                let submit = Submit {
                    player_id: player.id,
                    expected_seq: request.expected_seq,
                    idempotency_key: request.idempotency_key.clone(),
                    turn: wire::turn_from_wire(request.action.as_ref())?,
                };
                let game_id = request.game_id.clone();
                self.on_owner(
                    &game_id,
                    &metadata,
                    |game| {
                        let submit = submit.clone();
                        async move {
                            let committed = game.submit(submit).await?;
                            Ok(wire::submit_response(&committed, views))
                        }
                    },
                    |mut peer, metadata| async move {
                        peer.submit_action(request_with(request, metadata)).await
                    },
                )
                .await
            }
            .await,
        )
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetHistory", game = %request.get_ref().game_id, player = tracing::field::Empty))]
    async fn get_history(
        &self,
        request: Request<v1::GetHistoryRequest>,
    ) -> RpcResult<v1::GetHistoryResponse> {
        reply(
            async {
                let player = self.caller(&request).await?;
                let metadata = request.metadata().clone();
                let request = request.into_inner();
                let game_id = request.game_id.clone();
                self.on_owner(
                    &game_id,
                    &metadata,
                    |game| {
                        let player_id = player.id.clone();
                        async move {
                            let history = game.history().await?;
                            Ok(wire::history_response(&history, &player_id))
                        }
                    },
                    |mut peer, metadata| async move {
                        peer.get_history(request_with(request, metadata)).await
                    },
                )
                .await
            }
            .await,
        )
    }
}
