//! The server's error type and its one mapping onto gRPC statuses (see the error
//! conventions at the top of `proto/theboss/v1/game_service.proto`).

use std::collections::HashMap;

use theboss::convert::WireError;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::store::StoreError;
use crate::table::TableError;

/// `ErrorInfo.domain` of every error this service reports.
pub const ERROR_DOMAIN: &str = "theboss.v1";

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{field}: {problem}")]
    Invalid { field: String, problem: String },
    #[error("{0}")]
    Unauthenticated(&'static str),
    #[error("no game {0}")]
    GameNotFound(String),
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
    /// The answer of the replica a call was forwarded to, passed on as it is.
    #[error("{}", .0.message())]
    Forwarded(Status),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("too many calls ({quota}, {subject}): retry in {} ms", retry_after.as_millis().max(1))]
    Throttled {
        subject: String,
        quota: &'static str,
        retry_after: std::time::Duration,
    },
}

impl ApiError {
    pub fn invalid(field: &str, problem: impl Into<String>) -> ApiError {
        ApiError::Invalid {
            field: field.to_string(),
            problem: problem.into(),
        }
    }
}

impl From<WireError> for ApiError {
    fn from(e: WireError) -> ApiError {
        ApiError::Invalid {
            field: e.field,
            problem: e.problem,
        }
    }
}

fn with_reason(code: Code, message: String, reason: &str) -> Status {
    Status::with_error_details(
        code,
        message,
        ErrorDetails::with_error_info(reason, ERROR_DOMAIN, HashMap::new()),
    )
}

impl From<ApiError> for Status {
    fn from(error: ApiError) -> Status {
        let message = error.to_string();
        match error {
            ApiError::Invalid { field, problem } => Status::with_error_details(
                Code::InvalidArgument,
                message,
                ErrorDetails::with_bad_request_violation(field, problem),
            ),
            ApiError::Unauthenticated(_) => Status::unauthenticated(message),
            ApiError::GameNotFound(_) => Status::not_found(message),
            ApiError::Table(e @ TableError::NotSeated) => {
                with_reason(Code::PermissionDenied, message, e.reason())
            }
            ApiError::Table(e) => with_reason(Code::FailedPrecondition, message, e.reason()),
            ApiError::Stale { .. } => with_reason(Code::Aborted, message, "STALE_SEQ"),
            ApiError::Unavailable => Status::unavailable(message),
            ApiError::Moved => with_reason(Code::Unavailable, message, "MOVED"),
            ApiError::Forwarded(status) => status,
            ApiError::Throttled {
                subject,
                quota,
                retry_after,
            } => {
                let mut details =
                    ErrorDetails::with_retry_info(Some(crate::quota::retry_delay(retry_after)));
                details
                    .add_quota_failure_violation(subject, format!("{quota} exceeded"))
                    .set_error_info("RATE_LIMITED", ERROR_DOMAIN, HashMap::new());
                Status::with_error_details(Code::ResourceExhausted, message, details)
            }
            ApiError::Store(StoreError::Conflict { .. }) => {
                with_reason(Code::Aborted, message, "CONCURRENT_WRITE")
            }
            // Retrying cannot mend stored data: INTERNAL, and an operator must look.
            ApiError::Store(StoreError::Corrupt(what)) => {
                tracing::error!(corrupt = %what, "stored data is corrupt");
                Status::internal(format!("stored data is corrupt: {what}"))
            }
            ApiError::Store(e) => {
                tracing::error!(error = %e, "store failure");
                Status::unavailable(
                    "the game store is unavailable; retry with the same idempotency key",
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::RuleError;

    #[test]
    fn statuses_carry_codes_and_details() {
        let status = Status::from(ApiError::invalid("action.card", "a turn must play a card"));
        assert_eq!(status.code(), Code::InvalidArgument);
        let bad = status.get_details_bad_request().unwrap();
        assert_eq!(bad.field_violations[0].field, "action.card");

        let status = Status::from(ApiError::Table(TableError::Rule(RuleError::GameOver)));
        assert_eq!(status.code(), Code::FailedPrecondition);
        assert_eq!(status.get_details_error_info().unwrap().reason, "GAME_OVER");

        let status = Status::from(ApiError::Table(TableError::NotSeated));
        assert_eq!(status.code(), Code::PermissionDenied);

        let status = Status::from(ApiError::Stale {
            expected: 1,
            current: 2,
        });
        assert_eq!(status.code(), Code::Aborted);

        let status = Status::from(ApiError::Throttled {
            subject: "player:p".into(),
            quota: "calls per player",
            retry_after: std::time::Duration::from_millis(250),
        });
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status.get_details_retry_info().unwrap().retry_delay,
            Some(std::time::Duration::from_millis(250))
        );
        assert_eq!(
            status.get_details_quota_failure().unwrap().violations[0].subject,
            "player:p"
        );
        assert_eq!(
            status.get_details_error_info().unwrap().reason,
            "RATE_LIMITED"
        );

        let status = Status::from(ApiError::Store(StoreError::Corrupt(
            "game g, action 3: no card New York 9 M$".into(),
        )));
        assert_eq!(status.code(), Code::Internal);
        assert!(status.message().contains("game g, action 3"));
        assert!(!status.message().contains("retry"));
    }
}
