//! [`GameError`]: why the registry, a game's actor or the ladder refused something, in their
//! own terms. They know nothing of gRPC; `error` turns these into statuses.

use crate::store::StoreError;
use crate::table::TableError;

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

#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The server cannot take this on now (its house bots' thinking is fully committed):
    /// RESOURCE_EXHAUSTED with how long to wait.
    #[error("{what} ({subject}): try again in {} s", retry_after.as_secs().max(1))]
    Busy {
        reason: &'static str,
        subject: String,
        what: String,
        retry_after: std::time::Duration,
    },
    /// The request is malformed: `field` names what is wrong with it.
    #[error("{field}: {problem}")]
    Invalid { field: String, problem: String },
    #[error("no game {0}")]
    GameNotFound(String),
    #[error("no player {0}")]
    PlayerNotFound(String),
    /// No challenge, tournament… (`what`) of this id.
    #[error("no {what} {id}")]
    NotFound { what: &'static str, id: String },
    /// A rule of challenges or tournaments refuses the request now (FAILED_PRECONDITION
    /// with `reason`).
    #[error("{message}")]
    Refused {
        reason: &'static str,
        message: String,
    },
    /// The caller may not do this (PERMISSION_DENIED with `reason`).
    #[error("{message}")]
    Forbidden {
        reason: &'static str,
        message: String,
    },
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(
        "expected_seq {expected} is stale: the game is at seq {current}; fetch the view and try again"
    )]
    Stale { expected: u64, current: u64 },
    #[error("the game is being reloaded; try again")]
    Unavailable,
    #[error("the game is run by another replica now; try again")]
    Moved,
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A limit of the contract is reached; `subject` says whose (`player:<id>`, `game:<id>`).
    #[error("at most {limit} {} ({subject})", .kind.what())]
    Limit {
        kind: LimitKind,
        subject: String,
        limit: u32,
    },
    #[error(
        "this table's duplicate set is still being played: its tables are watched by their own players only until every table has ended"
    )]
    SetInProgress,
    #[error(
        "you already have {waiting} ladder request(s) waiting and {seated} unfinished ladder game(s): `parallel` allows {parallel} at once"
    )]
    AlreadyQueued {
        waiting: u32,
        seated: u32,
        parallel: u8,
    },
}

impl GameError {
    pub fn invalid(field: &str, problem: impl Into<String>) -> GameError {
        GameError::Invalid {
            field: field.to_string(),
            problem: problem.into(),
        }
    }
}

impl From<theboss::convert::WireError> for GameError {
    fn from(e: theboss::convert::WireError) -> GameError {
        GameError::Invalid {
            field: e.field,
            problem: e.problem,
        }
    }
}
