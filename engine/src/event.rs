//! What happens in a game, as events that carry who may see them, so that one log can be
//! filtered for every viewer. The rules write them to a sink, which playouts make one that
//! drops them unbuilt ([`Game::apply_quiet`](crate::Game::apply_quiet)).

use serde::{Deserialize, Serialize};

use crate::Seat;
use crate::Viewer;
use crate::action::{Location, Placement};
use crate::cards::{Card, City, PoliceCard, Sanction};

/// Who may see an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    Public,
    /// Only this seat (and everybody once the game is over).
    Seat(Seat),
}

impl Visibility {
    pub fn visible_to(self, viewer: Viewer) -> bool {
        match (self, viewer) {
            (Visibility::Public, _) => true,
            (Visibility::Seat(owner), Viewer::Seat(seat)) => owner == seat,
            (Visibility::Seat(_), Viewer::Spectator) => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedEvent {
    pub visibility: Visibility,
    pub event: Event,
}

impl LoggedEvent {
    pub(crate) fn public(event: Event) -> LoggedEvent {
        LoggedEvent {
            visibility: Visibility::Public,
            event,
        }
    }

    pub fn visible_to(&self, viewer: Viewer) -> bool {
        self.visibility.visible_to(viewer)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    GameStarted {
        players: u8,
        cities: Vec<City>,
        /// The rules the game is played under (events logged before versions existed
        /// read as version 1).
        #[serde(default = "crate::version::unversioned")]
        rules: crate::version::RulesVersion,
    },
    RoundStarted {
        round: u8,
        start_player: Seat,
        /// Every location left to right, Chicago included.
        row: Vec<Location>,
        /// The tie-breaking extra round (docs/RULES.md §7).
        decisive: bool,
    },
    /// A seat's new hand; private to that seat.
    HandDealt {
        seat: Seat,
        cards: Vec<Card>,
    },
    PoliceRevealed {
        card: PoliceCard,
        silver: u8,
        gold: u8,
        /// The current round is now the last.
        last_round: bool,
    },
    TurnTaken {
        seat: Seat,
        round: u8,
        turn: u8,
        placement: Option<Placement>,
        card: Card,
    },
    /// The order of the round's last turn.
    LastTurnOrder {
        order: Vec<Seat>,
    },
    RoundResolved(RoundSummary),
    /// The game is tied after its last round; these seats play one more round for the win.
    DecisiveRound {
        contenders: Vec<Seat>,
    },
    GameEnded(Outcome),
}

/// A round's resolution: every face-down card revealed and what every location paid.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundSummary {
    pub round: u8,
    /// Face-down cards, left to right.
    pub face_down: Vec<Card>,
    /// One award per location, left to right, Chicago included.
    pub awards: Vec<Award>,
    /// Money each seat won this round.
    pub money_won: Vec<u32>,
}

/// Written out so that `clone_from` reuses the lists (see `Game`'s `Clone`).
impl Clone for RoundSummary {
    fn clone(&self) -> RoundSummary {
        RoundSummary {
            round: self.round,
            face_down: self.face_down.clone(),
            awards: self.awards.clone(),
            money_won: self.money_won.clone(),
        }
    }

    fn clone_from(&mut self, source: &RoundSummary) {
        let RoundSummary {
            round,
            face_down,
            awards,
            money_won,
        } = source;
        self.round = *round;
        self.face_down.clone_from(face_down);
        self.awards.clone_from(awards);
        self.money_won.clone_from(money_won);
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Award {
    pub location: Location,
    /// The leader, if anybody had gangsters there.
    pub winner: Option<Seat>,
    /// The face-down card taken (None for Chicago).
    pub card: Option<Card>,
    /// Money paid to the winner (0 if nobody won).
    pub money: u32,
    /// For Chicago: the sum of the last played cards to its left.
    pub chicago_sum: Option<u32>,
    /// The sanction the winner took, and whether it took effect.
    pub sanction: Option<SanctionEffect>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanctionEffect {
    pub sanction: Sanction,
    /// False when the player had no Expert left in play to take it.
    pub applied: bool,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// One seat, or several sharing the win.
    pub winners: Vec<Seat>,
    /// Every seat, best first. After a decisive round its contenders rank ahead of the
    /// other seats, whatever their money: only they played for the win.
    pub standings: Vec<Standing>,
    pub rounds: u8,
    /// The seats that played the decisive round (empty when none was needed).
    pub contenders: Vec<Seat>,
}

impl Outcome {
    pub fn decisive_round(&self) -> bool {
        !self.contenders.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub seat: Seat,
    pub money: u32,
    pub money_last_round: u32,
    pub gangsters_owned: u8,
}

impl Standing {
    /// Most money, then most money won in the last round, then most gangsters owned.
    pub fn rank_key(&self) -> (u32, u32, u8) {
        (self.money, self.money_last_round, self.gangsters_owned)
    }
}

/// Where the rules write their events as they play: a list that keeps them, or nowhere, for
/// playouts and replays that never read them. Events are passed as closures so that the
/// clones they carry (hands, the round's summary) are never made when nobody keeps them.
pub(crate) trait EventSink {
    fn record(&mut self, event: impl FnOnce() -> LoggedEvent);
}

impl EventSink for Vec<LoggedEvent> {
    fn record(&mut self, event: impl FnOnce() -> LoggedEvent) {
        self.push(event());
    }
}

/// Drops every event unbuilt.
pub(crate) struct Unrecorded;

impl EventSink for Unrecorded {
    fn record(&mut self, _event: impl FnOnce() -> LoggedEvent) {}
}
