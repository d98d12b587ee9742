//! The table: the row of character cards with Chicago's place in it, the gangsters on each
//! location, and the cards played this round in each city's column.

use serde::{Deserialize, Serialize};

use crate::Seat;
use crate::action::{LOCATION_COUNT, Location};
use crate::cards::{CITY_COUNT, Card, City};
use crate::rules::MAX_PLAYERS;

/// One player's gangsters on one location.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Gangsters {
    pub experts: u8,
    pub occasionals: u8,
}

impl Gangsters {
    /// Experts and Occasionals count the same for the lead.
    pub fn total(self) -> u8 {
        self.experts + self.occasionals
    }
}

#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// Cities in play, left to right; Chicago is not in this list.
    row: Vec<City>,
    /// How many cities of `row` are to Chicago's left.
    chicago_at: usize,
    gangsters: [[Gangsters; MAX_PLAYERS as usize]; LOCATION_COUNT],
    played: [Vec<Card>; CITY_COUNT],
}

/// Written out so that `clone_from` reuses the row and the columns (see `Game`'s `Clone`).
impl Clone for Board {
    fn clone(&self) -> Board {
        Board {
            row: self.row.clone(),
            chicago_at: self.chicago_at,
            gangsters: self.gangsters,
            played: self.played.clone(),
        }
    }

    fn clone_from(&mut self, source: &Board) {
        let Board {
            row,
            chicago_at,
            gangsters,
            played,
        } = source;
        self.row.clone_from(row);
        self.chicago_at = *chicago_at;
        self.gangsters = *gangsters;
        for (column, from) in self.played.iter_mut().zip(played) {
            column.clone_from(from);
        }
    }
}

impl Board {
    pub(crate) fn new(row: Vec<City>, chicago_at: usize) -> Board {
        Board {
            row,
            chicago_at,
            gangsters: Default::default(),
            played: Default::default(),
        }
    }

    pub fn cities(&self) -> &[City] {
        &self.row
    }

    pub fn chicago_at(&self) -> usize {
        self.chicago_at
    }

    /// Every location left to right, Chicago included.
    pub fn locations(&self) -> impl Iterator<Item = Location> + '_ {
        (0..=self.row.len()).map(move |i| match i.cmp(&self.chicago_at) {
            std::cmp::Ordering::Less => Location::City(self.row[i]),
            std::cmp::Ordering::Equal => Location::Chicago,
            std::cmp::Ordering::Greater => Location::City(self.row[i - 1]),
        })
    }

    /// Cities to Chicago's left.
    pub fn left_of_chicago(&self) -> &[City] {
        &self.row[..self.chicago_at]
    }

    pub fn in_play(&self, city: City) -> bool {
        self.row.binary_search(&city).is_ok()
    }

    pub fn gangsters(&self, location: Location, seat: Seat) -> Gangsters {
        self.gangsters[location.index()][usize::from(seat)]
    }

    /// The seat with the most gangsters on a location, if anybody is there.
    /// The placement rule keeps the lead unique.
    pub fn leader(&self, location: Location) -> Option<Seat> {
        // No seat is numbered MAX_PLAYERS, so "other than it" means every seat.
        self.strongest_other(location, MAX_PLAYERS).map(|(s, _)| s)
    }

    /// The strongest seat other than `seat` on a location, and its count.
    pub fn strongest_other(&self, location: Location, seat: Seat) -> Option<(Seat, u8)> {
        // The first seat with the most (ties go to the lowest seat), counting from nobody.
        let (mut best_seat, mut best) = (0, 0);
        for (s, g) in (0..).zip(&self.gangsters[location.index()]) {
            let total = g.total();
            if s != seat && total > best {
                (best_seat, best) = (s, total);
            }
        }
        (best > 0).then_some((best_seat, best))
    }

    /// Whether a seat has gangsters on any city (Chicago excluded).
    pub fn has_gangsters_in_a_city(&self, seat: Seat) -> bool {
        self.gangsters[..CITY_COUNT]
            .iter()
            .any(|at| at[usize::from(seat)].total() > 0)
    }

    pub(crate) fn add(&mut self, location: Location, seat: Seat, experts: u8, occasionals: u8) {
        let cell = &mut self.gangsters[location.index()][usize::from(seat)];
        cell.experts += experts;
        cell.occasionals += occasionals;
    }

    /// Cards played this round in a city's column, oldest first.
    pub fn played(&self, city: City) -> &[Card] {
        &self.played[city.index()]
    }

    pub fn last_played(&self, city: City) -> Option<Card> {
        self.played[city.index()].last().copied()
    }

    pub(crate) fn play(&mut self, card: Card) {
        self.played[card.city.index()].push(card);
    }

    /// The sum Chicago's leader would halve now: last played cards to its left.
    pub fn chicago_sum(&self) -> u32 {
        self.left_of_chicago()
            .iter()
            .filter_map(|&c| self.last_played(c))
            .map(|card| card.face.money())
            .sum()
    }

    /// Sets the board up for a row and Chicago's place in it, empty, keeping the lists it
    /// holds (for games sampled into an existing one).
    pub(crate) fn reset(&mut self, row: &[City], chicago_at: usize) {
        self.row.clear();
        self.row.extend_from_slice(row);
        self.chicago_at = chicago_at;
        self.clear();
    }

    /// Clears gangsters and columns for a new round.
    pub(crate) fn clear(&mut self) {
        self.gangsters = Default::default();
        for column in &mut self.played {
            column.clear();
        }
    }

    #[cfg(test)]
    pub(crate) fn set_chicago_at(&mut self, at: usize) {
        self.chicago_at = at.min(self.row.len());
    }

    /// Chicago swaps with its right neighbour, unless it is already rightmost.
    pub(crate) fn move_chicago(&mut self) {
        if self.chicago_at < self.row.len() {
            self.chicago_at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use City::*;

    fn board() -> Board {
        Board::new(vec![NewYork, Boston, Detroit], 1)
    }

    #[test]
    fn chicago_starts_between_the_first_and_second_city() {
        let locations: Vec<Location> = board().locations().collect();
        assert_eq!(
            locations,
            [
                Location::City(NewYork),
                Location::Chicago,
                Location::City(Boston),
                Location::City(Detroit)
            ]
        );
    }

    #[test]
    fn chicago_moves_right_and_stays_rightmost() {
        let mut b = board();
        let mut positions = vec![b.chicago_at()];
        for _ in 0..4 {
            b.move_chicago();
            positions.push(b.chicago_at());
        }
        assert_eq!(positions, [1, 2, 3, 3, 3]);
        assert_eq!(b.locations().last(), Some(Location::Chicago));
    }

    #[test]
    fn leader_is_the_seat_with_most_gangsters() {
        let mut b = board();
        assert_eq!(b.leader(Location::City(Boston)), None);
        b.add(Location::City(Boston), 0, 1, 0);
        b.add(Location::City(Boston), 2, 1, 1);
        assert_eq!(b.leader(Location::City(Boston)), Some(2));
        assert_eq!(b.strongest_other(Location::City(Boston), 2), Some((0, 1)));
    }
}
