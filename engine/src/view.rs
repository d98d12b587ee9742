//! Observations: what one viewer may know of a game (docs/RULES.md §8), built from the game and
//! nothing else. A seat sees the public table, every hand's backs by city, and its own hand's
//! faces; a spectator sees the public table only. Face-down cards, other hands' faces, the
//! police deck's order and the seed appear in no view until they become public.

use serde::{Deserialize, Serialize};

use crate::Seat;
pub use crate::Viewer;
use crate::action::Location;
use crate::board::Gangsters;
use crate::cards::{Card, City, PoliceCard};
use crate::event::{Outcome, RoundSummary};
use crate::game::Game;
use crate::legal::LegalTurns;
use crate::player::Supply;
use crate::rules::{LAST_TURN, chicago_payout};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    pub viewer: Viewer,
    pub players: u8,
    /// Cities in play, by number (Chicago not included).
    pub cities: Vec<City>,
    /// The rules the game is played under.
    #[serde(default = "crate::version::unversioned")]
    pub rules: crate::version::RulesVersion,
    pub round: u8,
    /// Turn within the round, 1..=5.
    pub turn: u8,
    pub start_player: Seat,
    /// None once the game is over.
    pub to_move: Option<Seat>,
    /// This turn's order; on the last turn, the last-turn order.
    pub turn_order: Vec<Seat>,
    /// How many seats of `turn_order` have played this turn.
    pub acted_this_turn: u8,
    /// Whether this turn is played in last-turn order.
    pub last_turn: bool,
    /// A third badge of one colour is out: this round is the last (before any tie-break).
    pub last_round: bool,
    /// During the decisive round: the tied seats playing for the win.
    pub contenders: Option<Vec<Seat>>,
    /// Every location left to right, Chicago included.
    pub locations: Vec<LocationView>,
    /// What Chicago would pay its leader if the round ended now.
    pub chicago_value: u32,
    pub seats: Vec<SeatView>,
    /// The viewer's own hand (None for spectators).
    pub hand: Option<Vec<Card>>,
    /// The viewer's legal turns, when it is the viewer's turn.
    pub legal: Option<LegalTurns>,
    pub police: PoliceView,
    /// The last resolved round, face-down cards revealed.
    pub last_resolution: Option<RoundSummary>,
    pub outcome: Option<Outcome>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocationView {
    pub location: Location,
    /// Gangsters of every seat, indexed by seat.
    pub gangsters: Vec<Gangsters>,
    pub leader: Option<Seat>,
    /// Cards played this round, oldest first (empty for Chicago).
    pub played: Vec<Card>,
    /// Whether a face-down card lies under the city (its face is never in a view).
    pub face_down: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: Seat,
    pub money: u32,
    pub money_last_round: u32,
    pub supply: Supply,
    pub banished: Vec<City>,
    /// How many cards of each city in play the seat holds (card backs are public).
    pub hand_backs: Vec<CityCount>,
}

impl SeatView {
    pub fn hand_size(&self) -> u8 {
        self.hand_backs.iter().map(|c| c.count).sum()
    }

    pub fn backs(&self, city: City) -> u8 {
        self.hand_backs
            .iter()
            .find(|c| c.city == city)
            .map_or(0, |c| c.count)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CityCount {
    pub city: City,
    pub count: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoliceView {
    /// Revealed police cards, oldest first.
    pub revealed: Vec<PoliceCard>,
    pub silver: u8,
    pub gold: u8,
    /// Cards left in the police deck (their order is hidden).
    pub remaining: u8,
}

impl View {
    pub fn seat(&self, seat: Seat) -> &SeatView {
        &self.seats[usize::from(seat)]
    }

    pub fn location(&self, location: Location) -> Option<&LocationView> {
        self.locations.iter().find(|l| l.location == location)
    }

    /// Whether it is this viewer's turn.
    pub fn my_turn(&self) -> bool {
        matches!(self.viewer, Viewer::Seat(s) if self.to_move == Some(s))
    }
}

impl Game {
    /// What a viewer may know now. A seat outside the game sees what a spectator sees.
    pub fn view(&self, viewer: Viewer) -> View {
        let viewer = match viewer {
            Viewer::Seat(seat) if seat < self.players() => viewer,
            _ => Viewer::Spectator,
        };
        let board = self.board();
        let n = self.players();
        let locations = board
            .locations()
            .map(|location| LocationView {
                location,
                gangsters: (0..n).map(|s| board.gangsters(location, s)).collect(),
                leader: board.leader(location),
                played: location
                    .city()
                    .map(|c| board.played(c).to_vec())
                    .unwrap_or_default(),
                face_down: location.city().is_some_and(|c| self.face_down(c).is_some()),
            })
            .collect();
        let seats = (0..n)
            .map(|seat| {
                let player = self.player(seat);
                let hand = self.hand(seat);
                SeatView {
                    seat,
                    money: player.money,
                    money_last_round: player.money_last_round,
                    supply: player.supply,
                    banished: player.banished_from(),
                    hand_backs: board
                        .cities()
                        .iter()
                        .map(|&city| CityCount {
                            city,
                            count: hand.iter().filter(|c| c.city == city).count() as u8,
                        })
                        .collect(),
                }
            })
            .collect();
        let (silver, gold) = self.badges();
        let (hand, legal) = match viewer {
            Viewer::Seat(seat) => (Some(self.hand(seat).to_vec()), self.legal_turns(seat)),
            Viewer::Spectator => (None, None),
        };
        View {
            viewer,
            players: n,
            cities: self.setup().cities().to_vec(),
            rules: self.setup().rules(),
            round: self.round(),
            turn: self.turn(),
            start_player: self.start_player(),
            to_move: self.to_move(),
            turn_order: self.turn_order().to_vec(),
            acted_this_turn: self.acted as u8,
            last_turn: self.turn() == LAST_TURN && !self.is_over(),
            last_round: self.is_last_round(),
            contenders: self.contenders().map(<[Seat]>::to_vec),
            locations,
            chicago_value: chicago_payout(board.chicago_sum()),
            seats,
            hand,
            legal,
            police: PoliceView {
                revealed: self.police_revealed().to_vec(),
                silver,
                gold,
                remaining: self.police_deck().len() as u8,
            },
            last_resolution: self.last_resolution().cloned(),
            outcome: self.outcome().cloned(),
        }
    }
}
