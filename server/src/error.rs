//! The RPC layer's error type, [`ApiError`], and the one mapping of every failure onto a gRPC
//! status with its details (see the error conventions at the top of
//! `proto/theboss/v1/game_service.proto`). Every `Status` the services answer with is made
//! here, apart from those a replica forwards unchanged.

use std::collections::HashMap;
use std::time::Duration;

use theboss::convert::WireError;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::game_error::GameError;
use crate::quota::Throttled;
use crate::store::StoreError;
use crate::table::TableError;

/// `ErrorInfo.domain` of every error this service reports.
pub const ERROR_DOMAIN: &str = "theboss.v1";

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("{0}")]
    Unauthenticated(&'static str),
    #[error(transparent)]
    Throttled(#[from] Throttled),
    /// The answer of the replica a call was forwarded to, passed on as it is.
    #[error("{}", .0.message())]
    Forwarded(Status),
}

impl ApiError {
    pub fn invalid(field: &str, problem: impl Into<String>) -> ApiError {
        ApiError::Game(GameError::invalid(field, problem))
    }
}

impl From<WireError> for ApiError {
    fn from(e: WireError) -> ApiError {
        ApiError::Game(e.into())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::Game(GameError::Store(e))
    }
}

impl From<TableError> for ApiError {
    fn from(e: TableError) -> ApiError {
        ApiError::Game(GameError::Table(e))
    }
}

fn with_reason(code: Code, message: String, reason: &str) -> Status {
    Status::with_error_details(
        code,
        message,
        ErrorDetails::with_error_info(reason, ERROR_DOMAIN, HashMap::new()),
    )
}

fn bad_request(field: String, problem: String, message: String) -> Status {
    Status::with_error_details(
        Code::InvalidArgument,
        message,
        ErrorDetails::with_bad_request_violation(field, problem),
    )
}

/// A refusal for a quota or a limit: RESOURCE_EXHAUSTED naming whose it is and the reason,
/// and, for a rate (a quota), how long to wait. A limit says no wait: trying again changes
/// nothing until the client lets go of what it holds, so clients must not retry by
/// themselves.
fn exhausted(
    message: String,
    subject: String,
    what: String,
    retry_after: Option<Duration>,
    reason: &str,
) -> Status {
    let mut details = ErrorDetails::new();
    if let Some(wait) = retry_after {
        details.set_retry_info(Some(wait.max(Duration::from_millis(1))));
    }
    details
        .add_quota_failure_violation(subject, what)
        .set_error_info(reason, ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(Code::ResourceExhausted, message, details)
}

impl From<GameError> for Status {
    fn from(error: GameError) -> Status {
        let message = error.to_string();
        match error {
            GameError::Invalid { field, problem } => bad_request(field, problem, message),
            GameError::GameNotFound(_)
            | GameError::PlayerNotFound(_)
            | GameError::NotFound { .. } => Status::not_found(message),
            GameError::Refused { reason, .. } => {
                with_reason(Code::FailedPrecondition, message, reason)
            }
            GameError::Forbidden { reason, .. } => {
                with_reason(Code::PermissionDenied, message, reason)
            }
            GameError::Table(TableError::NoSuchSeat { .. }) => {
                // The caller's mistake in the request's `seat`, whatever the number.
                bad_request("seat".into(), message.clone(), message)
            }
            GameError::Table(e @ TableError::NotSeated) => {
                with_reason(Code::PermissionDenied, message, e.reason())
            }
            GameError::Table(e) => with_reason(Code::FailedPrecondition, message, e.reason()),
            GameError::Stale { .. } => with_reason(Code::Aborted, message, "STALE_SEQ"),
            GameError::Unavailable => Status::unavailable(message),
            GameError::Moved => with_reason(Code::Unavailable, message, "MOVED"),
            GameError::SetInProgress => {
                with_reason(Code::PermissionDenied, message, "SET_IN_PROGRESS")
            }
            GameError::AlreadyQueued { .. } => {
                with_reason(Code::FailedPrecondition, message, "ALREADY_QUEUED")
            }
            GameError::Limit {
                kind,
                subject,
                limit,
            } => exhausted(
                message,
                subject,
                format!("at most {limit} {}", kind.what()),
                None,
                kind.reason(),
            ),
            GameError::Busy {
                reason,
                subject,
                what,
                retry_after,
            } => exhausted(message, subject, what, Some(retry_after), reason),
            GameError::Store(StoreError::Conflict { .. }) => {
                with_reason(Code::Aborted, message, "CONCURRENT_WRITE")
            }
            // Retrying cannot mend stored data: INTERNAL, and an operator must look.
            GameError::Store(StoreError::Corrupt(what)) => {
                tracing::error!(corrupt = %what, "stored data is corrupt");
                Status::internal(format!("stored data is corrupt: {what}"))
            }
            GameError::Store(e) => {
                tracing::error!(error = %e, "store failure");
                Status::unavailable(
                    "the game store is unavailable; retry with the same idempotency key",
                )
            }
        }
    }
}

impl From<ApiError> for Status {
    fn from(error: ApiError) -> Status {
        match error {
            ApiError::Game(error) => error.into(),
            ApiError::Unauthenticated(why) => Status::unauthenticated(why),
            ApiError::Throttled(throttled) => exhausted(
                throttled.to_string(),
                throttled.subject,
                format!("{} exceeded", throttled.quota),
                Some(throttled.retry_after),
                "RATE_LIMITED",
            ),
            ApiError::Forwarded(status) => status,
        }
    }
}

/// The status a stream ends with when the server stops or its game goes away: the client
/// reconnects (with `after_seq` for a game's stream).
pub fn stream_ended(why: &str) -> Status {
    Status::unavailable(why.to_string())
}

/// The trailers that end a stream the server's own code does not end when it stops
/// (UNAVAILABLE, as `stream_ended` says it).
pub fn shutdown_trailers() -> http::HeaderMap {
    let mut trailers = http::HeaderMap::new();
    trailers.insert(
        "grpc-status",
        http::HeaderValue::from(Code::Unavailable as i32),
    );
    trailers.insert(
        "grpc-message",
        http::HeaderValue::from_static("the server is shutting down"),
    );
    trailers
}

/// How long a caller refused a place among the unauthenticated is told to wait: such calls
/// end within seconds (a request's message must arrive within its timeout), so a place frees
/// up soon.
pub const UNAUTHENTICATED_RETRY: Duration = Duration::from_secs(1);

/// A call refused before its caller was known: too many such calls held open on its
/// connection, from its address or in all (`net::unauthenticated`).
pub fn unauthenticated_calls_exhausted(subject: String, limit: u32) -> Status {
    exhausted(
        format!(
            "too many calls from callers not yet known held open ({subject}, at most {limit}); \
             send a token, or end an open stream"
        ),
        subject,
        format!("at most {limit} calls not yet authenticated held open"),
        Some(UNAUTHENTICATED_RETRY),
        "TOO_MANY_UNAUTHENTICATED_CALLS",
    )
}

/// A request whose message did not arrive whole in time (its connection is closed too).
pub fn request_too_slow(timeout: Duration) -> Status {
    Status::deadline_exceeded(format!(
        "the request's message did not arrive within {} s",
        timeout.as_secs_f64()
    ))
}

/// A request body's decoding error is the caller's mistake: tonic-web reports a body it
/// cannot translate (bad base64, a malformed frame) as INTERNAL.
pub fn undecodable_body(status: Status) -> Status {
    match status.code() {
        Code::Internal => Status::invalid_argument(format!(
            "the request body does not decode: {}",
            status.message()
        )),
        _ => status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_error::LimitKind;
    use theboss_engine::RuleError;

    #[test]
    fn statuses_carry_codes_and_details() {
        let status = Status::from(ApiError::invalid("action.card", "a turn must play a card"));
        assert_eq!(status.code(), Code::InvalidArgument);
        let bad = status.get_details_bad_request().unwrap();
        assert_eq!(bad.field_violations[0].field, "action.card");

        let status = Status::from(GameError::Table(TableError::Rule(RuleError::GameOver)));
        assert_eq!(status.code(), Code::FailedPrecondition);
        assert_eq!(status.get_details_error_info().unwrap().reason, "GAME_OVER");

        let status = Status::from(GameError::Table(TableError::NotSeated));
        assert_eq!(status.code(), Code::PermissionDenied);

        let status = Status::from(GameError::Table(TableError::NoSuchSeat {
            seat: 7,
            players: 2,
        }));
        assert_eq!(status.code(), Code::InvalidArgument, "a seat out of range");
        assert_eq!(
            status.get_details_bad_request().unwrap().field_violations[0].field,
            "seat"
        );

        let status = Status::from(GameError::Stale {
            expected: 1,
            current: 2,
        });
        assert_eq!(status.code(), Code::Aborted);

        let status = Status::from(ApiError::Throttled(Throttled {
            subject: "player:p".into(),
            quota: "calls per player",
            retry_after: Duration::from_millis(250),
            limit: 200,
            interval: Duration::from_millis(20),
        }));
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status.get_details_retry_info().unwrap().retry_delay,
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            status.get_details_quota_failure().unwrap().violations[0].subject,
            "player:p"
        );
        assert_eq!(
            status.get_details_error_info().unwrap().reason,
            "RATE_LIMITED"
        );

        let status = Status::from(GameError::Limit {
            kind: LimitKind::Spectators,
            subject: "game:g".into(),
            limit: 3,
        });
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status.get_details_error_info().unwrap().reason,
            "TOO_MANY_SPECTATORS"
        );
        assert_eq!(
            status.get_details_quota_failure().unwrap().violations[0].subject,
            "game:g"
        );
        assert!(
            status.get_details_retry_info().is_none(),
            "a limit is no rate: nothing to wait for"
        );

        let status = Status::from(GameError::Store(StoreError::Corrupt(
            "game g, action 3: no card New York 9 M$".into(),
        )));
        assert_eq!(status.code(), Code::Internal);
        assert!(status.message().contains("game g, action 3"));
        assert!(!status.message().contains("retry"));
    }

    #[test]
    fn a_body_tonic_web_cannot_translate_is_the_callers_mistake() {
        let status = undecodable_body(Status::internal("tonic-web: malformed base64 request"));
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains("malformed base64"));
        assert_eq!(
            undecodable_body(Status::cancelled("gone")).code(),
            Code::Cancelled
        );
    }
}
