//! Observations: what one viewer may know of a game (docs/RULES.md §8), built from the game and
//! nothing else. A seat sees the public table, every hand's backs by city, and its own hand's
//! faces; a spectator sees the public table only. Face-down cards, other hands' faces, the
//! police deck's order and the seed appear in no view until they become public.
//! [`Game::view_into`] writes one into a view the caller keeps, for searches that look at
//! every turn of a playout.

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

/// An empty view, to fill with [`Game::view_into`]; it describes no game.
impl Default for View {
    fn default() -> View {
        View {
            viewer: Viewer::Spectator,
            players: 0,
            cities: Vec::new(),
            rules: crate::version::RulesVersion::LATEST,
            round: 0,
            turn: 0,
            start_player: 0,
            to_move: None,
            turn_order: Vec::new(),
            acted_this_turn: 0,
            last_turn: false,
            last_round: false,
            contenders: None,
            locations: Vec::new(),
            chicago_value: 0,
            seats: Vec::new(),
            hand: None,
            legal: None,
            police: PoliceView {
                revealed: Vec::new(),
                silver: 0,
                gold: 0,
                remaining: 0,
            },
            last_resolution: None,
            outcome: None,
        }
    }
}

/// `list` made `len` long, keeping the entries it has (and their lists) and adding `blank`s.
fn resize<T>(list: &mut Vec<T>, len: usize, blank: impl FnMut() -> T) {
    list.truncate(len);
    let missing = len - list.len();
    list.extend(std::iter::repeat_with(blank).take(missing));
}

/// `list` holding `items` instead of what it held.
fn refill<T>(list: &mut Vec<T>, items: impl IntoIterator<Item = T>) {
    list.clear();
    list.extend(items);
}

impl Game {
    /// What a viewer may know now. A seat outside the game sees what a spectator sees.
    pub fn view(&self, viewer: Viewer) -> View {
        let mut view = View::default();
        self.view_into(viewer, &mut view);
        view
    }

    /// [`Game::view`] written into `view`, whose lists are reused: a search's playouts look
    /// at the game through a seat's eyes on every turn.
    pub fn view_into(&self, viewer: Viewer, view: &mut View) {
        let viewer = match viewer {
            Viewer::Seat(seat) if seat < self.players() => viewer,
            _ => Viewer::Spectator,
        };
        let board = self.board();
        let n = self.players();
        resize(&mut view.locations, board.locations().count(), || {
            LocationView {
                location: Location::Chicago,
                gangsters: Vec::new(),
                leader: None,
                played: Vec::new(),
                face_down: false,
            }
        });
        for (location, l) in board.locations().zip(&mut view.locations) {
            l.location = location;
            refill(
                &mut l.gangsters,
                (0..n).map(|s| board.gangsters(location, s)),
            );
            l.leader = board.leader(location);
            let played = location.city().map_or(&[][..], |c| board.played(c));
            refill(&mut l.played, played.iter().copied());
            l.face_down = location.city().is_some_and(|c| self.face_down(c).is_some());
        }
        resize(&mut view.seats, usize::from(n), || SeatView {
            seat: 0,
            money: 0,
            money_last_round: 0,
            supply: Supply::default(),
            banished: Vec::new(),
            hand_backs: Vec::new(),
        });
        for (seat, s) in (0..n).zip(&mut view.seats) {
            let player = self.player(seat);
            let hand = self.hand(seat);
            s.seat = seat;
            s.money = player.money;
            s.money_last_round = player.money_last_round;
            s.supply = player.supply;
            refill(
                &mut s.banished,
                City::ALL.into_iter().filter(|&c| player.is_banished(c)),
            );
            refill(
                &mut s.hand_backs,
                board.cities().iter().map(|&city| CityCount {
                    city,
                    count: hand.iter().filter(|c| c.city == city).count() as u8,
                }),
            );
        }
        match viewer {
            Viewer::Seat(seat) => {
                let hand = view.hand.get_or_insert_with(Vec::new);
                refill(hand, self.hand(seat).iter().copied());
                let legal = view.legal.get_or_insert_with(LegalTurns::default);
                if !self.legal_turns_into(seat, legal) {
                    view.legal = None;
                }
            }
            Viewer::Spectator => {
                view.hand = None;
                view.legal = None;
            }
        }
        let (silver, gold) = self.badges();
        view.viewer = viewer;
        view.players = n;
        refill(&mut view.cities, self.setup().cities().iter().copied());
        view.rules = self.setup().rules();
        view.round = self.round();
        view.turn = self.turn();
        view.start_player = self.start_player();
        view.to_move = self.to_move();
        refill(&mut view.turn_order, self.turn_order().iter().copied());
        view.acted_this_turn = self.acted as u8;
        view.last_turn = self.turn() == LAST_TURN && !self.is_over();
        view.last_round = self.is_last_round();
        match self.contenders() {
            Some(seats) => refill(
                view.contenders.get_or_insert_with(Vec::new),
                seats.iter().copied(),
            ),
            None => view.contenders = None,
        }
        view.chicago_value = chicago_payout(board.chicago_sum());
        refill(
            &mut view.police.revealed,
            self.police_revealed().iter().copied(),
        );
        view.police.silver = silver;
        view.police.gold = gold;
        view.police.remaining = self.police_deck().len() as u8;
        view.last_resolution.clone_from(&self.last_resolution);
        view.outcome.clone_from(&self.outcome);
    }
}
