//! `Register` and `UpdateProfile`: a new player's name and description, checked as free text,
//! and its token, of which only the hash is stored.

use theboss::v1;
use tonic::Request;

use super::checks::checked_text;
use super::{GameService, caller};
use crate::auth;
use crate::domain::{PlayerInfo, now_micros};
use crate::error::ApiError;
use crate::store::NewPlayer;
use crate::text;

impl GameService {
    pub(super) async fn update_profile(
        &self,
        request: Request<v1::UpdateProfileRequest>,
    ) -> Result<v1::UpdateProfileResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let description = checked_text(&text::DESCRIPTION, &request.get_ref().description)?;
        if !self.store.set_description(&player.id, &description).await? {
            return Err(ApiError::Unauthenticated("unknown API token"));
        }
        tracing::info!(description = description.as_str(), "profile updated");
        Ok(v1::UpdateProfileResponse { description })
    }

    pub(super) async fn register(
        &self,
        request: Request<v1::RegisterRequest>,
    ) -> Result<v1::RegisterResponse, ApiError> {
        self.auth.registration(&request).await?;
        let request = request.into_inner();
        let display_name = checked_text(&text::DISPLAY_NAME, &request.display_name)?;
        let description = checked_text(&text::DESCRIPTION, &request.description)?;
        let player = PlayerInfo {
            id: uuid::Uuid::new_v4().to_string(),
            display_name,
            is_bot: request.is_bot,
        };
        let token = auth::new_token();
        self.store
            .create_player(&NewPlayer {
                player: player.clone(),
                description,
                token_hash: auth::token_hash(&token),
                created_at: now_micros(),
            })
            .await?;
        tracing::Span::current().record("player", player.id.as_str());
        tracing::info!(
            name = player.display_name.as_str(),
            bot = player.is_bot,
            "registered"
        );
        Ok(v1::RegisterResponse {
            player_id: player.id,
            api_token: token,
        })
    }
}
