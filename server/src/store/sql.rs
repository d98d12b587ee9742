//! The one implementation of [`Store`](super::Store) both SQL backends share: the
//! [`sql_store!`] macro, expanded for `SqlitePool` and `PgPool`, runs the same statements
//! (`queries`) and decodes the same rows (`rows`). A backend brings its pool, its migrations,
//! its group commit (`group`: how a group of simple appends is written) and two constants:
//! how a writing transaction begins, and how a row read for writing back is locked.

/// Implements [`Store`](super::Store) for a struct with a `pool` field of the given
/// database, a `group` field (its [`GroupCommit`](super::group::GroupCommit)) and the
/// constants `BEGIN_WRITE` and `LOCK_ROW`.
macro_rules! sql_store {
    ($store:ty, $db:ty) => {
        impl $store {
            /// The statement that records a new game (owned by this replica, if it is one).
            fn insert_game<'q>(
                &self,
                game: &'q $crate::domain::GameRecord,
            ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments> {
                sqlx::query(queries::INSERT_GAME)
                    .bind(&game.id)
                    .bind(i64::from(game.settings.players()))
                    .bind(rows::cities_to_text(&game.settings.cities()))
                    .bind(rows::seed_to_column(game.seed))
                    .bind(i64::from(game.settings.turn_time_limit_secs()))
                    .bind(game.settings.visibility().as_str())
                    .bind(game.ladder)
                    .bind($crate::domain::Status::Open.as_str())
                    .bind(&game.created_by)
                    .bind(game.created_at)
                    .bind(game.series.as_ref().map(|s| s.id.clone()))
                    .bind(game.series.as_ref().map(|s| i64::from(s.index)))
                    .bind(i64::from(game.settings.rules().number()))
                    .bind(self.owner_id())
                    .bind(&game.seed_salt)
            }
        }

        #[async_trait::async_trait]
        impl $crate::store::Store for $store {
            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "create_player", player = %new.player.id))]
            async fn create_player(
                &self,
                new: &$crate::store::NewPlayer,
            ) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("create_player", async move {
                    sqlx::query(queries::INSERT_PLAYER)
                        .bind(&new.player.id)
                        .bind(&new.player.display_name)
                        .bind(new.player.is_bot)
                        .bind(&new.token_hash)
                        .bind(new.created_at)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "player_by_token_hash"))]
            async fn player_by_token_hash(
                &self,
                token_hash: &str,
            ) -> Result<Option<$crate::domain::PlayerInfo>, $crate::store::StoreError> {
                $crate::metrics::store_call("player_by_token_hash", async move {
                    let row: Option<rows::PlayerRow> = sqlx::query_as(queries::PLAYER_BY_TOKEN)
                        .bind(token_hash)
                        .fetch_optional(&self.pool)
                        .await?;
                    Ok(row.map(rows::player_from_row))
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "create_game", game = %game.id))]
            async fn create_game(
                &self,
                game: &$crate::domain::GameRecord,
            ) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("create_game", async move {
                    self.insert_game(game)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "append_action", game = %game_id, seq = action.seq))]
            async fn append_action(
                &self,
                game_id: &str,
                action: &$crate::store::StoredAction,
                effects: &$crate::store::Effects,
            ) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("append_action", async move {
                    let seq = i64::try_from(action.seq)
                        .map_err(|_| rows::corrupt(format!("action seq {}", action.seq)))?;
                    let (format, payload) = rows::action_payload(&action.action);
                    let conflict = |inserted: &Result<_, sqlx::Error>| match inserted {
                        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                            Some($crate::store::StoreError::Conflict {
                                game_id: game_id.to_string(),
                                seq: action.seq,
                            })
                        }
                        _ => None,
                    };
                    let winners = rows::numbers_to_text(effects.winners.iter().copied());
                    let money = rows::money_to_text(&effects.money);
                    // Most actions are turns that touch nothing but the log and the game's row:
                    // committed in groups (see `group`).
                    let simple = effects.rated.is_none()
                        && !matches!(
                            action.action,
                            $crate::table::Action::Join { .. } | $crate::table::Action::Leave { .. }
                        );
                    if simple {
                        return self
                            .group
                            .append(super::group::Append {
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
                            })
                            .await;
                    }
                    let mut tx = self.pool.begin_with(<$store>::BEGIN_WRITE).await?;
                    if let (Some(fence), Some(me)) = (<$store>::FENCE_GAME, self.owner_id()) {
                        let owned: Option<(i32,)> = sqlx::query_as(fence)
                            .bind(game_id)
                            .bind(me)
                            .fetch_optional(&mut *tx)
                            .await?;
                        if owned.is_none() {
                            return Err($crate::store::StoreError::NotOwner {
                                game_id: game_id.to_string(),
                            });
                        }
                    }
                    let inserted = sqlx::query(queries::INSERT_ACTION)
                        .bind(game_id)
                        .bind(seq)
                        .bind(&action.player_id)
                        .bind(&action.idempotency_key)
                        .bind(format)
                        .bind(&payload)
                        .bind(action.at)
                        .execute(&mut *tx)
                        .await;
                    if let Some(conflict) = conflict(&inserted) {
                        return Err(conflict);
                    }
                    inserted?;
                    match &action.action {
                        $crate::table::Action::Join { seat, player } => {
                            sqlx::query(queries::INSERT_SEAT)
                                .bind(game_id)
                                .bind(i64::from(*seat))
                                .bind(&player.id)
                                .execute(&mut *tx)
                                .await?;
                        }
                        $crate::table::Action::Leave { seat } => {
                            sqlx::query(queries::DELETE_SEAT)
                                .bind(game_id)
                                .bind(i64::from(*seat))
                                .execute(&mut *tx)
                                .await?;
                        }
                        _ => {}
                    }
                    sqlx::query(queries::UPDATE_GAME_STATUS)
                        .bind(effects.status.as_str())
                        .bind(&winners)
                        .bind(&money)
                        .bind(game_id)
                        .execute(&mut *tx)
                        .await?;
                    if let Some(rated) = &effects.rated {
                        // Each player's rows, in one order for every writer (no deadlock): made
                        // if missing, then read locked, so a game ending at the same time waits
                        // for this one and rates from its result.
                        let mut keys: Vec<(&String, u8)> = rated
                            .categories()
                            .into_iter()
                            .flat_map(|c| rated.players.iter().map(move |p| (p, c)))
                            .collect();
                        keys.sort();
                        let fresh = $crate::rating::Rating::default();
                        let mut before = std::collections::HashMap::new();
                        for &(player, category) in &keys {
                            sqlx::query(queries::INSERT_RATING_IF_MISSING)
                                .bind(player)
                                .bind(i64::from(category))
                                .bind(fresh.mu)
                                .bind(fresh.sigma)
                                .execute(&mut *tx)
                                .await?;
                            let (mu, sigma, games): (f64, f64, i64) =
                                sqlx::query_as(sqlx::AssertSqlSafe(format!("{}{}", queries::RATING_OF, <$store>::LOCK_ROW)))
                                    .bind(player)
                                    .bind(i64::from(category))
                                    .fetch_one(&mut *tx)
                                    .await?;
                            before.insert(
                                (player, category),
                                $crate::rating::Rating { mu, sigma, games: rows::games_count(games)? },
                            );
                        }
                        for category in rated.categories() {
                            let old: Vec<$crate::rating::Rating> =
                                rated.players.iter().map(|p| before[&(p, category)]).collect();
                            let new = $crate::rating::rate(&old, &rated.places);
                            for ((player, old), new) in rated.players.iter().zip(old).zip(new) {
                                sqlx::query(queries::UPDATE_RATING)
                                    .bind(new.mu)
                                    .bind(new.sigma)
                                    .bind(i64::from(new.games))
                                    .bind(player)
                                    .bind(i64::from(category))
                                    .execute(&mut *tx)
                                    .await?;
                                sqlx::query(queries::INSERT_RATING_HISTORY)
                                    .bind(player)
                                    .bind(i64::from(category))
                                    .bind(game_id)
                                    .bind(old.mu)
                                    .bind(old.sigma)
                                    .bind(new.mu)
                                    .bind(new.sigma)
                                    .bind(action.at)
                                    .execute(&mut *tx)
                                    .await?;
                            }
                        }
                    }
                    if let (Some(notify), Some(_)) = (<$store>::NOTIFY_ACTION, self.owner_id()) {
                        sqlx::query(notify)
                            .bind(game_id)
                            .bind(seq)
                            .bind(&action.player_id)
                            .bind(&action.idempotency_key)
                            .bind(format)
                            .bind(&payload)
                            .bind(action.at)
                            .execute(&mut *tx)
                            .await?;
                    }
                    tx.commit().await?;
                    Ok(())
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "import_games", games = games.len()))]
            async fn import_games(
                &self,
                games: &[($crate::store::StoredGame, $crate::store::Effects)],
            ) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("import_games", async move {
                    let mut tx = self.pool.begin_with(<$store>::BEGIN_WRITE).await?;
                    for (stored, effects) in games {
                        let game = &stored.record;
                        self.insert_game(game)
                            .execute(&mut *tx)
                            .await?;
                        let mut seats = std::collections::BTreeMap::new();
                        for action in &stored.actions {
                            let seq = i64::try_from(action.seq)
                                .map_err(|_| rows::corrupt(format!("action seq {}", action.seq)))?;
                            let (format, payload) = rows::action_payload(&action.action);
                            sqlx::query(queries::INSERT_ACTION)
                                .bind(&game.id)
                                .bind(seq)
                                .bind(&action.player_id)
                                .bind(&action.idempotency_key)
                                .bind(format)
                                .bind(payload)
                                .bind(action.at)
                                .execute(&mut *tx)
                                .await?;
                            match &action.action {
                                $crate::table::Action::Join { seat, player } => {
                                    seats.insert(*seat, player.id.clone());
                                }
                                $crate::table::Action::Leave { seat } => {
                                    seats.remove(seat);
                                }
                                _ => {}
                            }
                        }
                        for (seat, player_id) in seats {
                            sqlx::query(queries::INSERT_SEAT)
                                .bind(&game.id)
                                .bind(i64::from(seat))
                                .bind(player_id)
                                .execute(&mut *tx)
                                .await?;
                        }
                        sqlx::query(queries::UPDATE_GAME_STATUS)
                            .bind(effects.status.as_str())
                            .bind(rows::numbers_to_text(effects.winners.iter().copied()))
                            .bind(rows::money_to_text(&effects.money))
                            .bind(&game.id)
                            .execute(&mut *tx)
                            .await?;
                    }
                    tx.commit().await?;
                    Ok(())
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "load_game", game = %game_id))]
            async fn load_game(
                &self,
                game_id: &str,
            ) -> Result<Option<$crate::store::StoredGame>, $crate::store::StoreError> {
                $crate::metrics::store_call("load_game", async move {
                    let sql = format!("SELECT {} FROM games g WHERE g.id = $1", queries::GAME_COLUMNS);
                    let row: Option<rows::GameRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
                        .bind(game_id)
                        .fetch_optional(&self.pool)
                        .await?;
                    let Some(row) = row else { return Ok(None) };
                    let (_, record, _, _) = rows::game_from_row(row)?;
                    let actions: Vec<rows::ActionRow> = sqlx::query_as(queries::ACTIONS_OF_GAME)
                        .bind(game_id)
                        .fetch_all(&self.pool)
                        .await?;
                    let actions = actions
                        .into_iter()
                        .map(|row| rows::action_from_row(game_id, row))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(Some($crate::store::StoredGame { record, actions }))
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "load_games", games = game_ids.len()))]
            async fn load_games(
                &self,
                game_ids: &[String],
            ) -> Result<Vec<(String, Result<$crate::store::StoredGame, $crate::store::StoreError>)>, $crate::store::StoreError> {
                $crate::metrics::store_call("load_games", async move {
                    if game_ids.is_empty() {
                        return Ok(Vec::new());
                    }
                    let mut sql = sqlx::QueryBuilder::<$db>::new(format!(
                        "SELECT {} FROM games g WHERE g.id IN (",
                        queries::GAME_COLUMNS
                    ));
                    let mut list = sql.separated(", ");
                    for id in game_ids {
                        list.push_bind(id);
                    }
                    sql.push(")");
                    let games: Vec<rows::GameRow> = sql.build_query_as().fetch_all(&self.pool).await?;
                    let mut sql = sqlx::QueryBuilder::<$db>::new(queries::ACTIONS_OF_GAMES);
                    let mut list = sql.separated(", ");
                    for id in game_ids {
                        list.push_bind(id);
                    }
                    sql.push(") ORDER BY game_id, seq");
                    let actions: Vec<(String, i64, Option<String>, Option<String>, i32, String, i64)> =
                        sql.build_query_as().fetch_all(&self.pool).await?;
                    let mut logs: std::collections::HashMap<String, Vec<rows::ActionRow>> =
                        std::collections::HashMap::new();
                    for (game_id, seq, player_id, key, format, payload, at) in actions {
                        logs.entry(game_id)
                            .or_default()
                            .push((seq, player_id, key, format, payload, at));
                    }
                    let mut records = std::collections::HashMap::new();
                    for row in games {
                        let id = row.1.clone();
                        records.insert(id, rows::game_from_row(row).map(|(_, record, _, _)| record));
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
                                    .map(|actions| $crate::store::StoredGame { record, actions }),
                            };
                            (id.clone(), game)
                        })
                        .collect())
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "unfinished_games"))]
            async fn unfinished_games(&self) -> Result<Vec<String>, $crate::store::StoreError> {
                $crate::metrics::store_call("unfinished_games", async move {
                    let ids: Vec<(String,)> = sqlx::query_as(queries::UNFINISHED_GAMES)
                        .fetch_all(&self.pool)
                        .await?;
                    Ok(ids.into_iter().map(|(id,)| id).collect())
                })
                .await
            }

            #[tracing::instrument(name = "store", level = "debug", skip_all, fields(op = "list_games"))]
            async fn list_games(
                &self,
                query: &$crate::store::GameQuery,
            ) -> Result<$crate::store::GamePage, $crate::store::StoreError> {
                $crate::metrics::store_call("list_games", async move {
                    let mut sql = sqlx::QueryBuilder::<$db>::new(format!(
                        "SELECT {} FROM games g WHERE (g.visibility = 'public' OR g.created_by = ",
                        queries::GAME_COLUMNS
                    ));
                    sql.push_bind(&query.viewer);
                    sql.push(" OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.player_id = ");
                    sql.push_bind(&query.viewer);
                    sql.push("))");
                    if !query.statuses.is_empty() {
                        sql.push(" AND g.status IN (");
                        let mut list = sql.separated(", ");
                        for status in &query.statuses {
                            list.push_bind(status.as_str());
                        }
                        sql.push(")");
                    }
                    if let Some(player) = &query.seated {
                        sql.push(" AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.player_id = ");
                        sql.push_bind(player);
                        sql.push(")");
                    }
                    if let Some(after) = &query.after {
                        sql.push(" AND (g.created_at < ");
                        sql.push_bind(after.created_at);
                        sql.push(" OR (g.created_at = ");
                        sql.push_bind(after.created_at);
                        sql.push(" AND g.id < ");
                        sql.push_bind(&after.id);
                        sql.push("))");
                    }
                    // A total order, and the one the contract promises: the order games are
                    // inserted in (`ord`) differs when several are created at once.
                    sql.push(" ORDER BY g.created_at DESC, g.id DESC LIMIT ");
                    sql.push_bind(i64::from(query.limit) + 1);
                    let rows: Vec<rows::GameRow> =
                        sql.build_query_as().fetch_all(&self.pool).await?;
                    let more = rows.len() > query.limit as usize;
                    let mut listings = Vec::with_capacity(rows.len());
                    let mut last = None;
                    for row in rows.into_iter().take(query.limit as usize) {
                        let (_, record, status, winners) = rows::game_from_row(row)?;
                        last = Some($crate::store::GameCursor {
                            created_at: record.created_at,
                            id: record.id.clone(),
                        });
                        listings.push($crate::store::GameListing {
                            record,
                            status,
                            seats: Vec::new(),
                            winners,
                        });
                    }
                    if !listings.is_empty() {
                        let mut sql = sqlx::QueryBuilder::<$db>::new(queries::SEATS_COLUMNS);
                        let mut list = sql.separated(", ");
                        for listing in &listings {
                            list.push_bind(&listing.record.id);
                        }
                        sql.push(")");
                        let seats: Vec<rows::SeatRow> =
                            sql.build_query_as().fetch_all(&self.pool).await?;
                        rows::seat_listings(&mut listings, seats)?;
                    }
                    Ok($crate::store::GamePage {
                        games: listings,
                        next: if more { last } else { None },
                    })
                })
                .await
            }

            async fn rating(
                &self,
                player_id: &str,
                players: u8,
            ) -> Result<Option<$crate::rating::Rating>, $crate::store::StoreError> {
                $crate::metrics::store_call("rating", async move {
                    let row: Option<(f64, f64, i64)> = sqlx::query_as(queries::RATING_OF)
                        .bind(player_id)
                        .bind(i64::from(players))
                        .fetch_optional(&self.pool)
                        .await?;
                    row.map(|(mu, sigma, games)| {
                        Ok($crate::rating::Rating { mu, sigma, games: rows::games_count(games)? })
                    })
                    .transpose()
                })
                .await
            }

            async fn leaderboard(
                &self,
                players: u8,
                limit: u32,
                offset: u64,
            ) -> Result<Vec<($crate::domain::PlayerInfo, $crate::rating::Rating)>, $crate::store::StoreError> {
                $crate::metrics::store_call("leaderboard", async move {
                    let rows: Vec<(String, String, bool, f64, f64, i64)> = sqlx::query_as(queries::LEADERBOARD)
                        .bind(i64::from(players))
                        .bind(i64::from(limit))
                        .bind(i64::try_from(offset).unwrap_or(i64::MAX))
                        .fetch_all(&self.pool)
                        .await?;
                    rows.into_iter()
                        .map(|(id, display_name, is_bot, mu, sigma, games)| {
                            Ok((
                                $crate::domain::PlayerInfo { id, display_name, is_bot },
                                $crate::rating::Rating { mu, sigma, games: rows::games_count(games)? },
                            ))
                        })
                        .collect()
                })
                .await
            }

            async fn player_ratings(
                &self,
                player_id: &str,
            ) -> Result<Option<$crate::store::PlayerRatings>, $crate::store::StoreError> {
                $crate::metrics::store_call("player_ratings", async move {
                    let player: Option<rows::PlayerRow> = sqlx::query_as(queries::PLAYER_BY_ID)
                        .bind(player_id)
                        .fetch_optional(&self.pool)
                        .await?;
                    let Some(player) = player else { return Ok(None) };
                    let ratings: Vec<(i64, f64, f64, i64)> = sqlx::query_as(queries::RATINGS_OF)
                        .bind(player_id)
                        .fetch_all(&self.pool)
                        .await?;
                    let history: Vec<(String, i64, f64, f64, f64, f64, i64)> = sqlx::query_as(queries::HISTORY_OF)
                        .bind(player_id)
                        .fetch_all(&self.pool)
                        .await?;
                    Ok(Some($crate::store::PlayerRatings {
                        player: rows::player_from_row(player),
                        ratings: ratings
                            .into_iter()
                            .map(|(players, mu, sigma, games)| {
                                Ok((
                                    rows::category(players)?,
                                    $crate::rating::Rating { mu, sigma, games: rows::games_count(games)? },
                                ))
                            })
                            .collect::<Result<_, $crate::store::StoreError>>()?,
                        history: history
                            .into_iter()
                            .map(|(game_id, players, mu_before, sigma_before, mu, sigma, at)| {
                                Ok($crate::store::RatingRecord {
                                    game_id,
                                    players: rows::category(players)?,
                                    before: $crate::rating::Rating { mu: mu_before, sigma: sigma_before, games: 0 },
                                    after: $crate::rating::Rating { mu, sigma, games: 0 },
                                    at,
                                })
                            })
                            .collect::<Result<_, $crate::store::StoreError>>()?,
                    }))
                })
                .await
            }

            async fn create_series(
                &self,
                series: &$crate::store::SeriesRecord,
            ) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("create_series", async move {
                    sqlx::query(queries::INSERT_SERIES)
                        .bind(&series.id)
                        .bind(series.players.join(","))
                        .bind(rows::seed_to_column(series.seed))
                        .bind(series.created_at)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                })
                .await
            }

            async fn series(
                &self,
                series_id: &str,
            ) -> Result<Option<$crate::store::SeriesRecord>, $crate::store::StoreError> {
                $crate::metrics::store_call("series", async move {
                    let row: Option<(String, String, i64, i64)> = sqlx::query_as(queries::SERIES_BY_ID)
                        .bind(series_id)
                        .fetch_optional(&self.pool)
                        .await?;
                    Ok(row.map(|(id, players, seed, created_at)| $crate::store::SeriesRecord {
                        id,
                        players: players.split(',').map(str::to_string).collect(),
                        seed: rows::seed_of(seed),
                        created_at,
                    }))
                })
                .await
            }

            async fn series_games(
                &self,
                series_id: &str,
            ) -> Result<Vec<$crate::domain::SeriesGame>, $crate::store::StoreError> {
                $crate::metrics::store_call("series_games", async move {
                    let games: Vec<(String, i64, String, String)> = sqlx::query_as(queries::SERIES_GAMES)
                        .bind(series_id)
                        .fetch_all(&self.pool)
                        .await?;
                    let mut out = Vec::with_capacity(games.len());
                    for (game_id, index, status, money) in games {
                        let seats: Vec<(String,)> = sqlx::query_as(queries::SEATS_OF_GAME)
                            .bind(&game_id)
                            .fetch_all(&self.pool)
                            .await?;
                        out.push($crate::domain::SeriesGame {
                            index: u8::try_from(index).map_err(|_| rows::corrupt(format!("series index {index}")))?,
                            status: $crate::domain::Status::parse(&status)
                                .ok_or_else(|| rows::corrupt(format!("status {status:?}")))?,
                            seats: seats.into_iter().map(|(p,)| p).collect(),
                            money: rows::money_from_text(&money)?,
                            game_id,
                        });
                    }
                    Ok(out)
                })
                .await
            }

            async fn open_series(&self) -> Result<Vec<String>, $crate::store::StoreError> {
                $crate::metrics::store_call("open_series", async move {
                    let ids: Vec<(String,)> = sqlx::query_as(queries::OPEN_SERIES)
                        .fetch_all(&self.pool)
                        .await?;
                    Ok(ids.into_iter().map(|(id,)| id).collect())
                })
                .await
            }

            async fn enqueue_ladder(
                &self,
                entry: &$crate::domain::QueueEntry,
            ) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("enqueue_ladder", async move {
                    sqlx::query(queries::ENQUEUE_LADDER)
                        .bind(&entry.id)
                        .bind(&entry.player.id)
                        .bind(i64::from(entry.players.unwrap_or(0)))
                        .bind(entry.duplicate)
                        .bind(&entry.replica)
                        .bind(entry.enqueued_at)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                })
                .await
            }

            async fn ladder_queue(
                &self,
            ) -> Result<Vec<$crate::domain::QueueEntry>, $crate::store::StoreError> {
                $crate::metrics::store_call("ladder_queue", async move {
                    let rows: Vec<(String, String, String, bool, i64, bool, String, i64)> =
                        sqlx::query_as(queries::LADDER_QUEUE)
                            .fetch_all(&self.pool)
                            .await?;
                    rows.into_iter()
                        .map(|(id, player_id, display_name, is_bot, players, duplicate, replica, enqueued_at)| {
                            Ok($crate::domain::QueueEntry {
                                id,
                                player: $crate::domain::PlayerInfo { id: player_id, display_name, is_bot },
                                players: match players {
                                    0 => None,
                                    n => Some(u8::try_from(n).map_err(|_| rows::corrupt(format!("ladder players {n}")))?),
                                },
                                duplicate,
                                replica,
                                enqueued_at,
                            })
                        })
                        .collect()
                })
                .await
            }

            async fn answer_ladder(
                &self,
                answers: &[(String, Vec<$crate::domain::LadderMatch>)],
            ) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("answer_ladder", async move {
                    let mut tx = self.pool.begin_with(<$store>::BEGIN_WRITE).await?;
                    for (entry_id, matches) in answers {
                        let marked = sqlx::query(queries::MARK_LADDER_ANSWERED)
                            .bind(entry_id)
                            .execute(&mut *tx)
                            .await?;
                        if marked.rows_affected() == 0 {
                            continue;
                        }
                        for m in matches {
                            sqlx::query(queries::INSERT_LADDER_MATCH)
                                .bind(entry_id)
                                .bind(&m.game_id)
                                .bind(i64::from(m.seat))
                                .bind(i64::from(m.players))
                                .bind(m.already_seated)
                                .bind(m.series.as_ref().map(|s| s.id.clone()))
                                .bind(m.series.as_ref().map(|s| i64::from(s.index)))
                                .execute(&mut *tx)
                                .await?;
                        }
                    }
                    tx.commit().await?;
                    Ok(())
                })
                .await
            }

            async fn ladder_answer(
                &self,
                entry_id: &str,
            ) -> Result<Option<Vec<$crate::domain::LadderMatch>>, $crate::store::StoreError> {
                $crate::metrics::store_call("ladder_answer", async move {
                    let matched: Option<(bool,)> = sqlx::query_as(queries::LADDER_ENTRY)
                        .bind(entry_id)
                        .fetch_optional(&self.pool)
                        .await?;
                    match matched {
                        None => Ok(None),
                        Some((false,)) => Ok(Some(Vec::new())),
                        Some((true,)) => {
                            let rows: Vec<(String, i64, i64, bool, Option<String>, Option<i64>)> =
                                sqlx::query_as(queries::LADDER_MATCHES)
                                    .bind(entry_id)
                                    .fetch_all(&self.pool)
                                    .await?;
                            rows.into_iter()
                                .map(|(game_id, seat, players, already_seated, series_id, series_index)| {
                                    Ok($crate::domain::LadderMatch {
                                        game_id,
                                        seat: u8::try_from(seat).map_err(|_| rows::corrupt(format!("seat {seat}")))?,
                                        players: u8::try_from(players).map_err(|_| rows::corrupt(format!("players {players}")))?,
                                        already_seated,
                                        series: match (series_id, series_index) {
                                            (Some(id), Some(index)) => Some($crate::domain::SeriesRef {
                                                id,
                                                index: u8::try_from(index).map_err(|_| rows::corrupt(format!("series index {index}")))?,
                                            }),
                                            _ => None,
                                        },
                                    })
                                })
                                .collect::<Result<Vec<_>, $crate::store::StoreError>>()
                                .map(Some)
                        }
                    }
                })
                .await
            }

            async fn forget_ladder_entry(&self, entry_id: &str) -> Result<(), $crate::store::StoreError> {
                $crate::metrics::store_call("forget_ladder_entry", async move {
                    sqlx::query(queries::FORGET_LADDER_ENTRY)
                        .bind(entry_id)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                })
                .await
            }

            async fn cancel_ladder(&self, player_id: &str) -> Result<u64, $crate::store::StoreError> {
                $crate::metrics::store_call("cancel_ladder", async move {
                    let done = sqlx::query(queries::CANCEL_LADDER)
                        .bind(player_id)
                        .execute(&self.pool)
                        .await?;
                    Ok(done.rows_affected())
                })
                .await
            }

            async fn purge_ladder(&self, alive: &[String]) -> Result<u64, $crate::store::StoreError> {
                $crate::metrics::store_call("purge_ladder", async move {
                    let mut sql = sqlx::QueryBuilder::<$db>::new("DELETE FROM ladder_queue");
                    if !alive.is_empty() {
                        sql.push(" WHERE replica_id NOT IN (");
                        let mut list = sql.separated(", ");
                        for id in alive {
                            list.push_bind(id);
                        }
                        sql.push(")");
                    }
                    let done = sql.build().execute(&self.pool).await?;
                    Ok(done.rows_affected())
                })
                .await
            }

            async fn ladder_games_of(
                &self,
                player_id: &str,
            ) -> Result<Vec<$crate::store::LadderSeat>, $crate::store::StoreError> {
                $crate::metrics::store_call("ladder_games_of", async move {
                    let rows: Vec<(String, i64, i64, Option<String>, Option<i64>)> =
                        sqlx::query_as(queries::LADDER_GAMES_OF)
                            .bind(player_id)
                            .fetch_all(&self.pool)
                            .await?;
                    rows.into_iter()
                        .map(|(game_id, seat, players, series_id, series_index)| {
                            Ok($crate::store::LadderSeat {
                                game_id,
                                seat: u8::try_from(seat).map_err(|_| rows::corrupt(format!("seat {seat}")))?,
                                players: u8::try_from(players).map_err(|_| rows::corrupt(format!("players {players}")))?,
                                series: match (series_id, series_index) {
                                    (Some(id), Some(index)) => Some($crate::domain::SeriesRef {
                                        id,
                                        index: u8::try_from(index).map_err(|_| rows::corrupt(format!("series index {index}")))?,
                                    }),
                                    _ => None,
                                },
                            })
                        })
                        .collect()
                })
                .await
            }
        }
    };
}

pub(super) use sql_store;
