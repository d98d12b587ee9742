//! Channels to the service: one server, or several replicas of one service tried in turn.
//! (Registering, and reusing a saved token, make sessions: they are `session`'s.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tonic::transport::{Channel, Endpoint};

use crate::error::ClientError;

/// Channels to one service, before authentication. Cheap to clone: clones share the
/// channels and which replica is current.
#[derive(Clone)]
pub struct Connection {
    urls: Arc<[String]>,
    channels: Arc<[Channel]>,
    current: Arc<AtomicUsize>,
}

fn endpoint(url: &str) -> Result<Endpoint, ClientError> {
    Ok(Endpoint::from_shared(url.to_string())
        .map_err(|source| ClientError::Address {
            url: url.to_string(),
            source,
        })?
        .connect_timeout(Duration::from_secs(5))
        // Small frames go out at once: a turn must not wait for the peer's delayed ACK.
        .tcp_nodelay(true)
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_while_idle(true))
}

impl Connection {
    /// Connects to one server, failing at once if it does not answer.
    pub async fn connect(url: &str) -> Result<Connection, ClientError> {
        Connection::connect_any(&[url.to_string()]).await
    }

    /// Connects to the first of several replicas of one service that answers. Later calls
    /// go to that replica until it becomes unreachable, then to the next one (see
    /// [`Connection::fail_over`]); a replica that comes back is used again in its turn.
    pub async fn connect_any(urls: &[String]) -> Result<Connection, ClientError> {
        if urls.is_empty() {
            return Err(ClientError::NoServer);
        }
        let mut channels = Vec::with_capacity(urls.len());
        let mut current = None;
        let mut first_error = None;
        for (i, url) in urls.iter().enumerate() {
            let endpoint = endpoint(url)?;
            if current.is_some() {
                channels.push(endpoint.connect_lazy());
                continue;
            }
            match endpoint.connect().await {
                Ok(channel) => {
                    current = Some(i);
                    channels.push(channel);
                }
                Err(source) => {
                    first_error.get_or_insert(ClientError::Connect {
                        url: url.clone(),
                        source,
                    });
                    channels.push(endpoint.connect_lazy());
                }
            }
        }
        let current = match (current, first_error) {
            (Some(current), _) => current,
            (None, Some(error)) => return Err(error),
            (None, None) => unreachable!("at least one URL was tried"),
        };
        Ok(Connection {
            urls: urls.into(),
            channels: channels.into(),
            current: Arc::new(AtomicUsize::new(current)),
        })
    }

    /// The URL of the replica calls go to now.
    pub fn url(&self) -> &str {
        &self.urls[self.current()]
    }

    /// Every replica's URL, as given.
    pub fn urls(&self) -> &[String] {
        &self.urls
    }

    /// The channel calls go to now, and its index for [`Connection::fail_over`].
    pub(crate) fn channel(&self) -> (usize, Channel) {
        self.channel_after(self.current(), 0)
    }

    /// The index of the replica calls go to now.
    pub(crate) fn current(&self) -> usize {
        self.current.load(Ordering::Relaxed) % self.channels.len()
    }

    /// The channel `k` replicas after the one at `first`, and its index: where the `k`-th
    /// attempt of a call that began at `first` goes.
    pub(crate) fn channel_after(&self, first: usize, k: usize) -> (usize, Channel) {
        let i = (first + k) % self.channels.len();
        (i, self.channels[i].clone())
    }

    /// Moves on to the next replica after the one at `failed` could not be reached (a no-op
    /// if another caller already moved on, or if there is only one).
    pub fn fail_over(&self, failed: usize) {
        self.move_on(failed, (failed + 1) % self.channels.len());
    }

    /// Moves calls from the replica at `from` to the one at `to` (a no-op if another caller
    /// already moved them, or if they are the same).
    pub(crate) fn move_on(&self, from: usize, to: usize) {
        if from != to
            && self
                .current
                .compare_exchange(from, to, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(from = %self.urls[from], to = %self.urls[to], "failing over");
        }
    }
}
