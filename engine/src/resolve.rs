//! The round's resolution (docs/RULES.md §5–6): every location pays its leader, left to right,
//! then gangsters come home.

use crate::action::Location;
use crate::cards::{Face, Sanction};
use crate::event::{Award, RoundSummary, SanctionEffect};
use crate::game::Game;
use crate::player::Sanctioned;
use crate::rules::{self, MAX_PLAYERS};

impl Game {
    /// Reveals the face-down cards, pays every location and applies the end of the round to
    /// every player's supply; writes the round's summary into `summary`, whose lists are
    /// reused.
    pub(crate) fn resolve_into(&mut self, summary: &mut RoundSummary) {
        let n = usize::from(self.players());
        let mut sanctioned = [Sanctioned::default(); MAX_PLAYERS as usize];
        summary.round = self.round;
        summary.face_down.clear();
        summary.awards.clear();
        summary.money_won.clear();
        summary.money_won.resize(n, 0);
        for location in self.board.locations() {
            let winner = self.board.leader(location);
            let mut award = Award {
                location,
                winner,
                card: None,
                money: 0,
                chicago_sum: None,
                sanction: None,
            };
            match location {
                Location::Chicago => {
                    let sum = self.board.chicago_sum();
                    award.chicago_sum = Some(sum);
                    if winner.is_some() {
                        award.money = rules::chicago_payout(sum);
                    }
                }
                Location::City(city) => {
                    let card = self.face_down[city.index()]
                        .take()
                        .expect("every city in play has a face-down card");
                    summary.face_down.push(card);
                    award.card = Some(card);
                    if let Some(seat) = winner {
                        match card.face {
                            Face::Money(value) => award.money = u32::from(value),
                            Face::Sanction(sanction) => {
                                let seat = usize::from(seat);
                                let in_play = self.players[seat].supply.experts_in_play();
                                let applied = sanctioned[seat].book(sanction, in_play);
                                if sanction == Sanction::Banished {
                                    self.players[seat].banish(city);
                                }
                                award.sanction = Some(SanctionEffect { sanction, applied });
                            }
                        }
                    }
                }
            }
            if let Some(seat) = winner {
                summary.money_won[usize::from(seat)] += award.money;
            }
            summary.awards.push(award);
        }
        for (seat, player) in self.players.iter_mut().enumerate() {
            player.money += summary.money_won[seat];
            player.money_last_round = summary.money_won[seat];
            player.supply.end_round(sanctioned[seat]);
        }
    }
}
