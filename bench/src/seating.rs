//! A game of the benchmark's own seats, set up and watched the same way by every measure
//! that plays one (the game alone, and the turn the floor records).

use theboss::v1;
use theboss_client::Session;

/// A new unlisted game of `seed` with `seats` in it, in order: its id.
pub async fn seated_game(seats: &[Session], seed: u64) -> anyhow::Result<String> {
    let settings = v1::GameSettings {
        players: seats.len() as u32,
        visibility: v1::Visibility::Unlisted as i32,
        ..Default::default()
    };
    let game_id = seats[0].create_game(settings, Some(seed)).await?;
    for (i, s) in seats.iter().enumerate() {
        s.join(&game_id, Some(i as u32)).await?;
    }
    Ok(game_id)
}

/// A seat's stream of `game_id` from its snapshot, each action's view on its last update.
pub fn watch_request(game_id: &str) -> v1::WatchGameRequest {
    v1::WatchGameRequest {
        game_id: game_id.to_string(),
        after_seq: None,
        update_views: v1::UpdateViews::ActionComplete as i32,
    }
}
