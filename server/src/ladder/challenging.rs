//! Challenges: a player names its opponents for one game or one duplicate set; they answer
//! on their `Offers` streams; once all accepted, the matchmaker seats it (filling the seats
//! nobody was named for from the ladder's queue) in its next round. The rules of answers are
//! `theboss_ladder::challenge`'s; this module runs them and tells the players' streams.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::{Ladder, Signal};
use crate::domain::{PlayerInfo, now_micros};
use crate::game_error::{GameError, LimitKind};
use crate::store::ChallengeRefused;
use crate::store::coordination::LadderSignal;
use theboss_ladder::challenge::{
    Answer, AnswerRefused, ChallengeRecord, ChallengeStatus, MAX_OPEN_CHALLENGES, Policy,
};

/// What a challenger asks for, checked for its shape by the RPC layer.
#[derive(Debug, Clone)]
pub struct ChallengeSpec {
    /// The challenged players' ids, all different, not the challenger.
    pub opponents: Vec<String>,
    /// Players per game.
    pub players: u8,
    pub duplicate: bool,
    pub rated: bool,
    pub expires_in_secs: u32,
}

impl Ladder {
    /// Records a challenge and tells everyone in it.
    pub async fn challenge(
        &self,
        challenger: PlayerInfo,
        spec: ChallengeSpec,
    ) -> Result<ChallengeRecord, GameError> {
        let now = now_micros();
        let mut parties = vec![(challenger, Answer::Accepted)];
        parties.extend(spec.opponents.iter().map(|id| {
            (
                PlayerInfo {
                    id: id.clone(),
                    display_name: String::new(),
                    is_bot: false,
                },
                Answer::Pending,
            )
        }));
        let record = ChallengeRecord {
            id: uuid::Uuid::new_v4().to_string(),
            parties,
            players: spec.players,
            duplicate: spec.duplicate,
            rated: spec.rated,
            status: ChallengeStatus::Pending,
            created_at: now,
            expires_at: now + i64::from(spec.expires_in_secs) * 1_000_000,
            game_ids: Vec::new(),
        };
        let stored = match self
            .store
            .create_challenge(&record, MAX_OPEN_CHALLENGES)
            .await?
        {
            Ok(stored) => stored,
            Err(ChallengeRefused::TooMany { limit }) => {
                return Err(GameError::Limit {
                    kind: LimitKind::OpenChallenges,
                    subject: format!("player:{}", record.challenger().id),
                    limit,
                });
            }
            Err(ChallengeRefused::UnknownPlayer(id)) => return Err(GameError::PlayerNotFound(id)),
            Err(ChallengeRefused::Crowded { player, limit }) => {
                return Err(GameError::Limit {
                    kind: LimitKind::ChallengesFromStrangers,
                    subject: format!("player:{}", player.id),
                    limit,
                });
            }
            Err(ChallengeRefused::Refuses(player)) => {
                return Err(GameError::Refused {
                    reason: "CHALLENGES_REFUSED",
                    message: format!(
                        "{} ({}) does not take challenges from you",
                        player.display_name, player.id
                    ),
                });
            }
        };
        tracing::info!(challenge = %stored.id, opponents = stored.parties.len() - 1, "challenge made");
        self.offered(&stored).await;
        Ok(stored)
    }

    /// A player's answer to a challenge it is in.
    pub async fn answer_challenge(
        &self,
        player: &PlayerInfo,
        challenge_id: &str,
        accept: bool,
    ) -> Result<ChallengeRecord, GameError> {
        let answered = self
            .store
            .answer_challenge(challenge_id, &player.id, accept, now_micros())
            .await?
            .ok_or_else(|| GameError::NotFound {
                what: "challenge",
                id: challenge_id.to_string(),
            })?;
        let challenge = answered.map_err(|refused| match refused {
            AnswerRefused::NotChallenged => GameError::Forbidden {
                reason: "NOT_CHALLENGED",
                message: format!("you are not in challenge {challenge_id}"),
            },
            AnswerRefused::Closed(status) => GameError::Refused {
                reason: "CHALLENGE_CLOSED",
                message: format!("challenge {challenge_id} is {}", status.as_str()),
            },
        })?;
        tracing::info!(challenge = %challenge.id, accept, status = challenge.status.as_str(), "challenge answered");
        if challenge.status == ChallengeStatus::Seating {
            // The matchmaker seats it in its next round.
            self.signal.notify(LadderSignal::Changed).await;
        }
        self.offered(&challenge).await;
        Ok(challenge)
    }

    pub async fn set_challenge_policy(
        &self,
        player: &PlayerInfo,
        policy: Policy,
    ) -> Result<Policy, GameError> {
        if !self.store.set_challenge_policy(&player.id, policy).await? {
            return Err(GameError::PlayerNotFound(player.id.clone()));
        }
        Ok(policy)
    }

    /// Tells the streams of everyone in a challenge that it changed: the change travels as
    /// the challenge's id, read once by each replica with streams of its players.
    async fn offered(&self, challenge: &ChallengeRecord) {
        self.signal
            .notify(LadderSignal::Challenged(challenge.id.clone()))
            .await;
    }
}

/// Tells the `Offers` streams of these players (wherever they are held) that games were
/// arranged for them.
pub(super) async fn tell(signal: &Signal, players: Vec<String>) {
    if !players.is_empty() {
        signal.notify(LadderSignal::Arranged(players)).await;
    }
}

/// A seating challenge's tables: the named players and the `fillers` from the queue, in seat
/// order. In a duplicate set the challenger and its first opponent hold the same seat at the
/// two tables (they are compared), and so on for each next two named; in one game everyone
/// is seated at random.
pub fn challenge_tables(
    challenge: &ChallengeRecord,
    fillers: &[PlayerInfo],
    rng: &mut impl Rng,
) -> Vec<Vec<PlayerInfo>> {
    let n = usize::from(challenge.players);
    let named: Vec<PlayerInfo> = challenge.parties.iter().map(|(p, _)| p.clone()).collect();
    if !challenge.duplicate {
        let mut table: Vec<PlayerInfo> = named.into_iter().chain(fillers.iter().cloned()).collect();
        table.shuffle(rng);
        return vec![table];
    }
    let mut seats: Vec<usize> = (0..n).collect();
    seats.shuffle(rng);
    let mut tables: Vec<Vec<Option<PlayerInfo>>> = vec![vec![None; n]; 2];
    for (i, player) in named.into_iter().enumerate() {
        tables[i % 2][seats[i / 2]] = Some(player);
    }
    let mut rest = fillers.iter();
    for table in &mut tables {
        for seat in table.iter_mut().filter(|s| s.is_none()) {
            *seat = rest.next().cloned();
        }
    }
    // Which table is created first does not matter: swapped at random, neither named
    // player always sits at the first.
    if rng.random::<bool>() {
        tables.swap(0, 1);
    }
    tables
        .into_iter()
        .map(|t| t.into_iter().flatten().collect())
        .collect()
}

/// What a stream last told of a challenge: it tells it again when this changes.
pub fn answers_key(challenge: &ChallengeRecord, now: i64) -> String {
    let mut key = challenge.status_at(now).as_str().to_string();
    for (_, answer) in &challenge.parties {
        key.push(':');
        key.push_str(answer.as_str());
    }
    key.push_str(&challenge.game_ids.join(","));
    key
}

/// How many seats of a challenge come from the queue.
pub fn seats_to_fill(challenge: &ChallengeRecord) -> usize {
    challenge.seats().saturating_sub(challenge.parties.len())
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    fn player(id: &str) -> PlayerInfo {
        PlayerInfo {
            id: id.into(),
            display_name: id.into(),
            is_bot: true,
        }
    }

    fn challenge(named: &[&str], players: u8, duplicate: bool) -> ChallengeRecord {
        ChallengeRecord {
            id: "c".into(),
            parties: named
                .iter()
                .map(|p| (player(p), Answer::Accepted))
                .collect(),
            players,
            duplicate,
            rated: true,
            status: ChallengeStatus::Seating,
            created_at: 0,
            expires_at: 1,
            game_ids: vec![],
        }
    }

    #[test]
    fn a_duplicate_challenge_compares_the_challenger_with_its_first_opponent() {
        for seed in 0..20 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let c = challenge(&["a", "b"], 3, true);
            assert_eq!(seats_to_fill(&c), 4);
            let fillers: Vec<PlayerInfo> = ["f1", "f2", "f3", "f4"].map(player).to_vec();
            let tables = challenge_tables(&c, &fillers, &mut rng);
            assert_eq!(tables.len(), 2);
            assert!(tables.iter().all(|t| t.len() == 3));
            let seat_of = |t: &Vec<PlayerInfo>, id: &str| t.iter().position(|p| p.id == id);
            let (a, b) = match (seat_of(&tables[0], "a"), seat_of(&tables[1], "b")) {
                (Some(a), Some(b)) => (a, b),
                _ => (
                    seat_of(&tables[1], "a").unwrap(),
                    seat_of(&tables[0], "b").unwrap(),
                ),
            };
            assert_eq!(a, b, "same seat, different tables");
            let mut everyone: Vec<&str> = tables.iter().flatten().map(|p| p.id.as_str()).collect();
            everyone.sort_unstable();
            assert_eq!(everyone, ["a", "b", "f1", "f2", "f3", "f4"]);
        }
    }

    #[test]
    fn a_single_game_seats_everyone_named_and_filled() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let c = challenge(&["a", "b"], 4, false);
        assert_eq!(seats_to_fill(&c), 2);
        let tables = challenge_tables(&c, &[player("f1"), player("f2")], &mut rng);
        assert_eq!(tables.len(), 1);
        let mut ids: Vec<&str> = tables[0].iter().map(|p| p.id.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, ["a", "b", "f1", "f2"]);
    }
}
