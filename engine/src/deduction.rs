//! What a viewer can deduce about the face-down cards (docs/RULES.md §8): for every city, the cards
//! that are neither in the viewer's hand nor played this round, each equally likely.
//!
//! Works from a [`View`] alone, so clients and bots compute exactly what their seat may know.

use serde::{Deserialize, Serialize};

use crate::cards::{Card, City};
use crate::view::View;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CityOdds {
    pub city: City,
    /// The cards the face-down card may be, each with its probability.
    pub candidates: Vec<(Card, f64)>,
}

impl CityOdds {
    /// The expected money of the face-down card (sanctions count 0).
    pub fn expected_money(&self) -> f64 {
        self.candidates
            .iter()
            .map(|(card, p)| f64::from(card.face.money()) * p)
            .sum()
    }

    pub fn probability(&self, card: Card) -> f64 {
        self.candidates
            .iter()
            .find(|(c, _)| *c == card)
            .map_or(0.0, |(_, p)| *p)
    }
}

/// The candidates for each city that still has a face-down card this round, left to right.
pub fn face_down_odds(view: &View) -> Vec<CityOdds> {
    let own: &[Card] = view.hand.as_deref().unwrap_or(&[]);
    view.locations
        .iter()
        .filter(|l| l.face_down)
        .filter_map(|l| l.location.city().map(|city| (city, &l.played)))
        .map(|(city, played)| {
            let unseen: Vec<Card> = city
                .cards()
                .filter(|c| !own.contains(c) && !played.contains(c))
                .collect();
            let p = 1.0 / unseen.len() as f64;
            CityOdds {
                city,
                candidates: unseen.into_iter().map(|c| (c, p)).collect(),
            }
        })
        .collect()
}
