//! The games challenges and tournaments seat (`arranged_games`): recorded before the games
//! are created, so that a replica that restarts knows which games were arranged, and read
//! back as the seats a player holds.

use super::rows;
use super::sql_store;
use crate::store::{ArrangedGameStore, LadderSeat, StoreError};

pub(in crate::store) const INSERT_ARRANGED: &str =
    "INSERT INTO arranged_games (game_id, arranged_by) VALUES ($1, $2)";
/// By the partial index `seats_live_by_player`, then each game, and whether it was arranged,
/// by its key.
pub(in crate::store) const ARRANGED_GAMES_OF: &str = "SELECT g.id, s.seat, g.players, \
     g.series_id, g.series_index, g.series_tables FROM seats s \
     JOIN games g ON g.id = s.game_id \
     WHERE s.player_id = $1 AND NOT s.game_over AND g.status IN ('open', 'running') \
     AND (SELECT a.arranged_by FROM arranged_games a WHERE a.game_id = g.id) IS NOT NULL \
     ORDER BY g.ord";

sql_store! {
    impl ArrangedGameStore {
        async fn arrange_games(
            &self,
            arranged_by: &str,
            game_ids: &[String],
        ) -> Result<(), StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            for game_id in game_ids {
                sqlx::query(INSERT_ARRANGED)
                    .bind(game_id.as_str())
                    .bind(arranged_by)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(())
        }

        async fn arranged_games_of(&self, player_id: &str) -> Result<Vec<LadderSeat>, StoreError> {
            type Row = (String, i64, i64, Option<String>, Option<i64>, i64);
            let found: Vec<Row> = sqlx::query_as(ARRANGED_GAMES_OF)
                .bind(player_id)
                .fetch_all(&self.side)
                .await?;
            found
                .into_iter()
                .map(|(game_id, seat, players, series_id, index, tables)| {
                    Ok(LadderSeat {
                        game_id,
                        seat: rows::seat_from(seat)?,
                        players: rows::small(players, "players")?,
                        series: super::queue::series(series_id, index, tables)?,
                    })
                })
                .collect()
        }
    }
}
