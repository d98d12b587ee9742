//! The lobby's answers: a game as `ListGames` lists it and the page token that resumes a
//! listing.

use theboss::v1;

use super::{player_to_wire, settings_to_wire, status_to_wire, timestamp};
use crate::store::{GameCursor, GameListing};

/// A `ListGames` page token: where the page ended, as `<created_at µs>.<game id>`. Clients
/// treat it as opaque.
pub fn page_token(cursor: &GameCursor) -> String {
    format!("{}.{}", cursor.created_at, cursor.id)
}

pub fn listing_to_wire(listing: &GameListing) -> v1::GameSummary {
    // Only duplicate sets are shown as such; earlier versions' series are plain games now.
    let set = listing.record.series.as_ref().filter(|s| s.is_set());
    v1::GameSummary {
        game_id: listing.record.id.clone(),
        settings: Some(settings_to_wire(&listing.record.settings)),
        status: status_to_wire(listing.status) as i32,
        seats: listing
            .seats
            .iter()
            .map(|(seat, player)| player_to_wire(*seat, player))
            .collect(),
        created_at: Some(timestamp(listing.record.created_at)),
        winners: listing.winners.iter().map(|&s| u32::from(s)).collect(),
        ladder: listing.record.ladder,
        seeded: listing.record.seeded,
        series_id: set.map(|s| s.id.clone()).unwrap_or_default(),
        series_table: set.map_or(0, |s| u32::from(s.index)),
        series_tables: set.map_or(0, |s| u32::from(s.tables)),
    }
}
