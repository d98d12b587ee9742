//! Persistence: the one [`Store`] trait the rest of the server talks to, with domain-shaped
//! methods, and its two implementations: PostgreSQL ([`postgres`]) and an embedded SQLite
//! file ([`sqlite`]), each with its own migrations under `server/migrations/`.
//!
//! Only this module knows SQL. Games are event-sourced: a game row holds the settings and
//! the seed, the `actions` table holds the log keyed by (game, seq), and everything else is
//! derived by replaying the log. `games.status`, `games.winners` and `seats` are derived data
//! kept up to date in the same transaction as the action that changes them, for listing.

mod postgres;
mod rows;
mod sqlite;

use async_trait::async_trait;
use theboss_engine::Seat;
use thiserror::Error;

use crate::table::{Action, GameRecord, PlayerInfo, Status};

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

#[derive(Debug, Error)]
pub enum StoreError {
    /// The action number was already committed (another writer got there first).
    #[error("action {seq} of game {game_id} is already recorded")]
    Conflict { game_id: String, seq: u64 },
    #[error("unsupported database URL {0:?}: use postgres://… or sqlite://…")]
    UnsupportedUrl(String),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// A new player, with the hash of its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlayer {
    pub player: PlayerInfo,
    pub token_hash: String,
    pub created_at: i64,
}

/// One committed action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAction {
    /// 1 for a game's first action, then +1 per action.
    pub seq: u64,
    pub action: Action,
    /// Who asked for it (None for the server's own, e.g. a clock's default turn).
    pub player_id: Option<String>,
    pub idempotency_key: Option<String>,
    /// Microseconds since the Unix epoch.
    pub at: i64,
}

/// What changes with an action besides the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effects {
    pub status: Status,
    pub winners: Vec<Seat>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    pub record: GameRecord,
    pub actions: Vec<StoredAction>,
}

/// Which games to list, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameQuery {
    /// Empty: every status.
    pub statuses: Vec<Status>,
    /// Only games this player is seated in.
    pub seated: Option<String>,
    /// Who asks: unlisted games show only to their creator and their players.
    pub viewer: String,
    pub limit: u32,
    /// Continue after this cursor (from [`GamePage::next`]).
    pub after: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameListing {
    pub record: GameRecord,
    pub status: Status,
    pub seats: Vec<(Seat, PlayerInfo)>,
    pub winners: Vec<Seat>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamePage {
    pub games: Vec<GameListing>,
    /// The cursor of the next page, if there is one.
    pub next: Option<i64>,
}

#[async_trait]
pub trait Store: Send + Sync + 'static {
    async fn create_player(&self, player: &NewPlayer) -> Result<(), StoreError>;

    async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<PlayerInfo>, StoreError>;

    async fn create_game(&self, game: &GameRecord) -> Result<(), StoreError>;

    /// Commits one action and its effects atomically. Fails with
    /// [`StoreError::Conflict`] if `action.seq` is already taken.
    async fn append_action(
        &self,
        game_id: &str,
        action: &StoredAction,
        effects: &Effects,
    ) -> Result<(), StoreError>;

    async fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError>;

    /// Ids of every game that is neither finished nor aborted.
    async fn unfinished_games(&self) -> Result<Vec<String>, StoreError>;

    async fn list_games(&self, query: &GameQuery) -> Result<GamePage, StoreError>;
}

/// Opens the store a URL names and applies its migrations: `postgres://…` or
/// `sqlite://path` (created if missing).
pub async fn open(url: &str) -> Result<Box<dyn Store>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Box::new(PostgresStore::connect(url).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Box::new(SqliteStore::connect(url).await?))
    } else {
        Err(StoreError::UnsupportedUrl(url.to_string()))
    }
}
