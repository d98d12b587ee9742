//! The lobby's RPCs: registering and a player's profile, creating a game (a chosen seed only
//! for unlisted games, and within the creator's cap on tables waiting), joining and leaving a
//! table, listing games.

use theboss::v1;
use tonic::Request;

use super::{GameService, caller, checked_id, viewer};
use crate::auth::{self, Caller};
use crate::domain::{GameInfo, PlayerInfo, Visibility, now_micros};
use crate::error::ApiError;
use crate::store::{GameQuery, NewPlayer};
use crate::text;
use crate::wire;

/// A free-text field as the server keeps it, or INVALID_ARGUMENT naming the field.
fn checked_text(field: &text::TextField, raw: &str) -> Result<String, ApiError> {
    text::checked(field, raw).map_err(|e| ApiError::invalid(field.field, e.to_string()))
}

/// The most statuses a listing may ask for: each status once.
const MAX_STATUSES: usize = 4;

/// The longest page token the service makes.
const MAX_PAGE_TOKEN: usize = 64;

fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    u64::from_le_bytes(bytes)
}

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
        tracing::info!(%description, "profile updated");
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
        tracing::info!(name = %player.display_name, bot = player.is_bot, "registered");
        Ok(v1::RegisterResponse {
            player_id: player.id,
            api_token: token,
        })
    }

    pub(super) async fn create(
        &self,
        request: Request<v1::CreateGameRequest>,
    ) -> Result<v1::CreateGameResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let address = crate::net::address::ClientAddr::of(request.extensions());
        let request = request.into_inner();
        let settings = wire::settings_from_wire(request.settings.as_ref())?;
        // Whoever chose a seed may know every deal: such a game is for tests and replays,
        // between players who know it, never listed to strangers.
        if request.seed.is_some() && settings.visibility() != Visibility::Unlisted {
            return Err(ApiError::invalid(
                "seed",
                "only an UNLISTED game may be given a seed (settings.visibility)",
            ));
        }
        let house_bots = wire::house_bots_from_wire(&request.house_bots, settings.players())?;
        let house_players = crate::house::seat_players(&house_bots).ok_or_else(|| {
            ApiError::invalid(
                "house_bots",
                format!(
                    "at most {} house bots of one strategy at a table",
                    crate::house::PER_KIND
                ),
            )
        })?;
        let record = GameInfo {
            id: uuid::Uuid::new_v4().to_string(),
            settings,
            seed: request.seed.unwrap_or_else(random_seed),
            created_by: player.id,
            created_at: now_micros(),
            ladder: false,
            series: None,
            seed_salt: Some(crate::domain::new_seed_salt()),
            seeded: request.seed.is_some(),
        };
        let game_id = record.id.clone();
        tracing::Span::current().record("game", game_id.as_str());
        tracing::info!(
            players = record.settings.players(),
            seeded = record.seeded,
            "game created"
        );
        if house_players.is_empty() {
            self.games.create(record).await?;
        } else {
            // The house bots take the last seats: the creator's JoinGame takes the first free
            // one.
            self.games
                .create_with_house(record, house_players, address)
                .await?;
        }
        Ok(v1::CreateGameResponse { game_id })
    }

    pub(super) async fn join(
        &self,
        request: Request<v1::JoinGameRequest>,
    ) -> Result<v1::JoinGameResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        // A seat past the table is one mistake, INVALID_ARGUMENT, whatever its size: the
        // table refuses those it knows it lacks, this those no table has.
        let seat = request
            .seat
            .map(|s| {
                u8::try_from(s).map_err(|_| {
                    ApiError::invalid("seat", format!("there is no seat {s} at this table"))
                })
            })
            .transpose()?;
        self.on_owner(&game_id, request, &metadata, |game| {
            let player = player.clone();
            async move {
                let caps = self.games.caps_of(&player.id);
                let joined = game.join_within(player, seat, caps).await?;
                Ok(v1::JoinGameResponse {
                    seat: u32::from(joined.seat),
                    started: joined.started,
                })
            }
        })
        .await
    }

    pub(super) async fn leave(
        &self,
        request: Request<v1::LeaveGameRequest>,
    ) -> Result<v1::LeaveGameResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        self.on_owner(&game_id, request, &metadata, |game| {
            let player_id = player.id.clone();
            async move {
                game.leave(player_id.clone()).await?;
                // Its place may be free again at once, whatever was cached.
                self.games.uncap(&player_id);
                Ok(v1::LeaveGameResponse {})
            }
        })
        .await
    }

    pub(super) async fn list(
        &self,
        request: Request<v1::ListGamesRequest>,
    ) -> Result<v1::ListGamesResponse, ApiError> {
        let caller = viewer(&self.auth, &request).await?;
        let request = request.into_inner();
        if request.mine && caller == Caller::Anonymous {
            return Err(ApiError::Unauthenticated(
                "`mine` lists the caller's games: send `authorization: Bearer <token>`",
            ));
        }
        if request.statuses.len() > MAX_STATUSES {
            return Err(ApiError::invalid(
                "statuses",
                format!(
                    "at most {MAX_STATUSES} statuses, not {}",
                    request.statuses.len()
                ),
            ));
        }
        if request.page_token.len() > MAX_PAGE_TOKEN {
            return Err(ApiError::invalid(
                "page_token",
                "not a token from ListGames",
            ));
        }
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
                seated: request.mine.then(|| caller.id().to_string()),
                viewer: caller.id().to_string(),
                limit,
                after,
            })
            .await?;
        Ok(v1::ListGamesResponse {
            games: page.games.iter().map(wire::listing_to_wire).collect(),
            next_page_token: page.next.as_ref().map(wire::page_token).unwrap_or_default(),
        })
    }
}
