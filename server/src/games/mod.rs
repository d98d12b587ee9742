//! The directory of live games: game id → its actor on this replica. Games are created here,
//! restored here after a start (every unfinished game, in the background, in bulk), and
//! loaded on demand when a game that is not live yet, or was unloaded after it ended, is
//! asked for.
//!
//! Each game has its own slot, initialised once: loading one game (a long finished game's
//! replay, a slow query) never holds up a call for another, and one game never gets two
//! actors however many calls ask for it at once.
//!
//! With replicas (see `replicas`), a game's actor here either runs it (its owner) or follows
//! it; [`Games::route`] says where a game's writes go. The replicas reach the registry
//! through the [`Directory`] trait it defines, which [`Games`] implements.
//!
//! Tables that never fill are bounded twice: a creator may have only so many games that
//! have not started ([`Games::create`]), and a table not filled within its time expires: its
//! actor aborts it while it is loaded, and a sweep ([`Games::sweep_expired`]) finds those
//! unloaded meanwhile (restarts restore running games only).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use tokio::sync::OnceCell;

use crate::actor::{self, ActorOptions, Context, GameHandle, Role};

use crate::game_error::GameError;

use crate::limits::Limits;
use crate::replicas::{Cluster, Directory};
use crate::store::coordination::{Ownership, Replica};
use crate::store::{AtCap, Store, StoreError, StoredAction};

mod creating;
mod expiry;
pub mod sets;

/// Games restored per bulk read.
const RESTORE_CHUNK: usize = 500;

/// Creators remembered at their cap, at most.
const CAPPED_REMEMBERED: usize = 10_000;

/// The directory is swept of stopped games' slots once it holds this many, and then each
/// time it has doubled since the last sweep.
const SWEEP_MIN: usize = 1024;

/// Which of the games asked for get an actor at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Load {
    All,
    /// Those with a turn clock: nothing happens to the others until a call asks for them.
    Clocked,
}

/// One game's place in the directory: empty until its actor is started.
type Slot = Arc<OnceCell<GameHandle>>;

/// Where a game's writes go.
pub enum Route {
    /// To the actor here, which runs the game.
    Local(GameHandle),
    /// To the replica that runs it.
    Remote(Replica),
}

pub struct Games {
    context: Context,
    cluster: Option<Arc<Cluster>>,
    /// What one player may hold (its games, open and unfinished, with house bots or not).
    limits: Limits,
    /// Creators found at a cap lately, until when they are refused at once, and which.
    capped: quick_cache::sync::Cache<String, (Instant, AtCap)>,
    /// Held only to look a slot up or replace it, never across an await.
    live: Mutex<HashMap<String, Slot>>,
    /// The size of `live` at which it is next swept.
    sweep_at: AtomicUsize,
}

impl Games {
    pub fn new(
        store: Arc<dyn Store>,
        options: ActorOptions,
        limits: &Limits,
        cluster: Option<Arc<Cluster>>,
    ) -> Games {
        Games {
            context: Context::new(store, options, cluster.as_ref().map(|c| c.store.clone())),
            cluster,
            limits: limits.clone(),
            capped: quick_cache::sync::Cache::new(CAPPED_REMEMBERED),
            live: Mutex::default(),
            sweep_at: AtomicUsize::new(SWEEP_MIN),
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.context.store
    }

    pub fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref()
    }

    fn slot(&self, id: &str) -> Slot {
        let mut live = self.live.lock().expect("not poisoned");
        self.sweep(&mut live);
        live.entry(id.to_string()).or_default().clone()
    }

    /// Drops the slots of games whose actors stopped (finished games unloaded once nobody
    /// watched them), or the directory would keep one for every game ever played here.
    /// Only when it has doubled since the last sweep: amortised O(1) a game.
    fn sweep(&self, live: &mut HashMap<String, Slot>) {
        if live.len() < self.sweep_at.load(Ordering::Relaxed) {
            return;
        }
        // A slot still loading has no handle yet, and stays.
        live.retain(|_, slot| slot.get().is_none_or(|h| !h.is_closed()));
        self.sweep_at
            .store((live.len() * 2).max(SWEEP_MIN), Ordering::Relaxed);
    }

    /// Games in the directory (live, loading, or stopped and not swept yet).
    pub fn directory_len(&self) -> usize {
        self.live.lock().expect("not poisoned").len()
    }

    /// The live actor of a game, if any.
    fn handle(&self, id: &str) -> Option<GameHandle> {
        let live = self.live.lock().expect("not poisoned");
        live.get(id)
            .and_then(|slot| slot.get())
            .filter(|h| !h.is_closed())
            .cloned()
    }

    fn handles(&self) -> Vec<GameHandle> {
        let live = self.live.lock().expect("not poisoned");
        live.values()
            .filter_map(|slot| slot.get())
            .filter(|h| !h.is_closed())
            .cloned()
            .collect()
    }

    /// Forgets `slot` if it is still the game's (a game whose actor stopped, or one that
    /// failed to load, so that the next call tries again and unknown ids leave nothing).
    fn forget(&self, id: &str, slot: &Slot) {
        let mut live = self.live.lock().expect("not poisoned");
        if live.get(id).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            live.remove(id);
        }
    }

    /// The role of a game's actor here when it is started without a claim: alone, this
    /// process runs every game; with replicas, it follows until it claims the game.
    fn default_role(&self) -> Role {
        if self.cluster.is_some() {
            Role::Follower
        } else {
            Role::Owner
        }
    }

    /// Starts the actors of every running game with a turn clock in the store, in bulk, in
    /// the background (their clocks must run); calls for a game not restored yet load it at
    /// once, and so do calls for games without a clock and for tables that have not started
    /// (the expiry sweep finds those that expired). Returns how many there
    /// are; the task logs when it is done. A game that cannot be restored is logged and left
    /// out (calls for it fail with its error); the others are served. (With replicas, games
    /// come back by being claimed instead; see `replicas`.)
    pub async fn restore(self: &Arc<Self>) -> Result<usize, StoreError> {
        let ids = self.context.store.clocked_games().await?;
        let count = ids.len();
        let games = self.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let restored = games.start_actors(&ids, Role::Owner, Load::All).await;
            tracing::info!(restored, of = count, elapsed = ?started.elapsed(), "unfinished games restored");
        });
        Ok(count)
    }

    /// Runs games this replica just claimed: starts their actors as owners, in bulk, or
    /// promotes the followers it had.
    async fn adopt_games(&self, ids: &[String], load: Load) {
        let mut missing = Vec::with_capacity(ids.len());
        for id in ids {
            match self.handle(id) {
                Some(handle) => {
                    if let Err(error) = handle.promote().await {
                        tracing::warn!(game = %id, %error, "cannot promote a follower");
                    }
                }
                None => missing.push(id.clone()),
            }
        }
        self.start_actors(&missing, Role::Owner, load).await;
    }

    /// Starts actors for games, reading them in bulk (with [`Load::Clocked`], only for those
    /// with a turn clock); returns how many started.
    async fn start_actors(&self, ids: &[String], role: Role, load: Load) -> usize {
        let mut started = 0;
        for chunk in ids.chunks(RESTORE_CHUNK) {
            let loaded = match self.context.store.load_games(chunk).await {
                Ok(loaded) => loaded,
                Err(error) => {
                    tracing::error!(%error, "cannot load games");
                    continue;
                }
            };
            for (id, stored) in loaded {
                if load == Load::Clocked
                    && stored
                        .as_ref()
                        .is_ok_and(|g| g.record.settings.turn_time_limit_secs() == 0)
                {
                    continue;
                }
                let slot = self.slot(&id);
                let handle = slot
                    .get_or_try_init(|| async { actor::spawn(stored?, self.context.clone(), role) })
                    .await
                    .cloned();
                match handle {
                    // Started meanwhile as a follower by a call: it runs the game now.
                    Ok(handle) if handle.role() != role && role == Role::Owner => {
                        let _ = handle.promote().await;
                        started += 1;
                    }
                    Ok(_) => started += 1,
                    Err(error) => {
                        self.forget(&id, &slot);
                        tracing::error!(game = %id, %error, "cannot start a game");
                    }
                }
            }
        }
        started
    }

    /// A game's actor here, loading it from the store if it is not live: the owner if this
    /// replica runs it, a follower otherwise (for streams and finished games).
    pub async fn get(&self, id: &str) -> Result<GameHandle, GameError> {
        loop {
            let slot = self.slot(id);
            let handle = slot
                .get_or_try_init(|| self.load(id, self.default_role()))
                .await;
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

    /// Where a game's writes go: the actor here if this replica runs the game (claiming it
    /// if nobody does), or the replica that runs it. Finished games are served here.
    pub async fn route(&self, id: &str) -> Result<Route, GameError> {
        let Some(cluster) = &self.cluster else {
            return Ok(Route::Local(self.get(id).await?));
        };
        if let Some(handle) = self.handle(id).filter(|h| h.role() == Role::Owner) {
            return Ok(Route::Local(handle));
        }
        // Twice at most: a claim lost to another replica is followed by its ownership.
        for _ in 0..2 {
            match cluster.store.ownership(id).await? {
                None => return Err(GameError::GameNotFound(id.to_string())),
                Some(Ownership::Over) => return Ok(Route::Local(self.get(id).await?)),
                Some(Ownership::Owned(owner)) if owner.id == cluster.me.id => {
                    self.adopt_games(&[id.to_string()], Load::All).await;
                    return Ok(Route::Local(self.get(id).await?));
                }
                Some(Ownership::Owned(owner)) => return Ok(Route::Remote(owner)),
                Some(Ownership::Orphan) => {
                    if cluster.store.claim_game(id).await? {
                        tracing::info!(game = %id, "claimed a game nobody ran");
                        crate::metrics::games_taken_over(1);
                        self.adopt_games(&[id.to_string()], Load::All).await;
                        return Ok(Route::Local(self.get(id).await?));
                    }
                }
            }
        }
        Err(GameError::Moved)
    }
    async fn load(&self, id: &str, role: Role) -> Result<GameHandle, GameError> {
        let stored = self
            .context
            .store
            .load_game(id)
            .await
            .inspect_err(|error| tracing::error!(game = %id, %error, "cannot load a game"))?
            .ok_or_else(|| GameError::GameNotFound(id.to_string()))?;
        let handle = actor::spawn(stored, self.context.clone(), role)
            .inspect_err(|error| tracing::error!(game = %id, %error, "cannot replay a game"))?;
        Ok(handle)
    }
}

#[async_trait]
impl Directory for Games {
    async fn adopt(&self, ids: &[String]) {
        // In bulk (a takeover, a start): only the games whose clocks must run; the others
        // load when a call asks for them.
        self.adopt_games(ids, Load::Clocked).await;
    }

    fn poke(&self, id: &str, seq: u64, last: Option<StoredAction>) {
        // Only a follower follows: an owner wrote the action itself (and its actor, busy with
        // the table, is not woken to pass a poke by).
        if let Some(handle) = self.handle(id).filter(|h| h.role() == Role::Follower) {
            handle.poke(seq, last);
        }
    }

    fn poke_all(&self) {
        for handle in self.handles() {
            handle.poke(u64::MAX, None);
        }
    }

    async fn demote_all(&self) {
        for handle in self.handles() {
            if handle.role() == Role::Owner {
                let _ = handle.demote().await;
            }
        }
    }
}

#[cfg(test)]
mod tests;
