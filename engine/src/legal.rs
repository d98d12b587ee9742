//! Which turns are legal: the checks behind [`Game::apply`], and the enumeration of legal
//! turns, with a compact per-location description for clients and bots. Each enumeration
//! also writes into a list the caller keeps (`*_into`), so that playouts and searches,
//! which enumerate on every turn, allocate nothing.

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

    /// Whether any placement is legal here: `count() > 0`, without counting. The most
    /// Experts need the fewest Occasionals; Occasionals alone need an Expert already here.
    fn is_open(&self) -> bool {
        let need = self.min_gangsters.max(1);
        (self.max_experts > 0 && need.saturating_sub(self.max_experts) <= self.max_occasionals)
            || (self.expert_present && need <= self.max_occasionals)
    }

    /// How many legal placements there are here, without listing them: by arithmetic, as
    /// playouts count on every turn. With `e` Experts, the Occasionals run from
    /// `need - e` (or 0) to the most there are.
    pub fn count(&self) -> usize {
        let most_experts = usize::from(self.max_experts);
        let most = usize::from(self.max_occasionals);
        let need = usize::from(self.min_gangsters.max(1));
        // No Expert: Occasionals alone, next to an Expert already here.
        let alone = if self.expert_present {
            (most + 1).saturating_sub(need)
        } else {
            0
        };
        // 1 ≤ e < need: `most + 1 + e - need` each, for the e with enough Occasionals.
        let short_from = need.saturating_sub(most).max(1);
        let short_to = most_experts.min(need - 1);
        let short = if short_from <= short_to {
            let first = most + 1 + short_from - need;
            let last = most + 1 + short_to - need;
            (short_to - short_from + 1) * (first + last) / 2
        } else {
            0
        };
        // e ≥ need: any number of Occasionals.
        let enough = (most_experts + 1).saturating_sub(need) * (most + 1);
        alone + short + enough
    }

    /// The `index`-th of [`placements`](Self::placements), without listing them.
    pub fn nth(&self, mut index: usize) -> Option<Placement> {
        for e in 0..=self.max_experts {
            let range = self.occasionals_with(e);
            let n = range_len(&range);
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

/// How many numbers a fresh range holds, by arithmetic (counting it steps through it).
fn range_len(range: &std::ops::RangeInclusive<u8>) -> usize {
    if range.start() > range.end() {
        0
    } else {
        usize::from(range.end() - range.start()) + 1
    }
}

/// Everything a seat may do on its turn: the product of "no placement or one of
/// `placements`" and one of `cards`. `Default` is an empty list to fill with
/// [`Game::legal_turns_into`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

    /// Calls `each` with every location open to the placement of `seat`, the seat to move,
    /// left to right, with amounts.
    fn for_each_option(&self, seat: Seat, mut each: impl FnMut(PlacementOption)) {
        let player = &self.players[usize::from(seat)];
        let supply = &player.supply;
        if supply.in_front() == 0 {
            // Nothing to place: no location is open.
            return;
        }
        // `check_location`, answered once for the whole row: every city of the row is in
        // play, and Chicago's condition does not depend on the location.
        let chicago_open = self.board.has_gangsters_in_a_city(seat);
        for location in self.board.locations() {
            let open = match location {
                Location::City(city) => !player.is_banished(city),
                Location::Chicago => chicago_open,
            };
            if !open {
                continue;
            }
            let mine = self.board.gangsters(location, seat);
            let to_beat = self
                .board
                .strongest_other(location, seat)
                .map_or(0, |(_, n)| n);
            let option = PlacementOption {
                location,
                min_gangsters: (to_beat + 1).saturating_sub(mine.total()).max(1),
                max_experts: supply.experts_free,
                max_occasionals: supply.occasionals,
                expert_present: mine.experts > 0,
            };
            if option.is_open() {
                each(option);
            }
        }
    }

    /// The locations open to the seat's placement, with amounts; empty when it is not the
    /// seat's turn.
    pub fn placement_options(&self, seat: Seat) -> Vec<PlacementOption> {
        let mut options = Vec::new();
        self.placement_options_into(seat, &mut options);
        options
    }

    /// [`Game::placement_options`] written into `options` (cleared first).
    pub fn placement_options_into(&self, seat: Seat, options: &mut Vec<PlacementOption>) {
        options.clear();
        if self.check_seat(seat).is_ok() {
            self.for_each_option(seat, |option| options.push(option));
        }
    }

    /// The seat's legal turns in compact form; `None` when it is not the seat's turn.
    pub fn legal_turns(&self, seat: Seat) -> Option<LegalTurns> {
        let mut legal = LegalTurns::default();
        self.legal_turns_into(seat, &mut legal).then_some(legal)
    }

    /// [`Game::legal_turns`] written into `legal`, whose lists are reused: returns whether it
    /// is the seat's turn (when not, `legal` is left as it was).
    pub fn legal_turns_into(&self, seat: Seat, legal: &mut LegalTurns) -> bool {
        if self.check_seat(seat).is_err() {
            return false;
        }
        legal.seat = seat;
        legal.cards.clear();
        legal
            .cards
            .extend_from_slice(&self.hands[usize::from(seat)]);
        legal.cards.dedup();
        legal.placements.clear();
        self.for_each_option(seat, |option| legal.placements.push(option));
        true
    }

    /// Every legal placement for the seat (a turn may also place nothing).
    pub fn legal_placements(&self, seat: Seat) -> Vec<Placement> {
        let options = self.placement_options(seat);
        options
            .iter()
            .flat_map(PlacementOption::placements)
            .collect()
    }

    /// Every legal turn for the seat, listed out: card by card (in the hand's order), each
    /// first alone and then with every legal placement.
    pub fn legal_actions(&self, seat: Seat) -> Vec<Turn> {
        let mut turns = Vec::new();
        self.legal_actions_into(seat, &mut turns);
        turns
    }

    /// [`Game::legal_actions`] written into `turns` (cleared first; empty when it is not the
    /// seat's turn).
    pub fn legal_actions_into(&self, seat: Seat, turns: &mut Vec<Turn>) {
        turns.clear();
        if self.check_seat(seat).is_err() {
            return;
        }
        let hand = &self.hands[usize::from(seat)];
        let Some(&first) = hand.first() else {
            return;
        };
        // The first card's turns, then the same block again for every other card.
        turns.push(Turn::play(first));
        self.for_each_option(seat, |option| {
            turns.extend(option.placements().map(|p| Turn::place_and_play(p, first)));
        });
        let block = turns.len();
        let mut previous = first;
        for &card in &hand[1..] {
            // As `legal_turns`, which lists a card once however often it repeats.
            if card == previous {
                continue;
            }
            previous = card;
            let start = turns.len();
            turns.extend_from_within(..block);
            for turn in &mut turns[start..] {
                turn.card = card;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::City;

    #[test]
    fn an_option_is_open_exactly_when_it_has_placements() {
        for max_experts in 0..=6 {
            for max_occasionals in 0..=3 {
                for min_gangsters in 0..=12 {
                    for expert_present in [false, true] {
                        let option = PlacementOption {
                            location: Location::City(City::Boston),
                            min_gangsters,
                            max_experts,
                            max_occasionals,
                            expert_present,
                        };
                        assert_eq!(option.is_open(), option.count() > 0, "{option:?}");
                        assert_eq!(option.count(), option.placements().count(), "{option:?}");
                    }
                }
            }
        }
    }
}
