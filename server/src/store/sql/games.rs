//! Games and their action logs: creating a game (within its creator's cap on games that have
//! not started), committing an action with its effects (the game's row, its seats, what it
//! rates, the notification of the other replicas), loading games, listing them (the
//! statements are `listing`'s), and the games a restart or an expiry sweep must look at.
//!
//! Most actions are turns that touch nothing but the log and the game's row: those are
//! committed in groups (see `group`); joins, leaves and actions that rate take a transaction
//! of their own.

use super::rows::{self, ActionRow, GameColumns, SeatRow};
use super::{listing, sql_store};
use crate::domain::LimitKind;
use crate::domain::{GameInfo, GameStatus};
use crate::store::group::{Append, Seating};
use crate::store::{
    AtCap, Effects, GameCursor, GameListing, GamePage, GameQuery, GameStore, PlayerCaps,
    StoreError, StoredAction, StoredGame,
};
use crate::table::Action;
use std::collections::{BTreeMap, HashMap};

/// An action's columns as its row and its game's row store them.
struct Columns {
    seq: i64,
    format: i32,
    payload: String,
    winners: String,
    money: String,
    acted: String,
}

pub(in crate::store) const INSERT_GAME: &str = "INSERT INTO games (id, players, cities, seed, turn_time_limit, \
     visibility, ladder, status, winners, created_by, created_at, series_id, series_index, \
     series_tables, rules_version, owner, seed_salt, seeded) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', '', $8, $9, $10, $11, $12, $13, $14, $15, $16)";
/// By the partial index `games_open_by_creator`.
pub(in crate::store) const OPEN_GAMES_OF: &str =
    "SELECT COUNT(*) FROM games WHERE created_by = $1 AND status = 'open'";
/// The games a player created or sits at that have not ended, but `$2`: by the partial
/// indexes `games_unfinished_by_creator` and `seats_live_by_player`.
pub(in crate::store) const UNFINISHED_GAMES_OF: &str = "SELECT COUNT(*) FROM (\
     SELECT id AS game_id FROM games \
     WHERE created_by = $1 AND status IN ('open', 'running') AND id <> $2 \
     UNION SELECT game_id FROM seats WHERE player_id = $1 AND NOT game_over AND game_id <> $2\
     ) AS mine";
/// Of those, the games with a house bot seated, each looked up by the primary key of
/// `seats` (four rows at most): a subquery per game, which no planner turns into a join
/// that would read `seats` whole.
pub(in crate::store) const HOUSE_GAMES_OF: &str = "SELECT COUNT(*) FROM (\
     SELECT id AS game_id FROM games \
     WHERE created_by = $1 AND status IN ('open', 'running') AND id <> $2 \
     UNION SELECT game_id FROM seats WHERE player_id = $1 AND NOT game_over AND game_id <> $2\
     ) AS mine WHERE (SELECT COUNT(*) FROM seats h WHERE h.game_id = mine.game_id \
     AND h.player_id LIKE 'b0550000-0000-4000-8000-0000000000%') > 0";
pub(in crate::store) const INSERT_ACTION: &str = "INSERT INTO actions \
     (game_id, seq, player_id, idempotency_key, format, payload, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7)";
/// Touches the game's row only when something kept there changes (most turns change
/// nothing: a status moves at the start and at the end, `acted` at a seat's first turn).
pub(in crate::store) const UPDATE_GAME_STATUS: &str = "UPDATE games \
     SET status = $1, winners = $2, money = $3, acted = $4 \
     WHERE id = $5 AND (status <> $1 OR winners <> $2 OR money <> $3 OR acted <> $4)";
pub(in crate::store) const INSERT_SEAT: &str =
    "INSERT INTO seats (game_id, seat, player_id) VALUES ($1, $2, $3)";
pub(in crate::store) const DELETE_SEAT: &str = "DELETE FROM seats WHERE game_id = $1 AND seat = $2";
/// The game is over: its seats no longer count among its players' live seats, and a
/// finished game's seats say when it finished (`$2`; NULL for an aborted game).
pub(in crate::store) const SEATS_OVER: &str =
    "UPDATE seats SET game_over = TRUE, finished_at = $2 WHERE game_id = $1";
/// A player's finished games, newest first, from `seats_finished_by_player`: those that
/// finished in [`$2`, `$3`) and before the cursor (`$4`, `$5`).
pub(in crate::store) const FINISHED_GAMES_OF: &str = "SELECT game_id, finished_at FROM seats \
     WHERE player_id = $1 AND finished_at IS NOT NULL AND finished_at >= $2 AND finished_at < $3 \
     AND (finished_at < $4 OR (finished_at = $4 AND game_id < $5)) \
     ORDER BY finished_at DESC, game_id DESC LIMIT $6";
/// By the primary key (game_id, seq).
pub(in crate::store) const ACTIONS_OF_GAME: &str = "SELECT seq, player_id, idempotency_key, format, payload, at \
     FROM actions WHERE game_id = $1 ORDER BY seq";
/// By the partial index `games_running_clocked`.
pub(in crate::store) const CLOCKED_GAMES: &str =
    "SELECT id FROM games WHERE status = 'running' AND turn_time_limit > 0 ORDER BY ord";
/// By the partial index `games_open_by_age`.
pub(in crate::store) const EXPIRED_OPEN_GAMES: &str = "SELECT id FROM games WHERE status = 'open' AND created_at < $1 \
     ORDER BY created_at LIMIT $2";
/// By the primary key.
pub(in crate::store) const SET_PROGRESS: &str =
    "SELECT tables, open_tables FROM series WHERE id = $1";

sql_store! {
    impl GameStore {
        async fn create_game(
            &self,
            game: &GameInfo,
            seated: &[StoredAction],
            caps: Option<&PlayerCaps>,
        ) -> Result<Result<(), AtCap>, StoreError> {
            let caps = caps.filter(|caps| caps.counted(true));
            if let Some(caps) = caps {
                // Read first, without a lock: a creation refused (the common case under a flood)
                // costs a read, never the write lock the games' commits need.
                let mut conn = self.pool.acquire().await?;
                if let Some(at_cap) = Self::at_cap(&mut conn, caps, &game.id, true).await? {
                    return Ok(Err(at_cap));
                }
            }
            let mut tx = self.pool.begin_with(DB::BEGIN_WRITE).await?;
            if let Some(caps) = caps {
                // The creator's row, locked: its creations and joins at once wait for this count.
                Self::lock_player(&mut tx, &caps.player_id).await?;
                if let Some(at_cap) = Self::at_cap(&mut tx, caps, &game.id, true).await? {
                    return Ok(Err(at_cap));
                }
            }
            Self::insert_game(&mut *tx, game, self.owner_id()).await?;
            for action in seated {
                let (format, payload) = rows::action_payload(&action.action);
                sqlx::query(INSERT_ACTION)
                    .bind(game.id.as_str())
                    .bind(
                        i64::try_from(action.seq)
                            .map_err(|_| rows::corrupt(format!("action seq {}", action.seq)))?,
                    )
                    .bind(action.player_id.as_deref())
                    .bind(action.idempotency_key.as_deref())
                    .bind(format)
                    .bind(payload.as_str())
                    .bind(action.at)
                    .execute(&mut *tx)
                    .await?;
                if let Action::Join { seat, player } = &action.action {
                    sqlx::query(INSERT_SEAT)
                        .bind(game.id.as_str())
                        .bind(i64::from(*seat))
                        .bind(player.id.as_str())
                        .execute(&mut *tx)
                        .await?;
                }
            }
            tx.commit().await?;
            Ok(Ok(()))
        }

        async fn append_action(
            &self,
            game_id: &str,
            action: &StoredAction,
            effects: &Effects,
        ) -> Result<(), StoreError> {
            let seq = i64::try_from(action.seq)
                .map_err(|_| rows::corrupt(format!("action seq {}", action.seq)))?;
            let (format, payload) = rows::action_payload(&action.action);
            let winners = rows::numbers_to_text(effects.winners.iter().copied());
            let money = rows::money_to_text(&effects.money);
            let acted = rows::acted_to_text(&effects.acted);
            // A rated result reads and writes ratings: it takes a transaction of its own. So do a
            // seat under a cap (counted with the player's row locked) and a leave that ends its
            // game (one statement would both free and mark its seats). Every other action is
            // written with its neighbours' (`group`).
            let capped = effects.caps.as_ref().is_some_and(|caps| caps.counted(false));
            let over = effects.status.is_over();
            let seating = match &action.action {
                Action::Join { seat, player } if !over => Some(Seating::Takes {
                    seat: i64::from(*seat),
                    player_id: player.id.clone(),
                }),
                Action::Leave { seat } if !over => Some(Seating::Leaves {
                    seat: i64::from(*seat),
                }),
                Action::Join { .. } | Action::Leave { .. } => None,
                _ if over => Some(Seating::Over {
                    finished_at: (effects.status == GameStatus::Finished).then_some(action.at),
                }),
                _ => Some(Seating::Unchanged),
            };
            if let Some(seating) =
                seating.filter(|_| effects.rating.is_none() && !capped)
            {
                return self
                    .group
                    .append(Append {
                        game_id: game_id.to_string(),
                        seq,
                        player_id: action.player_id.clone(),
                        idempotency_key: action.idempotency_key.clone(),
                        format,
                        payload,
                        at: action.at,
                        status: effects.status.as_str(),
                        winners,
                        money,
                        acted,
                        row_unchanged: effects.row_unchanged,
                        seating,
                    })
                    .await;
            }
            let columns = Columns {
                seq,
                format,
                payload,
                winners,
                money,
                acted,
            };
            // Boxed: its statements' futures would otherwise make every append's future as
            // large as theirs, and that future is moved whole on each call (counted under
            // callgrind: the copy was a third of an append's instructions).
            Box::pin(self.append_alone(game_id, action, effects, &columns)).await
        }

        async fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
            let sql = format!("SELECT {} FROM games g WHERE g.id = $1", rows::GAME_COLUMNS);
            let row = sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(game_id)
                .fetch_optional(&self.pool)
                .await?;
            let Some(row) = row else { return Ok(None) };
            let (record, _, _) = rows::game_from_row(GameColumns::read(&row)?)?;
            let actions: Vec<ActionRow> = sqlx::query_as(ACTIONS_OF_GAME)
                .bind(game_id)
                .fetch_all(&self.pool)
                .await?;
            let actions = actions
                .into_iter()
                .map(|row| rows::action_from_row(game_id, row))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some(StoredGame { record, actions }))
        }

        async fn load_games(
            &self,
            game_ids: &[String],
        ) -> Result<Vec<(String, Result<StoredGame, StoreError>)>, StoreError> {
            if game_ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut sql = sqlx::QueryBuilder::<DB>::new(format!(
                "SELECT {} FROM games g WHERE g.id IN (",
                rows::GAME_COLUMNS
            ));
            let mut list = sql.separated(", ");
            for id in game_ids {
                list.push_bind(id.as_str());
            }
            sql.push(")");
            let games = sql.build().fetch_all(&self.pool).await?;
            let mut sql = sqlx::QueryBuilder::<DB>::new(
                "SELECT game_id, seq, player_id, idempotency_key, format, payload, at \
                     FROM actions WHERE game_id IN (",
            );
            let mut list = sql.separated(", ");
            for id in game_ids {
                list.push_bind(id.as_str());
            }
            sql.push(") ORDER BY game_id, seq");
            let actions: Vec<(
                String,
                i64,
                Option<String>,
                Option<String>,
                i32,
                String,
                i64,
            )> = sql.build_query_as().fetch_all(&self.pool).await?;
            let mut logs: HashMap<String, Vec<ActionRow>> = HashMap::new();
            for (game_id, seq, player_id, key, format, payload, at) in actions {
                logs.entry(game_id)
                    .or_default()
                    .push((seq, player_id, key, format, payload, at));
            }
            let mut records = HashMap::new();
            for row in games {
                let record =
                    rows::game_from_row(GameColumns::read(&row)?).map(|(record, _, _)| record);
                let id = match &record {
                    Ok(record) => record.id.clone(),
                    Err(_) => sqlx::Row::try_get::<String, _>(&row, 0)?,
                };
                records.insert(id, record);
            }
            Ok(game_ids
                .iter()
                .map(|id| {
                    let game = match records.remove(id) {
                        None => Err(rows::corrupt(format!("game {id} vanished"))),
                        Some(Err(e)) => Err(e),
                        Some(Ok(record)) => logs
                            .remove(id)
                            .unwrap_or_default()
                            .into_iter()
                            .map(|row| rows::action_from_row(id, row))
                            .collect::<Result<Vec<_>, _>>()
                            .map(|actions| StoredGame { record, actions }),
                    };
                    (id.clone(), game)
                })
                .collect())
        }

        async fn import_games(&self, games: &[(StoredGame, Effects)]) -> Result<(), StoreError> {
            let mut tx = self.pool.begin_with(DB::BEGIN_WRITE).await?;
            for (stored, effects) in games {
                let game = &stored.record;
                Self::insert_game(&mut *tx, game, self.owner_id()).await?;
                let mut seats = BTreeMap::new();
                for action in &stored.actions {
                    let seq = i64::try_from(action.seq)
                        .map_err(|_| rows::corrupt(format!("action seq {}", action.seq)))?;
                    let (format, payload) = rows::action_payload(&action.action);
                    sqlx::query(INSERT_ACTION)
                        .bind(game.id.as_str())
                        .bind(seq)
                        .bind(action.player_id.as_deref())
                        .bind(action.idempotency_key.as_deref())
                        .bind(format)
                        .bind(payload.as_str())
                        .bind(action.at)
                        .execute(&mut *tx)
                        .await?;
                    match &action.action {
                        Action::Join { seat, player } => {
                            seats.insert(*seat, player.id.clone());
                        }
                        Action::Leave { seat } => {
                            seats.remove(seat);
                        }
                        _ => {}
                    }
                }
                for (seat, player_id) in seats {
                    sqlx::query(INSERT_SEAT)
                        .bind(game.id.as_str())
                        .bind(i64::from(seat))
                        .bind(player_id.as_str())
                        .execute(&mut *tx)
                        .await?;
                }
                Self::update_status(
                    &mut *tx,
                    &game.id,
                    effects.status,
                    &rows::numbers_to_text(effects.winners.iter().copied()),
                    &rows::money_to_text(&effects.money),
                    &rows::acted_to_text(&effects.acted),
                )
                .await?;
                if effects.status.is_over() {
                    let finished_at = stored.actions.iter().map(|a| a.at).max();
                    sqlx::query(SEATS_OVER)
                        .bind(game.id.as_str())
                        .bind(finished_at.filter(|_| effects.status == GameStatus::Finished))
                        .execute(&mut *tx)
                        .await?;
                }
            }
            tx.commit().await?;
            Ok(())
        }

        async fn finished_games_of(
            &self,
            player_id: &str,
            window: (i64, i64),
            cursor: Option<(i64, String)>,
            limit: u32,
        ) -> Result<Vec<(String, i64)>, StoreError> {
            // No cursor: no game finished at the end of time, so no id is compared.
            let (at, id) = cursor.unwrap_or((i64::MAX, String::new()));
            Ok(sqlx::query_as(FINISHED_GAMES_OF)
                .bind(player_id)
                .bind(window.0)
                .bind(window.1)
                .bind(at)
                .bind(id.as_str())
                .bind(i64::from(limit))
                .fetch_all(&self.side)
                .await?)
        }

        async fn clocked_games(&self) -> Result<Vec<String>, StoreError> {
            let ids: Vec<(String,)> = sqlx::query_as(CLOCKED_GAMES).fetch_all(&self.pool).await?;
            Ok(ids.into_iter().map(|(id,)| id).collect())
        }

        async fn expired_open_games(
            &self,
            before: i64,
            limit: u32,
        ) -> Result<Vec<String>, StoreError> {
            let ids: Vec<(String,)> = sqlx::query_as(EXPIRED_OPEN_GAMES)
                .bind(before)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
            Ok(ids.into_iter().map(|(id,)| id).collect())
        }

        async fn list_games(&self, query: &GameQuery) -> Result<GamePage, StoreError> {
            let found = listing::listing::<DB>(query)
                .build()
                .fetch_all(&self.side)
                .await?;
            let more = found.len() > query.limit as usize;
            let mut listings = Vec::with_capacity(found.len());
            let mut last = None;
            for row in found.iter().take(query.limit as usize) {
                let (record, status, winners) = rows::game_from_row(GameColumns::read(row)?)?;
                last = Some(GameCursor {
                    created_at: record.created_at,
                    id: record.id.clone(),
                });
                listings.push(GameListing {
                    record,
                    status,
                    seats: Vec::new(),
                    winners,
                });
            }
            if !listings.is_empty() {
                let ids: Vec<&str> = listings.iter().map(|l| l.record.id.as_str()).collect();
                let seats: Vec<SeatRow> = listing::seats_of::<DB>(&ids)
                    .build_query_as()
                    .fetch_all(&self.side)
                    .await?;
                rows::seat_listings(&mut listings, seats)?;
            }
            Ok(GamePage {
                games: listings,
                next: if more { last } else { None },
            })
        }

        async fn set_over(&self, series_id: &str) -> Result<bool, StoreError> {
            let progress: Option<(i64, i64)> = sqlx::query_as(SET_PROGRESS)
                .bind(series_id)
                .fetch_optional(&self.side)
                .await?;
            Ok(progress.is_none_or(|(tables, open)| tables < 2 || open == 0))
        }
    }
}

sql_store! {
    impl {
        /// Appends an action in a transaction of its own: whatever `append_action` does not
        /// hand to the group commit (a join under caps, a rated result, a join or a leave
        /// that ends its game).
        async fn append_alone(
            &self,
            game_id: &str,
            action: &StoredAction,
            effects: &Effects,
            columns: &Columns,
        ) -> Result<(), StoreError> {
            let mut tx = self.pool.begin_with(DB::BEGIN_WRITE).await?;
            if let (Some(fence), Some(me)) = (DB::FENCE_GAME, self.owner_id()) {
                let owned: Option<(i32,)> = sqlx::query_as(fence)
                    .bind(game_id)
                    .bind(me)
                    .fetch_optional(&mut *tx)
                    .await?;
                if owned.is_none() {
                    return Err(StoreError::NotOwner {
                        game_id: game_id.to_string(),
                    });
                }
            }
            if let Some(caps) = effects.caps.as_ref().filter(|caps| caps.counted(false)) {
                Self::lock_player(&mut tx, &caps.player_id).await?;
                if let Some(at_cap) = Self::at_cap(&mut tx, caps, game_id, false).await? {
                    return Err(StoreError::AtCap(at_cap));
                }
            }
            // The action's row, bound to the statement that inserts it, or to the one that
            // tells the other replicas of it.
            let action_row = |sql: &'static str| {
                sqlx::query(sql)
                    .bind(game_id)
                    .bind(columns.seq)
                    .bind(action.player_id.as_deref())
                    .bind(action.idempotency_key.as_deref())
                    .bind(columns.format)
                    .bind(columns.payload.as_str())
                    .bind(action.at)
            };
            let inserted = action_row(INSERT_ACTION).execute(&mut *tx).await;
            match inserted {
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                    return Err(StoreError::Conflict {
                        game_id: game_id.to_string(),
                        seq: action.seq,
                    });
                }
                other => other?,
            };
            match &action.action {
                Action::Join { seat, player } => {
                    sqlx::query(INSERT_SEAT)
                        .bind(game_id)
                        .bind(i64::from(*seat))
                        .bind(player.id.as_str())
                        .execute(&mut *tx)
                        .await?;
                }
                Action::Leave { seat } => {
                    sqlx::query(DELETE_SEAT)
                        .bind(game_id)
                        .bind(i64::from(*seat))
                        .execute(&mut *tx)
                        .await?;
                }
                _ => {}
            }
            Self::update_status(
                &mut *tx,
                game_id,
                effects.status,
                &columns.winners,
                &columns.money,
                &columns.acted,
            )
            .await?;
            if effects.status.is_over() {
                sqlx::query(SEATS_OVER)
                    .bind(game_id)
                    .bind((effects.status == GameStatus::Finished).then_some(action.at))
                    .execute(&mut *tx)
                    .await?;
            }
            if let Some(job) = &effects.rating {
                Self::rate_in(&mut *tx, job, action.at).await?;
            }
            if let (Some(notify), Some(me)) = (DB::NOTIFY_ACTION, self.owner_id()) {
                action_row(notify).bind(me).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(())
        }

        /// Locks a player's row until the transaction ends: its calls that add games or seats wait
        /// for each other's counts.
        async fn lock_player(
            tx: &mut sqlx::Transaction<'_, DB>,
            player_id: &str,
        ) -> Result<(), StoreError> {
            let locked = sqlx::AssertSqlSafe(format!(
                "SELECT id FROM players WHERE id = $1{}",
                DB::LOCK_ROW
            ));
            let _: Option<(String,)> = sqlx::query_as(locked)
                .bind(player_id)
                .fetch_optional(&mut **tx)
                .await?;
            Ok(())
        }

        /// The first cap of `caps` that one more game (`game_id`, new if `creating`) would pass.
        async fn at_cap(
            db: &mut DB::Connection,
            caps: &PlayerCaps,
            game_id: &str,
            creating: bool,
        ) -> Result<Option<AtCap>, StoreError> {
            let player = caps.player_id.as_str();
            let at = |kind, limit| Some(AtCap { kind, limit });
            if creating && caps.open > 0 {
                let (n,): (i64,) = sqlx::query_as(OPEN_GAMES_OF)
                    .bind(player)
                    .fetch_one(&mut *db)
                    .await?;
                if n >= i64::from(caps.open) {
                    return Ok(at(LimitKind::OpenGames, caps.open));
                }
            }
            for (sql, cap, kind) in [
                (
                    UNFINISHED_GAMES_OF,
                    caps.unfinished,
                    LimitKind::UnfinishedGames,
                ),
                (HOUSE_GAMES_OF, caps.house, LimitKind::HouseGames),
            ] {
                if cap == 0 {
                    continue;
                }
                let (n,): (i64,) = sqlx::query_as(sql)
                    .bind(player)
                    .bind(game_id)
                    .fetch_one(&mut *db)
                    .await?;
                if n >= i64::from(cap) {
                    return Ok(at(kind, cap));
                }
            }
            Ok(None)
        }

        /// Records a new game (owned by replica `owner`, if this store is one of several).
        async fn insert_game<'c, E>(
            db: E,
            game: &GameInfo,
            owner: Option<&str>,
        ) -> Result<(), StoreError>
        where
            E: sqlx::Executor<'c, Database = DB>,
        {
            sqlx::query(INSERT_GAME)
                .bind(game.id.as_str())
                .bind(i64::from(game.settings.players()))
                .bind(rows::cities_to_text(game.settings.cities()))
                .bind(rows::seed_to_column(game.seed))
                .bind(i64::from(game.settings.turn_time_limit_secs()))
                .bind(game.settings.visibility().as_str())
                .bind(game.ladder)
                .bind(game.created_by.as_str())
                .bind(game.created_at)
                .bind(game.series.as_ref().map(|s| s.id.as_str()))
                .bind(game.series.as_ref().map(|s| i64::from(s.index)))
                .bind(game.series.as_ref().map_or(0, |s| i64::from(s.tables)))
                .bind(i64::from(game.settings.rules().number()))
                .bind(owner)
                .bind(game.seed_salt.as_deref())
                .bind(game.seeded)
                .execute(db)
                .await?;
            Ok(())
        }

        /// Writes a game's derived status, winners, money and seats that acted, if they changed.
        async fn update_status<'c, E>(
            db: E,
            game_id: &str,
            status: GameStatus,
            winners: &str,
            money: &str,
            acted: &str,
        ) -> Result<(), StoreError>
        where
            E: sqlx::Executor<'c, Database = DB>,
        {
            sqlx::query(UPDATE_GAME_STATUS)
                .bind(status.as_str())
                .bind(winners)
                .bind(money)
                .bind(acted)
                .bind(game_id)
                .execute(db)
                .await?;
            Ok(())
        }
    }
}
