//! The server's log output: one line per event on stderr, filtered by `--log`, and never
//! more than a line per client-caused cause per interval.
//!
//! Clients cause some events at will (a connection reset flood, calls over a cap, refused
//! connections): logged line by line, a client could fill the operator's disk and bury what
//! matters. Such events are counted in metrics one by one (`theboss_client_events_total`) and
//! logged at most once per cause per [`INTERVAL`] (the first one as it happens); a line every
//! interval then says how many more there were. That holds for the server's own
//! ([`client_event`]) and for the transport libraries' warnings (h2, hyper, tonic's
//! transport: a reset flood makes h2 warn once per connection), which [`ClientCaused`]
//! holds to the same rule.
//!
//! A filter that only names targets and levels (`info`, `warn,theboss_server=debug`) is a
//! [`Targets`]: decided once per call site, it costs nothing per span. Only a filter that
//! needs `EnvFilter`'s span and field directives (`[rpc{method=SubmitAction}]=debug`) is
//! one, and pays for them: under load `EnvFilter` looked up every span it saw entered, left
//! and closed (about 1% of the server's CPU in a profile).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::{EnvFilter, ParseError, Targets};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::Format;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

mod fields;

pub use fields::Fields;

/// At most one line per client-caused cause this often.
pub const INTERVAL: Duration = Duration::from_secs(10);

/// Per cause: when its last line was logged, and what happened since.
#[derive(Debug, Default)]
struct Throttle {
    causes: Mutex<HashMap<&'static str, Cause>>,
}

#[derive(Debug)]
struct Cause {
    logged_at: Instant,
    /// Events since that were not logged.
    suppressed: u64,
}

impl Throttle {
    /// Whether an event of `cause` is logged now: the first of its interval is.
    fn allow(&self, cause: &'static str) -> bool {
        let mut causes = self.causes.lock().expect("not poisoned");
        match causes.get_mut(cause) {
            Some(seen) if seen.logged_at.elapsed() < INTERVAL => {
                seen.suppressed += 1;
                false
            }
            Some(seen) => {
                seen.logged_at = Instant::now();
                true
            }
            None => {
                causes.insert(
                    cause,
                    Cause {
                        logged_at: Instant::now(),
                        suppressed: 0,
                    },
                );
                true
            }
        }
    }

    /// The events not logged per cause since the last call, and forgets causes quiet for an
    /// interval (so that the map holds only what happens now).
    fn drain(&self) -> Vec<(&'static str, u64)> {
        let mut causes = self.causes.lock().expect("not poisoned");
        let mut suppressed = Vec::new();
        causes.retain(|cause, seen| {
            let quiet = seen.suppressed == 0;
            if !quiet {
                suppressed.push((*cause, std::mem::take(&mut seen.suppressed)));
            }
            !quiet || seen.logged_at.elapsed() < INTERVAL
        });
        suppressed
    }
}

static THROTTLE: std::sync::LazyLock<Throttle> = std::sync::LazyLock::new(Throttle::default);

/// Something a client caused (a refusal, a reset, a connection closed): counted by `cause` in
/// the metrics, logged as a warning at most once per cause per [`INTERVAL`].
pub fn client_event(cause: &'static str, message: &str) {
    crate::metrics::client_event(cause);
    if THROTTLE.allow(cause) {
        tracing::warn!(
            cause,
            "{message} (client-caused: at most one line per {INTERVAL:?} for this cause; the rest are counted)"
        );
    }
}

/// What a caught panic said, for its log line: its message, if it carried one.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

/// Logs, every [`INTERVAL`] until `stopping`, how many client-caused lines were held back.
pub fn start_summaries(mut stopping: tokio::sync::watch::Receiver<bool>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(INTERVAL);
        tick.reset();
        loop {
            tokio::select! {
                () = async { let _ = stopping.wait_for(|s| *s).await; } => return,
                _ = tick.tick() => summarise(),
            }
        }
    });
}

fn summarise() {
    for (cause, count) in THROTTLE.drain() {
        tracing::warn!(
            cause,
            suppressed = count,
            "{count} more client-caused events of this cause in the last {INTERVAL:?}"
        );
    }
}

/// The transport libraries whose warnings clients can cause at will.
fn transport(target: &str) -> bool {
    ["h2", "hyper", "hyper_util", "tonic::transport"]
        .iter()
        .any(|t| target == *t || target.strip_prefix(t).is_some_and(|r| r.starts_with("::")))
}

/// A layer that holds the transport's warnings to [`client_event`]'s rule: each call site
/// counted in the metrics and logged at most once per [`INTERVAL`].
pub struct ClientCaused;

impl<S: Subscriber> Layer<S> for ClientCaused {
    fn event_enabled(&self, event: &Event<'_>, _ctx: Context<'_, S>) -> bool {
        let meta = event.metadata();
        if *meta.level() > Level::WARN || !transport(meta.target()) {
            return true;
        }
        // A call site's name is static and names its file and line.
        let cause = meta.name();
        crate::metrics::client_event(meta.target());
        THROTTLE.allow(cause)
    }
}

/// The filter `--log` asks for, the cheapest that does what it says.
pub fn filter(directives: &str) -> Result<Box<dyn Layer<Registry> + Send + Sync>, ParseError> {
    Ok(match directives.parse::<Targets>() {
        Ok(targets) => Box::new(targets),
        Err(_) => Box::new(EnvFilter::try_new(directives)?),
    })
}

/// Sends the process's logs to stderr, filtered by `directives` (`EnvFilter`'s syntax),
/// colored when stderr is a terminal.
pub fn init(directives: &str) -> Result<(), ParseError> {
    tracing_subscriber::registry()
        .with(filter(directives)?)
        .with(ClientCaused)
        .with(lines(std::io::stderr, std::io::stderr().is_terminal()))
        .init();
    Ok(())
}

/// The layer that writes log lines to `writer` as the server writes them (its fields
/// written by [`Fields`]), colored if `ansi`.
pub fn lines<S, W>(writer: W, ansi: bool) -> tracing_subscriber::fmt::Layer<S, Fields, Format, W>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + 'static,
{
    tracing_subscriber::fmt::layer()
        .fmt_fields(Fields)
        .with_writer(writer)
        .with_ansi(ansi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::LogLines;

    #[test]
    fn a_caught_panic_says_its_message_whatever_its_kind() {
        let said = |panicking: fn()| {
            let payload = std::panic::catch_unwind(panicking).unwrap_err();
            panic_message(&*payload).to_string()
        };
        assert_eq!(said(|| panic!("a literal")), "a literal");
        assert_eq!(said(|| panic!("formatted {}", 7)), "formatted 7");
        assert_eq!(
            said(|| std::panic::panic_any(7_u8)),
            "a panic without a message"
        );
    }

    /// What `directives` lets through of an info and a debug event of this module, each
    /// in an `rpc` span, and of a warning of another target.
    fn logged(directives: &str) -> String {
        let lines = LogLines::default();
        let subscriber = tracing_subscriber::registry()
            .with(filter(directives).unwrap())
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(lines.clone())
                    .with_ansi(false),
            );
        tracing::subscriber::with_default(subscriber, || {
            let rpc = tracing::info_span!("rpc", method = "SubmitAction");
            rpc.in_scope(|| {
                tracing::info!("an info line");
                tracing::debug!("a debug line");
            });
            tracing::warn!(target: "elsewhere", "a warning elsewhere");
        });
        lines.text()
    }

    #[test]
    fn targets_and_levels_filter_as_env_filter_would() {
        let info = logged("info");
        assert!(info.contains("an info line") && info.contains("method=\"SubmitAction\""));
        assert!(!info.contains("a debug line"));
        assert!(info.contains("a warning elsewhere"));

        let ours = logged("error,theboss_server=debug");
        assert!(ours.contains("an info line") && ours.contains("a debug line"));
        assert!(!ours.contains("a warning elsewhere"));
    }

    #[test]
    fn span_directives_still_work() {
        let in_rpc = logged("warn,[rpc{method=SubmitAction}]=debug");
        assert!(in_rpc.contains("a debug line"));
        let other_rpc = logged("warn,[rpc{method=GetView}]=debug");
        assert!(!other_rpc.contains("a debug line") && !other_rpc.contains("an info line"));
        assert!(other_rpc.contains("a warning elsewhere"));
    }

    #[test]
    fn client_caused_events_are_logged_once_per_interval_and_counted_after() {
        let lines = LogLines::default();
        let subscriber = tracing_subscriber::registry().with(ClientCaused).with(
            tracing_subscriber::fmt::layer()
                .with_writer(lines.clone())
                .with_ansi(false),
        );
        tracing::subscriber::with_default(subscriber, || {
            for _ in 0..500 {
                // As h2 warns when a connection resets too many streams.
                tracing::warn!(target: "h2::proto::streams::recv", "remotely-reset streams reached limit");
                client_event("test_flood", "a flood from a test");
            }
            tracing::warn!(target: "elsewhere", "a warning of the server's own");
            tracing::warn!(target: "elsewhere", "a warning of the server's own");
            summarise();
        });
        let text = lines.text();
        let count = |what: &str| text.lines().filter(|l| l.contains(what)).count();
        assert_eq!(count("remotely-reset streams reached limit"), 1, "{text}");
        assert_eq!(count("a flood from a test"), 1, "{text}");
        assert_eq!(
            count("a warning of the server's own"),
            2,
            "not the transport's"
        );
        assert!(text.contains("499 more client-caused events"), "{text}");
        assert!(!transport("h2_extra") && transport("h2") && transport("hyper_util::server"));
    }

    #[test]
    fn a_filter_that_means_nothing_is_refused() {
        assert!(filter("theboss_server=loud").is_err());
    }
}
