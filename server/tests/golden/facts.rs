//! What a stored game must replay to, forever: its deals (every hand and face-down card of
//! every round), its status, money and winners. Written as plain strings so that the facts
//! do not depend on how any Rust type prints or serializes.

use serde::{Deserialize, Serialize};
use theboss_engine::{Card, Face, Game, Sanction};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    pub round: u8,
    /// Hands by seat, each card as `city-number:face`.
    pub hands: Vec<Vec<String>>,
    /// Face-down cards, left to right.
    pub face_down: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameFacts {
    pub game_id: String,
    pub players: u8,
    pub ladder: bool,
    pub status: String,
    pub actions: u64,
    pub events: u64,
    pub money: Vec<u32>,
    pub winners: Vec<u8>,
    pub deals: Vec<Deal>,
}

pub fn card(card: Card) -> String {
    let face = match card.face {
        Face::Money(value) => value.to_string(),
        Face::Sanction(Sanction::Revolver) => "revolver".into(),
        Face::Sanction(Sanction::Prison) => "prison".into(),
        Face::Sanction(Sanction::Hospital) => "hospital".into(),
        Face::Sanction(Sanction::Banished) => "banished".into(),
    };
    format!("{}:{face}", card.city.number())
}

pub fn deal(game: &Game) -> Deal {
    Deal {
        round: game.round(),
        hands: (0..game.players())
            .map(|seat| game.hand(seat).iter().map(|&c| card(c)).collect())
            .collect(),
        face_down: game
            .setup()
            .cities()
            .iter()
            .filter_map(|&city| game.face_down(city))
            .map(card)
            .collect(),
    }
}
