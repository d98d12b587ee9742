//! The server's domain values, shared by every module: players, game statuses, a game's
//! settings (validated once, at creation, and immutable after) and its record. Nothing here
//! knows about the wire, the database or the engine's inner workings.

use std::time::{SystemTime, UNIX_EPOCH};

use theboss_engine::{City, ConfigError, GameConfig, RulesVersion};

/// The longest turn time limit a game may set: one day.
pub const MAX_TURN_TIME_LIMIT_SECS: u32 = 86_400;

/// Now, in microseconds since the Unix epoch: how the server stamps times.
pub fn now_micros() -> i64 {
    micros(SystemTime::now())
}

pub fn micros(time: SystemTime) -> i64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_micros()).unwrap_or(i64::MAX)
}

/// A limit on what one client may hold (see the contract's "Limits").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// Open `WatchGame` streams of one player.
    WatchStreams,
    /// Spectators' streams of one game.
    Spectators,
    /// Games one player created that have not started.
    OpenGames,
    /// Open `Offers` streams of one player.
    OfferStreams,
    /// Challenges of one player waiting for answers or seats.
    OpenChallenges,
    /// Tournaments one player created that have not finished.
    OpenTournaments,
    /// Unfinished games with house bots one player created or sits at.
    HouseGames,
    /// Unfinished games (open or running) one player created or sits at.
    UnfinishedGames,
    /// A caller's house bots' thinking this server can take on now (`house`).
    HouseCapacity,
    /// Challenges a player sees at once from players it does not know.
    ChallengesFromStrangers,
}

impl LimitKind {
    /// The reason the contract names it by.
    pub fn reason(self) -> &'static str {
        match self {
            LimitKind::WatchStreams => "TOO_MANY_STREAMS",
            LimitKind::Spectators => "TOO_MANY_SPECTATORS",
            LimitKind::OpenGames => "TOO_MANY_OPEN_GAMES",
            LimitKind::OfferStreams => "TOO_MANY_STREAMS",
            LimitKind::OpenChallenges => "TOO_MANY_CHALLENGES",
            LimitKind::OpenTournaments => "TOO_MANY_TOURNAMENTS",
            LimitKind::HouseGames => "TOO_MANY_HOUSE_GAMES",
            LimitKind::UnfinishedGames => "TOO_MANY_UNFINISHED_GAMES",
            LimitKind::HouseCapacity => "HOUSE_BOTS_BUSY",
            LimitKind::ChallengesFromStrangers => "TOO_MANY_CHALLENGES",
        }
    }

    /// What is counted, for messages.
    pub fn what(self) -> &'static str {
        match self {
            LimitKind::WatchStreams => "open WatchGame streams per player",
            LimitKind::Spectators => "spectators per game",
            LimitKind::OpenGames => "games not started per player",
            LimitKind::OfferStreams => "open Offers streams per player",
            LimitKind::OpenChallenges => "challenges waiting for answers per player",
            LimitKind::OpenTournaments => "unfinished tournaments created per player",
            LimitKind::HouseGames => "unfinished games with house bots per player",
            LimitKind::UnfinishedGames => "unfinished games per player",
            LimitKind::HouseCapacity => "tables with house bots the server can think for now",
            LimitKind::ChallengesFromStrangers => {
                "challenges a player sees at once from players it does not know"
            }
        }
    }
}

pub use theboss_ladder::{PlayerInfo, SetTable};

/// What every house bot's id starts with (migration `0011_house_bots`; `house` numbers them).
pub const HOUSE_BOT_ID_PREFIX: &str = "b0550000-0000-4000-8000-0000000000";

/// Whether a player is a seat the server plays itself (`house`): nobody can sign in as one.
pub fn is_house_bot(player: &PlayerInfo) -> bool {
    player.id.starts_with(HOUSE_BOT_ID_PREFIX)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GameStatus {
    #[default]
    Open,
    Running,
    Finished,
    Aborted,
}

impl From<GameStatus> for theboss_ladder::TableStatus {
    fn from(status: GameStatus) -> theboss_ladder::TableStatus {
        match status {
            GameStatus::Finished => theboss_ladder::TableStatus::Finished,
            GameStatus::Aborted => theboss_ladder::TableStatus::Aborted,
            GameStatus::Open | GameStatus::Running => theboss_ladder::TableStatus::Playing,
        }
    }
}

impl GameStatus {
    pub const ALL: [GameStatus; 4] = [
        GameStatus::Open,
        GameStatus::Running,
        GameStatus::Finished,
        GameStatus::Aborted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Open => "open",
            GameStatus::Running => "running",
            GameStatus::Finished => "finished",
            GameStatus::Aborted => "aborted",
        }
    }

    pub fn parse(s: &str) -> Option<GameStatus> {
        GameStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
    }

    pub fn is_over(self) -> bool {
        matches!(self, GameStatus::Finished | GameStatus::Aborted)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    Public,
    Unlisted,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Unlisted => "unlisted",
        }
    }

    pub fn parse(s: &str) -> Option<Visibility> {
        [Visibility::Public, Visibility::Unlisted]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// Why settings are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error(transparent)]
    Rules(#[from] ConfigError),
    #[error("a turn time limit is at most {MAX_TURN_TIME_LIMIT_SECS} seconds, not {0}")]
    TurnTimeLimit(u32),
}

/// A game's settings: checked by [`Settings::new`] and fixed from then on, so a value of
/// this type is always a game the rules allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    players: u8,
    cities: Vec<City>,
    turn_time_limit_secs: u32,
    visibility: Visibility,
    rules: RulesVersion,
}

impl Settings {
    /// Checks the players and cities against the rules (an empty city list means the
    /// rulebook's default for the player count) and the turn time limit (0: none). The game
    /// is played under the newest rules; see [`Settings::with_rules`].
    pub fn new(
        players: u8,
        cities: Vec<City>,
        turn_time_limit_secs: u32,
        visibility: Visibility,
    ) -> Result<Settings, SettingsError> {
        let mut config = GameConfig::new(players, 0);
        if !cities.is_empty() {
            config = config.with_cities(cities);
        }
        let setup = config.validate()?;
        if turn_time_limit_secs > MAX_TURN_TIME_LIMIT_SECS {
            return Err(SettingsError::TurnTimeLimit(turn_time_limit_secs));
        }
        Ok(Settings {
            players,
            cities: setup.cities().to_vec(),
            turn_time_limit_secs,
            visibility,
            rules: RulesVersion::LATEST,
        })
    }

    /// The same settings under another published version of the rules (a stored game's
    /// own, or an earlier one asked for to replay a known deal).
    pub fn with_rules(mut self, rules: RulesVersion) -> Settings {
        self.rules = rules;
        self
    }

    pub fn players(&self) -> u8 {
        self.players
    }

    /// The cities in play, left to right (never empty).
    pub fn cities(&self) -> &[City] {
        &self.cities
    }

    /// Seconds a seat has per turn; 0 for no clock.
    pub fn turn_time_limit_secs(&self) -> u32 {
        self.turn_time_limit_secs
    }

    pub fn visibility(&self) -> Visibility {
        self.visibility
    }

    /// The rules version the game is played under.
    pub fn rules(&self) -> RulesVersion {
        self.rules
    }

    /// The engine's configuration of a game with these settings and `seed`.
    pub fn engine_config(&self, seed: u64) -> GameConfig {
        GameConfig::new(self.players, seed)
            .with_cities(self.cities.clone())
            .with_rules(self.rules)
    }
}

/// What the store keeps of a game besides its action log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    pub id: String,
    pub settings: Settings,
    pub seed: u64,
    pub created_by: String,
    /// Microseconds since the Unix epoch.
    pub created_at: i64,
    pub ladder: bool,
    /// Set for the games of a duplicate series.
    pub series: Option<SeriesRef>,
    /// The secret that, with the seed, makes the commitment every view shows (see
    /// `theboss::fairness`); None for games stored before commitments existed.
    pub seed_salt: Option<String>,
    /// The creator chose the seed, so it may know every deal (only unlisted games can be).
    pub seeded: bool,
}

/// A new game's seed salt: 256 random bits, in hex.
pub fn new_seed_salt() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    hex::encode(bytes)
}

/// A game's place in a duplicate set: one deal played at several tables at once, each by
/// different players. (Series stored by earlier versions, one deal replayed with the seats
/// rotated one game after another, have `tables` 0; they are neither continued nor rated.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesRef {
    pub id: String,
    /// This table's index, 0-based.
    pub index: u8,
    /// How many tables play the set's deal (0: a series of an earlier version).
    pub tables: u8,
}

impl SeriesRef {
    /// A duplicate set (as opposed to a series of an earlier version).
    pub fn is_set(&self) -> bool {
        self.tables >= 2
    }
}

/// A seat in a ladder game, as the ladder tells a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LadderMatch {
    pub game_id: String,
    pub seat: theboss_engine::Seat,
    pub players: u8,
    /// A game the player sat in already (to finish first), not a new one.
    pub already_seated: bool,
    pub series: Option<SeriesRef>,
}

/// A request in the ladder's queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueEntry {
    pub id: String,
    pub player: PlayerInfo,
    /// None: any player count.
    pub players: Option<u8>,
    pub duplicate: bool,
    /// Ladder games the player may play at once, its waiting requests included (1..=8).
    pub parallel: u8,
    /// The replica holding the request's stream.
    pub replica: String,
    /// Microseconds since the Unix epoch.
    pub enqueued_at: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_once_and_then_fixed() {
        let settings = Settings::new(3, vec![], 30, Visibility::Public).unwrap();
        assert_eq!(settings.players(), 3);
        assert_eq!(settings.cities().len(), 5, "the rulebook's default set");
        assert_eq!(settings.rules(), RulesVersion::LATEST);
        assert_eq!(
            settings
                .clone()
                .with_rules(RulesVersion::V1)
                .engine_config(7)
                .rules,
            RulesVersion::V1
        );
        assert!(matches!(
            Settings::new(5, vec![], 0, Visibility::Public),
            Err(SettingsError::Rules(_))
        ));
        assert_eq!(
            Settings::new(2, vec![], MAX_TURN_TIME_LIMIT_SECS + 1, Visibility::Public),
            Err(SettingsError::TurnTimeLimit(MAX_TURN_TIME_LIMIT_SECS + 1))
        );
    }
}
