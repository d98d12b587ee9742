//! `theboss.v1.LadderService`: one line per RPC, each traced and answered through `reply`;
//! the work is in [`super::enqueue`], [`super::standings`], [`super::challenges`] and
//! [`super::tournaments`].

use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, ladder_service_server};
use tokio::sync::watch as signal;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::challenges::OffersItem;
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
    type OffersStream = ReceiverStream<OffersItem>;

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

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "Challenge", player = tracing::field::Empty))]
    async fn challenge(
        &self,
        request: Request<v1::ChallengeRequest>,
    ) -> RpcResult<v1::ChallengeResponse> {
        reply(self.challenge(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "AnswerChallenge", player = tracing::field::Empty))]
    async fn answer_challenge(
        &self,
        request: Request<v1::AnswerChallengeRequest>,
    ) -> RpcResult<v1::AnswerChallengeResponse> {
        reply(self.answer_challenge(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "SetChallengePolicy", player = tracing::field::Empty))]
    async fn set_challenge_policy(
        &self,
        request: Request<v1::SetChallengePolicyRequest>,
    ) -> RpcResult<v1::SetChallengePolicyResponse> {
        reply(self.set_challenge_policy(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "CreateTournament", player = tracing::field::Empty))]
    async fn create_tournament(
        &self,
        request: Request<v1::CreateTournamentRequest>,
    ) -> RpcResult<v1::CreateTournamentResponse> {
        reply(self.create_tournament(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "EnterTournament", player = tracing::field::Empty))]
    async fn enter_tournament(
        &self,
        request: Request<v1::EnterTournamentRequest>,
    ) -> RpcResult<v1::EnterTournamentResponse> {
        reply(self.enter_tournament(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "StartTournament", player = tracing::field::Empty))]
    async fn start_tournament(
        &self,
        request: Request<v1::StartTournamentRequest>,
    ) -> RpcResult<v1::StartTournamentResponse> {
        reply(self.start_tournament(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetTournament", player = tracing::field::Empty))]
    async fn get_tournament(
        &self,
        request: Request<v1::GetTournamentRequest>,
    ) -> RpcResult<v1::GetTournamentResponse> {
        reply(self.get_tournament(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "ListTournaments", player = tracing::field::Empty))]
    async fn list_tournaments(
        &self,
        request: Request<v1::ListTournamentsRequest>,
    ) -> RpcResult<v1::ListTournamentsResponse> {
        reply(self.list_tournaments(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "Offers", player = tracing::field::Empty))]
    async fn offers(
        &self,
        request: Request<v1::OffersRequest>,
    ) -> Result<Response<Self::OffersStream>, Status> {
        reply(self.offers(request).await).await
    }
}
