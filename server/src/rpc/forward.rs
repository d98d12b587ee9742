//! Owner-or-forward, written once: a call that must run where its game is run (its writes,
//! and the reads that must see them) runs on the game's actor here, or is forwarded once to
//! the replica that runs the game, with the caller's credentials and deadline. Each such
//! request type says how it is forwarded ([`Forwarded`]); [`GameService::on_owner`] does the
//! rest.

use std::future::Future;
use std::pin::Pin;

use theboss::v1::{self, game_service_client::GameServiceClient};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use super::GameService;
use crate::actor::GameHandle;
use crate::error::ApiError;
use crate::game_error::GameError;
use crate::games::Route;

/// Marks a call forwarded by a replica to the one that runs the game.
const FORWARDED: &str = "x-theboss-forwarded";

type Forwarding<T> = Pin<Box<dyn Future<Output = Result<Response<T>, Status>> + Send>>;

/// A request that may be forwarded to the replica that runs its game.
pub(super) trait Forwarded: Sized + Send + 'static {
    type Reply: Send + 'static;

    /// Calls the same RPC on a peer.
    fn forward(
        self,
        peer: GameServiceClient<Channel>,
        request: MetadataMap,
    ) -> Forwarding<Self::Reply>;
}

/// A request carrying `message` and `metadata`.
fn request_with<T>(message: T, metadata: MetadataMap) -> Request<T> {
    let mut request = Request::new(message);
    *request.metadata_mut() = metadata;
    request
}

impl Forwarded for v1::JoinGameRequest {
    type Reply = v1::JoinGameResponse;

    fn forward(
        self,
        mut peer: GameServiceClient<Channel>,
        m: MetadataMap,
    ) -> Forwarding<Self::Reply> {
        Box::pin(async move { peer.join_game(request_with(self, m)).await })
    }
}

impl Forwarded for v1::LeaveGameRequest {
    type Reply = v1::LeaveGameResponse;

    fn forward(
        self,
        mut peer: GameServiceClient<Channel>,
        m: MetadataMap,
    ) -> Forwarding<Self::Reply> {
        Box::pin(async move { peer.leave_game(request_with(self, m)).await })
    }
}

impl Forwarded for v1::GetViewRequest {
    type Reply = theboss::encoded::GetViewResponse;

    fn forward(
        self,
        mut peer: GameServiceClient<Channel>,
        m: MetadataMap,
    ) -> Forwarding<Self::Reply> {
        Box::pin(async move {
            let answer = peer.get_view(request_with(self, m)).await?;
            Ok(answer.map(Into::into))
        })
    }
}

impl Forwarded for v1::GetOddsRequest {
    type Reply = v1::GetOddsResponse;

    fn forward(
        self,
        mut peer: GameServiceClient<Channel>,
        m: MetadataMap,
    ) -> Forwarding<Self::Reply> {
        Box::pin(async move { peer.get_odds(request_with(self, m)).await })
    }
}

impl Forwarded for v1::SubmitActionRequest {
    type Reply = theboss::encoded::SubmitActionResponse;

    fn forward(
        self,
        mut peer: GameServiceClient<Channel>,
        m: MetadataMap,
    ) -> Forwarding<Self::Reply> {
        Box::pin(async move {
            let answer = peer.submit_action(request_with(self, m)).await?;
            Ok(answer.map(Into::into))
        })
    }
}

impl Forwarded for v1::GetHistoryRequest {
    type Reply = v1::GetHistoryResponse;

    fn forward(
        self,
        mut peer: GameServiceClient<Channel>,
        m: MetadataMap,
    ) -> Forwarding<Self::Reply> {
        Box::pin(async move { peer.get_history(request_with(self, m)).await })
    }
}

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

impl GameService {
    /// Runs a call where its game is run: `local` on the actor here, or `request` forwarded
    /// to the replica that runs it. Tried again if the actor stopped in between (a finished
    /// game unloading) or the game moved to another replica meanwhile.
    pub(super) async fn on_owner<Q, L, LF>(
        &self,
        game_id: &str,
        request: Q,
        metadata: &MetadataMap,
        local: L,
    ) -> Result<Q::Reply, ApiError>
    where
        Q: Forwarded,
        L: Fn(GameHandle) -> LF,
        LF: Future<Output = Result<Q::Reply, ApiError>>,
    {
        let mut last = GameError::Moved;
        for _ in 0..3 {
            match self.games.route(game_id).await? {
                Route::Local(game) => match local(game).await {
                    Err(ApiError::Game(error @ (GameError::Moved | GameError::Unavailable))) => {
                        last = error;
                    }
                    other => return other,
                },
                // One hop at most: the game moved again meanwhile, and the caller retries.
                Route::Remote(_) if metadata.contains_key(FORWARDED) => {
                    return Err(GameError::Moved.into());
                }
                Route::Remote(owner) => {
                    let cluster = self.games.cluster().ok_or(GameError::Moved)?;
                    let channel = cluster.peer(&owner.url).map_err(|_| GameError::Moved)?;
                    tracing::debug!(to = %owner.url, "forwarded");
                    return request
                        .forward(GameServiceClient::new(channel), forwarded(metadata))
                        .await
                        .map(Response::into_inner)
                        .map_err(ApiError::Forwarded);
                }
            }
        }
        Err(last.into())
    }
}
