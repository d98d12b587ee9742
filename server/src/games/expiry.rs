//! Tables that never fill: a sweep aborts those not filled within their time that no actor
//! here has loaded (a loaded table's actor aborts it on its own clock).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::{Games, Route};
use crate::domain::now_micros;
use crate::store::StoreError;

/// Expired tables aborted per sweep.
const EXPIRY_BATCH: u32 = 200;

impl Games {
    /// Aborts the tables that were not filled in time, a batch at a time, and says how many.
    /// With replicas, each replica aborts those it runs.
    pub async fn sweep_expired(&self) -> Result<usize, StoreError> {
        let ttl = i64::try_from(self.context.options.open_ttl.as_micros()).unwrap_or(i64::MAX);
        let before = now_micros().saturating_sub(ttl);
        let mut aborted = 0;
        for id in self
            .context
            .store
            .expired_open_games(before, EXPIRY_BATCH)
            .await?
        {
            let game = match self.route(&id).await {
                Ok(Route::Local(game)) => game,
                // Run elsewhere: its own replica sweeps it.
                Ok(Route::Remote(_)) => continue,
                Err(error) => {
                    tracing::warn!(game = %id, %error, "cannot expire a table");
                    continue;
                }
            };
            match game.expire().await {
                Ok(true) => {
                    // A place is free again for its creator.
                    self.capped.remove(&game.record().created_by);
                    aborted += 1;
                }
                Ok(false) => {}
                Err(error) => tracing::warn!(game = %id, %error, "cannot expire a table"),
            }
        }
        Ok(aborted)
    }

    /// Sweeps expired tables now and then, until `stopping`: every tenth of the time a table
    /// may wait, between a second and a minute.
    pub fn start_expiry(self: &Arc<Self>, mut stopping: watch::Receiver<bool>) {
        let every = (self.context.options.open_ttl / 10)
            .clamp(Duration::from_secs(1), Duration::from_secs(60));
        let games = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tokio::select! {
                    () = async {
                        let _ = stopping.wait_for(|s| *s).await;
                    } => return,
                    _ = tick.tick() => match games.sweep_expired().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(tables = n, "expired tables aborted"),
                        Err(error) => tracing::warn!(%error, "cannot sweep expired tables"),
                    },
                }
            }
        });
    }
}
