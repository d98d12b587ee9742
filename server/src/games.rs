//! The directory of live games: game id → its actor. Games are created here, restored here
//! after a start (every unfinished game, in the background, in bulk), and loaded on demand
//! when a game that is not live yet, or was unloaded after it ended, is asked for.
//!
//! Each game has its own slot, initialised once: loading one game (a long finished game's
//! replay, a slow query) never holds up a call for another, and one game never gets two
//! actors however many calls ask for it at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{OnceCell, mpsc};

use crate::actor::{self, ActorOptions, Context, GameHandle};
use crate::domain::GameRecord;
use crate::error::ApiError;
use crate::store::{Store, StoreError, StoredGame};

/// Games restored per bulk read at start-up.
const RESTORE_CHUNK: usize = 500;

/// One game's place in the directory: empty until its actor is started.
type Slot = Arc<OnceCell<GameHandle>>;

pub struct Games {
    context: Context,
    /// Held only to look a slot up or replace it, never across an await.
    live: Mutex<HashMap<String, Slot>>,
}

impl Games {
    /// `ladder_game_over` hears of every ladder game that ends.
    pub fn new(
        store: Arc<dyn Store>,
        options: ActorOptions,
        ladder_game_over: Option<mpsc::UnboundedSender<String>>,
    ) -> Games {
        Games {
            context: Context {
                store,
                options,
                ladder_game_over,
            },
            live: Mutex::default(),
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.context.store
    }

    fn slot(&self, id: &str) -> Slot {
        self.live
            .lock()
            .expect("not poisoned")
            .entry(id.to_string())
            .or_default()
            .clone()
    }

    /// Forgets `slot` if it is still the game's (a game whose actor stopped, or one that
    /// failed to load, so that the next call tries again and unknown ids leave nothing).
    fn forget(&self, id: &str, slot: &Slot) {
        let mut live = self.live.lock().expect("not poisoned");
        if live.get(id).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            live.remove(id);
        }
    }

    /// Starts the actors of every unfinished game in the store, in bulk, in the background;
    /// calls for a game not restored yet load it at once. Returns how many there are; the
    /// task logs when it is done. A game that cannot be restored is logged and left out
    /// (calls for it fail with its error); the others are served.
    pub async fn restore(self: &Arc<Self>) -> Result<usize, StoreError> {
        let ids = self.context.store.unfinished_games().await?;
        let count = ids.len();
        let games = self.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let mut restored = 0;
            for chunk in ids.chunks(RESTORE_CHUNK) {
                let loaded = match games.context.store.load_games(chunk).await {
                    Ok(loaded) => loaded,
                    Err(error) => {
                        tracing::error!(%error, "cannot restore games");
                        continue;
                    }
                };
                for (id, stored) in loaded {
                    let slot = games.slot(&id);
                    let started = slot
                        .get_or_try_init(|| async {
                            let stored = stored?;
                            actor::spawn(stored, games.context.clone())
                        })
                        .await;
                    match started {
                        Ok(_) => restored += 1,
                        Err(error) => {
                            games.forget(&id, &slot);
                            tracing::error!(game = %id, %error, "cannot restore a game");
                        }
                    }
                }
            }
            tracing::info!(restored, of = count, elapsed = ?started.elapsed(), "unfinished games restored");
        });
        Ok(count)
    }

    /// Records a new game and starts its actor.
    pub async fn create(&self, record: GameRecord) -> Result<GameHandle, ApiError> {
        self.context.store.create_game(&record).await?;
        let id = record.id.clone();
        let handle = actor::spawn(
            StoredGame {
                record,
                actions: Vec::new(),
            },
            self.context.clone(),
        )?;
        let slot: Slot = Arc::new(OnceCell::new_with(Some(handle.clone())));
        self.live.lock().expect("not poisoned").insert(id, slot);
        Ok(handle)
    }

    /// The actor of a game, loading it from the store if it is not live.
    pub async fn get(&self, id: &str) -> Result<GameHandle, ApiError> {
        loop {
            let slot = self.slot(id);
            let handle = slot.get_or_try_init(|| self.load(id)).await;
            match handle {
                Ok(handle) if !handle.is_closed() => return Ok(handle.clone()),
                // Unloaded since (a finished game nobody watched): load it again.
                Ok(_) => self.forget(id, &slot),
                Err(error) => {
                    self.forget(id, &slot);
                    return Err(error);
                }
            }
        }
    }

    async fn load(&self, id: &str) -> Result<GameHandle, ApiError> {
        let stored = self
            .context
            .store
            .load_game(id)
            .await
            .inspect_err(|error| tracing::error!(game = %id, %error, "cannot load a game"))?
            .ok_or_else(|| ApiError::GameNotFound(id.to_string()))?;
        let handle = actor::spawn(stored, self.context.clone())
            .inspect_err(|error| tracing::error!(game = %id, %error, "cannot replay a game"))?;
        Ok(handle)
    }
}
