//! The request checks several RPCs share: ids the service made, page sizes, free text, and
//! which updates carry views. What only one RPC asks is checked in that RPC's module.

use theboss::v1;
use theboss_engine::PLAYER_COUNTS;

use crate::error::ApiError;
use crate::game_error::GameError;
use crate::text;
use crate::wire::ViewsOn;

/// An id the service made (a game's or a player's): a UUID, or the request is malformed.
/// The message never quotes the value.
pub(super) fn checked_id<'a>(field: &str, id: &'a str) -> Result<&'a str, ApiError> {
    uuid::Uuid::try_parse(id)
        .map(|_| id)
        .map_err(|_| ApiError::invalid(field, "not an id this service made (a UUID)"))
}

/// A free-text field as the server keeps it, or INVALID_ARGUMENT naming the field.
pub(super) fn checked_text(field: &text::TextField, raw: &str) -> Result<String, ApiError> {
    text::checked(field, raw).map_err(|e| ApiError::invalid(field.field, e.to_string()))
}

/// A player count a request names: one the engine's rules allow ([`PLAYER_COUNTS`]), or
/// INVALID_ARGUMENT naming the field and the counts there are.
pub(super) fn player_count(field: &str, requested: u32) -> Result<u8, GameError> {
    u8::try_from(requested)
        .ok()
        .filter(|p| PLAYER_COUNTS.contains(p))
        .ok_or_else(|| {
            GameError::invalid(
                field,
                format!(
                    "The Boss is played by {} to {} players, not {requested}",
                    PLAYER_COUNTS.start(),
                    PLAYER_COUNTS.end(),
                ),
            )
        })
}

/// The page size a listing request asks for: 0 means 20, at most 100.
pub(super) fn page_size(requested: u32) -> Result<u32, GameError> {
    use crate::limits::fixed::{LISTING_PAGE as MAX, LISTING_PAGE_DEFAULT as DEFAULT};
    match requested {
        0 => Ok(DEFAULT),
        n if n > MAX => Err(GameError::invalid("page_size", format!("at most {MAX}"))),
        n => Ok(n),
    }
}

/// A request's `update_views`; the error names the field.
pub(super) fn views_on(value: i32) -> Result<ViewsOn, GameError> {
    match v1::UpdateViews::try_from(value) {
        Ok(v1::UpdateViews::Unspecified | v1::UpdateViews::Every) => Ok(ViewsOn::EveryUpdate),
        Ok(v1::UpdateViews::ActionComplete) => Ok(ViewsOn::LastUpdate),
        Err(_) => Err(GameError::invalid(
            "update_views",
            format!("{value} is not an UpdateViews value"),
        )),
    }
}
