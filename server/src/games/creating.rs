//! Creating games: a player's table within its caps (counted by the store under a lock on
//! the player's row, and remembered for a moment when reached), a table with house bots
//! seated, and the server's own games (the ladder's, challenges', tournaments').

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;

use super::{Games, Slot};
use crate::actor::{self, GameHandle, Role};
use crate::domain::{GameInfo, PlayerInfo, now_micros};
use crate::game_error::{GameError, LimitKind};
use crate::house::Principal;
use crate::store::{AtCap, PlayerCaps, StoredAction, StoredGame};
use crate::table::Action;

/// How long a creator found at its cap of tables waiting is refused without asking the
/// store again (its tables fill or expire over minutes, not milliseconds).
const CAPPED_FOR: Duration = Duration::from_secs(1);

impl Games {
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
}
