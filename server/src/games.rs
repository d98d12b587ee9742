//! The directory of live games: game id → its actor. Games are created here, restored here
//! at start-up (every unfinished game), and loaded on demand when a finished game that was
//! unloaded is asked for again.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{Mutex, mpsc};

use crate::actor::{self, ActorOptions, Context, GameHandle};
use crate::domain::GameRecord;
use crate::error::ApiError;
use crate::store::{Store, StoreError, StoredGame};

pub struct Games {
    context: Context,
    // An async mutex, held while a game loads, so one game never gets two actors.
    live: Mutex<HashMap<String, GameHandle>>,
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

    /// Starts an actor for every unfinished game in the store; returns how many. A game that
    /// cannot be restored is logged and left out (calls for it fail with its error); the
    /// others are served.
    pub async fn restore(&self) -> Result<usize, StoreError> {
        let ids = self.context.store.unfinished_games().await?;
        let mut live = self.live.lock().await;
        let mut restored = 0;
        for id in &ids {
            let loaded = match self.context.store.load_game(id).await {
                Ok(Some(stored)) => actor::spawn(stored, self.context.clone()),
                Ok(None) => Err(StoreError::Corrupt(format!("game {id} vanished"))),
                Err(e) => Err(e),
            };
            match loaded {
                Ok(handle) => {
                    live.insert(id.clone(), handle);
                    restored += 1;
                }
                Err(error) => tracing::error!(game = %id, %error, "cannot restore a game"),
            }
        }
        Ok(restored)
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
        self.live.lock().await.insert(id, handle.clone());
        Ok(handle)
    }

    /// The actor of a game, loading it from the store if it is not live.
    pub async fn get(&self, id: &str) -> Result<GameHandle, ApiError> {
        let mut live = self.live.lock().await;
        if let Some(handle) = live.get(id) {
            if !handle.is_closed() {
                return Ok(handle.clone());
            }
            live.remove(id);
        }
        let stored = self
            .context
            .store
            .load_game(id)
            .await
            .inspect_err(|error| tracing::error!(game = %id, %error, "cannot load a game"))?
            .ok_or_else(|| ApiError::GameNotFound(id.to_string()))?;
        let handle = actor::spawn(stored, self.context.clone())
            .inspect_err(|error| tracing::error!(game = %id, %error, "cannot replay a game"))?;
        live.insert(id.to_string(), handle.clone());
        Ok(handle)
    }
}
