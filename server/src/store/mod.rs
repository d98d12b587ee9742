//! Persistence: the [`Store`] the rest of the server talks to, with domain-shaped methods in
//! seven parts ([`PlayerStore`], [`GameStore`], [`RatingStore`], [`LadderStore`],
//! [`ChallengeStore`], [`TournamentStore`] and the [`ArrangedGameStore`] they share), and its two
//! backends: PostgreSQL ([`PostgresStore`]) and an embedded SQLite file ([`SqliteStore`]),
//! one implementation over both ([`sql`]), each with its own migrations under
//! `server/migrations/`. [`Traced`] gives every call its span and its timing metric;
//! [`back_up`] copies an SQLite store while it serves.
//!
//! Only this module knows SQL. Games are event-sourced: a game row holds the settings and
//! the seed, the `actions` table holds the log keyed by (game, seq), and everything else is
//! derived by replaying the log. `games.status`, `games.winners`, `games.money`,
//! `games.acted` and `seats` are derived data kept up to date in the same transaction as the
//! action that changes them, for listing and rating.

mod backup;
pub mod coordination;
pub mod format;
mod group;
#[cfg(feature = "bench")]
pub mod history;
mod postgres;
#[cfg(feature = "bench")]
pub mod probe;
mod sql;
mod sqlite;
mod traced;

use async_trait::async_trait;
use theboss_engine::Seat;
use thiserror::Error;

use crate::domain::LimitKind;
use crate::domain::{
    GameInfo, GameStatus, LadderMatch, PlayerInfo, QueueEntry, SeriesRef, SetTable,
};
use crate::table::Action;
use theboss_ladder::challenge::{AnswerRefused, ChallengeRecord, Policy};
use theboss_ladder::rating::{Rated, Rating};
use theboss_ladder::tournament::{TournamentRecord, TournamentRefused, TournamentStatus};

/// The store's traits, to call any store's methods: `use theboss_server::store::prelude::*`.
pub mod prelude {
    pub use super::coordination::ClusterStore;
    pub use super::{
        ArrangedGameStore, ChallengeStore, GameStore, LadderStore, PlayerStore, RatingStore, Store,
        TournamentStore,
    };
}

pub use backup::{BackupError, back_up};
pub use postgres::PostgresStore;
pub use sql::SqlStore;
#[cfg(test)]
pub use sqlite::GameRowProbe;
pub use sqlite::SqliteStore;
pub use traced::Traced;

#[derive(Debug, Error)]
pub enum StoreError {
    /// The action number was already committed (another writer got there first).
    #[error("action {seq} of game {game_id} is already recorded")]
    Conflict { game_id: String, seq: u64 },
    /// The URL, with any password masked.
    #[error("unsupported database URL {0:?}: use postgres://… or sqlite://…")]
    UnsupportedUrl(String),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the store is shutting down")]
    Closed,
    /// This replica does not own the game (any more): another one runs it.
    #[error("game {game_id} is run by another replica")]
    NotOwner { game_id: String },
    /// A player's new seat would pass one of its caps (`PlayerCaps`): nothing was written.
    #[error("{0}")]
    AtCap(AtCap),
}

/// What a player may hold, checked in the store at once with the write that would add to it
/// (the player's row locked, so that its calls at once on other games or replicas wait for
/// each other's counts); 0 turns a cap off.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlayerCaps {
    pub player_id: String,
    /// Games it created that have not started (checked when it creates one).
    pub open: u32,
    /// Games it created or sits at that have not ended.
    pub unfinished: u32,
    /// Of those, games with house bots (checked for a game with house bots only).
    pub house: u32,
}

impl PlayerCaps {
    /// Whether one more game (a new one if `creating`, else a seat) has a cap to count
    /// against. With every such cap off nothing is counted, so nothing is locked either: the
    /// write is as any other's (a join then goes with its neighbours' in a group commit).
    pub fn counted(&self, creating: bool) -> bool {
        (creating && self.open > 0) || self.unfinished > 0 || self.house > 0
    }
}

/// The cap a new game or seat would pass: nothing was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("at most {limit} {}", kind.what())]
pub struct AtCap {
    pub kind: LimitKind,
    pub limit: u32,
}

/// A new player, with the hash of its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlayer {
    pub player: PlayerInfo,
    /// What the player says it is (`text::DESCRIPTION`).
    pub description: String,
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Effects {
    pub status: GameStatus,
    pub winners: Vec<Seat>,
    /// Final money by seat, once the game is over.
    pub money: Vec<u32>,
    /// Whether each seat has played a turn itself.
    pub acted: Vec<bool>,
    /// The game's row already holds this status, winners, money and acted: its writer knows
    /// it wrote them itself, with the game's previous action. A store may then leave the
    /// row alone (on PostgreSQL, a group's statement without its `UPDATE` runs about a tenth
    /// faster, and a turn alone has a cheaper statement of its own); `false` whenever that is
    /// not known, and the row is compared and written as needed.
    pub row_unchanged: bool,
    /// What the action's end of a ladder game rates, done in the action's transaction.
    pub rating: Option<RatingJob>,
    /// A player taking a seat by its own request: the caps its seat is checked against, in
    /// the action's transaction.
    pub caps: Option<PlayerCaps>,
}

/// What a ladder game's end asks the store to rate, with the players' rating rows locked so
/// that two games ending at once both count.
#[derive(Debug, Clone, PartialEq)]
pub enum RatingJob {
    /// A game's own result.
    Game(Rated),
    /// A table of a duplicate set ended: if it is the set's last, the store reads every
    /// table's result and rates the set (see `rating::rated_set`).
    SetTableEnded {
        series_id: String,
        /// A ladder set is rated; another (a casual tournament's) only counted down.
        rated: bool,
    },
}

/// One entry of a player's rating history.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRecord {
    pub game_id: String,
    pub players: u8,
    pub before: Rating,
    pub after: Rating,
    pub at: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlayerRatings {
    pub player: PlayerInfo,
    pub description: String,
    /// By category (0 overall, else the player count).
    pub ratings: Vec<(u8, Rating)>,
    /// Newest first.
    pub history: Vec<RatingRecord>,
}

/// One place of a leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderboardRow {
    pub player: PlayerInfo,
    pub description: String,
    pub rating: Rating,
}

/// A duplicate set: its players, table by table, each table in seat order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesRecord {
    pub id: String,
    pub players: Vec<String>,
    pub seed: u64,
    pub created_at: i64,
    /// How many tables play the deal.
    pub tables: u8,
}

/// An unfinished ladder game a player sits in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LadderSeat {
    pub game_id: String,
    pub seat: Seat,
    pub players: u8,
    pub series: Option<SeriesRef>,
}

/// What became of a ladder request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enqueued {
    /// It waits in the queue.
    Queued,
    /// Its player already sits in as many unfinished ladder games as it may play at once:
    /// those, oldest first. Nothing was queued.
    Seated(Vec<LadderSeat>),
    /// Its player's waiting requests and games already reach what it may play at once.
    /// Nothing was queued.
    AtLimit { waiting: u32, seated: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    pub record: GameInfo,
    pub actions: Vec<StoredAction>,
}

/// Which games to list, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameQuery {
    /// Empty: every status.
    pub statuses: Vec<GameStatus>,
    /// Only games this player is seated in.
    pub seated: Option<String>,
    /// Who asks: unlisted games show only to their creator and their players.
    pub viewer: String,
    pub limit: u32,
    /// Continue after this cursor (from [`GamePage::next`]).
    pub after: Option<GameCursor>,
}

/// Where a page of games ends, in the listing's total order: newest `created_at` first, and
/// among games created in the same microsecond, greatest id first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameCursor {
    pub created_at: i64,
    pub id: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameListing {
    pub record: GameInfo,
    pub status: GameStatus,
    pub seats: Vec<(Seat, PlayerInfo)>,
    pub winners: Vec<Seat>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamePage {
    pub games: Vec<GameListing>,
    /// The cursor of the next page, if there is one.
    pub next: Option<GameCursor>,
}

/// Players and their tokens.
#[async_trait]
pub trait PlayerStore: Send + Sync + 'static {
    async fn create_player(&self, player: &NewPlayer) -> Result<(), StoreError>;

    async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<PlayerInfo>, StoreError>;

    /// Sets a player's description; false if there is no such player.
    async fn set_description(&self, player_id: &str, description: &str)
    -> Result<bool, StoreError>;
}

/// Games and their action logs.
#[async_trait]
pub trait GameStore: Send + Sync + 'static {
    /// Records a new game with its first actions (`seated`: the joins of the seats it is
    /// created with, its house bots'), all at once. With `caps`, only if its creator stays
    /// within them, checked and written at once.
    async fn create_game(
        &self,
        game: &GameInfo,
        seated: &[StoredAction],
        caps: Option<&PlayerCaps>,
    ) -> Result<Result<(), AtCap>, StoreError>;

    /// Commits one action and its effects atomically. Fails with
    /// [`StoreError::Conflict`] if `action.seq` is already taken.
    async fn append_action(
        &self,
        game_id: &str,
        action: &StoredAction,
        effects: &Effects,
    ) -> Result<(), StoreError>;

    async fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError>;

    /// Many games at once (two queries), each with its own result: one game that cannot be
    /// read does not keep the others from loading.
    async fn load_games(
        &self,
        game_ids: &[String],
    ) -> Result<Vec<(String, Result<StoredGame, StoreError>)>, StoreError>;

    /// Writes whole games with their logs in one transaction (a bulk import, e.g. to seed a
    /// benchmark or to move games between stores). `effects` are each game's derived status,
    /// winners and money after its last action; ratings are not imported.
    async fn import_games(&self, games: &[(StoredGame, Effects)]) -> Result<(), StoreError>;

    /// Ids of the games being played (started, not over) whose turn clock runs, oldest
    /// first: a restart loads them at once, so that their clocks fire on time. The others
    /// wait for a call (they load on demand).
    async fn clocked_games(&self) -> Result<Vec<String>, StoreError>;

    /// A player's finished games (ids, and when they finished, in micros), newest first:
    /// those that finished within `[window.0, window.1)` and before `cursor` (a previous
    /// page's last `(finished_at, id)`), at most `limit`.
    async fn finished_games_of(
        &self,
        player_id: &str,
        window: (i64, i64),
        cursor: Option<(i64, String)>,
        limit: u32,
    ) -> Result<Vec<(String, i64)>, StoreError>;

    /// Up to `limit` games that have not started and were created before `before` (micros),
    /// oldest first: they have expired.
    async fn expired_open_games(&self, before: i64, limit: u32) -> Result<Vec<String>, StoreError>;

    async fn list_games(&self, query: &GameQuery) -> Result<GamePage, StoreError>;

    /// Whether every table of a duplicate set has ended (also true for unknown sets and for
    /// the series of earlier versions, which hide nothing).
    async fn set_over(&self, series_id: &str) -> Result<bool, StoreError>;
}

/// Ratings and duplicate sets.
#[async_trait]
pub trait RatingStore: Send + Sync + 'static {
    /// A player's rating in one category (0: overall), if rated.
    async fn rating(&self, player_id: &str, players: u8) -> Result<Option<Rating>, StoreError>;

    /// Established players of a category (see `rating::PROVISIONAL_GAMES`), best
    /// `mu - 3 sigma` first; only bots (`Some(true)`), only people (`Some(false)`) or all.
    async fn leaderboard(
        &self,
        players: u8,
        bots: Option<bool>,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<LeaderboardRow>, StoreError>;

    async fn player_ratings(&self, player_id: &str) -> Result<Option<PlayerRatings>, StoreError>;

    /// Records a new duplicate set, all its tables still to end.
    async fn create_series(&self, series: &SeriesRecord) -> Result<(), StoreError>;
}

/// The ladder's queue, shared by every replica.
#[async_trait]
pub trait LadderStore: Send + Sync + 'static {
    /// Unfinished ladder games a player sits in, oldest first.
    async fn ladder_games_of(&self, player_id: &str) -> Result<Vec<LadderSeat>, StoreError>;

    /// Puts a request in the queue, unless its player already sits in or waits for as many
    /// ladder games as the request allows at once (checked and written at once).
    async fn enqueue_ladder(&self, entry: &QueueEntry) -> Result<Enqueued, StoreError>;

    /// The requests waiting for an answer, oldest first.
    async fn ladder_queue(&self) -> Result<Vec<QueueEntry>, StoreError>;

    /// Answers requests in one transaction, each with its matches (its new game, or the games
    /// its player sits in already). A request withdrawn meanwhile is skipped.
    async fn answer_ladder(&self, answers: &[(String, Vec<LadderMatch>)])
    -> Result<(), StoreError>;

    /// Requests' answers, by request: `None` if the request is gone (withdrawn), an empty
    /// list while it waits.
    async fn ladder_answers(
        &self,
        entry_ids: &[String],
    ) -> Result<Vec<(String, Option<Vec<LadderMatch>>)>, StoreError>;

    /// Forgets a request (answered and delivered, or its stream closed).
    async fn forget_ladder_entry(&self, entry_id: &str) -> Result<(), StoreError>;

    /// Withdraws a player's waiting requests; returns their ids.
    async fn cancel_ladder(&self, player_id: &str) -> Result<Vec<String>, StoreError>;

    /// Withdraws the requests held by replicas not in `alive` (their streams are gone; none
    /// alive: every request).
    async fn purge_ladder(&self, alive: &[String]) -> Result<u64, StoreError>;
}

/// A challenge refused by the store, which changed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeRefused {
    /// The challenger has as many challenges waiting as it may.
    TooMany { limit: u32 },
    /// A challenged player is unknown.
    UnknownPlayer(String),
    /// A challenged player does not take challenges from this challenger.
    Refuses(PlayerInfo),
    /// A challenged player who does not know the challenger already sees as many challenges
    /// from players it does not know as it may.
    Crowded { player: PlayerInfo, limit: u32 },
}

/// A tournament's game with its set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrangedTable {
    pub series_id: Option<String>,
    pub series_index: u8,
    pub table: SetTable,
}

/// Challenges: who may challenge whom, the challenges, their answers, and who knows whom.
#[async_trait]
pub trait ChallengeStore: Send + Sync + 'static {
    /// Sets who may challenge a player; false if there is no such player.
    async fn set_challenge_policy(
        &self,
        player_id: &str,
        policy: Policy,
    ) -> Result<bool, StoreError>;

    /// A player's policy (None: no such player).
    async fn challenge_policy(&self, player_id: &str) -> Result<Option<Policy>, StoreError>;

    /// Records a challenge after checking, at once, that its challenger has fewer than
    /// `max_open` open challenges and that every challenged player exists and takes it. The
    /// record's parties are its challenger and the ids of the challenged (their names are
    /// read here); the stored challenge is returned.
    async fn create_challenge(
        &self,
        challenge: &ChallengeRecord,
        max_open: u32,
    ) -> Result<Result<ChallengeRecord, ChallengeRefused>, StoreError>;

    async fn challenge(&self, challenge_id: &str) -> Result<Option<ChallengeRecord>, StoreError>;

    /// A player's answer, applied by `arranged::answer` under a lock on the challenge; the
    /// challenge as it is afterwards (None: no such challenge).
    async fn answer_challenge(
        &self,
        challenge_id: &str,
        player_id: &str,
        accept: bool,
        now: i64,
    ) -> Result<Option<Result<ChallengeRecord, AnswerRefused>>, StoreError>;

    /// The challenges a player's Offers stream shows at `now`: those of players it knows
    /// (it challenged them, or played with them) first, a few of each challenger at most
    /// (`arranged::shown`).
    async fn challenges_of(
        &self,
        player_id: &str,
        now: i64,
    ) -> Result<Vec<ChallengeRecord>, StoreError>;

    /// Records that these players know each other (they played a game together).
    async fn note_contacts(&self, players: &[String]) -> Result<(), StoreError>;

    /// Challenges everyone accepted, waiting for their games, oldest first.
    async fn seating_challenges(&self, now: i64) -> Result<Vec<ChallengeRecord>, StoreError>;

    /// Marks a seating challenge started with its games; false if it is not seating any
    /// more (withdrawn or expired meanwhile).
    async fn start_challenge(
        &self,
        challenge_id: &str,
        game_ids: &[String],
        now: i64,
    ) -> Result<bool, StoreError>;

    /// Writes `expired` on open challenges past their expiry (at most `limit`); returns
    /// their ids.
    async fn expire_challenges(&self, now: i64, limit: u32) -> Result<Vec<String>, StoreError>;
}

/// The games challenges and tournaments seat.
#[async_trait]
pub trait ArrangedGameStore: Send + Sync + 'static {
    /// Records games a challenge or a tournament (`arranged_by`) is about to create.
    async fn arrange_games(&self, arranged_by: &str, game_ids: &[String])
    -> Result<(), StoreError>;

    /// Unfinished arranged games a player sits in, oldest first.
    async fn arranged_games_of(&self, player_id: &str) -> Result<Vec<LadderSeat>, StoreError>;
}

/// Tournaments: their entrants, their rounds' tables, their ends.
#[async_trait]
pub trait TournamentStore: Send + Sync + 'static {
    /// Records a tournament (and its creator as its first entrant if it has one in
    /// `entrants`), unless its creator has `max_unfinished` tournaments not finished; returns
    /// whether it did.
    async fn create_tournament(
        &self,
        tournament: &TournamentRecord,
        max_unfinished: u32,
    ) -> Result<bool, StoreError>;

    /// A tournament with its entrants.
    async fn tournament(&self, tournament_id: &str)
    -> Result<Option<TournamentRecord>, StoreError>;

    /// Enters or leaves, checked by `arranged::check_entry` under a lock on the tournament;
    /// the tournament afterwards (None: no such tournament).
    async fn enter_tournament(
        &self,
        tournament_id: &str,
        player_id: &str,
        entering: bool,
        now: i64,
    ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError>;

    /// Starts it, checked by `arranged::check_start` under the same lock.
    async fn start_tournament(
        &self,
        tournament_id: &str,
        player_id: &str,
        now: i64,
    ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError>;

    /// Tournaments (with their entrants), newest first.
    async fn list_tournaments(
        &self,
        status: Option<TournamentStatus>,
        limit: u32,
    ) -> Result<Vec<TournamentRecord>, StoreError>;

    /// Ids of the tournaments being played.
    async fn running_tournaments(&self) -> Result<Vec<String>, StoreError>;

    /// Every game a tournament seated, with its players and results.
    async fn tournament_tables(
        &self,
        tournament_id: &str,
    ) -> Result<Vec<ArrangedTable>, StoreError>;

    async fn finish_tournament(&self, tournament_id: &str, now: i64) -> Result<(), StoreError>;
}

/// Everything the server stores.
pub trait Store:
    PlayerStore
    + GameStore
    + RatingStore
    + LadderStore
    + ChallengeStore
    + ArrangedGameStore
    + TournamentStore
{
}

impl<T> Store for T where
    T: PlayerStore
        + GameStore
        + RatingStore
        + LadderStore
        + ChallengeStore
        + ArrangedGameStore
        + TournamentStore
{
}

/// Opens the store a URL names (traced), with what replicas share if it can be shared:
/// PostgreSQL can, an SQLite file cannot. Migrations run first.
pub async fn open_shared(
    url: &str,
) -> Result<
    (
        std::sync::Arc<dyn Store>,
        Option<std::sync::Arc<dyn coordination::ClusterStore>>,
    ),
    StoreError,
> {
    if is_postgres(url) {
        let store = std::sync::Arc::new(Traced::new(PostgresStore::connect(url).await?));
        let shared: std::sync::Arc<dyn coordination::ClusterStore> = store.clone();
        Ok((store, Some(shared)))
    } else {
        Ok((std::sync::Arc::from(open(url).await?), None))
    }
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Opens the store a URL names (traced) and applies its migrations: `postgres://…` or
/// `sqlite://path` (created if missing).
pub async fn open(url: &str) -> Result<Box<dyn Store>, StoreError> {
    if is_postgres(url) {
        Ok(Box::new(Traced::new(PostgresStore::connect(url).await?)))
    } else if url.starts_with("sqlite:") {
        Ok(Box::new(Traced::new(SqliteStore::connect(url).await?)))
    } else {
        Err(StoreError::UnsupportedUrl(redact_url(url)))
    }
}

/// A database URL fit for logs and messages: the password in its user information and any
/// `password` query parameter masked.
pub fn redact_url(url: &str) -> String {
    const MASK: &str = "****";
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, url),
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (rest, None),
    };
    let (authority, path) = match before_query.find('/') {
        Some(i) => before_query.split_at(i),
        None => (before_query, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:{MASK}@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_string(),
    };
    let mut out = String::with_capacity(url.len());
    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push_str("://");
    }
    out.push_str(&authority);
    out.push_str(path);
    if let Some(query) = query {
        out.push('?');
        let params: Vec<String> = query
            .split('&')
            .map(|param| match param.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}={MASK}"),
                _ => param.to_string(),
            })
            .collect();
        out.push_str(&params.join("&"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_a_message() {
        let url = "postgres://boss:s3cret@db.example:5432/games?sslmode=require&password=s3cret2";
        assert_eq!(
            redact_url(url),
            "postgres://boss:****@db.example:5432/games?sslmode=require&password=****"
        );
        assert_eq!(
            redact_url("postgres://boss@db/games"),
            "postgres://boss@db/games"
        );
        assert_eq!(redact_url("sqlite://theboss.db"), "sqlite://theboss.db");
        // A password with an @ in it is masked whole.
        assert_eq!(redact_url("postgres://u:p@ss@h/d"), "postgres://u:****@h/d");
    }

    #[tokio::test]
    async fn an_unsupported_url_is_refused_without_its_password() {
        let Err(error) = open("mysql://root:s3cret@localhost/boss").await else {
            panic!("mysql is not supported");
        };
        let message = error.to_string();
        assert!(
            message.contains("mysql://root:****@localhost/boss"),
            "{message}"
        );
        assert!(!message.contains("s3cret"), "{message}");
    }
}
