//! Challenges over the wire: `Challenge`, `AnswerChallenge`, `SetChallengePolicy`, and the
//! `Offers` stream: what the store shows of the caller's challenges and arranged games when
//! it opens, then each challenge that changes as the ladder hands it over (read once per
//! replica, see `ladder::offers`), and the store read again only when games were arranged for
//! the caller or news was missed.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use theboss::v1::{self, offers_response::Message};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Status};

use super::checks::checked_id;
use super::{LadderService, caller};
use crate::domain::{PlayerInfo, now_micros};
use crate::error::ApiError;
use crate::ladder::challenging::{ChallengeSpec, answers_key};
use crate::ladder::{Ladder, OfferNews, Subscription};
use crate::limits::fixed::CHALLENGE_EXPIRY_SECS;
use crate::wire::{self, timestamp};
use theboss_ladder::challenge::{ChallengeRecord, Policy, SHOWN_PER_CHALLENGER};

pub(super) type OffersItem = Result<v1::OffersResponse, Status>;

/// Seconds a challenge waits for answers by default, and at most.
const DEFAULT_EXPIRY_SECS: u32 = 300;
fn item(message: Message) -> OffersItem {
    Ok(v1::OffersResponse {
        message: Some(message),
    })
}

/// A request's shape, checked: what the challenger asks for.
fn spec(challenger: &PlayerInfo, request: v1::ChallengeRequest) -> Result<ChallengeSpec, ApiError> {
    if request.opponents.is_empty() {
        return Err(ApiError::invalid("opponents", "name at least one player"));
    }
    let mut seen = HashSet::new();
    for id in &request.opponents {
        checked_id("opponents", id)?;
        if *id == challenger.id {
            return Err(ApiError::invalid(
                "opponents",
                "you cannot challenge yourself",
            ));
        }
        if !seen.insert(id.as_str()) {
            return Err(ApiError::invalid("opponents", "a player is named twice"));
        }
    }
    let named = request.opponents.len() + 1;
    let players = match request.players {
        // Unset: everyone named plays, the challenger included.
        0 => u32::try_from(named).unwrap_or(u32::MAX),
        n => n,
    };
    let players = super::checks::player_count("players", players)?;
    let seats = usize::from(players) * if request.duplicate { 2 } else { 1 };
    if named > seats {
        return Err(ApiError::invalid(
            "opponents",
            format!("{} opponents do not fit {seats} seats", named - 1),
        ));
    }
    if named < seats && request.duplicate {
        // Seats filled from the queue would be strangers holding, at the other table, the
        // very cards a named player holds: the named players, who may be one person, would
        // play knowing a stranger's hand.
        return Err(ApiError::invalid(
            "opponents",
            format!("a duplicate challenge names every seat: {seats} players, you named {named}"),
        ));
    }
    if named < seats && !request.rated {
        return Err(ApiError::invalid(
            "rated",
            format!("a casual challenge names every seat: {seats} players, you named {named}"),
        ));
    }
    let expires_in_secs = match request.expires_in_secs {
        0 => DEFAULT_EXPIRY_SECS,
        n if n > CHALLENGE_EXPIRY_SECS => {
            return Err(ApiError::invalid(
                "expires_in_secs",
                format!("at most {CHALLENGE_EXPIRY_SECS}"),
            ));
        }
        n => n,
    };
    Ok(ChallengeSpec {
        opponents: request.opponents,
        players,
        duplicate: request.duplicate,
        rated: request.rated,
        expires_in_secs,
    })
}

impl LadderService {
    pub(super) async fn challenge(
        &self,
        request: Request<v1::ChallengeRequest>,
    ) -> Result<v1::ChallengeResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let spec = spec(&player, request.into_inner())?;
        self.auth.quotas().challenge(&player.id)?;
        let challenge = self.ladder.challenge(player, spec).await?;
        Ok(v1::ChallengeResponse {
            challenge: Some(wire::challenge_to_wire(&challenge, now_micros())),
        })
    }

    pub(super) async fn answer_challenge(
        &self,
        request: Request<v1::AnswerChallengeRequest>,
    ) -> Result<v1::AnswerChallengeResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let request = request.into_inner();
        let id = checked_id("challenge_id", &request.challenge_id)?;
        let challenge = self
            .ladder
            .answer_challenge(&player, id, request.accept)
            .await?;
        Ok(v1::AnswerChallengeResponse {
            challenge: Some(wire::challenge_to_wire(&challenge, now_micros())),
        })
    }

    pub(super) async fn set_challenge_policy(
        &self,
        request: Request<v1::SetChallengePolicyRequest>,
    ) -> Result<v1::SetChallengePolicyResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let policy = match v1::ChallengePolicy::try_from(request.get_ref().policy) {
            Ok(v1::ChallengePolicy::Open) => Policy::Open,
            Ok(v1::ChallengePolicy::BotsOnly) => Policy::BotsOnly,
            Ok(v1::ChallengePolicy::Closed) => Policy::Closed,
            Ok(v1::ChallengePolicy::Unspecified) => self
                .ladder
                .store()
                .challenge_policy(&player.id)
                .await?
                .unwrap_or_default(),
            Err(_) => {
                return Err(ApiError::invalid(
                    "policy",
                    "CHALLENGE_POLICY_OPEN, _BOTS_ONLY, _CLOSED or unspecified (unchanged)",
                ));
            }
        };
        let policy = self.ladder.set_challenge_policy(&player, policy).await?;
        Ok(v1::SetChallengePolicyResponse {
            policy: wire::policy_to_wire(policy) as i32,
        })
    }

    pub(super) async fn offers(
        &self,
        request: Request<v1::OffersRequest>,
    ) -> Result<ReceiverStream<OffersItem>, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let subscription = self.ladder.offers(&player.id)?;
        let (tx, rx) = mpsc::channel(16);
        let stream = OffersStream {
            ladder: self.ladder.clone(),
            player_id: player.id,
            tx,
            told: HashMap::new(),
            games: HashSet::new(),
        };
        tokio::spawn(stream.run(subscription, self.keep_alive, self.stopping.clone()));
        Ok(ReceiverStream::new(rx))
    }
}

/// One `Offers` stream's task, and what it told already.
struct OffersStream {
    ladder: Ladder,
    player_id: String,
    tx: mpsc::Sender<OffersItem>,
    /// Each challenge's last state told, and its challenger.
    told: HashMap<String, (String, String)>,
    /// Games told.
    games: HashSet<String>,
}

impl OffersStream {
    async fn run(
        mut self,
        mut subscription: Subscription,
        keep_alive: Duration,
        mut stopping: tokio::sync::watch::Receiver<bool>,
    ) {
        let mut ticker = tokio::time::interval(keep_alive);
        ticker.reset();
        if self.reread().await.is_err() {
            return;
        }
        loop {
            let told = tokio::select! {
                () = self.tx.closed() => return,
                () = async {
                    let _ = stopping.wait_for(|s| *s).await;
                } => {
                    let _ = self
                        .tx
                        .send(Err(crate::error::stream_ended(
                            "the server is shutting down; open Offers again",
                        )))
                        .await;
                    return;
                }
                news = subscription.news.recv() => match news {
                    Ok(OfferNews::Challenge(challenge)) => self.tell_challenge(&challenge).await,
                    // Games arranged, or news missed: what the store says now.
                    Ok(OfferNews::Reread) | Err(RecvError::Lagged(_)) => self.reread().await,
                    Err(RecvError::Closed) => return,
                },
                _ = ticker.tick() => {
                    let alive = item(Message::KeepAlive(v1::KeepAlive {
                        seq: 0,
                        server_time: Some(timestamp(now_micros())),
                    }));
                    self.tx.send(alive).await.map_err(|_| ())
                }
            };
            if told.is_err() {
                return;
            }
        }
    }

    /// Tells a challenge if it changed since it was told; a new one from a challenger with
    /// `arranged::SHOWN_PER_CHALLENGER` open challenges shown already waits for the next
    /// read of the store, which decides by who the player knows. Err when the client is gone.
    async fn tell_challenge(&mut self, challenge: &ChallengeRecord) -> Result<(), ()> {
        let now = now_micros();
        let key = answers_key(challenge, now);
        let challenger = challenge.challenger().id.clone();
        match self.told.get(&challenge.id) {
            Some((told, _)) if *told == key => return Ok(()),
            Some(_) => {}
            None if challenger != self.player_id => {
                // A new challenge: shown only while its challenger has few shown and open.
                let open = self
                    .told
                    .values()
                    .filter(|(state, by)| *by == challenger && state.starts_with("pending"))
                    .count();
                if open >= SHOWN_PER_CHALLENGER {
                    return Ok(());
                }
            }
            None => {}
        }
        let message = Message::Challenge(wire::challenge_to_wire(challenge, now));
        self.tx.send(item(message)).await.map_err(|_| ())?;
        self.told.insert(challenge.id.clone(), (key, challenger));
        Ok(())
    }

    /// Reads what the stream shows from the store and tells what changed; Err when the
    /// client is gone.
    async fn reread(&mut self) -> Result<(), ()> {
        let store = self.ladder.store().clone();
        let now = now_micros();
        match store.challenges_of(&self.player_id, now).await {
            Ok(found) => {
                for challenge in found {
                    self.tell_challenge(&challenge).await?;
                }
            }
            Err(error) => tracing::warn!(%error, "cannot read a player's challenges"),
        }
        let seats = match store.arranged_games_of(&self.player_id).await {
            Ok(seats) => seats,
            Err(error) => {
                tracing::warn!(%error, "cannot read a player's arranged games");
                return Ok(());
            }
        };
        for seat in seats {
            if self.games.insert(seat.game_id.clone()) {
                let message = Message::Matched(wire::arranged_seat_to_wire(seat));
                self.tx.send(item(message)).await.map_err(|_| ())?;
            }
        }
        Ok(())
    }
}
