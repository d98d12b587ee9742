//! Action ids: every turn of the game as one integer below [`ACTION_COUNT`], the fixed action
//! space learning environments need (`theboss.env` masks it with the legal turns).
//!
//! `id = card × PLACEMENTS + placement`, where `card` indexes [`CARDS`] (the deck, city by
//! city in number order, each city's faces in the rulebook's order) and `placement` is 0 for
//! no placement, else `1 + location × 28 + experts × 4 + occasionals` (locations 0..8 with
//! Chicago last, 0..=6 Experts, 0..=3 Occasionals). Most ids are never legal; they are there
//! so that an id means the same turn in every game. This is a numbering, not a rule: what is
//! legal is always the engine's answer. (Tested from Python: `tests/test_engine.py`.)

use std::sync::LazyLock;

use theboss_engine::rules::{EXPERTS_PER_PLAYER, OCCASIONALS_PER_PLAYER};
use theboss_engine::{CITY_COUNT, Card, City, DECK, LOCATION_COUNT, Location, Placement, Turn};

/// Every card once, in id order.
pub static CARDS: LazyLock<Vec<Card>> =
    LazyLock::new(|| City::ALL.iter().flat_map(|c| c.cards()).collect());

const EXPERT_CHOICES: usize = EXPERTS_PER_PLAYER as usize + 1;
const OCCASIONAL_CHOICES: usize = OCCASIONALS_PER_PLAYER as usize + 1;
const PER_LOCATION: usize = EXPERT_CHOICES * OCCASIONAL_CHOICES;
/// Placement choices: none, or a location with a number of Experts and Occasionals.
pub const PLACEMENTS: usize = 1 + LOCATION_COUNT * PER_LOCATION;

/// Cards in the deck (27): every face of every city.
const DECK_SIZE: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < DECK.len() {
        n += DECK[i].1.len();
        i += 1;
    }
    n
};

/// The size of the action space.
pub const ACTION_COUNT: usize = DECK_SIZE * PLACEMENTS;

fn location_at(index: usize) -> Option<Location> {
    match index {
        i if i < CITY_COUNT => Some(Location::City(City::ALL[i])),
        i if i == CITY_COUNT => Some(Location::Chicago),
        _ => None,
    }
}

pub fn id_of(turn: &Turn) -> Option<u32> {
    let card = CARDS.iter().position(|c| *c == turn.card)?;
    let placement = match turn.placement {
        None => 0,
        Some(p) => {
            let (e, o) = (usize::from(p.experts), usize::from(p.occasionals));
            if e >= EXPERT_CHOICES || o >= OCCASIONAL_CHOICES {
                return None;
            }
            1 + p.location.index() * PER_LOCATION + e * OCCASIONAL_CHOICES + o
        }
    };
    u32::try_from(card * PLACEMENTS + placement).ok()
}

pub fn turn_of(id: u32) -> Option<Turn> {
    let id = usize::try_from(id).ok()?;
    let card = *CARDS.get(id / PLACEMENTS)?;
    match id % PLACEMENTS {
        0 => Some(Turn::play(card)),
        p => {
            let p = p - 1;
            let location = location_at(p / PER_LOCATION)?;
            let within = p % PER_LOCATION;
            let placement = Placement::new(
                location,
                (within / OCCASIONAL_CHOICES) as u8,
                (within % OCCASIONAL_CHOICES) as u8,
            );
            Some(Turn::place_and_play(placement, card))
        }
    }
}
