//! [`GameError`]: why the registry, a game's actor or the ladder refused something, in their
//! own terms. They know nothing of gRPC; `error` turns these into statuses.

pub use crate::domain::LimitKind;
use crate::store::StoreError;
use crate::table::TableError;

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
