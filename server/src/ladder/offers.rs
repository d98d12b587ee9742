//! This replica's `Offers` streams, by player: each open stream holds a [`Subscription`]
//! that wakes when the ladder signals a change for its player (a challenge made, answered or
//! started; a game arranged), so a stream re-reads the store only when something may have
//! changed for it (and on a slow poll, in case a signal was lost).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use crate::game_error::{GameError, LimitKind};

/// Open `Offers` streams one player may hold.
pub const MAX_STREAMS: u32 = 4;

#[derive(Default)]
pub(super) struct OffersHub {
    players: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    changes: watch::Sender<u64>,
    streams: u32,
}

impl OffersHub {
    /// A new stream for `player_id`, unless it holds as many as it may.
    pub(super) fn subscribe(self: &Arc<Self>, player_id: &str) -> Result<Subscription, GameError> {
        let mut players = self.players.lock().expect("not poisoned");
        let entry = players
            .entry(player_id.to_string())
            .or_insert_with(|| Entry {
                changes: watch::channel(0).0,
                streams: 0,
            });
        if entry.streams >= MAX_STREAMS {
            return Err(GameError::Limit {
                kind: LimitKind::OfferStreams,
                subject: format!("player:{player_id}"),
                limit: MAX_STREAMS,
            });
        }
        entry.streams += 1;
        Ok(Subscription {
            changes: entry.changes.subscribe(),
            player_id: player_id.to_string(),
            hub: self.clone(),
        })
    }

    /// Wakes the streams of these players held here.
    pub(super) fn changed(&self, player_ids: &[String]) {
        let players = self.players.lock().expect("not poisoned");
        for id in player_ids {
            if let Some(entry) = players.get(id) {
                entry.changes.send_modify(|n| *n += 1);
            }
        }
    }

    /// Wakes every stream held here (signals may have been lost).
    pub(super) fn changed_all(&self) {
        let players = self.players.lock().expect("not poisoned");
        for entry in players.values() {
            entry.changes.send_modify(|n| *n += 1);
        }
    }
}

/// One open `Offers` stream; dropping it frees its place.
pub struct Subscription {
    pub changes: watch::Receiver<u64>,
    player_id: String,
    hub: Arc<OffersHub>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut players = self.hub.players.lock().expect("not poisoned");
        if let Some(entry) = players.get_mut(&self.player_id) {
            entry.streams -= 1;
            if entry.streams == 0 {
                players.remove(&self.player_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_player_holds_a_bounded_number_of_streams_and_each_hears_its_changes() {
        let hub = Arc::new(OffersHub::default());
        let mut held: Vec<Subscription> = (0..MAX_STREAMS)
            .map(|_| hub.subscribe("p").unwrap())
            .collect();
        assert!(matches!(
            hub.subscribe("p"),
            Err(GameError::Limit {
                kind: LimitKind::OfferStreams,
                ..
            })
        ));
        let mut other = hub.subscribe("q").unwrap();
        hub.changed(&["p".to_string()]);
        assert!(held[0].changes.has_changed().unwrap());
        assert!(!other.changes.has_changed().unwrap());
        held.pop();
        assert!(
            hub.subscribe("p").is_ok(),
            "a closed stream frees its place"
        );
        hub.changed_all();
        assert!(other.changes.has_changed().unwrap());
        other.changes.mark_unchanged();
        drop(held);
        drop(other);
        assert!(hub.players.lock().unwrap().is_empty());
    }
}
