//! Which turns are legal: the checks behind [`Game::apply`], and the enumeration of legal
//! turns, with a compact per-location description for clients and bots.

use serde::{Deserialize, Serialize};

use crate::Seat;
use crate::action::{Location, Placement, Turn};
use crate::cards::Card;
use crate::error::RuleError;
use crate::game::Game;

/// Where a seat may place this turn, and how much.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlacementOption {
    pub location: Location,
    /// Fewest gangsters (Experts + Occasionals) to place to lead here.
    pub min_gangsters: u8,
    pub max_experts: u8,
    pub max_occasionals: u8,
    /// The seat already has an Expert here, so Occasionals may come without one.
    pub expert_present: bool,
}

impl PlacementOption {
    /// Whether placing this many Experts and Occasionals here is legal.
    pub fn allows(&self, experts: u8, occasionals: u8) -> bool {
        let total = u16::from(experts) + u16::from(occasionals);
        experts <= self.max_experts
            && occasionals <= self.max_occasionals
            && total >= u16::from(self.min_gangsters.max(1))
            && (occasionals == 0 || experts > 0 || self.expert_present)
    }

    /// The legal numbers of Occasionals to go with `experts` Experts: a contiguous range.
    fn occasionals_with(&self, experts: u8) -> std::ops::RangeInclusive<u8> {
        let lowest = self.min_gangsters.max(1).saturating_sub(experts);
        let lowest = if experts == 0 && !self.expert_present {
            u8::MAX // Occasionals alone need an Expert already here: none allowed
        } else {
            lowest
        };
        lowest..=self.max_occasionals
    }

    /// Every legal (experts, occasionals) here.
    pub fn placements(&self) -> impl Iterator<Item = Placement> + '_ {
        (0..=self.max_experts).flat_map(move |e| {
            self.occasionals_with(e)
                .map(move |o| Placement::new(self.location, e, o))
        })
    }

    /// How many legal placements there are here, without listing them.
    pub fn count(&self) -> usize {
        (0..=self.max_experts)
            .map(|e| self.occasionals_with(e).count())
            .sum()
    }

    /// The `index`-th of [`placements`](Self::placements), without listing them.
    pub fn nth(&self, mut index: usize) -> Option<Placement> {
        for e in 0..=self.max_experts {
            let range = self.occasionals_with(e);
            let n = range.clone().count();
            if index < n {
                return Some(Placement::new(
                    self.location,
                    e,
                    range.start() + index as u8,
                ));
            }
            index -= n;
        }
        None
    }
}

/// Everything a seat may do on its turn: the product of "no placement or one of
/// `placements`" and one of `cards`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalTurns {
    pub seat: Seat,
    pub cards: Vec<Card>,
    pub placements: Vec<PlacementOption>,
}

impl LegalTurns {
    pub fn allows(&self, turn: &Turn) -> bool {
        self.cards.contains(&turn.card)
            && turn.placement.is_none_or(|p| {
                self.placements
                    .iter()
                    .any(|o| o.location == p.location && o.allows(p.experts, p.occasionals))
            })
    }

    /// How many distinct turns there are.
    pub fn count(&self) -> usize {
        let placements: usize = self.placements.iter().map(PlacementOption::count).sum();
        (placements + 1) * self.cards.len()
    }

    /// The `index`-th turn (`index < count()`), so a uniform random turn needs no list.
    pub fn nth(&self, index: usize) -> Option<Turn> {
        let card = *self.cards.get(index % self.cards.len().max(1))?;
        let mut which = index / self.cards.len();
        if which == 0 {
            return Some(Turn::play(card));
        }
        which -= 1;
        for option in &self.placements {
            let n = option.count();
            if which < n {
                return option.nth(which).map(|p| Turn::place_and_play(p, card));
            }
            which -= n;
        }
        None
    }
}

impl Game {
    /// Checks a turn without changing anything.
    pub fn check(&self, seat: Seat, turn: &Turn) -> Result<(), RuleError> {
        self.check_seat(seat)?;
        if !self.hands[usize::from(seat)].contains(&turn.card) {
            return Err(RuleError::CardNotInHand { card: turn.card });
        }
        match turn.placement {
            Some(placement) => self.check_placement(seat, &placement),
            None => Ok(()),
        }
    }

    pub fn is_legal(&self, seat: Seat, turn: &Turn) -> bool {
        self.check(seat, turn).is_ok()
    }

    fn check_seat(&self, seat: Seat) -> Result<(), RuleError> {
        if self.outcome.is_some() {
            return Err(RuleError::GameOver);
        }
        if seat >= self.players() {
            return Err(RuleError::NoSuchSeat {
                seat,
                players: self.players(),
            });
        }
        match self.to_move() {
            Some(to_move) if to_move != seat => Err(RuleError::NotYourTurn { seat, to_move }),
            _ => Ok(()),
        }
    }

    fn check_placement(&self, seat: Seat, p: &Placement) -> Result<(), RuleError> {
        if p.experts == 0 && p.occasionals == 0 {
            return Err(RuleError::EmptyPlacement);
        }
        self.check_location(seat, p.location)?;
        let supply = &self.players[usize::from(seat)].supply;
        if p.experts > supply.experts_free {
            return Err(RuleError::NotEnoughExperts {
                requested: p.experts,
                available: supply.experts_free,
            });
        }
        if p.occasionals > supply.occasionals {
            return Err(RuleError::NotEnoughOccasionals {
                requested: p.occasionals,
                available: supply.occasionals,
            });
        }
        let mine = self.board.gangsters(p.location, seat);
        if p.occasionals > 0 && p.experts == 0 && mine.experts == 0 {
            return Err(RuleError::OccasionalsNeedExpert {
                location: p.location,
            });
        }
        if let Some((leader, leader_count)) = self.board.strongest_other(p.location, seat)
            && u16::from(mine.total()) + u16::from(p.total()) <= u16::from(leader_count)
        {
            return Err(RuleError::MustTakeLead {
                location: p.location,
                needed: leader_count + 1 - mine.total(),
                leader,
                leader_count,
                yours: mine.total(),
            });
        }
        Ok(())
    }

    /// Whether the seat may place on this location at all this turn (ignoring amounts).
    fn check_location(&self, seat: Seat, location: Location) -> Result<(), RuleError> {
        match location {
            Location::City(city) if !self.board.in_play(city) => {
                Err(RuleError::CityNotInPlay { city })
            }
            Location::City(city) if self.players[usize::from(seat)].is_banished(city) => {
                Err(RuleError::Banished { city })
            }
            Location::Chicago if !self.board.has_gangsters_in_a_city(seat) => {
                Err(RuleError::ChicagoTooEarly)
            }
            _ => Ok(()),
        }
    }

    /// The locations open to the seat's placement, with amounts; empty when it is not the
    /// seat's turn.
    pub fn placement_options(&self, seat: Seat) -> Vec<PlacementOption> {
        if self.check_seat(seat).is_err() {
            return Vec::new();
        }
        let supply = &self.players[usize::from(seat)].supply;
        self.board
            .locations()
            .filter(|&location| self.check_location(seat, location).is_ok())
            .map(|location| {
                let mine = self.board.gangsters(location, seat);
                let to_beat = self
                    .board
                    .strongest_other(location, seat)
                    .map_or(0, |(_, n)| n);
                PlacementOption {
                    location,
                    min_gangsters: (to_beat + 1).saturating_sub(mine.total()).max(1),
                    max_experts: supply.experts_free,
                    max_occasionals: supply.occasionals,
                    expert_present: mine.experts > 0,
                }
            })
            .filter(|o| o.count() > 0)
            .collect()
    }

    /// The seat's legal turns in compact form; `None` when it is not the seat's turn.
    pub fn legal_turns(&self, seat: Seat) -> Option<LegalTurns> {
        self.check_seat(seat).ok()?;
        let mut cards = self.hands[usize::from(seat)].clone();
        cards.dedup();
        Some(LegalTurns {
            seat,
            cards,
            placements: self.placement_options(seat),
        })
    }

    /// Every legal placement for the seat (a turn may also place nothing).
    pub fn legal_placements(&self, seat: Seat) -> Vec<Placement> {
        let options = self.placement_options(seat);
        options
            .iter()
            .flat_map(PlacementOption::placements)
            .collect()
    }

    /// Every legal turn for the seat, listed out.
    pub fn legal_actions(&self, seat: Seat) -> Vec<Turn> {
        let Some(legal) = self.legal_turns(seat) else {
            return Vec::new();
        };
        let placements: Vec<Option<Placement>> = std::iter::once(None)
            .chain(self.legal_placements(seat).into_iter().map(Some))
            .collect();
        legal
            .cards
            .iter()
            .flat_map(|&card| {
                placements
                    .iter()
                    .map(move |&placement| Turn { placement, card })
            })
            .collect()
    }
}
