//! Players and their tokens: registering, and finding a player by its token's hash.

use super::rows::{self, PlayerRow};
use super::sql_store;
use crate::domain::PlayerInfo;
use crate::store::{NewPlayer, PlayerStore, StoreError};

pub(in crate::store) const INSERT_PLAYER: &str = "INSERT INTO players \
     (id, display_name, is_bot, token_hash, created_at, description) VALUES ($1, $2, $3, $4, $5, $6)";
/// By the primary key.
pub(in crate::store) const UPDATE_DESCRIPTION: &str =
    "UPDATE players SET description = $1 WHERE id = $2";
/// By the primary key.
pub(in crate::store) const DESCRIPTION_OF: &str = "SELECT description FROM players WHERE id = $1";
/// By the unique index on `token_hash`.
pub(in crate::store) const PLAYER_BY_TOKEN: &str =
    "SELECT id, display_name, is_bot FROM players WHERE token_hash = $1";
/// By the primary key.
pub(in crate::store) const PLAYER_BY_ID: &str =
    "SELECT id, display_name, is_bot FROM players WHERE id = $1";

sql_store! {
    impl PlayerStore {
        async fn create_player(&self, new: &NewPlayer) -> Result<(), StoreError> {
            sqlx::query(INSERT_PLAYER)
                .bind(new.player.id.as_str())
                .bind(new.player.display_name.as_str())
                .bind(new.player.is_bot)
                .bind(new.token_hash.as_str())
                .bind(new.created_at)
                .bind(new.description.as_str())
                .execute(&self.side)
                .await?;
            Ok(())
        }

        async fn set_description(
            &self,
            player_id: &str,
            description: &str,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(UPDATE_DESCRIPTION)
                .bind(description)
                .bind(player_id)
                .execute(&self.side)
                .await?;
            Ok(DB::rows_affected(&done) == 1)
        }

        async fn player_by_token_hash(
            &self,
            token_hash: &str,
        ) -> Result<Option<PlayerInfo>, StoreError> {
            let row: Option<PlayerRow> = sqlx::query_as(PLAYER_BY_TOKEN)
                .bind(token_hash)
                .fetch_optional(&self.side)
                .await?;
            Ok(row.map(rows::player_from_row))
        }
    }
}
