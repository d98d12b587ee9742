//! This replica's `Offers` streams, by player. A change reaches a stream as that change: the
//! ladder reads a changed challenge once for the whole replica and hands the record to the
//! streams of its players ([`OffersHub::challenge`]); a stream reads the store only when it
//! opens, when games were arranged for its player, or when it missed news (its channel
//! lagged, or the replicas' notifications were lost). So a flood of challenges costs a read
//! per challenge per replica, not per stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::game_error::{GameError, LimitKind};
use theboss_ladder::challenge::ChallengeRecord;

use crate::limits::fixed::OFFER_STREAMS as MAX_STREAMS;

/// News buffered per player for its streams; a stream that falls further behind reads the
/// store again.
const NEWS_BUFFER: usize = 32;

/// What a stream is told.
#[derive(Debug, Clone)]
pub enum OfferNews {
    /// A challenge its player is in, as it is now.
    Challenge(Arc<ChallengeRecord>),
    /// Games were arranged for its player, or news may have been missed: read the store.
    Reread,
}

#[derive(Default)]
pub(super) struct OffersHub {
    players: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    news: broadcast::Sender<OfferNews>,
    streams: u32,
}

impl OffersHub {
    /// A new stream for `player_id`, unless it holds as many as it may.
    pub(super) fn subscribe(self: &Arc<Self>, player_id: &str) -> Result<Subscription, GameError> {
        let mut players = self.players.lock().expect("not poisoned");
        let entry = players
            .entry(player_id.to_string())
            .or_insert_with(|| Entry {
                news: broadcast::channel(NEWS_BUFFER).0,
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
            news: entry.news.subscribe(),
            player_id: player_id.to_string(),
            hub: self.clone(),
        })
    }

    /// Whether any stream is held here (if not, a changed challenge need not be read).
    pub(super) fn is_empty(&self) -> bool {
        self.players.lock().expect("not poisoned").is_empty()
    }

    /// Hands a challenge to the streams of its players held here.
    pub(super) fn challenge(&self, challenge: ChallengeRecord) {
        let challenge = Arc::new(challenge);
        let players = self.players.lock().expect("not poisoned");
        for (party, _) in &challenge.parties {
            if let Some(entry) = players.get(&party.id) {
                let _ = entry.news.send(OfferNews::Challenge(challenge.clone()));
            }
        }
    }

    /// Has the streams of these players held here read the store.
    pub(super) fn reread(&self, player_ids: &[String]) {
        let players = self.players.lock().expect("not poisoned");
        for id in player_ids {
            if let Some(entry) = players.get(id) {
                let _ = entry.news.send(OfferNews::Reread);
            }
        }
    }

    /// Has every stream held here read the store (news may have been lost).
    pub(super) fn reread_all(&self) {
        let players = self.players.lock().expect("not poisoned");
        for entry in players.values() {
            let _ = entry.news.send(OfferNews::Reread);
        }
    }
}

/// One open `Offers` stream; dropping it frees its place.
pub struct Subscription {
    pub news: broadcast::Receiver<OfferNews>,
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
    use crate::domain::PlayerInfo;
    use theboss_ladder::challenge::{Answer, ChallengeStatus};

    fn challenge(parties: &[&str]) -> ChallengeRecord {
        ChallengeRecord {
            id: "c".into(),
            parties: parties
                .iter()
                .map(|id| {
                    (
                        PlayerInfo {
                            id: (*id).into(),
                            display_name: String::new(),
                            is_bot: true,
                        },
                        Answer::Pending,
                    )
                })
                .collect(),
            players: 2,
            duplicate: false,
            rated: false,
            status: ChallengeStatus::Pending,
            created_at: 0,
            expires_at: 1,
            game_ids: vec![],
        }
    }

    #[tokio::test]
    async fn a_player_holds_a_bounded_number_of_streams_and_each_hears_its_news() {
        let hub = Arc::new(OffersHub::default());
        assert!(hub.is_empty());
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
        hub.challenge(challenge(&["p", "r"]));
        for stream in &mut held {
            assert!(matches!(
                stream.news.try_recv(),
                Ok(OfferNews::Challenge(c)) if c.id == "c"
            ));
        }
        assert!(other.news.try_recv().is_err(), "not q's challenge");
        held.pop();
        assert!(
            hub.subscribe("p").is_ok(),
            "a closed stream frees its place"
        );
        hub.reread_all();
        assert!(matches!(other.news.try_recv(), Ok(OfferNews::Reread)));
        drop(held);
        drop(other);
        assert!(hub.is_empty());
    }
}
