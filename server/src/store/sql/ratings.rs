//! Ratings and duplicate sets: a player's ratings and history, the leaderboard, recording a
//! set, and the read-rate-write of a rated result, run inside the transaction of the action
//! that ended the game (so that it moves with the game's end, atomically, and two games
//! ending at once both count).

use std::collections::HashMap;

use super::rows::{self, PlayerRow};
use super::sql_store;
use crate::domain::{GameStatus, PlayerInfo, SetTable};
use crate::store::{
    LeaderboardRow, PlayerRatings, RatingJob, RatingRecord, RatingStore, SeriesRecord, StoreError,
};
use theboss_ladder::rating::{self, PROVISIONAL_GAMES, Rated, Rating};

/// The player's kind comes along from its row (by its key), for the leaderboards by kind.
pub(in crate::store) const INSERT_RATING_IF_MISSING: &str = "INSERT INTO ratings \
     (player_id, players, mu, sigma, games, is_bot) \
     SELECT $1, $2, $3, $4, 0, p.is_bot FROM players p WHERE p.id = $1 \
     ON CONFLICT (player_id, players) DO NOTHING";
pub(in crate::store) const UPDATE_RATING: &str = "UPDATE ratings SET mu = $1, sigma = $2, \
     games = $3, opponents = $4, counted = $5 WHERE player_id = $6 AND players = $7";
/// By the primary key of `rated_pairs`: whether two players were rated against each other in
/// a category, and when their last arranged game was rated.
pub(in crate::store) const PAIR_OF: &str = "SELECT arranged_at FROM rated_pairs \
     WHERE player_id = $1 AND players = $2 AND opponent_id = $3";
pub(in crate::store) const RECORD_PAIR: &str = "INSERT INTO rated_pairs \
     (player_id, players, opponent_id, arranged_at) VALUES ($1, $2, $3, $4) \
     ON CONFLICT (player_id, players, opponent_id) \
     DO UPDATE SET arranged_at = COALESCE(excluded.arranged_at, rated_pairs.arranged_at)";
/// By the primary key of `arranged_games`.
pub(in crate::store) const ARRANGED_BY: &str =
    "SELECT arranged_by FROM arranged_games WHERE game_id = $1";
pub(in crate::store) const INSERT_RATING_HISTORY: &str = "INSERT INTO rating_history \
     (player_id, players, game_id, mu_before, sigma_before, mu, sigma, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
/// By the primary key (player_id, players).
pub(in crate::store) const RATING_OF: &str =
    "SELECT mu, sigma, games, opponents FROM ratings WHERE player_id = $1 AND players = $2";
/// The page's ratings by the index `ratings_by_score`, then each one's player by its key:
/// as scalar subqueries, which no planner turns into a join that reads every player (as
/// PostgreSQL does, on tables it has no statistics of, for a join).
pub(in crate::store) const LEADERBOARD: &str = "SELECT r.player_id, \
     (SELECT p.display_name FROM players p WHERE p.id = r.player_id), \
     (SELECT p.is_bot FROM players p WHERE p.id = r.player_id), \
     (SELECT p.description FROM players p WHERE p.id = r.player_id), r.mu, r.sigma, r.games, \
     r.opponents FROM (SELECT player_id, mu, sigma, games, opponents FROM ratings \
     WHERE players = $1 AND counted >= $4 \
     ORDER BY mu - 3 * sigma DESC, player_id LIMIT $2 OFFSET $3) r \
     ORDER BY r.mu - 3 * r.sigma DESC, r.player_id";
/// As `LEADERBOARD`, of bots or of people only (`$5`), by the index `ratings_by_kind_score`.
pub(in crate::store) const LEADERBOARD_OF_KIND: &str = "SELECT r.player_id, \
     (SELECT p.display_name FROM players p WHERE p.id = r.player_id), \
     (SELECT p.is_bot FROM players p WHERE p.id = r.player_id), \
     (SELECT p.description FROM players p WHERE p.id = r.player_id), r.mu, r.sigma, r.games, \
     r.opponents FROM (SELECT player_id, mu, sigma, games, opponents FROM ratings \
     WHERE players = $1 AND is_bot = $5 AND counted >= $4 \
     ORDER BY mu - 3 * sigma DESC, player_id LIMIT $2 OFFSET $3) r \
     ORDER BY r.mu - 3 * r.sigma DESC, r.player_id";
pub(in crate::store) const RATINGS_OF: &str = "SELECT players, mu, sigma, games, opponents \
     FROM ratings WHERE player_id = $1 ORDER BY players";
pub(in crate::store) const HISTORY_OF: &str = "SELECT game_id, players, mu_before, sigma_before, mu, sigma, at \
     FROM rating_history WHERE player_id = $1 ORDER BY at DESC, players LIMIT 100";
pub(in crate::store) const INSERT_SERIES: &str = "INSERT INTO series (id, players, seed, created_at, tables, open_tables) \
     VALUES ($1, $2, $3, $4, $5, $5)";
/// One more table of a set has ended: how many are left (none returned for a set already
/// counted down, or a series of an earlier version).
pub(in crate::store) const TABLE_ENDED: &str = "UPDATE series SET open_tables = open_tables - 1 \
     WHERE id = $1 AND open_tables > 0 RETURNING open_tables";
/// By the index `games_by_series`.
pub(in crate::store) const SET_TABLES: &str = "SELECT id, status, money, acted FROM games WHERE series_id = $1 \
     ORDER BY series_index";

sql_store! {
    impl RatingStore {
        async fn rating(&self, player_id: &str, players: u8) -> Result<Option<Rating>, StoreError> {
            let row: Option<(f64, f64, i64, i64)> = sqlx::query_as(RATING_OF)
                .bind(player_id)
                .bind(i64::from(players))
                .fetch_optional(&self.side)
                .await?;
            row.map(|(mu, sigma, games, opponents)| {
                Ok(Rating {
                    mu,
                    sigma,
                    games: rows::games_count(games)?,
                    opponents: rows::games_count(opponents)?,
                })
            })
            .transpose()
        }

        async fn leaderboard(
            &self,
            players: u8,
            bots: Option<bool>,
            limit: u32,
            offset: u64,
        ) -> Result<Vec<LeaderboardRow>, StoreError> {
            let query = sqlx::query_as(if bots.is_some() {
                LEADERBOARD_OF_KIND
            } else {
                LEADERBOARD
            })
            .bind(i64::from(players))
            .bind(i64::from(limit))
            .bind(i64::try_from(offset).unwrap_or(i64::MAX))
            .bind(i64::from(PROVISIONAL_GAMES));
            let query = match bots {
                Some(bots) => query.bind(bots),
                None => query,
            };
            let found: Vec<(String, String, bool, String, f64, f64, i64, i64)> =
                query.fetch_all(&self.side).await?;
            found
                .into_iter()
                .map(
                    |(id, display_name, is_bot, description, mu, sigma, games, opponents)| {
                        Ok(LeaderboardRow {
                            player: PlayerInfo {
                                id,
                                display_name,
                                is_bot,
                            },
                            description,
                            rating: Rating {
                                mu,
                                sigma,
                                games: rows::games_count(games)?,
                                opponents: rows::games_count(opponents)?,
                            },
                        })
                    },
                )
                .collect()
        }

        async fn player_ratings(
            &self,
            player_id: &str,
        ) -> Result<Option<PlayerRatings>, StoreError> {
            let player: Option<PlayerRow> = sqlx::query_as(super::players::PLAYER_BY_ID)
                .bind(player_id)
                .fetch_optional(&self.side)
                .await?;
            let Some(player) = player else {
                return Ok(None);
            };
            let (description,): (String,) = sqlx::query_as(super::players::DESCRIPTION_OF)
                .bind(player_id)
                .fetch_one(&self.side)
                .await?;
            let ratings: Vec<(i64, f64, f64, i64, i64)> = sqlx::query_as(RATINGS_OF)
                .bind(player_id)
                .fetch_all(&self.side)
                .await?;
            let history: Vec<(String, i64, f64, f64, f64, f64, i64)> = sqlx::query_as(HISTORY_OF)
                .bind(player_id)
                .fetch_all(&self.side)
                .await?;
            Ok(Some(PlayerRatings {
                player: rows::player_from_row(player),
                description,
                ratings: ratings
                    .into_iter()
                    .map(|(players, mu, sigma, games, opponents)| {
                        Ok((
                            rows::category(players)?,
                            Rating {
                                mu,
                                sigma,
                                games: rows::games_count(games)?,
                                opponents: rows::games_count(opponents)?,
                            },
                        ))
                    })
                    .collect::<Result<_, StoreError>>()?,
                history: history
                    .into_iter()
                    .map(
                        |(game_id, players, mu_before, sigma_before, mu, sigma, at)| {
                            Ok(RatingRecord {
                                game_id,
                                players: rows::category(players)?,
                                before: Rating {
                                    mu: mu_before,
                                    sigma: sigma_before,
                                    ..Rating::default()
                                },
                                after: Rating {
                                    mu,
                                    sigma,
                                    ..Rating::default()
                                },
                                at,
                            })
                        },
                    )
                    .collect::<Result<_, StoreError>>()?,
            }))
        }

        async fn create_series(&self, series: &SeriesRecord) -> Result<(), StoreError> {
            sqlx::query(INSERT_SERIES)
                .bind(series.id.as_str())
                .bind(series.players.join(","))
                .bind(rows::seed_to_column(series.seed))
                .bind(series.created_at)
                .bind(i64::from(series.tables))
                .execute(&self.side)
                .await?;
            Ok(())
        }
    }
}

sql_store! {
    impl {
        /// Does what a game's end asks to rate, inside the transaction of its last action
        /// (`conn`), at time `at`.
        pub(super) async fn rate_in(
            conn: &mut DB::Connection,
            job: &RatingJob,
            at: i64,
        ) -> Result<(), StoreError> {
            let rated = match job {
                RatingJob::Game(rated) => Some(rated.clone()),
                RatingJob::SetTableEnded { series_id, rated } => {
                    Self::ended_set(conn, series_id).await?.filter(|_| *rated)
                }
            };
            match rated {
                Some(rated) => Self::rate_players(conn, &rated, at).await,
                None => Ok(()),
            }
        }

        /// Counts a set's table as ended; if it was the last, what the set rates. The set's
        /// row is locked by the count until the commit, so of two tables ending at once the
        /// second waits and sees the first's result.
        async fn ended_set(
            conn: &mut DB::Connection,
            series_id: &str,
        ) -> Result<Option<Rated>, StoreError> {
            let left: Option<(i64,)> = sqlx::query_as(TABLE_ENDED)
                .bind(series_id)
                .fetch_optional(&mut *conn)
                .await?;
            if left != Some((0,)) {
                return Ok(None);
            }
            let games: Vec<(String, String, String, String)> = sqlx::query_as(SET_TABLES)
                .bind(series_id)
                .fetch_all(&mut *conn)
                .await?;
            if games.is_empty() {
                return Ok(None);
            }
            let mut sql = sqlx::QueryBuilder::<DB>::new(
                "SELECT game_id, seat, player_id FROM seats WHERE game_id IN (",
            );
            let mut list = sql.separated(", ");
            for (id, ..) in &games {
                list.push_bind(id.as_str());
            }
            sql.push(") ORDER BY game_id, seat");
            let seats: Vec<(String, i64, String)> =
                sql.build_query_as().fetch_all(&mut *conn).await?;
            let mut tables = Vec::with_capacity(games.len());
            for (game_id, status, money, acted) in games {
                tables.push(SetTable {
                    players: seats
                        .iter()
                        .filter(|(g, ..)| *g == game_id)
                        .map(|(_, _, player)| player.clone())
                        .collect(),
                    status: GameStatus::parse(&status)
                        .ok_or_else(|| rows::corrupt(format!("status {status:?}")))?
                        .into(),
                    money: rows::money_from_text(&money)?,
                    acted: rows::acted_from_text(&acted)?,
                    game_id,
                });
            }
            Ok(rating::rated_set(&tables))
        }

        /// Reads the players' ratings locked (in one order for every writer, so no deadlock),
        /// rates the result and writes the new ratings and their history.
        async fn rate_players(
            conn: &mut DB::Connection,
            rated: &Rated,
            at: i64,
        ) -> Result<(), StoreError> {
            let mut keys: Vec<(&String, u8)> = rated
                .categories()
                .into_iter()
                .flat_map(|c| rated.players().map(move |p| (p, c)))
                .collect();
            keys.sort();
            keys.dedup();
            let fresh = Rating::default();
            let locked = format!("{RATING_OF}{}", DB::LOCK_ROW);
            let mut before = HashMap::new();
            for &(player, category) in &keys {
                sqlx::query(INSERT_RATING_IF_MISSING)
                    .bind(player.as_str())
                    .bind(i64::from(category))
                    .bind(fresh.mu)
                    .bind(fresh.sigma)
                    .execute(&mut *conn)
                    .await?;
                let (mu, sigma, games, opponents): (f64, f64, i64, i64) =
                    sqlx::query_as(sqlx::AssertSqlSafe(locked.clone()))
                        .bind(player.as_str())
                        .bind(i64::from(category))
                        .fetch_one(&mut *conn)
                        .await?;
                before.insert(
                    (player.clone(), category),
                    Rating {
                        mu,
                        sigma,
                        games: rows::games_count(games)?,
                        opponents: rows::games_count(opponents)?,
                    },
                );
            }
            // Was the result's game arranged for named players (a challenge, a tournament)? Then
            // the pairs that met so within the period count for nothing (`theboss_ladder::rating`).
            let first_game = rated.contests.iter().flat_map(|c| c.games.first()).next();
            let arranged = match first_game {
                Some(game) => sqlx::query_as::<DB, (String,)>(ARRANGED_BY)
                    .bind(game.as_str())
                    .fetch_optional(&mut *conn)
                    .await?
                    .is_some(),
                None => false,
            };
            let mut pairs = rating::Pairs::default();
            for contest in &rated.contests {
                for player in &contest.players {
                    for opponent in contest.players.iter().filter(|o| *o != player) {
                        for category in rated.categories() {
                            let found: Option<(Option<i64>,)> = sqlx::query_as(PAIR_OF)
                                .bind(player.as_str())
                                .bind(i64::from(category))
                                .bind(opponent.as_str())
                                .fetch_optional(&mut *conn)
                                .await?;
                            let Some((arranged_at,)) = found else {
                                continue;
                            };
                            pairs
                                .met
                                .insert((player.clone(), category, opponent.clone()));
                            if arranged_at.is_some_and(|t| at - t < rating::ARRANGED_PERIOD) {
                                pairs
                                    .arranged_lately
                                    .insert((player.clone(), opponent.clone()));
                            }
                        }
                    }
                }
            }
            for change in rating::rate_contests(rated, &before, &pairs, arranged) {
                sqlx::query(UPDATE_RATING)
                    .bind(change.after.mu)
                    .bind(change.after.sigma)
                    .bind(i64::from(change.after.games))
                    .bind(i64::from(change.after.opponents))
                    .bind(i64::from(change.after.counted()))
                    .bind(change.player.as_str())
                    .bind(i64::from(change.category))
                    .execute(&mut *conn)
                    .await?;
                sqlx::query(INSERT_RATING_HISTORY)
                    .bind(change.player.as_str())
                    .bind(i64::from(change.category))
                    .bind(change.game.as_str())
                    .bind(change.before.mu)
                    .bind(change.before.sigma)
                    .bind(change.after.mu)
                    .bind(change.after.sigma)
                    .bind(at)
                    .execute(&mut *conn)
                    .await?;
                for opponent in &change.counted_against {
                    sqlx::query(RECORD_PAIR)
                        .bind(change.player.as_str())
                        .bind(i64::from(change.category))
                        .bind(opponent.as_str())
                        .bind(arranged.then_some(at))
                        .execute(&mut *conn)
                        .await?;
                }
            }
            Ok(())
        }
    }
}
