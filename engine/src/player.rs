//! A player's public state: money, gangster supply (where every cube is) and banishments.

use serde::{Deserialize, Serialize};

use crate::cards::{City, Sanction};
use crate::rules;
use crate::rules::{EXPERTS_PER_PLAYER, HOSPITAL_ROUNDS, OCCASIONALS_PER_PLAYER, PRISON_ROUNDS};

/// Where each of a player's gangsters is. Experts: `free + placed + hospital + prison + killed`
/// is always [`EXPERTS_PER_PLAYER`]; Occasionals: `owned + placed + used` is always
/// [`OCCASIONALS_PER_PLAYER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Supply {
    /// Experts in front of the player, available this round.
    pub experts_free: u8,
    /// Experts on the board this round.
    pub experts_placed: u8,
    /// `hospital[i]`: Experts in hospital who miss this round and `i` more.
    pub hospital: [u8; HOSPITAL_ROUNDS as usize],
    /// `prison[i]`: Experts in prison who miss this round and `i` more.
    pub prison: [u8; PRISON_ROUNDS as usize],
    /// Experts out of the game.
    pub killed: u8,
    /// Occasionals still owned and not on the board.
    pub occasionals: u8,
    /// Occasionals on the board this round; removed from the game at its end.
    pub occasionals_placed: u8,
    /// Occasionals already removed from the game.
    pub occasionals_used: u8,
}

impl Default for Supply {
    fn default() -> Supply {
        Supply {
            experts_free: EXPERTS_PER_PLAYER,
            experts_placed: 0,
            hospital: [0; HOSPITAL_ROUNDS as usize],
            prison: [0; PRISON_ROUNDS as usize],
            killed: 0,
            occasionals: OCCASIONALS_PER_PLAYER,
            occasionals_placed: 0,
            occasionals_used: 0,
        }
    }
}

impl Supply {
    /// Gangsters still in front of the player (for the last-turn order).
    pub fn in_front(&self) -> u8 {
        self.experts_free + self.occasionals
    }

    /// Experts in play this round: on the board or in front of the player.
    pub fn experts_in_play(&self) -> u8 {
        self.experts_free + self.experts_placed
    }

    pub fn experts_in_hospital(&self) -> u8 {
        self.hospital.iter().sum()
    }

    pub fn experts_in_prison(&self) -> u8 {
        self.prison.iter().sum()
    }

    /// Gangsters owned (for the tie-break): Experts not killed, wherever they are, and
    /// Occasionals not yet used.
    pub fn owned(&self) -> u8 {
        EXPERTS_PER_PLAYER - self.killed + self.occasionals + self.occasionals_placed
    }

    pub(crate) fn place(&mut self, experts: u8, occasionals: u8) {
        self.experts_free -= experts;
        self.experts_placed += experts;
        self.occasionals -= occasionals;
        self.occasionals_placed += occasionals;
    }

    /// End of round: placed Occasionals leave the game; Experts return unless sanctioned now;
    /// Experts whose time away is over return.
    pub(crate) fn end_round(&mut self, sanctioned: Sanctioned) {
        let back = self.hospital[0] + self.prison[0];
        self.hospital.rotate_left(1);
        self.prison.rotate_left(1);
        let in_play = self.experts_in_play() - sanctioned.total();
        self.experts_free = in_play + back;
        self.experts_placed = 0;
        self.killed += sanctioned.killed;
        *self.hospital.last_mut().expect("hospital lasts a round") = sanctioned.hospital;
        *self.prison.last_mut().expect("prison lasts rounds") = sanctioned.prison;
        self.occasionals_used += self.occasionals_placed;
        self.occasionals_placed = 0;
    }
}

/// Experts taken by sanctions in one resolution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sanctioned {
    pub killed: u8,
    pub prison: u8,
    pub hospital: u8,
}

impl Sanctioned {
    pub fn total(&self) -> u8 {
        self.killed + self.prison + self.hospital
    }

    /// Books a sanction; those that take an Expert need one still in play and not already
    /// booked. Returns whether the sanction took effect.
    pub fn book(&mut self, sanction: Sanction, experts_in_play: u8) -> bool {
        let taken = self.total();
        let slot = match sanction {
            Sanction::Banished => return true,
            Sanction::Revolver => &mut self.killed,
            Sanction::Prison => &mut self.prison,
            Sanction::Hospital => &mut self.hospital,
        };
        if !rules::sanction_takes_effect(experts_in_play.saturating_sub(taken)) {
            return false;
        }
        *slot += 1;
        true
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerState {
    pub money: u32,
    /// Money won in the last resolved round (first tie-break).
    pub money_last_round: u32,
    pub supply: Supply,
    pub(crate) banished: u8,
}

impl PlayerState {
    pub fn is_banished(&self, city: City) -> bool {
        self.banished & (1 << city.index()) != 0
    }

    pub(crate) fn banish(&mut self, city: City) {
        self.banished |= 1 << city.index();
    }

    pub fn banished_from(&self) -> Vec<City> {
        City::ALL
            .into_iter()
            .filter(|&c| self.is_banished(c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn experts(s: &Supply) -> u8 {
        s.experts_free
            + s.experts_placed
            + s.experts_in_hospital()
            + s.experts_in_prison()
            + s.killed
    }

    #[test]
    fn prison_lasts_two_rounds_and_hospital_one() {
        let mut s = Supply::default();
        s.place(2, 0);
        s.end_round(Sanctioned {
            killed: 0,
            prison: 1,
            hospital: 1,
        });
        assert_eq!(
            (
                s.experts_free,
                s.experts_in_prison(),
                s.experts_in_hospital()
            ),
            (4, 1, 1)
        );
        s.end_round(Sanctioned::default());
        assert_eq!(
            (
                s.experts_free,
                s.experts_in_prison(),
                s.experts_in_hospital()
            ),
            (5, 1, 0)
        );
        s.end_round(Sanctioned::default());
        assert_eq!(
            (
                s.experts_free,
                s.experts_in_prison(),
                s.experts_in_hospital()
            ),
            (6, 0, 0)
        );
        assert_eq!(experts(&s), EXPERTS_PER_PLAYER);
    }

    #[test]
    fn revolver_kills_for_good_and_occasionals_are_used_up() {
        let mut s = Supply::default();
        s.place(1, 2);
        s.end_round(Sanctioned {
            killed: 1,
            ..Default::default()
        });
        assert_eq!(
            (s.experts_free, s.killed, s.occasionals, s.occasionals_used),
            (5, 1, 1, 2)
        );
        assert_eq!(s.owned(), 6);
        assert_eq!(experts(&s), EXPERTS_PER_PLAYER);
    }

    #[test]
    fn banishment_is_per_city() {
        let mut p = PlayerState::default();
        p.banish(City::Cincinnati);
        assert!(p.is_banished(City::Cincinnati));
        assert!(!p.is_banished(City::Memphis));
        assert_eq!(p.banished_from(), [City::Cincinnati]);
    }
}
