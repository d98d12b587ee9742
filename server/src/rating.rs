//! Ratings for a game of 2 to 4 players with luck in it: Weng-Lin (the OpenSkill model, via
//! `skillratings`), each player a team of one, ranked by the game's standings. A player has
//! one rating per player count and one overall; a game (or a duplicate series) moves both.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

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
