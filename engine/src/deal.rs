//! The deal of a round, by rules version: which card lies face down under each city, and
//! what each seat holds. Every version ever published stays here, unchanged, so that a game
//! replays exactly under the version it was created with.

use crate::Seat;
use crate::cards::{CITY_COUNT, Card, City, DECK, Face};
use crate::rng::GameRng;
use crate::version::RulesVersion;

/// Cards in the whole deck: the most a round can deal.
const DECK_SIZE: usize = {
    let mut size = 0;
    let mut i = 0;
    while i < DECK.len() {
        size += DECK[i].1.len();
        i += 1;
    }
    size
};

/// One round's deal.
#[cfg(test)]
pub(crate) struct Deal {
    pub face_down: [Option<Card>; CITY_COUNT],
    /// By seat, sorted (a hand's order carries no information).
    pub hands: Vec<Vec<Card>>,
}

/// [`deal_into`] fresh hands.
#[cfg(test)]
pub(crate) fn deal(
    rules: RulesVersion,
    rng: &mut GameRng,
    cities: &[City],
    players: u8,
    start_player: Seat,
) -> Deal {
    let mut hands = Vec::new();
    let face_down = deal_into(rules, rng, cities, players, start_player, &mut hands);
    Deal { face_down, hands }
}

/// Deals a round of a game with `cities` in play; cards go round the table one at a time,
/// clockwise from `start_player`, into `hands` (by seat, each sorted: a hand's order
/// carries no information), whose lists are reused. Returns the card face down under each
/// city.
pub(crate) fn deal_into(
    rules: RulesVersion,
    rng: &mut GameRng,
    cities: &[City],
    players: u8,
    start_player: Seat,
    hands: &mut Vec<Vec<Card>>,
) -> [Option<Card>; CITY_COUNT] {
    let mut face_down = [None; CITY_COUNT];
    // The cards still to place, on the stack: a deal allocates nothing.
    let mut rest = [Card::new(City::NewYork, Face::Money(0)); DECK_SIZE];
    let mut len = 0;
    for card in cities.iter().flat_map(|c| c.cards()) {
        rest[len] = card;
        len += 1;
    }
    match rules {
        RulesVersion::V1 => {
            // One shuffle; the first card of each city in it lies face down, and the rest
            // are dealt in the shuffle's order. Not uniform by seat: kept for the games
            // created under version 1.
            rng.shuffle(&mut rest[..len]);
            len = retain(&mut rest[..len], |card| {
                let slot = &mut face_down[card.city.index()];
                if slot.is_none() {
                    *slot = Some(card);
                    false
                } else {
                    true
                }
            });
        }
        RulesVersion::V2 => {
            // Each city's face-down card uniformly among its own cards, then a fresh
            // shuffle of everything left: every hand is a uniform subset of it.
            for &city in cities {
                let faces = city.faces();
                let card = Card::new(city, faces[rng.below(faces.len() as u32) as usize]);
                face_down[city.index()] = Some(card);
            }
            // Every card of `rest` is of a city in play, whose face-down card is now drawn.
            len = retain(&mut rest[..len], |c| face_down[c.city.index()] != Some(c));
            rng.shuffle(&mut rest[..len]);
        }
    }
    hands.resize_with(usize::from(players), Vec::new);
    for hand in hands.iter_mut() {
        hand.clear();
    }
    let seats = (0..players).map(|i| (start_player + i) % players).cycle();
    for (&card, seat) in rest[..len].iter().zip(seats) {
        hands[usize::from(seat)].push(card);
    }
    for hand in hands.iter_mut() {
        hand.sort();
    }
    face_down
}

/// `Vec::retain` on a slice: keeps, in order and at the front, the cards `keep` accepts
/// (asked once each, in order); returns how many.
fn retain(cards: &mut [Card], mut keep: impl FnMut(Card) -> bool) -> usize {
    let mut kept = 0;
    for i in 0..cards.len() {
        if keep(cards[i]) {
            cards[kept] = cards[i];
            kept += 1;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cards: &[Card]) -> Vec<String> {
        cards.iter().map(|c| format!("{c}")).collect()
    }

    /// Pins every published deal: if this changes, stored games would replay differently.
    #[test]
    fn published_deals_are_pinned() {
        let cities = crate::rules::default_cities(3).unwrap();
        for (rules, expected) in [(RulesVersion::V1, PINNED_V1), (RulesVersion::V2, PINNED_V2)] {
            let dealt = deal(rules, &mut GameRng::from_seed(42), cities, 3, 1);
            let face_down: Vec<Card> = dealt.face_down.iter().flatten().copied().collect();
            let got: Vec<Vec<String>> = std::iter::once(names(&face_down))
                .chain(dealt.hands.iter().map(|h| names(h)))
                .collect();
            assert_eq!(got, expected, "{rules}");
        }
    }

    const PINNED_V1: &[&[&str]] = &[
        &[
            "New York 0 M$",
            "Boston 2 M$",
            "Detroit 2 M$",
            "Kansas City 2 M$",
            "Cincinnati Banished",
        ],
        &[
            "New York 2 M$",
            "Boston 3 M$",
            "Boston Prison",
            "Detroit 1 M$",
            "Detroit 4 M$",
        ],
        &[
            "New York 1 M$",
            "Detroit 3 M$",
            "Kansas City Revolver",
            "Cincinnati 1 M$",
            "Cincinnati 3 M$",
        ],
        &[
            "New York 3 M$",
            "Boston 4 M$",
            "Detroit Revolver",
            "Kansas City 3 M$",
            "Cincinnati 2 M$",
        ],
    ];
    const PINNED_V2: &[&[&str]] = &[
        &[
            "New York 3 M$",
            "Boston 3 M$",
            "Detroit Revolver",
            "Kansas City Revolver",
            "Cincinnati 3 M$",
        ],
        &[
            "New York 0 M$",
            "Detroit 1 M$",
            "Kansas City 2 M$",
            "Cincinnati 2 M$",
            "Cincinnati Banished",
        ],
        &[
            "Boston 2 M$",
            "Boston 4 M$",
            "Detroit 2 M$",
            "Detroit 4 M$",
            "Kansas City 3 M$",
        ],
        &[
            "New York 1 M$",
            "New York 2 M$",
            "Boston Prison",
            "Detroit 3 M$",
            "Cincinnati 1 M$",
        ],
    ];
}
