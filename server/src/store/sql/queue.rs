//! The ladder's queue, shared by every replica: requests (checked against what their player
//! may play at once, atomically), the queue the matchmaker reads, answers, and the unfinished
//! ladder games a player sits in.

use super::rows::{self, PlayerRow};
use super::sql_store;
use crate::domain::{LadderMatch, PlayerInfo, QueueEntry, SeriesRef};
use crate::store::{Enqueued, LadderSeat, LadderStore, StoreError};

pub(in crate::store) const ENQUEUE_LADDER: &str = "INSERT INTO ladder_queue (id, player_id, display_name, is_bot, \
     players, duplicate, parallel, replica_id, enqueued_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
/// By the index `ladder_queue_by_player`.
pub(in crate::store) const WAITING_OF: &str =
    "SELECT COUNT(*) FROM ladder_queue WHERE player_id = $1 AND NOT matched";
/// By the index `ladder_queue_by_time`; the player's name is kept with the request.
pub(in crate::store) const LADDER_QUEUE: &str = "SELECT id, player_id, display_name, is_bot, players, duplicate, \
     parallel, replica_id, enqueued_at FROM ladder_queue WHERE NOT matched \
     ORDER BY enqueued_at, id";
/// By the partial index `seats_live_by_player`, then each game by its key.
pub(in crate::store) const LADDER_GAMES_OF: &str = "SELECT g.id, s.seat, g.players, g.series_id, g.series_index, \
     g.series_tables FROM seats s JOIN games g ON g.id = s.game_id \
     WHERE s.player_id = $1 AND NOT s.game_over AND g.ladder AND g.status IN ('open', 'running') \
     ORDER BY g.ord";
pub(in crate::store) const MARK_LADDER_ANSWERED: &str =
    "UPDATE ladder_queue SET matched = TRUE WHERE id = $1 AND NOT matched";
pub(in crate::store) const INSERT_LADDER_MATCH: &str = "INSERT INTO ladder_matches \
     (entry_id, game_id, seat, players, already_seated, series_id, series_index, series_tables) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
pub(in crate::store) const FORGET_LADDER_ENTRY: &str = "DELETE FROM ladder_queue WHERE id = $1";
pub(in crate::store) const CANCEL_LADDER: &str =
    "DELETE FROM ladder_queue WHERE player_id = $1 AND NOT matched RETURNING id";

type MatchRow = (
    String,
    String,
    i64,
    i64,
    bool,
    Option<String>,
    Option<i64>,
    i64,
);

sql_store! {
    impl LadderStore {
        async fn ladder_games_of(&self, player_id: &str) -> Result<Vec<LadderSeat>, StoreError> {
            Self::seated_in_ladder_games(&self.side, player_id).await
        }

        async fn enqueue_ladder(&self, entry: &QueueEntry) -> Result<Enqueued, StoreError> {
            // Read first, without a lock: a request refused (the common case under a flood)
            // costs reads only, never the write lock the games' commits need.
            if let Some(refused) =
                Self::check_limit(&mut *self.side.acquire().await?, entry).await?
            {
                return Ok(refused);
            }
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            // The player's row, locked: its concurrent requests wait for this one's count.
            let locked = format!("{}{}", super::players::PLAYER_BY_ID, DB::LOCK_ROW);
            let _player: Option<PlayerRow> = sqlx::query_as(sqlx::AssertSqlSafe(locked))
                .bind(entry.player.id.as_str())
                .fetch_optional(&mut *tx)
                .await?;
            // Again, locked: two requests of one player at once are counted one after the other.
            if let Some(refused) = Self::check_limit(&mut *tx, entry).await? {
                return Ok(refused);
            }
            sqlx::query(ENQUEUE_LADDER)
                .bind(entry.id.as_str())
                .bind(entry.player.id.as_str())
                .bind(entry.player.display_name.as_str())
                .bind(entry.player.is_bot)
                .bind(i64::from(entry.players.unwrap_or(0)))
                .bind(entry.duplicate)
                .bind(i64::from(entry.parallel))
                .bind(entry.replica.as_str())
                .bind(entry.enqueued_at)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Enqueued::Queued)
        }

        async fn ladder_queue(&self) -> Result<Vec<QueueEntry>, StoreError> {
            type Row = (String, String, String, bool, i64, bool, i64, String, i64);
            let found: Vec<Row> = sqlx::query_as(LADDER_QUEUE).fetch_all(&self.side).await?;
            found
                .into_iter()
                .map(
                    |(
                        id,
                        player_id,
                        display_name,
                        is_bot,
                        players,
                        duplicate,
                        parallel,
                        replica,
                        at,
                    )| {
                        Ok(QueueEntry {
                            id,
                            player: PlayerInfo {
                                id: player_id,
                                display_name,
                                is_bot,
                            },
                            players: match players {
                                0 => None,
                                n => Some(rows::small(n, "ladder players")?),
                            },
                            duplicate,
                            parallel: rows::small(parallel, "ladder parallel")?,
                            replica,
                            enqueued_at: at,
                        })
                    },
                )
                .collect()
        }

        async fn answer_ladder(
            &self,
            answers: &[(String, Vec<LadderMatch>)],
        ) -> Result<(), StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            for (entry_id, matches) in answers {
                let marked = sqlx::query(MARK_LADDER_ANSWERED)
                    .bind(entry_id.as_str())
                    .execute(&mut *tx)
                    .await?;
                if DB::rows_affected(&marked) == 0 {
                    continue;
                }
                for m in matches {
                    sqlx::query(INSERT_LADDER_MATCH)
                        .bind(entry_id.as_str())
                        .bind(m.game_id.as_str())
                        .bind(i64::from(m.seat))
                        .bind(i64::from(m.players))
                        .bind(m.already_seated)
                        .bind(m.series.as_ref().map(|s| s.id.as_str()))
                        .bind(m.series.as_ref().map(|s| i64::from(s.index)))
                        .bind(m.series.as_ref().map_or(0, |s| i64::from(s.tables)))
                        .execute(&mut *tx)
                        .await?;
                }
            }
            tx.commit().await?;
            Ok(())
        }

        async fn ladder_answers(
            &self,
            entry_ids: &[String],
        ) -> Result<Vec<(String, Option<Vec<LadderMatch>>)>, StoreError> {
            if entry_ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut sql =
                sqlx::QueryBuilder::<DB>::new("SELECT id, matched FROM ladder_queue WHERE id IN (");
            let mut list = sql.separated(", ");
            for id in entry_ids {
                list.push_bind(id.as_str());
            }
            sql.push(")");
            let entries: Vec<(String, bool)> = sql.build_query_as().fetch_all(&self.side).await?;
            let answered: Vec<&String> = entries
                .iter()
                .filter(|(_, matched)| *matched)
                .map(|(id, _)| id)
                .collect();
            let mut matches: Vec<MatchRow> = Vec::new();
            if !answered.is_empty() {
                let mut sql = sqlx::QueryBuilder::<DB>::new(
                    "SELECT entry_id, game_id, seat, players, already_seated, series_id, \
                         series_index, series_tables FROM ladder_matches WHERE entry_id IN (",
                );
                let mut list = sql.separated(", ");
                for id in &answered {
                    list.push_bind(id.as_str());
                }
                sql.push(") ORDER BY entry_id, seat, game_id");
                matches = sql.build_query_as().fetch_all(&self.side).await?;
            }
            entry_ids
                .iter()
                .map(|id| {
                    let answer = match entries.iter().find(|(e, _)| e == id) {
                        None => None,
                        Some((_, false)) => Some(Vec::new()),
                        Some((_, true)) => Some(
                            matches
                                .iter()
                                .filter(|m| m.0 == *id)
                                .map(|m| match_from_row(m.clone()))
                                .collect::<Result<Vec<_>, _>>()?,
                        ),
                    };
                    Ok((id.clone(), answer))
                })
                .collect()
        }

        async fn forget_ladder_entry(&self, entry_id: &str) -> Result<(), StoreError> {
            sqlx::query(FORGET_LADDER_ENTRY)
                .bind(entry_id)
                .execute(&self.side)
                .await?;
            Ok(())
        }

        async fn cancel_ladder(&self, player_id: &str) -> Result<Vec<String>, StoreError> {
            let withdrawn: Vec<(String,)> = sqlx::query_as(CANCEL_LADDER)
                .bind(player_id)
                .fetch_all(&self.side)
                .await?;
            Ok(withdrawn.into_iter().map(|(id,)| id).collect())
        }

        async fn purge_ladder(&self, alive: &[String]) -> Result<u64, StoreError> {
            let mut sql = sqlx::QueryBuilder::<DB>::new("DELETE FROM ladder_queue");
            if !alive.is_empty() {
                sql.push(" WHERE replica_id NOT IN (");
                let mut list = sql.separated(", ");
                for id in alive {
                    list.push_bind(id.as_str());
                }
                sql.push(")");
            }
            let done = sql.build().execute(&self.side).await?;
            Ok(DB::rows_affected(&done))
        }
    }
}

pub(super) fn series(
    id: Option<String>,
    index: Option<i64>,
    tables: i64,
) -> Result<Option<SeriesRef>, StoreError> {
    Ok(match (id, index) {
        (Some(id), Some(index)) => Some(SeriesRef {
            id,
            index: rows::small(index, "series index")?,
            tables: rows::small(tables, "series tables")?,
        }),
        _ => None,
    })
}

fn match_from_row(row: MatchRow) -> Result<LadderMatch, StoreError> {
    let (_, game_id, seat, players, already_seated, series_id, series_index, tables) = row;
    Ok(LadderMatch {
        game_id,
        seat: rows::seat_from(seat)?,
        players: rows::small(players, "players")?,
        already_seated,
        series: series(series_id, series_index, tables)?,
    })
}

sql_store! {
    impl {
        /// Why a request may not be queued, if it may not: its player already sits in as many
        /// games as it allows, or waits for them.
        async fn check_limit(
            db: &mut DB::Connection,
            entry: &QueueEntry,
        ) -> Result<Option<Enqueued>, StoreError> {
            let seated = Self::seated_in_ladder_games(&mut *db, &entry.player.id).await?;
            if seated.len() >= usize::from(entry.parallel) {
                return Ok(Some(Enqueued::Seated(seated)));
            }
            let (waiting,): (i64,) = sqlx::query_as(WAITING_OF)
                .bind(entry.player.id.as_str())
                .fetch_one(&mut *db)
                .await?;
            let seated = u32::try_from(seated.len()).unwrap_or(u32::MAX);
            let waiting = u32::try_from(waiting).unwrap_or(u32::MAX);
            Ok(
                (waiting.saturating_add(seated) >= u32::from(entry.parallel))
                    .then_some(Enqueued::AtLimit { waiting, seated }),
            )
        }

        /// The unfinished ladder games a player sits in, oldest first.
        async fn seated_in_ladder_games<'c, E>(
            db: E,
            player_id: &str,
        ) -> Result<Vec<LadderSeat>, StoreError>
        where
            E: sqlx::Executor<'c, Database = DB>,
        {
            type Row = (String, i64, i64, Option<String>, Option<i64>, i64);
            let found: Vec<Row> = sqlx::query_as(LADDER_GAMES_OF)
                .bind(player_id)
                .fetch_all(db)
                .await?;
            found
                .into_iter()
                .map(
                    |(game_id, seat, players, series_id, series_index, tables)| {
                        Ok(LadderSeat {
                            game_id,
                            seat: rows::seat_from(seat)?,
                            players: rows::small(players, "players")?,
                            series: series(series_id, series_index, tables)?,
                        })
                    },
                )
                .collect()
        }
    }
}
