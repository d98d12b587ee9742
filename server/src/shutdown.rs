//! The process's shutdown signal (the first SIGINT or SIGTERM), and [`Stop`], how a stream
//! the server serves waits for the server's stop.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::sync::watch;

/// Completes when the process is asked to stop.
pub async fn signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT: shutting down"),
        () = terminate => tracing::info!("SIGTERM: shutting down"),
    }
}

/// The server's stop (`stopping` turned true, or its sender gone), as a stream polled again
/// and again waits for it. Its wait is registered once: polled again only when the signal
/// changed or another task polls the stream, since polling a registered wait locks the
/// signal's list of waiters, which every stream of the server shares (about a thousand
/// instructions a game stream's update under callgrind).
pub struct Stop {
    signal: watch::Receiver<bool>,
    wait: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// The waker the wait was last registered with.
    registered: Option<Waker>,
}

impl Stop {
    pub fn new(signal: watch::Receiver<bool>) -> Stop {
        let mut stopping = signal.clone();
        Stop {
            signal,
            wait: Box::pin(async move {
                // An error means the server is gone, which is also a stop.
                let _ = stopping.wait_for(|stopping| *stopping).await;
            }),
            registered: None,
        }
    }

    /// Ready once the server stops (then not to be polled again).
    pub fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let same_task = self
            .registered
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()));
        // A closed signal reads as changed: the server is gone.
        if same_task && !self.signal.has_changed().unwrap_or(true) {
            return Poll::Pending;
        }
        if !same_task {
            self.registered = Some(cx.waker().clone());
        }
        self.wait.as_mut().poll(cx)
    }
}
