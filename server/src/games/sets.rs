//! What a duplicate set hides while it is played: every table of a set deals the same cards,
//! so until the last table ends, a table's deal, log and result tell the players of the
//! others what they are about to hold. A table's own players see it as any game; everyone
//! else waits for the set.

use crate::domain::GameInfo;
use crate::game_error::GameError;
use crate::store::Store;

/// Whether a game's deal may be revealed: true but for a table of a duplicate set some of
/// whose tables are still being played.
pub async fn set_over(store: &dyn Store, record: &GameInfo) -> Result<bool, GameError> {
    match record.series.as_ref().filter(|s| s.is_set()) {
        Some(set) => Ok(store.set_over(&set.id).await?),
        None => Ok(true),
    }
}

/// Refuses a caller who does not sit at a table of a duplicate set still being played.
pub async fn may_look_on(
    store: &dyn Store,
    record: &GameInfo,
    seated: bool,
) -> Result<(), GameError> {
    if seated || set_over(store, record).await? {
        Ok(())
    } else {
        Err(GameError::SetInProgress)
    }
}
