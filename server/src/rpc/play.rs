//! Playing and reading a game: the caller's view, the catalogue of its cards, submitting a
//! turn, and the history. A table of a duplicate set is read only by its own players until
//! every table of its set has ended, and its history reveals the deal only then: its cards
//! are being played at the other tables.

use std::sync::Arc;

use theboss::v1;
use theboss_engine::Viewer;
use tonic::Request;

use super::checks::checked_id;
use super::{GameService, caller, viewer};
use crate::actor::{Batch, GameHandle, Submit};
use crate::domain::GameStatus;
use crate::error::ApiError;
use crate::game_error::GameError;
use crate::games::sets::{may_look_on, set_over};
use crate::limits::fixed::IDEMPOTENCY_KEY_BYTES;
use crate::wire;

/// A requested turn, checked for shape (the rules are checked by the engine).
fn turn_from_wire(action: Option<&v1::TurnAction>) -> Result<theboss_engine::Turn, GameError> {
    let action = action.ok_or_else(|| GameError::invalid("action", "required"))?;
    Ok(theboss::convert::turn_from_wire(action, "action")?)
}

impl GameService {
    pub(super) async fn catalogue(
        &self,
        request: Request<v1::GetCatalogueRequest>,
    ) -> Result<v1::GetCatalogueResponse, ApiError> {
        viewer(&self.auth, &request).await?;
        let game_id = checked_id("game_id", &request.get_ref().game_id)?;
        let latest = self.games.get(game_id).await?.latest().await?;
        Ok(wire::catalogue(&latest.record)?)
    }

    pub(super) async fn view(
        &self,
        request: Request<v1::GetViewRequest>,
    ) -> Result<theboss::encoded::GetViewResponse, ApiError> {
        let caller = viewer(&self.auth, &request).await?;
        let player_id = caller.id();
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        // From where the game is run: a view answered after a turn includes it.
        self.on_owner(&game_id, request, &metadata, |game| async move {
            let (latest, viewer) = self.seen_by(&game, player_id).await?;
            Ok(wire::view_response(latest.step(), viewer))
        })
        .await
    }

    /// What the caller can deduce of the face-down cards: computed from its own view only,
    /// the engine's, where the game is run.
    pub(super) async fn odds(
        &self,
        request: Request<v1::GetOddsRequest>,
    ) -> Result<v1::GetOddsResponse, ApiError> {
        let caller = viewer(&self.auth, &request).await?;
        let player_id = caller.id();
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        self.on_owner(&game_id, request, &metadata, |game| async move {
            let (latest, viewer) = self.seen_by(&game, player_id).await?;
            let cities = match &latest.state.game {
                Some(game) if latest.state.status == GameStatus::Running => {
                    theboss_engine::face_down_odds(&game.view(viewer))
                        .iter()
                        .map(theboss::convert::odds_to_wire)
                        .collect()
                }
                _ => Vec::new(),
            };
            Ok(v1::GetOddsResponse {
                seq: latest.seq_after(),
                cities,
            })
        })
        .await
    }

    /// The game's last step and who the caller is at its table, once it may look on (a table
    /// of a duplicate set still played is read by its own players only).
    async fn seen_by(
        &self,
        game: &GameHandle,
        player_id: &str,
    ) -> Result<(Arc<Batch>, Viewer), ApiError> {
        let latest = game.latest().await?;
        let seated = latest.state.seat_of(player_id).is_some();
        may_look_on(&*self.store, &latest.record, seated).await?;
        let viewer = wire::viewer_of(&latest.state, player_id);
        Ok((latest, viewer))
    }

    pub(super) async fn submit(
        &self,
        request: Request<v1::SubmitActionRequest>,
    ) -> Result<theboss::encoded::SubmitActionResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        if request.idempotency_key.len() > IDEMPOTENCY_KEY_BYTES {
            return Err(ApiError::invalid(
                "idempotency_key",
                format!("at most {IDEMPOTENCY_KEY_BYTES} bytes"),
            ));
        }
        let views = super::checks::views_on(request.update_views)?;
        let submit = Submit {
            player_id: player.id,
            expected_seq: request.expected_seq,
            idempotency_key: request.idempotency_key.clone(),
            turn: turn_from_wire(request.action.as_ref())?,
        };
        self.on_owner(&game_id, request, &metadata, |game| {
            let submit = submit.clone();
            async move {
                let committed = game.submit(submit).await?;
                Ok(wire::submit_response(
                    committed.batch.step(),
                    committed.seat,
                    views,
                ))
            }
        })
        .await
    }

    pub(super) async fn history(
        &self,
        request: Request<v1::GetHistoryRequest>,
    ) -> Result<v1::GetHistoryResponse, ApiError> {
        let caller = viewer(&self.auth, &request).await?;
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        self.on_owner(&game_id, request, &metadata, |game| {
            let player_id = caller.id().to_string();
            async move {
                let history = game.history().await?;
                let record = &history.latest.record;
                let seated = history.latest.state.seat_of(&player_id).is_some();
                may_look_on(&*self.store, record, seated).await?;
                let reveal = set_over(&*self.store, record).await?;
                Ok(wire::history_response(
                    &history.log,
                    history.latest.step(),
                    &player_id,
                    reveal,
                ))
            }
        })
        .await
    }
}
