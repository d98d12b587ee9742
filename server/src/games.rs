//! The directory of live games: game id → its actor on this replica. Games are created here,
//! restored here after a start (every unfinished game, in the background, in bulk), and
//! loaded on demand when a game that is not live yet, or was unloaded after it ended, is
//! asked for.
//!
//! Each game has its own slot, initialised once: loading one game (a long finished game's
//! replay, a slow query) never holds up a call for another, and one game never gets two
//! actors however many calls ask for it at once.
//!
//! With replicas (see `cluster`), a game's actor here either runs it (its owner) or follows
//! it; [`Games::route`] says where a game's writes go. The cluster reaches the registry
//! through the [`Directory`] trait it defines, which [`Games`] implements.
//!
//! Tables that never fill are bounded twice: a creator may have only so many games that
//! have not started ([`Games::create`]), and a table not filled within its time expires: its
//! actor aborts it while it is loaded, and a sweep ([`Games::sweep_expired`]) finds those
//! unloaded meanwhile (restarts restore running games only).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::{OnceCell, watch};

use crate::actor::{self, ActorOptions, Context, GameHandle, Role};
use crate::domain::{GameInfo, PlayerInfo, now_micros};
use crate::game_error::{GameError, LimitKind};
use crate::house::Principal;
use crate::limits::Limits;
use crate::replicas::{Cluster, Directory};
use crate::store::coordination::{Ownership, Replica};
use crate::store::{AtCap, PlayerCaps, Store, StoreError, StoredAction, StoredGame};
use crate::table::Action;

/// Games restored per bulk read.
const RESTORE_CHUNK: usize = 500;

/// Expired tables aborted per sweep.
const EXPIRY_BATCH: u32 = 200;

/// How long a creator found at its cap of tables waiting is refused without asking the
/// store again (its tables fill or expire over minutes, not milliseconds).
const CAPPED_FOR: Duration = Duration::from_secs(1);

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
    /// come back by being claimed instead; see `cluster`.)
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

    /// What a player may hold, as the store checks it when the player creates or joins a
    /// game (the house cap counts only for games with house bots).
    pub fn caps_of(&self, player_id: &str) -> PlayerCaps {
        PlayerCaps {
            player_id: player_id.to_string(),
            open: self.limits.open_games_per_player,
            unfinished: self.limits.unfinished_games_per_player,
            house: self.limits.house_games_per_player,
        }
    }

    /// Records a new game created by a player and starts its actor; this replica runs it.
    /// Refused when its creator has as many games that have not started, or unfinished, as
    /// allowed.
    pub async fn create(&self, record: GameInfo) -> Result<GameHandle, GameError> {
        let caps = PlayerCaps {
            house: 0,
            ..self.caps_of(&record.created_by)
        };
        self.create_within(record, Vec::new(), caps).await
    }

    /// Records a new table whose last seats `bots` (house bots) take in the same write, and
    /// starts it. Refused when its creator already has as many unfinished tables with house
    /// bots as allowed (created or sat at: a table with house bots starts as soon as its
    /// creator joins, so the cap on tables waiting does not bound these), checked with the
    /// write, so that calls at once cannot pass it together.
    ///
    /// Its bots think for the client address that created it (`address`, fair shares
    /// between addresses, see `house::scheduler`); it is admitted only while the house bots'
    /// thinking has room for one more table, for the server and for that address.
    pub async fn create_with_house(
        &self,
        record: GameInfo,
        bots: Vec<PlayerInfo>,
        address: Option<std::net::IpAddr>,
    ) -> Result<GameHandle, GameError> {
        let principal = Principal {
            address,
            player: record.created_by.clone(),
        };
        if let Err(busy) = self.context.house.admit(&record.id, &principal) {
            crate::logs::client_event(
                "house_bots_busy",
                &format!(
                    "a table with house bots was refused: no room ({})",
                    busy.subject
                ),
            );
            return Err(GameError::Busy {
                reason: LimitKind::HouseCapacity.reason(),
                subject: busy.subject,
                what: format!("at most {} {}", busy.limit, LimitKind::HouseCapacity.what()),
                retry_after: busy.retry_after,
            });
        }
        let id = record.id.clone();
        let created = self.seat_house(record, bots).await;
        if created.is_err() {
            self.context.house.forget(&id);
        }
        created
    }

    async fn seat_house(
        &self,
        record: GameInfo,
        bots: Vec<PlayerInfo>,
    ) -> Result<GameHandle, GameError> {
        let players = record.settings.players();
        let first = players.saturating_sub(u8::try_from(bots.len()).unwrap_or(u8::MAX));
        let at = now_micros();
        let seated = (first..)
            .zip(bots)
            .enumerate()
            .map(|(i, (seat, player))| StoredAction {
                seq: i as u64 + 1,
                action: Action::Join { seat, player },
                player_id: None,
                idempotency_key: None,
                at,
            })
            .collect();
        let caps = self.caps_of(&record.created_by);
        self.create_within(record, seated, caps).await
    }

    async fn create_within(
        &self,
        record: GameInfo,
        seated: Vec<StoredAction>,
        caps: PlayerCaps,
    ) -> Result<GameHandle, GameError> {
        let refused = |at: AtCap| GameError::Limit {
            kind: at.kind,
            subject: format!("player:{}", record.created_by),
            limit: at.limit,
        };
        // A cap of tables with house bots refuses no table without them.
        if let Some((until, at)) = self.capped.get(&record.created_by)
            && until > Instant::now()
            && (at.kind != LimitKind::HouseGames || caps.house > 0)
        {
            return Err(refused(at));
        }
        if let Err(at) = self
            .context
            .store
            .create_game(&record, &seated, Some(&caps))
            .await?
        {
            self.capped
                .insert(record.created_by.clone(), (Instant::now() + CAPPED_FOR, at));
            return Err(refused(at));
        }
        self.start_created(record, seated)
    }

    /// Forgets that a player was found at a cap: it just gave a seat up.
    pub fn uncap(&self, player_id: &str) {
        self.capped.remove(player_id);
    }

    /// Records a game the server itself creates (a ladder game, seated at once) and starts
    /// its actor; this replica runs it.
    pub async fn create_for_server(&self, record: GameInfo) -> Result<GameHandle, GameError> {
        if let Err(at) = self.context.store.create_game(&record, &[], None).await? {
            unreachable!("no cap was asked for: {at}");
        }
        self.start_created(record, Vec::new())
    }

    fn start_created(
        &self,
        record: GameInfo,
        actions: Vec<StoredAction>,
    ) -> Result<GameHandle, GameError> {
        let id = record.id.clone();
        let handle = actor::spawn(
            StoredGame { record, actions },
            self.context.clone(),
            Role::Owner,
        )?;
        let slot: Slot = Arc::new(OnceCell::new_with(Some(handle.clone())));
        let mut live = self.live.lock().expect("not poisoned");
        self.sweep(&mut live);
        live.insert(id, slot);
        Ok(handle)
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

    /// Aborts the tables that were not filled in time, a batch at a time, and says how many.
    /// With replicas, each replica aborts those it runs.
    pub async fn sweep_expired(&self) -> Result<usize, StoreError> {
        let ttl = i64::try_from(self.context.options.open_ttl.as_micros()).unwrap_or(i64::MAX);
        let before = now_micros().saturating_sub(ttl);
        let mut aborted = 0;
        for id in self
            .context
            .store
            .expired_open_games(before, EXPIRY_BATCH)
            .await?
        {
            let game = match self.route(&id).await {
                Ok(Route::Local(game)) => game,
                // Run elsewhere: its own replica sweeps it.
                Ok(Route::Remote(_)) => continue,
                Err(error) => {
                    tracing::warn!(game = %id, %error, "cannot expire a table");
                    continue;
                }
            };
            match game.expire().await {
                Ok(true) => {
                    // A place is free again for its creator.
                    self.capped.remove(&game.record().created_by);
                    aborted += 1;
                }
                Ok(false) => {}
                Err(error) => tracing::warn!(game = %id, %error, "cannot expire a table"),
            }
        }
        Ok(aborted)
    }

    /// Sweeps expired tables now and then, until `stopping`: every tenth of the time a table
    /// may wait, between a second and a minute.
    pub fn start_expiry(self: &Arc<Self>, mut stopping: watch::Receiver<bool>) {
        let every = (self.context.options.open_ttl / 10)
            .clamp(Duration::from_secs(1), Duration::from_secs(60));
        let games = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tokio::select! {
                    () = async {
                        let _ = stopping.wait_for(|s| *s).await;
                    } => return,
                    _ = tick.tick() => match games.sweep_expired().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(tables = n, "expired tables aborted"),
                        Err(error) => tracing::warn!(%error, "cannot sweep expired tables"),
                    },
                }
            }
        });
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
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::actor::fixtures;
    use crate::domain::{PlayerInfo, Settings, Visibility};

    /// Nobody plays: every seat forfeits within milliseconds and the game is aborted; then,
    /// unwatched, its actor stops at once.
    fn abandoned() -> ActorOptions {
        ActorOptions {
            clock_second: Duration::from_millis(1),
            idle_unload: Duration::from_millis(1),
            ..ActorOptions::default()
        }
    }

    /// A started 2-player game with a one-second clock that nobody plays.
    async fn abandoned_game(games: &Games, g: u64, players: &[PlayerInfo]) -> GameHandle {
        let record = GameInfo {
            id: format!("g{g}"),
            settings: Settings::new(2, vec![], 1, Visibility::Public).unwrap(),
            seed: g,
            created_by: "p0".into(),
            created_at: now_micros(),
            ladder: false,
            series: None,
            seed_salt: None,
            seeded: false,
        };
        let handle = games.create(record).await.unwrap();
        for (seat, p) in players.iter().enumerate() {
            handle.join(p.clone(), Some(seat as u8)).await.unwrap();
        }
        handle
    }

    async fn stopped(handles: &[GameHandle]) {
        tokio::time::timeout(Duration::from_secs(10), async {
            while !handles.iter().all(GameHandle::is_closed) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the abandoned games end and their actors stop");
    }

    #[tokio::test]
    async fn a_finished_game_stops_once_its_last_watcher_leaves() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let players = fixtures::two_players(&*store).await;
        let games = Games::new(store, abandoned(), &Limits::unlimited(), None);
        let handle = abandoned_game(&games, 0, &players).await;
        let mut watching = handle.watch(None).await.unwrap();
        while !watching.latest.state.status.is_over() {
            watching.latest = watching.live.recv().await.unwrap();
        }
        assert!(!handle.is_closed(), "watched, the game stays");
        // The watcher leaves; nothing else ever asks for the game again.
        drop(watching);
        stopped(&[handle]).await;
    }

    #[tokio::test]
    async fn the_directory_forgets_games_whose_actors_stopped() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let players = fixtures::two_players(&*store).await;
        let games = Games::new(store, abandoned(), &Limits::unlimited(), None);
        games.sweep_at.store(3, Ordering::Relaxed);
        let mut handles = Vec::new();
        for g in 0..3 {
            handles.push(abandoned_game(&games, g, &players).await);
        }
        stopped(&handles).await;
        assert_eq!(games.directory_len(), 3, "not swept before it is due");
        // The next game looked up sweeps the three stopped ones away.
        let _ = games.get("unknown").await;
        assert_eq!(games.directory_len(), 0);
        // A stopped game is loaded again when asked for.
        let again = games.get("g0").await.unwrap();
        assert!(again.latest().await.unwrap().state.status.is_over());
    }

    /// A started 2-player game with a clock of `clock` seconds (0: none).
    async fn running_game(games: &Games, id: &str, clock: u32, players: &[PlayerInfo]) {
        let record = GameInfo {
            settings: Settings::new(2, vec![], clock, Visibility::Public).unwrap(),
            ..table(id, now_micros())
        };
        let handle = games.create(record).await.unwrap();
        for (seat, p) in players.iter().enumerate() {
            handle.join(p.clone(), Some(seat as u8)).await.unwrap();
        }
    }

    /// A running game without a clock that nobody plays or watches holds no actor: it is
    /// let go, loaded again when asked for, and neither a restart nor a takeover loads it;
    /// one with a clock runs all the time, its clock must fire.
    #[tokio::test]
    async fn games_without_a_clock_load_only_when_asked_for() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let players = fixtures::two_players(&*store).await;
        let options = ActorOptions {
            idle_unload: Duration::from_millis(20),
            ..ActorOptions::default()
        };
        let games = Games::new(store.clone(), options.clone(), &Limits::unlimited(), None);
        running_game(&games, "clockless", 0, &players).await;
        running_game(&games, "clocked", 3600, &players).await;
        tokio::time::timeout(Duration::from_secs(10), async {
            while games.handle("clockless").is_some() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the game without a clock is let go");
        assert!(games.handle("clocked").is_some(), "a clock keeps its game");
        let again = games.get("clockless").await.unwrap();
        assert_eq!(
            again.latest().await.unwrap().state.status,
            crate::domain::GameStatus::Running
        );

        // A restart restores only the game whose clock must run.
        let restarted = Arc::new(Games::new(
            store.clone(),
            options.clone(),
            &Limits::unlimited(),
            None,
        ));
        assert_eq!(restarted.restore().await.unwrap(), 1);
        tokio::time::timeout(Duration::from_secs(10), async {
            while restarted.handle("clocked").is_none() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the clocked game is restored");
        assert!(restarted.handle("clockless").is_none());
        // A takeover of both runs the clocked one at once, the other when asked for.
        let taking_over = Games::new(store, options, &Limits::unlimited(), None);
        Directory::adopt(&taking_over, &["clockless".into(), "clocked".into()]).await;
        assert!(taking_over.handle("clocked").is_some());
        assert!(taking_over.handle("clockless").is_none());
    }

    fn table(id: &str, created_at: i64) -> GameInfo {
        GameInfo {
            id: id.into(),
            settings: Settings::new(2, vec![], 0, Visibility::Public).unwrap(),
            seed: 1,
            created_by: "p0".into(),
            created_at,
            ladder: false,
            series: None,
            seed_salt: None,
            seeded: false,
        }
    }

    #[tokio::test]
    async fn a_creator_has_few_tables_waiting_and_a_table_not_filled_in_time_expires() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        fixtures::two_players(&*store).await;
        let options = ActorOptions {
            open_ttl: Duration::from_secs(60),
            ..ActorOptions::default()
        };
        let games = Games::new(
            store.clone(),
            options,
            &Limits {
                open_games_per_player: 2,
                ..Limits::unlimited()
            },
            None,
        );
        // One table created long ago (its actor unloaded, say, by a restart), one now.
        let old = now_micros() - 120_000_000;
        store
            .create_game(&table("old", old), &[], None)
            .await
            .unwrap()
            .unwrap();
        games.create(table("new", now_micros())).await.unwrap();
        let Err(GameError::Limit { kind, subject, .. }) =
            games.create(table("third", now_micros())).await
        else {
            panic!("a third table waiting");
        };
        assert_eq!(
            (kind, subject.as_str()),
            (crate::game_error::LimitKind::OpenGames, "player:p0")
        );
        assert_eq!(games.sweep_expired().await.unwrap(), 1, "only the old one");
        let expired = games.get("old").await.unwrap().latest().await.unwrap();
        assert_eq!(expired.state.status, crate::domain::GameStatus::Aborted);
        assert!(matches!(
            &expired.events[..],
            [crate::table::TableEvent::Aborted { reason }] if reason == crate::table::EXPIRED
        ));
        // Its place is free again.
        games.create(table("third", now_micros())).await.unwrap();
        assert_eq!(games.sweep_expired().await.unwrap(), 0);
    }

    #[tokio::test]
    async fn a_loaded_table_expires_on_its_own_clock() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        fixtures::two_players(&*store).await;
        let options = ActorOptions {
            open_ttl: Duration::from_millis(100),
            ..ActorOptions::default()
        };
        let games = Games::new(store, options, &Limits::unlimited(), None);
        let handle = games.create(table("soon", now_micros())).await.unwrap();
        let mut watching = handle.watch(None).await.unwrap();
        let aborted = tokio::time::timeout(Duration::from_secs(10), watching.live.recv())
            .await
            .expect("expired within its time")
            .unwrap();
        assert_eq!(aborted.state.status, crate::domain::GameStatus::Aborted);
    }
}
