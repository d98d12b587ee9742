//! Every number of the rules, and every point where docs/RULES.md records a **Decision** or an
//! **Inferred** fact, as one named constant or function, so each can be changed in one place.

use crate::Seat;
use crate::cards::City;

/// Experts each player starts with (large cubes, reusable).
pub const EXPERTS_PER_PLAYER: u8 = 6;
/// Occasionals each player starts with (small cubes, single use).
pub const OCCASIONALS_PER_PLAYER: u8 = 3;
/// Cards dealt to every player each round.
pub const HAND_SIZE: usize = 5;
/// Turns in a round: one card is played per turn.
pub const TURNS_PER_ROUND: u8 = 5;
/// The police card is revealed before the start player's turn with this number.
pub const POLICE_REVEAL_TURN: u8 = 4;
/// The turn played in last-turn order (most gangsters in front first).
pub const LAST_TURN: u8 = TURNS_PER_ROUND;
/// Badges of one colour that make the current round the last.
pub const BADGES_TO_END: u8 = 3;
/// Rounds an imprisoned Expert misses.
pub const PRISON_ROUNDS: u8 = 2;
/// Rounds a hospitalised Expert misses.
pub const HOSPITAL_ROUNDS: u8 = 1;
/// Fewest and most players.
pub const MIN_PLAYERS: u8 = 2;
pub const MAX_PLAYERS: u8 = 4;

/// Chicago's place for the first round: the number of cities to its left (docs/RULES.md §3:
/// between the first and the second card of the row).
pub const CHICAGO_FIRST_POSITION: usize = 1;

/// The default city set for a player count (docs/RULES.md §2).
pub fn default_cities(players: u8) -> Option<&'static [City]> {
    use City::*;
    match players {
        2 => Some(&[NewYork, Boston, Detroit]),
        3 => Some(&[NewYork, Boston, Detroit, KansasCity, Cincinnati]),
        4 => Some(&[
            NewYork,
            Boston,
            Detroit,
            KansasCity,
            Cincinnati,
            Memphis,
            Philadelphia,
        ]),
        _ => None,
    }
}

/// The optional city sets of the rulebook's variants, by city numbers (docs/RULES.md §2).
pub fn optional_city_sets(players: u8) -> &'static [&'static [u8]] {
    match players {
        2 => &[
            &[2, 3, 5],
            &[1, 3, 5],
            &[2, 3, 6],
            &[1, 3, 6],
            &[1, 2, 4, 7],
            &[1, 4, 5, 7],
            &[2, 4, 5, 7],
            &[1, 4, 6, 7],
            &[2, 4, 6, 7],
            &[4, 5, 6, 7],
        ],
        3 => &[
            &[2, 3, 4, 5, 6],
            &[1, 3, 4, 5, 6],
            &[1, 2, 3, 4, 6],
            &[1, 2, 3, 5, 7],
            &[2, 3, 5, 6, 7],
            &[1, 3, 5, 6, 7],
            &[1, 2, 3, 6, 7],
        ],
        _ => &[],
    }
}

/// **Decision** (docs/RULES.md §3): the first start player is drawn from the game's seed.
pub fn first_start_player(rng: &mut crate::rng::GameRng, players: u8) -> Seat {
    rng.below(u32::from(players)) as Seat
}

/// **Decision** (docs/RULES.md §5): a sanction needs an Expert in play this round (on the board or
/// in front of the player); without one it has no effect. Several sanctions on one player take
/// different Experts, in the order the cities are resolved (left to right along the row).
pub fn sanction_takes_effect(experts_in_play_left: u8) -> bool {
    experts_in_play_left > 0
}

/// Chicago's payout (docs/RULES.md §5): half, rounded down, of the cards summed to its left.
pub fn chicago_payout(sum_to_the_left: u32) -> u32 {
    sum_to_the_left / 2
}
