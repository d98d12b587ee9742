//! `WatchGame`: a stream of a game as the caller may see it (see `game_stream`), within the limits
//! on open streams (per player, and spectators per game; an anonymous spectator's stream is
//! held among its address's unauthenticated calls), and for a table of a duplicate set still
//! being played, only for its own players.

use theboss::v1;
use tonic::Request;

use super::checks::checked_id;
use super::{GameService, viewer};
use crate::error::ApiError;
use crate::game_error::GameError;
use crate::game_stream::{self, WatchOptions, Watcher};
use crate::games::sets::may_look_on;

impl GameService {
    pub(super) async fn watch(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> Result<Watcher, ApiError> {
        let caller = viewer(&self.auth, &request).await?;
        let request = request.into_inner();
        let views = super::checks::views_on(request.update_views)?;
        let game_id = checked_id("game_id", &request.game_id)?;
        let mut game = self.games.get(game_id).await?;
        let subscription = match game.watch(request.after_seq).await {
            // The game unloaded in between: load it again.
            Err(GameError::Unavailable) => {
                game = self.games.get(game_id).await?;
                game.watch(request.after_seq).await?
            }
            other => other?,
        };
        let seated = subscription.latest.state.seat_of(caller.id()).is_some();
        may_look_on(&*self.store, &subscription.latest.record, seated).await?;
        // Nobody's streams are held among the unauthenticated calls of its address (`net`),
        // a player's count against the player.
        let holder = caller.player().map(|p| p.id.as_str());
        let permit = self.streams.open(holder, game_id, !seated)?;
        Ok(game_stream::stream(
            game,
            caller.id().to_string(),
            subscription,
            WatchOptions {
                after_seq: request.after_seq,
                views,
                keep_alive: self.keep_alive,
            },
            permit,
            self.stopping.clone(),
        ))
    }
}
