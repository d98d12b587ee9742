//! The ladder's standings: leaderboards (established players only, ranked) and a player's
//! ratings with their history.

use theboss::v1;
use tonic::Request;

use super::checks::checked_id;
use super::enqueue::category;
use super::{LadderService, viewer};
use crate::error::ApiError;
use crate::game_error::GameError;
use crate::wire;

/// The longest page token the leaderboard makes (an offset).
const MAX_PAGE_TOKEN: usize = 20;

impl LadderService {
    pub(super) async fn leaderboard(
        &self,
        request: Request<v1::LeaderboardRequest>,
    ) -> Result<v1::LeaderboardResponse, ApiError> {
        viewer(&self.auth, &request).await?;
        let request = request.into_inner();
        let players = category(request.players, "players")?;
        let limit = super::checks::page_size(request.page_size)?;
        let invalid = || ApiError::invalid("page_token", "not a token from Leaderboard");
        let offset = match request.page_token.as_str() {
            "" => 0,
            token if token.len() > MAX_PAGE_TOKEN => return Err(invalid()),
            token => token.parse::<u64>().map_err(|_| invalid())?,
        };
        let bots = match v1::PlayerKind::try_from(request.kind) {
            Ok(v1::PlayerKind::Unspecified) => None,
            Ok(v1::PlayerKind::Bot) => Some(true),
            Ok(v1::PlayerKind::Person) => Some(false),
            Err(_) => {
                return Err(ApiError::invalid(
                    "kind",
                    "PLAYER_KIND_BOT, PLAYER_KIND_PERSON or unspecified (everyone)",
                ));
            }
        };
        let mut rows = self
            .store
            .leaderboard(players, bots, limit + 1, offset)
            .await?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let entries = rows
            .into_iter()
            .enumerate()
            .map(|(i, row)| v1::LeaderboardEntry {
                rank: u32::try_from(offset + i as u64 + 1).unwrap_or(u32::MAX),
                player_id: row.player.id,
                display_name: row.player.display_name,
                is_bot: row.player.is_bot,
                rating: Some(wire::rating_to_wire(players, &row.rating)),
                description: row.description,
            })
            .collect();
        Ok(v1::LeaderboardResponse {
            entries,
            next_page_token: if more {
                (offset + u64::from(limit)).to_string()
            } else {
                String::new()
            },
        })
    }

    pub(super) async fn player(
        &self,
        request: Request<v1::GetPlayerRequest>,
    ) -> Result<v1::GetPlayerResponse, ApiError> {
        viewer(&self.auth, &request).await?;
        let player_id = checked_id("player_id", &request.get_ref().player_id)?;
        let found = self
            .store
            .player_ratings(player_id)
            .await?
            .ok_or_else(|| GameError::PlayerNotFound(player_id.to_string()))?;
        Ok(wire::player_ratings_to_wire(found))
    }
}
