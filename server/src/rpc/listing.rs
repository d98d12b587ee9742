//! `ListGames`: the lobby's pages of games, of some statuses, newest first, resumed from a
//! page token; `mine` only for a caller who says who it is.

use theboss::v1;
use tonic::Request;

use super::checks::page_size;
use super::{GameService, viewer};
use crate::auth::Caller;
use crate::domain::GameStatus;
use crate::error::ApiError;
use crate::game_error::GameError;
use crate::store::{GameCursor, GameQuery};
use crate::wire;

/// The most statuses a listing may ask for: each status once.
const MAX_STATUSES: usize = 4;

/// The longest page token the service makes.
const MAX_PAGE_TOKEN: usize = 64;

/// A page token `wire::page_token` made, or INVALID_ARGUMENT.
fn cursor_from_token(token: &str) -> Result<GameCursor, GameError> {
    let invalid = || GameError::invalid("page_token", "not a token from ListGames");
    let (created_at, id) = token.split_once('.').ok_or_else(invalid)?;
    let created_at = created_at.parse().map_err(|_| invalid())?;
    uuid::Uuid::parse_str(id).map_err(|_| invalid())?;
    Ok(GameCursor {
        created_at,
        id: id.to_string(),
    })
}

fn status_from_wire(value: i32, field: &str) -> Result<GameStatus, GameError> {
    match v1::GameStatus::try_from(value) {
        Ok(v1::GameStatus::Open) => Ok(GameStatus::Open),
        Ok(v1::GameStatus::Running) => Ok(GameStatus::Running),
        Ok(v1::GameStatus::Finished) => Ok(GameStatus::Finished),
        Ok(v1::GameStatus::Aborted) => Ok(GameStatus::Aborted),
        _ => Err(GameError::invalid(
            field,
            format!("{value} is not a game status"),
        )),
    }
}

impl GameService {
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
        let limit = page_size(request.page_size)?;
        let after = match request.page_token.as_str() {
            "" => None,
            token => Some(cursor_from_token(token)?),
        };
        let statuses = request
            .statuses
            .iter()
            .enumerate()
            .map(|(i, &s)| status_from_wire(s, &format!("statuses[{i}]")))
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
