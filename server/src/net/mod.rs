//! The transport's guards, so that no client can hold connections the others need:
//!
//! - [`accept`]: the accept loop. It caps connections per client address (IPv6 by prefix; a
//!   trusted proxy's connections only by the total) and in all (a connection over a cap is
//!   closed at once), sets `TCP_NODELAY`, and backs off (with a warning) when accepting
//!   fails, e.g. when the process is out of file descriptors, instead of spinning.
//! - [`conn`]: each accepted connection closes itself when it sends no request within the
//!   handshake timeout, or stays without a call in flight for the idle timeout, or when a
//!   request's message does not arrive in time.
//! - [`layer`]: the tower layers that tell a connection of its calls, key each call by its
//!   client ([`address`]: IPv6 by prefix, behind trusted proxies by the forwarded client),
//!   cap what callers not known yet hold ([`unauthenticated`]) and time request bodies.
//! - [`budget`]: the layer that tells each caller what it has left of its quota.
//! - [`coalesce`]: a connection's writes gathered until a flush, which first lets the other
//!   ready tasks run once, so that an action's messages to its streams leave together.
//! - [`serve`]: each connection served on one task, its calls included.
//!
//! [`raise_fd_limit`] lifts the process's soft file-descriptor limit to its hard one at
//! start-up, so that the caps, not the kernel, decide how many clients fit.

pub mod address;
pub mod budget;
pub mod coalesce;
pub mod conn;
pub mod layer;
pub mod serve;
pub mod unauthenticated;

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::limits::Limits;
use address::AddressPolicy;
pub use conn::Guarded;

/// Raises the soft limit on open files to the hard limit, and logs both.
pub fn raise_fd_limit() {
    match rlimit::getrlimit(rlimit::Resource::NOFILE) {
        Ok((soft, hard)) if soft < hard => {
            match rlimit::setrlimit(rlimit::Resource::NOFILE, hard, hard) {
                Ok(()) => {
                    tracing::info!(was = soft, now = hard, hard, "raised the open files limit")
                }
                Err(error) => {
                    tracing::warn!(soft, hard, %error, "cannot raise the open files limit")
                }
            }
        }
        Ok((soft, hard)) => tracing::info!(soft, hard, "open files limit"),
        Err(error) => tracing::warn!(%error, "cannot read the open files limit"),
    }
}

/// Open connections, in all and by address.
#[derive(Debug, Default)]
pub struct ConnectionCounts {
    total: AtomicU32,
    by_address: Mutex<HashMap<IpAddr, u32>>,
}

/// One open connection, counted until it is dropped.
#[derive(Debug)]
pub struct ConnectionPermit {
    counts: Arc<ConnectionCounts>,
    address: IpAddr,
}

impl ConnectionCounts {
    /// Counts a connection from `address` if the caps (0: none) allow it.
    fn admit(
        self: &Arc<Self>,
        address: IpAddr,
        total_cap: u32,
        address_cap: u32,
    ) -> Option<ConnectionPermit> {
        // `address_cap` 0 also means a trusted proxy, which carries many clients.
        let mut by_address = self.by_address.lock().expect("not poisoned");
        let held = by_address.get(&address).copied().unwrap_or(0);
        let total = self.total.load(Ordering::Relaxed);
        if (address_cap > 0 && held >= address_cap) || (total_cap > 0 && total >= total_cap) {
            return None;
        }
        by_address.insert(address, held + 1);
        self.total.fetch_add(1, Ordering::Relaxed);
        Some(ConnectionPermit {
            counts: self.clone(),
            address,
        })
    }

    /// Open connections in all.
    pub fn total(&self) -> u32 {
        self.total.load(Ordering::Relaxed)
    }
}

impl Drop for ConnectionPermit {
    fn drop(&mut self) {
        self.counts.total.fetch_sub(1, Ordering::Relaxed);
        let mut by_address = self.counts.by_address.lock().expect("not poisoned");
        if let Some(n) = by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                by_address.remove(&self.address);
            }
        }
    }
}

/// Whether an accept error means the process or the system is short of a resource: then
/// the loop waits before trying again, or it would spin.
fn is_exhaustion(error: &io::Error) -> bool {
    const EMFILE: i32 = 24;
    const ENFILE: i32 = 23;
    const ENOBUFS: i32 = 105;
    const ENOMEM: i32 = 12;
    matches!(
        error.raw_os_error(),
        Some(EMFILE | ENFILE | ENOBUFS | ENOMEM)
    )
}

/// The connections a listener accepts, guarded (see the module's header), as the stream the
/// gRPC server serves. The loop stops when the stream is dropped.
pub fn accept(
    listener: TcpListener,
    limits: &Limits,
    addresses: &AddressPolicy,
    counts: Arc<ConnectionCounts>,
) -> ReceiverStream<Result<Guarded, io::Error>> {
    let (tx, rx) = mpsc::channel(64);
    let limits = limits.clone();
    let addresses = addresses.clone();
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(5);
        loop {
            let accepted = tokio::select! {
                () = tx.closed() => return,
                accepted = listener.accept() => accepted,
            };
            let (socket, peer) = match accepted {
                Ok(accepted) => {
                    backoff = Duration::from_millis(5);
                    accepted
                }
                Err(error) if is_exhaustion(&error) => {
                    tracing::warn!(%error, wait = ?backoff, "cannot accept connections; waiting");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                    continue;
                }
                Err(error) => {
                    tracing::debug!(%error, "a connection failed as it was accepted");
                    continue;
                }
            };
            let per_address = if addresses.is_trusted(peer.ip()) {
                0
            } else {
                limits.connections_per_address
            };
            let Some(permit) =
                counts.admit(addresses.key(peer.ip()), limits.connections, per_address)
            else {
                crate::logs::client_event(
                    "connection_refused",
                    &format!("a connection over its cap was closed (from {})", peer.ip()),
                );
                drop(socket);
                continue;
            };
            // A response goes out as several small writes (headers, message, trailers); with
            // Nagle's algorithm the later ones wait for the peer's delayed ACK (~40 ms).
            if let Err(error) = socket.set_nodelay(true) {
                tracing::debug!(%error, "cannot set TCP_NODELAY");
            }
            let guarded = Guarded::new(socket, permit, &limits);
            if tx.send(Ok(guarded)).await.is_err() {
                return;
            }
        }
    });
    ReceiverStream::new(rx)
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    use super::*;

    #[tokio::test]
    async fn accepted_sockets_send_small_writes_at_once() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut accepted = accept(
            listener,
            &Limits::default(),
            &AddressPolicy::default(),
            Arc::default(),
        );
        let _client = tokio::net::TcpStream::connect(addr).await.unwrap();
        let socket = accepted.next().await.unwrap().unwrap();
        assert!(
            socket.socket().nodelay().unwrap(),
            "TCP_NODELAY on an accepted socket"
        );
    }

    #[tokio::test]
    async fn connections_over_a_cap_are_closed_and_counted_back_when_dropped() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let counts: Arc<ConnectionCounts> = Arc::default();
        let limits = Limits {
            connections_per_address: 2,
            ..Limits::default()
        };
        let mut accepted = accept(listener, &limits, &AddressPolicy::default(), counts.clone());
        let mut clients = Vec::new();
        for _ in 0..3 {
            clients.push(tokio::net::TcpStream::connect(addr).await.unwrap());
        }
        let first = accepted.next().await.unwrap().unwrap();
        let _second = accepted.next().await.unwrap().unwrap();
        // The third was closed by the server: its client reads the end of the stream.
        let mut third = clients.pop().unwrap();
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(
            Duration::from_secs(5),
            tokio::io::AsyncReadExt::read(&mut third, &mut byte),
        )
        .await
        .expect("closed at once");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
        assert_eq!(counts.total(), 2);
        drop(first);
        assert_eq!(counts.total(), 1);
        // A place is free again.
        let _again = tokio::net::TcpStream::connect(addr).await.unwrap();
        let _third = accepted.next().await.unwrap().unwrap();
        assert_eq!(counts.total(), 2);
    }
}
