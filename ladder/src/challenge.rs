//! Challenges: one player names its opponents for one game or one duplicate set, the
//! challenged answer. The records as the store keeps them, and their rules as pure
//! functions: who may challenge whom ([`Policy`]), what an answer does ([`answer`]), how long
//! a challenge is seen and counted, and which challenges a player's stream shows ([`shown`]).
//! The server applies them under a lock on the challenge, so a refusal changes nothing.

use crate::PlayerInfo;

/// How long a closed challenge stays on its players' `Offers` streams, and an expired one
/// past its expiry (micros): long enough for a stream opened meanwhile to learn how it ended.
pub const VISIBLE_AFTER_CLOSE: i64 = 2 * 60 * 1_000_000;
/// Challenges of one challenger that someone can still see (waiting for answers or seats, or
/// closed in the last [`VISIBLE_AFTER_CLOSE`]): withdrawing one does not free its place.
pub const MAX_OPEN_CHALLENGES: u32 = 8;
/// Challenges a player may see at once from players it does not know (it never challenged
/// them nor played with them): past it, strangers' challenges to it are refused.
pub const MAX_FROM_STRANGERS: u32 = 20;
/// Challenges of one challenger a player does not know that its stream shows at once.
pub const SHOWN_PER_CHALLENGER: usize = 2;
/// Challenges a player's stream shows at once, at most.
pub const SHOWN: usize = 100;

/// A challenge a player's stream may show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub id: String,
    pub challenger: String,
    /// The player knows the challenger (or is it).
    pub known: bool,
    pub visible_until: i64,
}

/// Which of `candidates` a player's stream shows: its own challenges, then those of players
/// it knows, then the others, newest first within each; at most [`SHOWN_PER_CHALLENGER`] of
/// one challenger it does not know and [`SHOWN`] in all, so that spam cannot hide a friend's
/// challenge.
pub fn shown(mut candidates: Vec<Shown>, player_id: &str) -> Vec<String> {
    candidates.sort_by_key(|c| {
        (
            c.challenger != player_id,
            !c.known,
            std::cmp::Reverse(c.visible_until),
        )
    });
    let mut per_challenger: std::collections::HashMap<String, usize> =
        std::collections::HashMap::new();
    candidates
        .into_iter()
        .filter(|c| {
            let n = per_challenger.entry(c.challenger.clone()).or_default();
            *n += 1;
            c.known || *n <= SHOWN_PER_CHALLENGER
        })
        .take(SHOWN)
        .map(|c| c.id)
        .collect()
}
/// Who may challenge a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    #[default]
    Open,
    BotsOnly,
    Closed,
}

impl Policy {
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Open => "open",
            Policy::BotsOnly => "bots",
            Policy::Closed => "closed",
        }
    }

    pub fn parse(text: &str) -> Option<Policy> {
        Some(match text {
            "open" => Policy::Open,
            "bots" => Policy::BotsOnly,
            "closed" => Policy::Closed,
            _ => return None,
        })
    }

    /// Whether a player with this policy takes a challenge from `challenger`.
    pub fn admits(self, challenger: &PlayerInfo) -> bool {
        match self {
            Policy::Open => true,
            Policy::BotsOnly => challenger.is_bot,
            Policy::Closed => false,
        }
    }
}

/// Where a challenge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeStatus {
    Pending,
    /// Everyone accepted; the seats not named wait for the ladder's queue.
    Seating,
    Started,
    Declined,
    Expired,
    Withdrawn,
}

impl ChallengeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeStatus::Pending => "pending",
            ChallengeStatus::Seating => "seating",
            ChallengeStatus::Started => "started",
            ChallengeStatus::Declined => "declined",
            ChallengeStatus::Expired => "expired",
            ChallengeStatus::Withdrawn => "withdrawn",
        }
    }

    pub fn parse(text: &str) -> Option<ChallengeStatus> {
        Some(match text {
            "pending" => ChallengeStatus::Pending,
            "seating" => ChallengeStatus::Seating,
            "started" => ChallengeStatus::Started,
            "declined" => ChallengeStatus::Declined,
            "expired" => ChallengeStatus::Expired,
            "withdrawn" => ChallengeStatus::Withdrawn,
            _ => return None,
        })
    }

    pub fn is_open(self) -> bool {
        matches!(self, ChallengeStatus::Pending | ChallengeStatus::Seating)
    }
}

/// A challenged player's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Pending,
    Accepted,
    Declined,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Pending => "pending",
            Answer::Accepted => "accepted",
            Answer::Declined => "declined",
        }
    }

    pub fn parse(text: &str) -> Option<Answer> {
        Some(match text {
            "pending" => Answer::Pending,
            "accepted" => Answer::Accepted,
            "declined" => Answer::Declined,
            _ => return None,
        })
    }
}

/// A challenge, with everyone in it: the challenger first (its answer is always accepted),
/// then the challenged in the order named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeRecord {
    pub id: String,
    pub parties: Vec<(PlayerInfo, Answer)>,
    /// Players per game.
    pub players: u8,
    pub duplicate: bool,
    pub rated: bool,
    /// As stored: an open challenge past its expiry is expired (see [`Self::status_at`]).
    pub status: ChallengeStatus,
    pub created_at: i64,
    pub expires_at: i64,
    pub game_ids: Vec<String>,
}

impl ChallengeRecord {
    pub fn challenger(&self) -> &PlayerInfo {
        &self.parties[0].0
    }

    /// Its status at `now`.
    pub fn status_at(&self, now: i64) -> ChallengeStatus {
        if self.status.is_open() && now >= self.expires_at {
            ChallengeStatus::Expired
        } else {
            self.status
        }
    }

    /// How many seats its game(s) have in all.
    pub fn seats(&self) -> usize {
        usize::from(self.players) * if self.duplicate { 2 } else { 1 }
    }

    /// Until when its players' streams show it, given its status at `now`.
    pub fn visible_until(&self, now: i64) -> i64 {
        if self.status_at(now).is_open() {
            self.expires_at + VISIBLE_AFTER_CLOSE
        } else {
            now.min(self.expires_at) + VISIBLE_AFTER_CLOSE
        }
    }
}

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerRefused {
    /// The caller is not in the challenge.
    NotChallenged,
    /// The challenge is over (declined, withdrawn, expired or started).
    Closed(ChallengeStatus),
}

/// `player`'s answer to `challenge` at `now`: the challenge as it becomes. The challenger
/// declining withdraws it; a challenged player declining declines it; the last acceptance
/// puts it to seating. The same answer again changes nothing.
pub fn answer(
    challenge: &ChallengeRecord,
    player_id: &str,
    accept: bool,
    now: i64,
) -> Result<ChallengeRecord, AnswerRefused> {
    let position = challenge
        .parties
        .iter()
        .position(|(p, _)| p.id == player_id)
        .ok_or(AnswerRefused::NotChallenged)?;
    let status = challenge.status_at(now);
    let mut next = challenge.clone();
    let wanted = if accept {
        Answer::Accepted
    } else {
        Answer::Declined
    };
    if position > 0 && challenge.parties[position].1 == wanted {
        return Ok(next);
    }
    if position == 0 && accept && status.is_open() {
        return Ok(next);
    }
    // Pending: any answer. Seating: everyone accepted, but anyone may still call it off.
    let open = match status {
        ChallengeStatus::Pending => true,
        ChallengeStatus::Seating => !accept,
        _ => false,
    };
    if !open {
        return Err(AnswerRefused::Closed(status));
    }
    if position == 0 {
        next.status = ChallengeStatus::Withdrawn;
        return Ok(next);
    }
    next.parties[position].1 = wanted;
    if !accept {
        next.status = ChallengeStatus::Declined;
    } else if next.parties.iter().all(|(_, a)| *a == Answer::Accepted) {
        next.status = ChallengeStatus::Seating;
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: &str, is_bot: bool) -> PlayerInfo {
        PlayerInfo {
            id: id.into(),
            display_name: id.to_uppercase(),
            is_bot,
        }
    }

    fn challenge(opponents: usize) -> ChallengeRecord {
        let mut parties = vec![(player("a", true), Answer::Accepted)];
        for i in 0..opponents {
            parties.push((player(&format!("o{i}"), true), Answer::Pending));
        }
        ChallengeRecord {
            id: "c".into(),
            parties,
            players: 4,
            duplicate: false,
            rated: true,
            status: ChallengeStatus::Pending,
            created_at: 0,
            expires_at: 1_000,
            game_ids: vec![],
        }
    }

    #[test]
    fn the_last_acceptance_seats_the_challenge() {
        let c = challenge(2);
        let c = answer(&c, "o0", true, 10).unwrap();
        assert_eq!(c.status, ChallengeStatus::Pending);
        assert_eq!(c.parties[1].1, Answer::Accepted);
        let again = answer(&c, "o0", true, 11).unwrap();
        assert_eq!(again, c, "the same answer again changes nothing");
        let c = answer(&c, "o1", true, 12).unwrap();
        assert_eq!(c.status, ChallengeStatus::Seating);
    }

    #[test]
    fn a_decline_or_a_withdrawal_closes_it_for_good() {
        let c = challenge(2);
        let declined = answer(&c, "o1", false, 10).unwrap();
        assert_eq!(declined.status, ChallengeStatus::Declined);
        assert_eq!(
            answer(&declined, "o0", true, 11),
            Err(AnswerRefused::Closed(ChallengeStatus::Declined))
        );
        let withdrawn = answer(&c, "a", false, 10).unwrap();
        assert_eq!(withdrawn.status, ChallengeStatus::Withdrawn);
        // A seating challenge can still be called off, by anyone in it.
        let seating = answer(&answer(&c, "o0", true, 1).unwrap(), "o1", true, 2).unwrap();
        assert_eq!(
            answer(&seating, "o0", false, 3).unwrap().status,
            ChallengeStatus::Declined
        );
    }

    #[test]
    fn strangers_and_late_answers_are_refused() {
        let c = challenge(1);
        assert_eq!(
            answer(&c, "zed", true, 10),
            Err(AnswerRefused::NotChallenged)
        );
        assert_eq!(
            answer(&c, "o0", true, 1_000),
            Err(AnswerRefused::Closed(ChallengeStatus::Expired))
        );
        assert_eq!(c.status_at(999), ChallengeStatus::Pending);
        assert_eq!(c.visible_until(0), 1_000 + VISIBLE_AFTER_CLOSE);
    }

    #[test]
    fn a_stream_shows_its_own_and_known_challengers_first_and_few_of_each() {
        let shown_one = |id: &str, challenger: &str, known: bool, at: i64| Shown {
            id: id.into(),
            challenger: challenger.into(),
            known,
            visible_until: at,
        };
        // A flood of strangers' challenges, newer than a friend's.
        let mut candidates: Vec<Shown> = (0..300)
            .map(|i| {
                shown_one(
                    &format!("spam{i}"),
                    &format!("bot{}", i % 40),
                    false,
                    1_000 + i,
                )
            })
            .collect();
        candidates.push(shown_one("friend", "friend", true, 10));
        candidates.push(shown_one("mine", "me", true, 5));
        let shown = shown(candidates, "me");
        assert_eq!(&shown[..2], ["mine", "friend"]);
        assert_eq!(
            shown.len(),
            2 + 40 * SHOWN_PER_CHALLENGER,
            "two of each of 40 bots"
        );
        let one_bot = shown.iter().filter(|id| {
            id.strip_prefix("spam")
                .is_some_and(|n| n.parse::<usize>().unwrap() % 40 == 7)
        });
        assert_eq!(one_bot.count(), SHOWN_PER_CHALLENGER);
    }

    #[test]
    fn policies_admit_whom_they_say() {
        assert!(Policy::Open.admits(&player("p", false)));
        assert!(Policy::BotsOnly.admits(&player("b", true)));
        assert!(!Policy::BotsOnly.admits(&player("p", false)));
        assert!(!Policy::Closed.admits(&player("b", true)));
        for p in [Policy::Open, Policy::BotsOnly, Policy::Closed] {
            assert_eq!(Policy::parse(p.as_str()), Some(p));
        }
    }
}
