//! `theboss.v1.LadderService`: one line per RPC, each traced and answered through `reply`;
//! the work is in [`super::enqueue`] and [`super::standings`].

use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, ladder_service_server};
use tokio::sync::watch as signal;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::enqueue::EnqueueItem;
use super::{RpcResult, caller, reply};
use crate::auth::Authenticator;
use crate::ladder::Ladder;
use crate::store::Store;

pub struct LadderService {
    pub(super) store: Arc<dyn Store>,
    pub(super) ladder: Ladder,
    pub(super) auth: Authenticator,
    pub(super) keep_alive: Duration,
    pub(super) stopping: signal::Receiver<bool>,
}

impl LadderService {
    pub fn new(
        store: Arc<dyn Store>,
        auth: Authenticator,
        ladder: Ladder,
        keep_alive: Duration,
        stopping: signal::Receiver<bool>,
    ) -> LadderService {
        LadderService {
            store,
            ladder,
            auth,
            keep_alive,
            stopping,
        }
    }
}

#[tonic::async_trait]
impl ladder_service_server::LadderService for LadderService {
    type EnqueueStream = ReceiverStream<EnqueueItem>;

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "Enqueue", player = tracing::field::Empty))]
    async fn enqueue(
        &self,
        request: Request<v1::EnqueueRequest>,
    ) -> Result<Response<Self::EnqueueStream>, Status> {
        reply(self.enqueue(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "Cancel", player = tracing::field::Empty))]
    async fn cancel(&self, request: Request<v1::CancelRequest>) -> RpcResult<v1::CancelResponse> {
        reply(
            async {
                let player = caller(&self.auth, &request).await?;
                let was_queued = self.ladder.cancel(&player.id).await?;
                Ok(v1::CancelResponse { was_queued })
            }
            .await,
        )
        .await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "Leaderboard", player = tracing::field::Empty))]
    async fn leaderboard(
        &self,
        request: Request<v1::LeaderboardRequest>,
    ) -> RpcResult<v1::LeaderboardResponse> {
        reply(self.leaderboard(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetPlayer", player = tracing::field::Empty))]
    async fn get_player(
        &self,
        request: Request<v1::GetPlayerRequest>,
    ) -> RpcResult<v1::GetPlayerResponse> {
        reply(self.player(request).await).await
    }
}
