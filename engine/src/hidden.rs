//! Re-dealing what a viewer cannot see: other hands' faces (keeping their backs), the
//! face-down cards, the police deck's order and the future shuffles.
//!
//! The result is a game the viewer cannot tell apart from the real one. Tests use it to prove
//! that views leak nothing; search-based bots use it to sample worlds consistent with what
//! they know.

use crate::cards::{CITY_COUNT, Card};
use crate::game::Game;
use crate::rng::GameRng;
use crate::view::Viewer;

impl Game {
    /// A copy of the game with everything hidden from `viewer` dealt again at random,
    /// consistently with what the viewer knows.
    pub fn redeal_hidden(&self, viewer: Viewer, rng: &mut GameRng) -> Game {
        let mut game = self.clone();
        if self.is_over() {
            return game;
        }
        let hidden_seat =
            |seat: usize| !matches!(viewer, Viewer::Seat(v) if usize::from(v) == seat);
        let mut pools: [Vec<Card>; CITY_COUNT] = Default::default();
        for (seat, hand) in game.hands.iter().enumerate() {
            if hidden_seat(seat) {
                for &card in hand {
                    pools[card.city.index()].push(card);
                }
            }
        }
        for card in game.face_down.iter().flatten() {
            pools[card.city.index()].push(*card);
        }
        for pool in &mut pools {
            rng.shuffle(pool);
        }
        for (seat, hand) in game.hands.iter_mut().enumerate() {
            if hidden_seat(seat) {
                for card in hand.iter_mut() {
                    *card = pools[card.city.index()]
                        .pop()
                        .expect("pool holds this back");
                }
                hand.sort();
            }
        }
        for card in game.face_down.iter_mut().flatten() {
            *card = pools[card.city.index()]
                .pop()
                .expect("pool holds this card");
        }
        rng.shuffle(&mut game.police_deck);
        game.rng = GameRng::from_seed(rng.next_u64());
        game.setup.seed = rng.next_u64();
        game
    }
}
