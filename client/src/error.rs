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

/// How long a client keeps trying a call the server could not answer (UNAVAILABLE, a lost
/// connection: a restart, a replica stopping, its database failing over) before it gives
/// up: a failover costs a player a pause, not a game. Calls are retried only where that is
/// safe: a turn under its idempotency key, a stream resumed after its last update.
pub const RIDE_THROUGH: std::time::Duration = std::time::Duration::from_secs(30);

/// Failures in a row of one call, and since when: [`Outage::retry`] says whether to try again
/// (within [`RIDE_THROUGH`] of the first failure, or within a number of tries) and waits
/// first (50 ms, doubling, at most a second).
#[derive(Debug, Default)]
pub struct Outage {
    since: Option<tokio::time::Instant>,
    failures: u32,
}

impl Outage {
    /// Records a failure; waits and returns true if the call should be tried again: while
    /// fewer than `tries` failed, or the first failure is less than [`RIDE_THROUGH`] ago.
    pub async fn retry(&mut self, tries: u32) -> bool {
        let since = *self.since.get_or_insert_with(tokio::time::Instant::now);
        self.failures += 1;
        if self.failures >= tries && since.elapsed() >= RIDE_THROUGH {
            return false;
        }
        let wait = 50u64 << self.failures.saturating_sub(1).min(5);
        tokio::time::sleep(std::time::Duration::from_millis(wait.min(1000))).await;
        true
    }

    /// The call got through: the next failure starts a new outage.
    pub fn over(&mut self) {
        *self = Outage::default();
    }

    /// Failures so far in this outage.
    pub fn failures(&self) -> u32 {
        self.failures
    }
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

    #[tokio::test(start_paused = true)]
    async fn an_outage_is_ridden_through_for_its_time_and_at_least_its_tries() {
        let started = tokio::time::Instant::now();
        let mut outage = Outage::default();
        let mut retries = 0;
        while outage.retry(3).await {
            retries += 1;
        }
        assert!(started.elapsed() >= RIDE_THROUGH, "{:?}", started.elapsed());
        assert!(started.elapsed() < RIDE_THROUGH + std::time::Duration::from_secs(2));
        assert!(retries > 3 && retries < 60, "{retries}");

        // Many quick tries count too: a long outage is given them all.
        let started = tokio::time::Instant::now();
        let mut outage = Outage::default();
        while outage.retry(100).await {}
        assert_eq!(outage.failures(), 100);
        assert!(started.elapsed() > RIDE_THROUGH);

        // A call that got through starts the next outage afresh.
        outage.over();
        assert!(outage.retry(1).await);
        assert_eq!(outage.failures(), 1);
    }

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
