//! What can go wrong talking to the service, as values: every failure of a call names the
//! RPC and keeps the server's status, whose `google.rpc.ErrorInfo` reason says which rule.

use tonic::{Code, Status};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("no server address given")]
    NoServer,
    #[error("invalid server address {url:?}: {source}")]
    Address {
        url: String,
        source: tonic::transport::Error,
    },
    #[error("cannot connect to {url}: {source}")]
    Connect {
        url: String,
        source: tonic::transport::Error,
    },
    #[error("{call}: {status}")]
    Rpc { call: &'static str, status: Status },
    #[error("credentials file: {0}")]
    Credentials(#[from] std::io::Error),
    #[error("the server sent a view this client does not understand: {0}")]
    BadView(#[from] theboss::convert::WireError),
    #[error("the stream of game {0} kept failing; giving up")]
    StreamLost(String),
    /// The server's answer broke the contract (a required field missing).
    #[error("the server's answer broke the contract: {0}")]
    Protocol(String),
}

impl ClientError {
    pub(crate) fn rpc(call: &'static str) -> impl FnOnce(Status) -> ClientError {
        move |status| ClientError::Rpc { call, status }
    }

    /// The server's status, if the server answered.
    pub fn status(&self) -> Option<&Status> {
        match self {
            ClientError::Rpc { status, .. } => Some(status),
            _ => None,
        }
    }

    /// The status code of a failed call (`Unavailable` if the server could not be reached).
    pub fn code(&self) -> Code {
        match self {
            ClientError::Rpc { status, .. } => status.code(),
            ClientError::Connect { .. } | ClientError::StreamLost(_) => Code::Unavailable,
            _ => Code::Internal,
        }
    }

    /// The `ErrorInfo.reason` of a refusal (e.g. `STRICT_LEAD`), or "" if there is none.
    pub fn reason(&self) -> String {
        self.status().map(reason).unwrap_or_default()
    }

    /// Whether trying again later may succeed: not for a limit the caller reached
    /// (RESOURCE_EXHAUSTED without RetryInfo), which holds until it lets go of something.
    pub fn is_transient(&self) -> bool {
        match self {
            ClientError::Connect { .. } => true,
            ClientError::Rpc { status, .. } if status.code() == Code::ResourceExhausted => {
                throttled_for(status).is_some()
            }
            _ => is_transient(self.code()),
        }
    }
}

/// The machine-readable reason of a refusal (`google.rpc.ErrorInfo`), if any.
pub fn reason(status: &Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_default()
}

/// Times a throttled call is tried again before its RESOURCE_EXHAUSTED is returned.
pub const THROTTLED_RETRIES: u32 = 20;

/// Waits before trying a throttled call again for the `tries`-th time: the server's delay,
/// plus a random share of it for each earlier try, so that callers throttled together do
/// not all come back at the same instant (and each but one be throttled again).
pub async fn back_off(wait: std::time::Duration, tries: u32) {
    let spread = wait.as_secs_f64() * f64::from(tries);
    let jitter = std::time::Duration::from_secs_f64(rand::random::<f64>() * spread);
    tokio::time::sleep(wait + jitter).await;
}

/// How long to wait before trying a throttled call again (RESOURCE_EXHAUSTED with the
/// server's `google.rpc.RetryInfo`), or None if the call was not throttled. A throttled call
/// did nothing, so any call may be tried again. RESOURCE_EXHAUSTED without RetryInfo is a
/// limit the caller reached (too many streams, tables waiting): trying again would not help.
pub fn throttled_for(status: &Status) -> Option<std::time::Duration> {
    use tonic_types::StatusExt;
    if status.code() != Code::ResourceExhausted {
        return None;
    }
    status.get_details_retry_info().map(|info| {
        info.retry_delay
            .unwrap_or(std::time::Duration::from_secs(1))
            .min(std::time::Duration::from_secs(30))
    })
}

/// Failures worth retrying: the server or the connection was briefly away, or the caller
/// was over its quota (a throttled call did nothing).
pub fn is_transient(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable
            | Code::Cancelled
            | Code::Unknown
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_not_transient_and_outages_are() {
        let stale = ClientError::Rpc {
            call: "SubmitAction",
            status: Status::aborted("stale"),
        };
        assert!(!stale.is_transient());
        assert_eq!(stale.code(), Code::Aborted);
        let away = ClientError::Rpc {
            call: "GetView",
            status: Status::unavailable("restarting"),
        };
        assert!(away.is_transient());
        assert!(ClientError::StreamLost("g".into()).is_transient());
        use tonic_types::StatusExt;
        let throttled = Status::with_error_details(
            Code::ResourceExhausted,
            "too many calls",
            tonic_types::ErrorDetails::with_retry_info(Some(std::time::Duration::from_millis(40))),
        );
        assert_eq!(
            throttled_for(&throttled),
            Some(std::time::Duration::from_millis(40))
        );
        assert!(
            ClientError::Rpc {
                call: "GetView",
                status: throttled,
            }
            .is_transient()
        );
        assert_eq!(throttled_for(&Status::aborted("stale")), None);
        assert!(!ClientError::Credentials(std::io::Error::other("x")).is_transient());
    }
}
