//! `theboss.v1.GameService`: one line per RPC, each traced (`rpc` span with the method, the
//! game and the caller) and answered through `reply`; the work is in the families the
//! `rpc` module lists.

use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, game_service_server};
use tokio::sync::watch as signal;
use tonic::{Request, Response, Status};

use super::{RpcResult, reply};
use crate::auth::Authenticator;
use crate::game_stream::WatchStream;
use crate::games::Games;
use crate::limits::StreamCounts;
use crate::store::Store;

pub struct GameService {
    pub(super) store: Arc<dyn Store>,
    pub(super) games: Arc<Games>,
    pub(super) auth: Authenticator,
    pub(super) streams: Arc<StreamCounts>,
    pub(super) keep_alive: Duration,
    /// Becomes true when the server shuts down, so that open streams end.
    pub(super) stopping: signal::Receiver<bool>,
}

impl GameService {
    pub fn new(
        store: Arc<dyn Store>,
        auth: Authenticator,
        games: Arc<Games>,
        streams: Arc<StreamCounts>,
        keep_alive: Duration,
        stopping: signal::Receiver<bool>,
    ) -> GameService {
        GameService {
            store,
            games,
            auth,
            streams,
            keep_alive,
            stopping,
        }
    }
}

#[tonic::async_trait]
impl game_service_server::GameService for GameService {
    #[tracing::instrument(name = "rpc", skip_all, fields(method = "Register", player = tracing::field::Empty))]
    async fn register(
        &self,
        request: Request<v1::RegisterRequest>,
    ) -> RpcResult<v1::RegisterResponse> {
        reply(self.register(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "CreateGame", player = tracing::field::Empty, game = tracing::field::Empty))]
    async fn create_game(
        &self,
        request: Request<v1::CreateGameRequest>,
    ) -> RpcResult<v1::CreateGameResponse> {
        reply(self.create(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "JoinGame", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn join_game(
        &self,
        request: Request<v1::JoinGameRequest>,
    ) -> RpcResult<v1::JoinGameResponse> {
        reply(self.join(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "LeaveGame", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn leave_game(
        &self,
        request: Request<v1::LeaveGameRequest>,
    ) -> RpcResult<v1::LeaveGameResponse> {
        reply(self.leave(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "ListGames", player = tracing::field::Empty))]
    async fn list_games(
        &self,
        request: Request<v1::ListGamesRequest>,
    ) -> RpcResult<v1::ListGamesResponse> {
        reply(self.list(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetCatalogue", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn get_catalogue(
        &self,
        request: Request<v1::GetCatalogueRequest>,
    ) -> RpcResult<v1::GetCatalogueResponse> {
        reply(self.catalogue(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetView", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn get_view(
        &self,
        request: Request<v1::GetViewRequest>,
    ) -> RpcResult<theboss::encoded::GetViewResponse> {
        reply(self.view(request).await).await
    }

    type WatchGameStream = WatchStream;

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "WatchGame", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn watch_game(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> Result<Response<Self::WatchGameStream>, Status> {
        let watcher = reply(self.watch(request).await).await?;
        Ok(super::framed::respond(watcher.into_inner()))
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "SubmitAction", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn submit_action(
        &self,
        request: Request<v1::SubmitActionRequest>,
    ) -> RpcResult<theboss::encoded::SubmitActionResponse> {
        reply(self.submit(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetHistory", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn get_history(
        &self,
        request: Request<v1::GetHistoryRequest>,
    ) -> RpcResult<v1::GetHistoryResponse> {
        reply(self.history(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "GetOdds", game = short(&request.get_ref().game_id), player = tracing::field::Empty))]
    async fn get_odds(
        &self,
        request: Request<v1::GetOddsRequest>,
    ) -> RpcResult<v1::GetOddsResponse> {
        reply(self.odds(request).await).await
    }

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "UpdateProfile", player = tracing::field::Empty))]
    async fn update_profile(
        &self,
        request: Request<v1::UpdateProfileRequest>,
    ) -> RpcResult<v1::UpdateProfileResponse> {
        reply(self.update_profile(request).await).await
    }

    type ExportGamesStream = super::export::ExportStream;

    #[tracing::instrument(name = "rpc", skip_all, fields(method = "ExportGames", player = tracing::field::Empty))]
    async fn export_games(
        &self,
        request: Request<v1::ExportGamesRequest>,
    ) -> Result<Response<Self::ExportGamesStream>, Status> {
        reply(self.export(request).await).await
    }
}

/// At most a short prefix of what the client sent, for logs: a game id is 36 characters.
pub(super) fn short(text: &str) -> &str {
    // Forty bytes are at most forty characters: nearly every id is that short, and is not
    // walked character by character.
    if text.len() <= 40 {
        return text;
    }
    match text.char_indices().nth(40) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn what_a_client_sent_is_logged_to_forty_characters() {
        let id = "8c1d2f4e-0b7a-4c55-9a43-5f0e6d7c8b9a";
        assert_eq!(short(id), id);
        assert_eq!(short(""), "");
        let ascii = "x".repeat(41);
        assert_eq!(short(&ascii), &ascii[..40]);
        // Characters, not bytes: forty two-byte characters are kept whole.
        let wide = "é".repeat(40);
        assert_eq!(short(&wide), wide);
        assert_eq!(short(&format!("{wide}é")), wide);
    }
}
