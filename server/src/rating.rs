//! Ratings for a game of 2 to 4 players with luck in it: Weng-Lin (the OpenSkill model, via
//! `skillratings`), each player a team of one, ranked by the game's standings. A player has
//! one rating per player count and one overall; a game (or a duplicate series) moves both.
//!
//! Pure arithmetic: what a finished ladder game rates ([`rated_outcome`]) is decided here
//! from the game and, for a duplicate series, its earlier games; the store then reads the
//! players' ratings, applies [`rate`] and writes them back in one transaction, with the rows
//! locked, together with the game's last action.

use std::collections::HashMap;

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use theboss_engine::Outcome;

use crate::domain::{GameRecord, SeriesGame, Status};
use crate::table::TableState;

/// A rating: `mu` is the estimate, `sigma` its uncertainty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
    /// Rated games (a duplicate series counts once).
    pub games: u32,
}

impl Default for Rating {
    fn default() -> Rating {
        let fresh = WengLinRating::new();
        Rating {
            mu: fresh.rating,
            sigma: fresh.uncertainty,
            games: 0,
        }
    }
}

impl Rating {
    /// A conservative estimate, what leaderboards sort by: `mu - 3 sigma`.
    pub fn score(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// New ratings after a game. `ranks[i]` is player i's place (1 = first; equal places tie).
pub fn rate(before: &[Rating], ranks: &[usize]) -> Vec<Rating> {
    assert_eq!(before.len(), ranks.len(), "one rank per player");
    let teams: Vec<[WengLinRating; 1]> = before
        .iter()
        .map(|r| {
            [WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            }]
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(ranks)
        .map(|(team, &rank)| (&team[..], MultiTeamOutcome::new(rank)))
        .collect();
    weng_lin_multi_team(&input, &WengLinConfig::new())
        .into_iter()
        .zip(before)
        .map(|(after, b)| Rating {
            mu: after[0].rating,
            sigma: after[0].uncertainty,
            games: b.games + 1,
        })
        .collect()
}

/// Places from scores, higher is better; equal scores share a place (1, 1, 3…).
pub fn ranks_by_score(scores: &[u64]) -> Vec<usize> {
    scores
        .iter()
        .map(|s| 1 + scores.iter().filter(|o| *o > s).count())
        .collect()
}

/// What a rated game's end rates: its players by seat, each with a place (1 = first; equal
/// places tie), in the category of its player count and overall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rated {
    pub players: Vec<String>,
    pub places: Vec<usize>,
}

impl Rated {
    /// The categories the result moves: its player count, and 0 (overall).
    pub fn categories(&self) -> [u8; 2] {
        [u8::try_from(self.players.len()).unwrap_or(u8::MAX), 0]
    }
}

/// Places by seat from a finished game's outcome: winners share first place, the others
/// follow the standings' order (money, then the rules' tie-breaks).
pub fn places(outcome: &Outcome, players: u8) -> Vec<usize> {
    let mut places = vec![0; usize::from(players)];
    for (i, standing) in outcome.standings.iter().enumerate() {
        places[usize::from(standing.seat)] = if outcome.winners.contains(&standing.seat) {
            1
        } else {
            i + 1
        };
    }
    places
}

/// What the end of a ladder game rates, if anything: the game's own result, or, for the last
/// game of a duplicate series, the series' ranked on its total money (`earlier` are the
/// series' other games). `state` is the finished table. An unrated game, a series still under
/// way, or a series with an aborted game rates nothing.
pub fn rated_outcome(
    record: &GameRecord,
    state: &TableState,
    earlier: &[SeriesGame],
) -> Option<Rated> {
    if !record.ladder || state.status != Status::Finished {
        return None;
    }
    let outcome = state.game.as_ref()?.outcome()?;
    let n = record.settings.players();
    let seats: Vec<String> = state
        .seats
        .iter()
        .map(|p| p.as_ref().map(|p| p.id.clone()).unwrap_or_default())
        .collect();
    let places = match &record.series {
        None => places(outcome, n),
        Some(series) if series.index + 1 < n => return None,
        Some(_) => {
            let mut totals: HashMap<&str, u64> = HashMap::new();
            for game in earlier.iter().filter(|g| g.game_id != record.id) {
                if game.status != Status::Finished {
                    return None;
                }
                for (player, money) in game.seats.iter().zip(&game.money) {
                    *totals.entry(player).or_default() += u64::from(*money);
                }
            }
            for (player, money) in seats.iter().zip(state.money()) {
                *totals.entry(player).or_default() += u64::from(money);
            }
            let scores: Vec<u64> = seats.iter().map(|p| totals[p.as_str()]).collect();
            ranks_by_score(&scores)
        }
    };
    Some(Rated {
        players: seats,
        places,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winners_gain_and_losers_lose() {
        let before = vec![Rating::default(); 4];
        let after = rate(&before, &[1, 2, 3, 4]);
        assert!(
            after[0].mu > after[1].mu && after[1].mu > after[2].mu && after[2].mu > after[3].mu
        );
        assert!(after[0].mu > 25.0 && after[3].mu < 25.0);
        assert!(
            after
                .iter()
                .all(|r| r.sigma < before[0].sigma && r.games == 1)
        );
    }

    #[test]
    fn a_tie_moves_tied_players_alike() {
        let before = vec![Rating::default(); 3];
        let after = rate(&before, &[1, 1, 3]);
        assert!((after[0].mu - after[1].mu).abs() < 1e-9);
        assert!(after[2].mu < after[0].mu);
    }

    #[test]
    fn places_from_scores() {
        assert_eq!(ranks_by_score(&[10, 30, 30, 5]), vec![3, 1, 1, 4]);
    }
}
