//! A one-ply evaluator: it scores every sensible turn by the money it expects to hold at the
//! end of the round, and plays the best.
//!
//! - Each city is worth what its face-down card may be (deduced from the seat's hand and the
//!   cards played, `theboss_engine::face_down_odds`), minus what its sanctions would cost;
//!   Chicago is worth its current payout plus what the cities to its left are still likely
//!   to add.
//! - A lead is kept with a probability that falls with every opponent who still has turns
//!   and gangsters enough to retake it, and falls sharply on the last turn for those who act
//!   after us (the last-turn order).
//! - Experts in front are worth something while turns remain; Occasionals are worth a lot
//!   until the last round, so they are spent only where a lead is valuable or decisive.
//! - The card is chosen for its effect on Chicago, weighted by who is likely to take it.

use std::time::Duration;

use theboss_engine::{
    CityOdds, Face, LOCATION_COUNT, Location, MAX_PLAYERS, Placement, PlacementOption, Sanction,
    Seat, Turn, View, face_down_odds, rules,
};

use super::Strategy;

/// What a lost Expert costs per remaining round (it can no longer lead anywhere).
const EXPERT_PER_ROUND: f64 = 0.7;
/// What an Expert still in front is worth while the seat has turns left this round.
const EXPERT_IN_FRONT: f64 = 0.25;
/// What an unused Occasional is worth before the last round, and during it.
const OCCASIONAL_EARLY: f64 = 1.3;
const OCCASIONAL_LAST_ROUND: f64 = 0.2;
/// Expected money a city to Chicago's left that has no card yet will still add.
const CHICAGO_EXPECTED_CARD: f64 = 1.2;
/// Weight of denying opponents a location, relative to winning it ourselves.
const DENIAL: f64 = 0.35;

pub struct Heuristic;

impl Heuristic {
    pub fn new() -> Heuristic {
        Heuristic
    }
}

impl Default for Heuristic {
    fn default() -> Heuristic {
        Heuristic::new()
    }
}

impl Strategy for Heuristic {
    fn name(&self) -> &'static str {
        "heuristic"
    }

    fn choose(&mut self, view: &View, _time: Option<Duration>) -> Turn {
        best_turn(view)
    }
}

/// Rounds that will probably follow the current one.
fn rounds_after(view: &View) -> f64 {
    if view.last_round || view.contenders.is_some() {
        return 0.0;
    }
    let badges = view.police.silver.max(view.police.gold);
    f64::from(rules::BADGES_TO_END.saturating_sub(badges)) * 0.8
}

fn sanction_cost(sanction: Sanction, rounds_after: f64) -> f64 {
    match sanction {
        Sanction::Revolver => 0.5 + EXPERT_PER_ROUND * rounds_after,
        Sanction::Prison => EXPERT_PER_ROUND * rounds_after.min(2.0),
        Sanction::Hospital => EXPERT_PER_ROUND * rounds_after.min(1.0),
        Sanction::Banished => 0.3 * rounds_after,
    }
}

/// What leading a city at the end of this round is worth, in M$.
fn city_value(odds: &CityOdds, rounds_after: f64) -> f64 {
    odds.candidates
        .iter()
        .map(|(card, p)| {
            p * match card.face {
                Face::Money(m) => f64::from(m),
                Face::Sanction(s) => -sanction_cost(s, rounds_after),
            }
        })
        .sum()
}

/// Most seats.
const SEATS: usize = MAX_PLAYERS as usize;

/// The table as the evaluator sees it: gangsters by location and seat, and each seat's
/// resources. In arrays (the first `locations` locations, the first `seats` seats), so that
/// the copy made for every candidate placement is a plain copy.
#[derive(Clone, Copy)]
struct Position<'a> {
    view: &'a View,
    me: Seat,
    locations: usize,
    seats: usize,
    /// `count[location][seat]`: gangsters.
    count: [[u8; SEATS]; LOCATION_COUNT],
    value: [f64; LOCATION_COUNT],
    /// Gangsters each seat still has in front (Experts free + Occasionals).
    in_front: [u8; SEATS],
    experts_free: [u8; SEATS],
    /// Turns each seat still has this round.
    actions_left: [u8; SEATS],
    /// The cities each seat is banished from, by bit (`City::index`).
    banished: [u8; SEATS],
    chicago: usize,
}

impl<'a> Position<'a> {
    fn new(view: &'a View, me: Seat) -> Position<'a> {
        let rounds_after = rounds_after(view);
        let odds = face_down_odds(view);
        let chicago = view
            .locations
            .iter()
            .position(|l| l.location == Location::Chicago)
            .expect("Chicago is on the row");
        let mut position = Position {
            view,
            me,
            locations: view.locations.len().min(LOCATION_COUNT),
            // Every location lists every seat; the first one says how many.
            seats: view
                .locations
                .first()
                .map_or(1, |l| l.gangsters.len())
                .min(SEATS),
            count: [[0; SEATS]; LOCATION_COUNT],
            value: [0.0; LOCATION_COUNT],
            in_front: [0; SEATS],
            experts_free: [0; SEATS],
            actions_left: [0; SEATS],
            banished: [0; SEATS],
            chicago,
        };
        for (i, l) in view.locations.iter().enumerate().take(LOCATION_COUNT) {
            position.value[i] = match l.location {
                Location::Chicago => chicago_estimate(view, i),
                Location::City(city) => odds
                    .iter()
                    .find(|o| o.city == city)
                    .map_or(0.0, |o| city_value(o, rounds_after)),
            };
            for (count, g) in position.count[i].iter_mut().zip(&l.gangsters) {
                *count = g.total();
            }
        }
        for (j, s) in view.seats.iter().enumerate().take(SEATS) {
            position.in_front[j] = s.supply.in_front();
            position.experts_free[j] = s.supply.experts_free;
            position.actions_left[j] = s.hand_size();
            for city in &s.banished {
                position.banished[j] |= 1 << city.index();
            }
        }
        position
    }

    /// The seat leading location `i` now: more gangsters there than any other seat.
    fn leader(&self, i: usize) -> Option<usize> {
        let counts = &self.count[i][..self.seats];
        let (mut leader, mut most, mut tied) = (0, 0, false);
        for (s, &c) in counts.iter().enumerate() {
            if c > most {
                (leader, most, tied) = (s, c, false);
            } else if c == most {
                tied = true;
            }
        }
        (most > 0 && !tied).then_some(leader)
    }

    /// The probability that `seat` holds location `i` at the end of the round: none unless
    /// it leads there now.
    fn holds(&self, i: usize, seat: Seat) -> f64 {
        if self.leader(i) == Some(usize::from(seat)) {
            self.keeps(i, seat)
        } else {
            0.0
        }
    }

    /// The probability that `seat`, leading location `i` now, still does at the end of the
    /// round.
    fn keeps(&self, i: usize, seat: Seat) -> f64 {
        let counts = &self.count[i][..self.seats];
        let mine = counts[usize::from(seat)];
        let location = self.view.locations[i].location;
        let value = self.value[i].max(0.0);
        let mut keep = 1.0;
        for (j, &theirs) in counts.iter().enumerate() {
            if j == usize::from(seat) || self.actions_left[j] == 0 {
                continue;
            }
            let banished = location
                .city()
                .is_some_and(|c| self.banished[j] & (1 << c.index()) != 0);
            if banished || theirs + self.in_front[j] <= mine {
                continue;
            }
            let eager = if self.view.last_turn {
                0.8
            } else {
                (0.15 + 0.08 * value).min(0.6)
            };
            let chances = f64::from(self.actions_left[j].min(3)) / 3.0;
            keep *= 1.0 - eager * chances;
        }
        keep
    }

    /// Expected end-of-round worth of the table to `me`, plus its resources.
    fn worth(&self) -> f64 {
        let me = usize::from(self.me);
        let n = self.seats;
        let mut total = 0.0;
        for i in 0..self.locations {
            // `holds` for every seat, the lead found once.
            let leader = self.leader(i);
            let holds = |s: usize| {
                if leader == Some(s) {
                    self.keeps(i, s as Seat)
                } else {
                    0.0
                }
            };
            total += self.value[i] * holds(me);
            let others: f64 = (0..n).filter(|&s| s != me).map(holds).sum();
            total -= DENIAL * self.value[i].max(0.0) * others / (n as f64 - 1.0).max(1.0);
        }
        if self.actions_left[me] > 0 {
            total += EXPERT_IN_FRONT * f64::from(self.experts_free[me]);
        }
        total
    }

    fn place(&mut self, p: Placement) {
        let i = self
            .view
            .locations
            .iter()
            .position(|l| l.location == p.location)
            .expect("options name locations on the row");
        let me = usize::from(self.me);
        self.count[i][me] += p.total();
        self.in_front[me] -= p.total();
        self.experts_free[me] -= p.experts;
    }
}

/// Chicago's payout now, plus what the cities to its left are likely to add before the end.
fn chicago_estimate(view: &View, chicago: usize) -> f64 {
    let turns_left = f64::from(view.seats.iter().map(|s| s.hand_size()).max().unwrap_or(0));
    let empty_left = view.locations[..chicago]
        .iter()
        .filter(|l| l.played.is_empty())
        .count() as f64;
    let sum: f64 = view.locations[..chicago]
        .iter()
        .filter_map(|l| l.played.last())
        .map(|c| f64::from(c.face.money()))
        .sum();
    let expected = sum + CHICAGO_EXPECTED_CARD * empty_left * (turns_left / 5.0).min(1.0);
    (expected / 2.0).floor().max(f64::from(view.chicago_value))
}

/// The placements worth considering at one option: just enough to lead with Experts, one or
/// two more for safety, Occasionals only when Experts do not suffice or one is already there.
fn placements(option: &PlacementOption) -> Vec<Placement> {
    let need = option.min_gangsters.max(1);
    let mut out = Vec::new();
    let mut add = |e: u8, o: u8| {
        if option.allows(e, o) {
            out.push(Placement::new(option.location, e, o));
        }
    };
    for extra in 0..3 {
        add(need + extra, 0);
    }
    if need > option.max_experts {
        add(option.max_experts, need - option.max_experts);
    }
    if option.expert_present {
        add(0, need);
    }
    add(need.saturating_sub(1), 1);
    out
}

/// Every sensible turn with its score, best first.
pub fn scored_turns(view: &View) -> Vec<(Turn, f64)> {
    let mut turns = Vec::new();
    for_each_scored_turn(view, |turn, score| turns.push((turn, score)));
    turns.sort_by(|a, b| b.1.total_cmp(&a.1));
    turns
}

/// The first of [`scored_turns`], without listing and sorting them all: the first turn
/// scored highest (the sort is stable), as the search's playouts ask on every turn.
pub fn best_turn(view: &View) -> Turn {
    let mut best: Option<(Turn, f64)> = None;
    for_each_scored_turn(view, |turn, score| {
        if best.is_none_or(|(_, top)| score.total_cmp(&top).is_gt()) {
            best = Some((turn, score));
        }
    });
    best.expect("there is always a legal turn").0
}

/// Scores every sensible turn, in the order [`scored_turns`] breaks ties by.
fn for_each_scored_turn(view: &View, mut each: impl FnMut(Turn, f64)) {
    let legal = view.legal.as_ref().expect("scored on the seat's turn");
    let me = legal.seat;
    let base = Position::new(view, me);
    let occasional_value = if rounds_after(view) > 0.0 {
        OCCASIONAL_EARLY
    } else {
        OCCASIONAL_LAST_ROUND
    };
    let before = base.worth();
    let mut options: Vec<(Option<Placement>, f64, f64)> =
        vec![(None, 0.0, base.holds(base.chicago, me))];
    for option in &legal.placements {
        for p in placements(option) {
            // The base position again, as `Position::new` would build it from the view.
            let mut after = base;
            after.actions_left[usize::from(me)] -= 1;
            after.place(p);
            let mut gain = after.worth() - before - occasional_value * f64::from(p.occasionals);
            // Fewer gangsters in front means a later place in the last-turn order.
            if view.turn + 1 == rules::LAST_TURN {
                gain += 0.08 * f64::from(p.total());
            }
            options.push((Some(p), gain, after.holds(after.chicago, me)));
        }
    }
    let someone_else = chicago_leader_other(view);
    for &card in &legal.cards {
        let delta = chicago_delta(view, card);
        for &(placement, gain, chicago_mine) in &options {
            let score = gain + card_effect(delta, someone_else, chicago_mine);
            each(Turn { placement, card }, score);
        }
    }
}

/// How playing `card` changes Chicago's payout, counted for us as far as we hold Chicago,
/// against us as far as someone else does (`delta` from [`chicago_delta`]).
fn card_effect(delta: Option<f64>, someone_else: bool, chicago_mine: f64) -> f64 {
    match delta {
        Some(delta) => delta * (chicago_mine - if someone_else { 0.6 } else { 0.0 }),
        None => 0.0,
    }
}

/// How playing `card` changes Chicago's payout, or None when it cannot (no Chicago, or the
/// card's city is not to its left).
fn chicago_delta(view: &View, card: theboss_engine::Card) -> Option<f64> {
    let chicago = view
        .locations
        .iter()
        .position(|l| l.location == Location::Chicago)?;
    let left = &view.locations[..chicago];
    let column = left
        .iter()
        .find(|l| l.location == Location::City(card.city))?;
    let before = column.played.last().map_or(0, |c| c.face.money());
    let sum: u32 = left
        .iter()
        .filter_map(|l| l.played.last())
        .map(|c| c.face.money())
        .sum();
    Some(
        f64::from(rules::chicago_payout(sum - before + card.face.money()))
            - f64::from(rules::chicago_payout(sum)),
    )
}

fn chicago_leader_other(view: &View) -> bool {
    let me = view.legal.as_ref().map(|l| l.seat);
    view.locations
        .iter()
        .find(|l| l.location == Location::Chicago)
        .and_then(|l| l.leader)
        .is_some_and(|leader| Some(leader) != me)
}

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::{Game, GameConfig, Viewer};

    #[test]
    fn scores_are_finite_and_the_best_comes_first() {
        let game = Game::new(&GameConfig::new(4, 11)).unwrap();
        let seat = game.to_move().unwrap();
        let turns = scored_turns(&game.view(Viewer::Seat(seat)));
        assert!(turns.len() > 5);
        assert!(turns.iter().all(|(_, s)| s.is_finite()));
        assert!(turns.windows(2).all(|w| w[0].1 >= w[1].1));
    }

    #[test]
    fn a_sure_sanction_is_worth_less_than_sure_money() {
        let money = CityOdds {
            city: theboss_engine::City::Boston,
            candidates: vec![(
                theboss_engine::Card::new(theboss_engine::City::Boston, Face::Money(2)),
                1.0,
            )],
        };
        let revolver = CityOdds {
            city: theboss_engine::City::Boston,
            candidates: vec![(
                theboss_engine::Card::new(
                    theboss_engine::City::Boston,
                    Face::Sanction(Sanction::Revolver),
                ),
                1.0,
            )],
        };
        assert_eq!(city_value(&money, 2.0), 2.0);
        assert!(city_value(&revolver, 2.0) < 0.0);
    }
}
