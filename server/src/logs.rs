//! The server's log output: one line per event on stderr, filtered by `--log`.
//!
//! A filter that only names targets and levels (`info`, `warn,theboss_server=debug`) is a
//! [`Targets`]: decided once per call site, it costs nothing per span. Only a filter that
//! needs `EnvFilter`'s span and field directives (`[rpc{method=SubmitAction}]=debug`) is
//! one, and pays for them: under load `EnvFilter` looked up every span it saw entered, left
//! and closed (about 1% of the server's CPU, issue 21's profile).

use std::io::IsTerminal;

use tracing_subscriber::filter::{EnvFilter, ParseError, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

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
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::stderr().is_terminal()),
        )
        .init();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::LogLines;

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
    fn a_filter_that_means_nothing_is_refused() {
        assert!(filter("theboss_server=loud").is_err());
    }
}
