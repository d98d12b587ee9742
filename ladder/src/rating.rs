//! Ratings for a game of 2 to 4 players with luck in it: Weng-Lin (the OpenSkill model, via
//! `skillratings`), each player a team of one. A player has one rating per player count and
//! one overall; a rated game (or duplicate set) moves both.
//!
//! Pure arithmetic and decisions, no IO: what a finished ladder game rates
//! ([`rated_game`]), what a duplicate set rates once every table has ended ([`rated_set`]),
//! and the new ratings ([`rate_contests`]). The store reads the players' ratings with their
//! rows locked, calls these, and writes the changes in the transaction of the last action.
//!
//! Rules keep ratings from being farmed (see the ladder contract):
//! - a game, or a set, in which a seat never played a turn itself is not rated;
//! - a rating *counts* its rated games only as far as distinct opponents vouch for them: each
//!   opponent for [`GAMES_PER_OPPONENT`] at most ([`Rating::counted`]). A player is
//!   *provisional* in a category until it counts [`PROVISIONAL_GAMES`] there (off the
//!   leaderboard), and a result counts in proportion to how established the opponents are:
//!   each opponent weighs its counted games over [`PROVISIONAL_GAMES`], at least
//!   [`FRESH_WEIGHT`], and a player's change of rating is scaled by its opponents' mean
//!   weight. Beating fresh accounts, which anyone can register, is worth a tenth of beating
//!   established players, and two accounts of one person playing each other over and over
//!   establish neither;
//! - a game arranged for named players (a challenge, a tournament) counts once a day between
//!   the same two players ([`ARRANGED_PERIOD`]): an opponent met so again within the period
//!   weighs nothing, and a result against only such opponents rates nothing.

use std::collections::{HashMap, HashSet};

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use theboss_engine::Outcome;

use crate::{SetTable, TableStatus};

/// Rated games in a category before a player is established there.
pub const PROVISIONAL_GAMES: u32 = 10;

/// What a result against an opponent with no rated game is worth, against an established one.
pub const FRESH_WEIGHT: f64 = 0.1;

/// Rated games one opponent vouches for: a rating counts at most this many per distinct
/// opponent.
pub const GAMES_PER_OPPONENT: u32 = 3;

/// Between the same two players, an arranged rated game counts once in this long (micros).
pub const ARRANGED_PERIOD: i64 = 24 * 3600 * 1_000_000;

/// A rating: `mu` is the estimate, `sigma` its uncertainty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
    /// Rated games (a duplicate set counts once).
    pub games: u32,
    /// Distinct opponents rated against.
    pub opponents: u32,
}

impl Default for Rating {
    fn default() -> Rating {
        let fresh = WengLinRating::new();
        Rating {
            mu: fresh.rating,
            sigma: fresh.uncertainty,
            games: 0,
            opponents: 0,
        }
    }
}

impl Rating {
    /// A conservative estimate, what leaderboards sort by: `mu - 3 sigma`.
    pub fn score(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }

    /// The rated games that count: as many as distinct opponents vouch for.
    pub fn counted(&self) -> u32 {
        self.games
            .min(GAMES_PER_OPPONENT.saturating_mul(self.opponents))
    }

    /// Too few counted games to be listed, or to be worth as much as an established opponent.
    pub fn is_provisional(&self) -> bool {
        self.counted() < PROVISIONAL_GAMES
    }

    /// What a result against this player is worth: its counted games over
    /// [`PROVISIONAL_GAMES`], between [`FRESH_WEIGHT`] and 1.
    pub fn weight(&self) -> f64 {
        (f64::from(self.counted()) / f64::from(PROVISIONAL_GAMES)).clamp(FRESH_WEIGHT, 1.0)
    }

    /// This rating moved towards `full` by `share` (0 to 1): the mean by `share`, the
    /// variance's reduction by `share`; a rated game either way.
    fn moved_towards(&self, full: &Rating, share: f64) -> Rating {
        let variance = self.sigma.powi(2) - share * (self.sigma.powi(2) - full.sigma.powi(2));
        Rating {
            mu: self.mu + share * (full.mu - self.mu),
            sigma: variance.max(0.0).sqrt(),
            games: full.games,
            opponents: self.opponents,
        }
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
            opponents: b.opponents,
        })
        .collect()
}

/// Places from scores, higher is better; equal scores share a place (1, 1, 3…).
pub fn ranks_by_score<T: PartialOrd>(scores: &[T]) -> Vec<usize> {
    scores
        .iter()
        .map(|s| 1 + scores.iter().filter(|o| *o > s).count())
        .collect()
}

/// One ranked comparison of players: a game's seats, or the holders of one seat's cards at
/// the tables of a duplicate set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contest {
    pub players: Vec<String>,
    /// By player: 1 = first; equal places tie.
    pub places: Vec<usize>,
    /// By player: the game it played (what its rating history names).
    pub games: Vec<String>,
}

/// What a finished ladder game or duplicate set rates: its contests, in the category of its
/// player count and overall. Every player is in one contest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rated {
    /// Players per game: the category rated besides overall.
    pub players_per_game: u8,
    pub contests: Vec<Contest>,
}

impl Rated {
    /// The categories the result moves: its player count, and 0 (overall).
    pub fn categories(&self) -> [u8; 2] {
        [self.players_per_game, 0]
    }

    /// Every player rated, in contest order.
    pub fn players(&self) -> impl Iterator<Item = &String> {
        self.contests.iter().flat_map(|c| c.players.iter())
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

/// What a finished game rates by itself: its one contest, if every seat played a turn
/// itself (`acted`). The caller says whether the game is one the ladder rates alone (a
/// finished ladder game, not a table of a duplicate set, whose tables are rated together).
pub fn rated_game(
    game_id: &str,
    players: Vec<String>,
    acted: &[bool],
    outcome: &Outcome,
) -> Option<Rated> {
    if players.len() < 2 || !acted.iter().all(|a| *a) {
        return None;
    }
    let n = u8::try_from(players.len()).ok()?;
    Some(Rated {
        players_per_game: n,
        contests: vec![Contest {
            games: vec![game_id.to_string(); players.len()],
            places: places(outcome, n),
            players,
        }],
    })
}

/// What a duplicate set rates once every table has ended: for each seat, the players who
/// held its cards at the different tables, ranked by the money they made with them. Nothing
/// if a table did not finish (aborted), if a seat anywhere never played a turn itself, or if
/// the tables do not make a set (fewer than two, or of different sizes).
pub fn rated_set(tables: &[SetTable]) -> Option<Rated> {
    let seats = tables.first()?.players.len();
    let whole = tables.len() >= 2
        && tables.iter().all(|t| {
            t.status == TableStatus::Finished
                && t.players.len() == seats
                && t.money.len() == seats
                && t.acted.len() == seats
                && t.acted.iter().all(|a| *a)
        });
    if !whole {
        return None;
    }
    let contests = (0..seats)
        .map(|seat| {
            let money: Vec<u32> = tables.iter().map(|t| t.money[seat]).collect();
            Contest {
                players: tables.iter().map(|t| t.players[seat].clone()).collect(),
                places: ranks_by_score(&money),
                games: tables.iter().map(|t| t.game_id.clone()).collect(),
            }
        })
        .collect();
    Some(Rated {
        players_per_game: u8::try_from(seats).ok()?,
        contests,
    })
}

/// One player's rating moved by a rated result.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub player: String,
    /// 0 overall, else the player count.
    pub category: u8,
    /// The game it played.
    pub game: String,
    pub before: Rating,
    pub after: Rating,
    /// The opponents this result counted against (the pairs to record).
    pub counted_against: Vec<String>,
}

/// What the store knows of the pairs a result rates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pairs {
    /// (player, category, opponent) rated against each other before.
    pub met: HashSet<(String, u8, String)>,
    /// (player, opponent) whose arranged rated game within [`ARRANGED_PERIOD`] was rated:
    /// an arranged result between them counts for nothing now.
    pub arranged_lately: HashSet<(String, String)>,
}

/// The ratings a result moves, from the players' ratings before it (`before`, by player and
/// category; missing means a fresh rating): each contest rated by Weng-Lin, each player's
/// change scaled by its opponents' mean [`Rating::weight`]. In a game arranged for named
/// players (`challenge`, `tournament`), an opponent already met so within the period weighs nothing; a
/// player whose every opponent is one is not rated at all.
pub fn rate_contests(
    rated: &Rated,
    before: &HashMap<(String, u8), Rating>,
    pairs: &Pairs,
    arranged: bool,
) -> Vec<Change> {
    let mut changes = Vec::new();
    for category in rated.categories() {
        for contest in &rated.contests {
            let old: Vec<Rating> = contest
                .players
                .iter()
                .map(|p| {
                    before
                        .get(&(p.clone(), category))
                        .copied()
                        .unwrap_or_default()
                })
                .collect();
            if old.len() < 2 {
                continue;
            }
            let full = rate(&old, &contest.places);
            for (i, player) in contest.players.iter().enumerate() {
                let opponents: Vec<(usize, &String)> = contest
                    .players
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .collect();
                let counts = |o: &String| {
                    !(arranged && pairs.arranged_lately.contains(&(player.clone(), o.clone())))
                };
                let counted: Vec<String> = opponents
                    .iter()
                    .filter(|(_, o)| counts(o))
                    .map(|(_, o)| (*o).clone())
                    .collect();
                if counted.is_empty() {
                    continue;
                }
                let share = opponents
                    .iter()
                    .filter(|(_, o)| counts(o))
                    .map(|(j, _)| old[*j].weight())
                    .sum::<f64>()
                    / opponents.len() as f64;
                let met_now = counted
                    .iter()
                    .filter(|o| {
                        !pairs
                            .met
                            .contains(&(player.clone(), category, (*o).clone()))
                    })
                    .count();
                let mut after = old[i].moved_towards(&full[i], share);
                after.opponents = old[i]
                    .opponents
                    .saturating_add(u32::try_from(met_now).unwrap_or(u32::MAX));
                changes.push(Change {
                    player: player.clone(),
                    category,
                    game: contest.games[i].clone(),
                    before: old[i],
                    after,
                    counted_against: counted,
                });
            }
        }
    }
    changes
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

    fn contest(players: &[&str], places: &[usize]) -> Rated {
        Rated {
            players_per_game: u8::try_from(players.len()).unwrap(),
            contests: vec![Contest {
                players: players.iter().map(|p| p.to_string()).collect(),
                places: places.to_vec(),
                games: vec!["g".into(); players.len()],
            }],
        }
    }

    fn established(games: u32) -> Rating {
        Rating {
            games,
            opponents: games,
            ..Rating::default()
        }
    }

    #[test]
    fn beating_a_fresh_account_is_worth_a_tenth_whoever_beats_it() {
        for winner in [established(PROVISIONAL_GAMES), Rating::default()] {
            let rated = contest(&["winner", "fresh"], &[1, 2]);
            let before = HashMap::from([
                (("winner".to_string(), 2), winner),
                (("winner".to_string(), 0), winner),
            ]);
            let changes = rate_contests(&rated, &before, &Pairs::default(), false);
            assert_eq!(changes.len(), 4, "two players, two categories");
            let full = rate(&[winner, Rating::default()], &[1, 2]);
            let won = changes.iter().find(|c| c.player == "winner").unwrap();
            let gained = won.after.mu - won.before.mu;
            assert!(
                (gained - FRESH_WEIGHT * (full[0].mu - winner.mu)).abs() < 1e-9,
                "a tenth of the gain: {gained}"
            );
            assert_eq!(
                won.after.games,
                winner.games + 1,
                "a rated game all the same"
            );
            // The fresh account's own result counts fully against an established winner.
            let lost = changes.iter().find(|c| c.player == "fresh").unwrap();
            let expected = winner.weight() * (full[1].mu - 25.0);
            assert!((lost.after.mu - lost.before.mu - expected).abs() < 1e-9);
        }
    }

    #[test]
    fn results_among_established_players_count_fully() {
        let rated = contest(&["a", "b", "c"], &[1, 2, 3]);
        let before: HashMap<(String, u8), Rating> = ["a", "b", "c"]
            .into_iter()
            .flat_map(|p| {
                [
                    ((p.to_string(), 3), established(20)),
                    ((p.to_string(), 0), established(20)),
                ]
            })
            .collect();
        let changes = rate_contests(&rated, &before, &Pairs::default(), false);
        let expected = rate(&[established(20); 3], &[1, 2, 3]);
        for (i, player) in ["a", "b", "c"].iter().enumerate() {
            let change = changes
                .iter()
                .find(|c| c.player == *player && c.category == 3)
                .unwrap();
            assert!((change.after.mu - expected[i].mu).abs() < 1e-12);
            assert!((change.after.sigma - expected[i].sigma).abs() < 1e-12);
        }
        assert_eq!(changes.len(), 6, "three players, two categories");
    }

    /// Two accounts of one person play each other over and over: their ratings count three
    /// games, however many they play, so neither is ever established or weighs more than a
    /// fresh account does to others; a third player's results against them stay small.
    #[test]
    fn the_same_pair_over_and_over_establishes_neither() {
        let mut ratings: HashMap<(String, u8), Rating> = HashMap::new();
        let mut pairs = Pairs::default();
        for n in 0..30 {
            let rated = contest(&["puppet", "master"], &[1 + n % 2, 2 - n % 2]);
            for change in rate_contests(&rated, &ratings, &pairs, false) {
                for o in &change.counted_against {
                    pairs
                        .met
                        .insert((change.player.clone(), change.category, o.clone()));
                }
                ratings.insert((change.player, change.category), change.after);
            }
        }
        for who in ["puppet", "master"] {
            let r = ratings[&(who.to_string(), 2)];
            assert_eq!(
                (r.games, r.opponents, r.counted()),
                (30, 1, GAMES_PER_OPPONENT)
            );
            assert!(r.is_provisional());
            assert!((r.weight() - 0.3).abs() < 1e-9, "{}", r.weight());
        }
    }

    /// Arranged games between the same two players count once a day: the second rates
    /// nothing for them, against a third player it still rates.
    #[test]
    fn an_arranged_game_between_the_same_players_counts_once_a_period() {
        let before = HashMap::new();
        let pairs = Pairs {
            arranged_lately: HashSet::from([
                ("a".to_string(), "b".to_string()),
                ("b".to_string(), "a".to_string()),
            ]),
            ..Pairs::default()
        };
        let rated = contest(&["a", "b"], &[1, 2]);
        assert!(rate_contests(&rated, &before, &pairs, true).is_empty());
        // Not arranged (the queue paired them): it rates as ever.
        assert_eq!(rate_contests(&rated, &before, &pairs, false).len(), 4);
        // With a third player, each of a and b is rated against the third only.
        let three = contest(&["a", "b", "c"], &[1, 2, 3]);
        let changes = rate_contests(&three, &before, &pairs, true);
        let a = changes
            .iter()
            .find(|c| c.player == "a" && c.category == 3)
            .unwrap();
        assert_eq!(a.counted_against, vec!["c".to_string()]);
        let c = changes
            .iter()
            .find(|c| c.player == "c" && c.category == 3)
            .unwrap();
        assert_eq!(c.counted_against.len(), 2);
    }

    fn table(game: &str, players: [&str; 2], money: [u32; 2], acted: [bool; 2]) -> SetTable {
        SetTable {
            game_id: game.into(),
            status: TableStatus::Finished,
            players: players.iter().map(|p| p.to_string()).collect(),
            money: money.to_vec(),
            acted: acted.to_vec(),
        }
    }

    #[test]
    fn a_set_compares_the_players_who_held_the_same_cards() {
        let tables = [
            table("t0", ["a", "b"], [30, 10], [true, true]),
            table("t1", ["c", "d"], [20, 25], [true, true]),
        ];
        let rated = rated_set(&tables).unwrap();
        assert_eq!(rated.players_per_game, 2);
        assert_eq!(
            rated.contests,
            vec![
                Contest {
                    players: vec!["a".into(), "c".into()],
                    places: vec![1, 2],
                    games: vec!["t0".into(), "t1".into()],
                },
                Contest {
                    players: vec!["b".into(), "d".into()],
                    places: vec![2, 1],
                    games: vec!["t0".into(), "t1".into()],
                },
            ]
        );
    }

    #[test]
    fn a_set_with_an_absent_seat_or_an_aborted_table_rates_nothing() {
        let absent = [
            table("t0", ["a", "b"], [30, 10], [true, false]),
            table("t1", ["c", "d"], [20, 25], [true, true]),
        ];
        assert_eq!(rated_set(&absent), None);
        let mut aborted = absent.clone();
        aborted[0].acted = vec![true, true];
        aborted[1].status = TableStatus::Aborted;
        assert_eq!(rated_set(&aborted), None);
        assert_eq!(rated_set(&aborted[..1]), None, "one table is no set");
    }
}
