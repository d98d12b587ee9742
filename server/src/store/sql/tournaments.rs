//! Tournaments: their rows and entrants, read and written under a lock on the tournament so
//! that the rules of `theboss_ladder::tournament`, applied in between, see what they change;
//! and the tables a tournament seated, with their results.

use super::rows;
use super::sql_store;
use crate::domain::{GameStatus, PlayerInfo, SetTable};
use crate::store::{ArrangedTable, StoreError, TournamentStore};
use theboss_ladder::tournament::{
    Entrant, Format, TournamentRecord, TournamentRefused, TournamentStatus,
};

/// By the partial index `tournaments_unfinished_by_creator`.
pub(in crate::store) const UNFINISHED_TOURNAMENTS_OF: &str =
    "SELECT COUNT(*) FROM tournaments WHERE creator_id = $1 AND status <> 'finished'";
pub(in crate::store) const INSERT_TOURNAMENT: &str = "INSERT INTO tournaments (id, name, \
     creator_id, format, players, sets_per_pair, hero_id, max_entrants, rated, turn_secs, \
     status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
const TOURNAMENT_COLUMNS: &str = "id, name, creator_id, format, players, sets_per_pair, hero_id, \
     max_entrants, rated, turn_secs, status, created_at, started_at, finished_at";
/// By the primary key.
pub(in crate::store) const TOURNAMENT_BY_ID: &str = "SELECT id, name, creator_id, format, players, \
     sets_per_pair, hero_id, max_entrants, rated, turn_secs, status, created_at, started_at, \
     finished_at FROM tournaments WHERE id = $1";
/// By the primary key of `tournament_entrants`, each player by its key (one by one).
pub(in crate::store) const ENTRANTS_OF: &str = "SELECT e.player_id, \
     (SELECT p.display_name FROM players p WHERE p.id = e.player_id), \
     (SELECT p.is_bot FROM players p WHERE p.id = e.player_id), \
     (SELECT p.description FROM players p WHERE p.id = e.player_id) \
     FROM tournament_entrants e WHERE e.tournament_id = $1 ORDER BY e.entered_at, e.player_id";
pub(in crate::store) const INSERT_ENTRANT: &str = "INSERT INTO tournament_entrants \
     (tournament_id, player_id, entered_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
/// By the primary key.
pub(in crate::store) const DELETE_ENTRANT: &str =
    "DELETE FROM tournament_entrants WHERE tournament_id = $1 AND player_id = $2";
/// By the primary key.
pub(in crate::store) const START_TOURNAMENT: &str =
    "UPDATE tournaments SET status = 'running', started_at = $1 WHERE id = $2";
/// By the primary key.
pub(in crate::store) const FINISH_TOURNAMENT: &str = "UPDATE tournaments SET status = 'finished', \
     finished_at = $1 WHERE id = $2 AND status = 'running'";
/// By the index `tournaments_running`.
pub(in crate::store) const RUNNING_TOURNAMENTS: &str =
    "SELECT id FROM tournaments WHERE status = 'running' ORDER BY created_at";
/// By the index `arranged_games_by_origin`, each game by its key.
pub(in crate::store) const TOURNAMENT_GAMES: &str = "SELECT g.id, g.series_id, g.series_index, \
     g.status, g.money, g.acted FROM arranged_games a JOIN games g ON g.id = a.game_id \
     WHERE a.arranged_by = $1 ORDER BY g.series_id, g.series_index";
/// A newest-first page of tournaments, of one status or all.
pub(in crate::store) fn list_sql(by_status: bool) -> String {
    if by_status {
        format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2"
        )
    } else {
        format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments ORDER BY created_at DESC, id DESC \
             LIMIT $1"
        )
    }
}

type TournamentRow = (
    String,
    String,
    String,
    String,
    i64,
    i64,
    Option<String>,
    i64,
    bool,
    i64,
    String,
    i64,
    Option<i64>,
    Option<i64>,
);

fn tournament_from_row(row: TournamentRow) -> Result<TournamentRecord, StoreError> {
    let (
        id,
        name,
        creator_id,
        format,
        players,
        sets_per_pair,
        hero_id,
        max_entrants,
        rated,
        turn_secs,
        status,
        created_at,
        started_at,
        finished_at,
    ) = row;
    Ok(TournamentRecord {
        id,
        name,
        creator_id,
        format: rows::parsed(Format::parse(&format), "tournament format", &format)?,
        players: rows::small(players, "tournament players")?,
        sets_per_pair: rows::small(sets_per_pair, "sets per pair")?,
        hero_id,
        max_entrants: rows::small(max_entrants, "max entrants")?,
        rated,
        turn_secs: u32::try_from(turn_secs).map_err(|_| rows::corrupt("turn seconds"))?,
        status: rows::parsed(
            TournamentStatus::parse(&status),
            "tournament status",
            &status,
        )?,
        created_at,
        started_at,
        finished_at,
        entrants: Vec::new(),
    })
}

sql_store! {
    impl {
        /// Reads a tournament with its entrants on `conn` (locked with `lock` appended).
        async fn read_tournament(
            conn: &mut DB::Connection,
            tournament_id: &str,
            lock: &str,
        ) -> Result<Option<TournamentRecord>, StoreError> {
            let sql = format!("{TOURNAMENT_BY_ID}{lock}");
            let row: Option<TournamentRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(tournament_id)
                .fetch_optional(&mut *conn)
                .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let mut tournament = tournament_from_row(row)?;
            tournament.entrants = Self::entrants(conn, tournament_id).await?;
            Ok(Some(tournament))
        }

        async fn entrants(
            conn: &mut DB::Connection,
            tournament_id: &str,
        ) -> Result<Vec<Entrant>, StoreError> {
            let found: Vec<(String, String, bool, String)> = sqlx::query_as(ENTRANTS_OF)
                .bind(tournament_id)
                .fetch_all(&mut *conn)
                .await?;
            Ok(found
                .into_iter()
                .map(|(id, display_name, is_bot, description)| Entrant {
                    player: PlayerInfo {
                        id,
                        display_name,
                        is_bot,
                    },
                    description,
                })
                .collect())
        }
    }
}

sql_store! {
    impl TournamentStore {
        async fn create_tournament(
            &self,
            t: &TournamentRecord,
            max_unfinished: u32,
        ) -> Result<bool, StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            let locked = format!("{}{}", super::challenges::PLAYER_POLICY, DB::LOCK_ROW);
            let _me: Option<(String, String, bool, String)> =
                sqlx::query_as(sqlx::AssertSqlSafe(locked))
                    .bind(t.creator_id.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
            let (unfinished,): (i64,) = sqlx::query_as(UNFINISHED_TOURNAMENTS_OF)
                .bind(t.creator_id.as_str())
                .fetch_one(&mut *tx)
                .await?;
            if unfinished >= i64::from(max_unfinished) {
                return Ok(false);
            }
            sqlx::query(INSERT_TOURNAMENT)
                .bind(t.id.as_str())
                .bind(t.name.as_str())
                .bind(t.creator_id.as_str())
                .bind(t.format.as_str())
                .bind(i64::from(t.players))
                .bind(i64::from(t.sets_per_pair))
                .bind(t.hero_id.as_deref())
                .bind(i64::from(t.max_entrants))
                .bind(t.rated)
                .bind(i64::from(t.turn_secs))
                .bind(t.status.as_str())
                .bind(t.created_at)
                .execute(&mut *tx)
                .await?;
            for entrant in &t.entrants {
                sqlx::query(INSERT_ENTRANT)
                    .bind(t.id.as_str())
                    .bind(entrant.player.id.as_str())
                    .bind(t.created_at)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(true)
        }

        async fn tournament(
            &self,
            tournament_id: &str,
        ) -> Result<Option<TournamentRecord>, StoreError> {
            let mut conn = self.side.acquire().await?;
            Self::read_tournament(&mut conn, tournament_id, "").await
        }

        async fn enter_tournament(
            &self,
            tournament_id: &str,
            player_id: &str,
            entering: bool,
            now: i64,
        ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            let Some(t) = Self::read_tournament(&mut tx, tournament_id, DB::LOCK_ROW).await? else {
                return Ok(None);
            };
            let already = t.entrants.iter().any(|e| e.player.id == player_id);
            if already == entering {
                // Nothing to change, whatever the tournament's state.
                return Ok(Some(Ok(t)));
            }
            if let Err(refused) = theboss_ladder::tournament::check_entry(&t, entering) {
                return Ok(Some(Err(refused)));
            }
            let statement = if entering {
                INSERT_ENTRANT
            } else {
                DELETE_ENTRANT
            };
            let mut query = sqlx::query(statement).bind(tournament_id).bind(player_id);
            if entering {
                query = query.bind(now);
            }
            query.execute(&mut *tx).await?;
            let entrants = Self::entrants(&mut tx, tournament_id).await?;
            tx.commit().await?;
            Ok(Some(Ok(TournamentRecord { entrants, ..t })))
        }

        async fn start_tournament(
            &self,
            tournament_id: &str,
            player_id: &str,
            now: i64,
        ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            let Some(t) = Self::read_tournament(&mut tx, tournament_id, DB::LOCK_ROW).await? else {
                return Ok(None);
            };
            if let Err(refused) = theboss_ladder::tournament::check_start(&t, player_id) {
                return Ok(Some(Err(refused)));
            }
            sqlx::query(START_TOURNAMENT)
                .bind(now)
                .bind(tournament_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Some(Ok(TournamentRecord {
                status: TournamentStatus::Running,
                started_at: Some(now),
                ..t
            })))
        }

        async fn list_tournaments(
            &self,
            status: Option<TournamentStatus>,
            limit: u32,
        ) -> Result<Vec<TournamentRecord>, StoreError> {
            let mut conn = self.side.acquire().await?;
            let sql = list_sql(status.is_some());
            let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
            if let Some(status) = status {
                query = query.bind(status.as_str());
            }
            let found: Vec<TournamentRow> =
                query.bind(i64::from(limit)).fetch_all(&mut *conn).await?;
            let mut tournaments = Vec::with_capacity(found.len());
            for row in found {
                let mut t = tournament_from_row(row)?;
                t.entrants = Self::entrants(&mut conn, &t.id).await?;
                tournaments.push(t);
            }
            Ok(tournaments)
        }

        async fn running_tournaments(&self) -> Result<Vec<String>, StoreError> {
            let found: Vec<(String,)> = sqlx::query_as(RUNNING_TOURNAMENTS)
                .fetch_all(&self.side)
                .await?;
            Ok(found.into_iter().map(|(id,)| id).collect())
        }

        async fn tournament_tables(
            &self,
            tournament_id: &str,
        ) -> Result<Vec<ArrangedTable>, StoreError> {
            let mut conn = self.side.acquire().await?;
            type Row = (String, Option<String>, Option<i64>, String, String, String);
            let games: Vec<Row> = sqlx::query_as(TOURNAMENT_GAMES)
                .bind(tournament_id)
                .fetch_all(&mut *conn)
                .await?;
            let seats: Vec<(String, i64, String, String, bool)> = if games.is_empty() {
                Vec::new()
            } else {
                let ids: Vec<&str> = games.iter().map(|g| g.0.as_str()).collect();
                let mut sql = super::listing::seats_of::<DB>(&ids);
                sql.push(" ORDER BY s.game_id, s.seat");
                sql.build_query_as().fetch_all(&mut *conn).await?
            };
            let mut by_game: std::collections::HashMap<&str, Vec<String>> =
                std::collections::HashMap::new();
            for (game_id, _, player_id, ..) in &seats {
                by_game
                    .entry(game_id.as_str())
                    .or_default()
                    .push(player_id.clone());
            }
            games
                .into_iter()
                .map(|(game_id, series_id, index, status, money, acted)| {
                    Ok(ArrangedTable {
                        series_id,
                        series_index: rows::small(index.unwrap_or(0), "series index")?,
                        table: SetTable {
                            players: by_game.get(game_id.as_str()).cloned().unwrap_or_default(),
                            status: rows::parsed(GameStatus::parse(&status), "status", &status)?
                                .into(),
                            money: rows::money_from_text(&money)?,
                            acted: rows::acted_from_text(&acted)?,
                            game_id,
                        },
                    })
                })
                .collect()
        }

        async fn finish_tournament(&self, tournament_id: &str, now: i64) -> Result<(), StoreError> {
            sqlx::query(FINISH_TOURNAMENT)
                .bind(now)
                .bind(tournament_id)
                .execute(&self.side)
                .await?;
            Ok(())
        }
    }
}
