//! An accepted connection that closes itself when its client holds it without using it: no
//! request within the handshake timeout of opening (a client that sent nothing, or only the
//! HTTP/2 preface), no call in flight for the idle timeout, or a request whose message did
//! not arrive in time (see `layer`). Closing is making the connection read its end: the HTTP
//! server then drops it, and its file descriptor with it.
//!
//! A watchdog task per connection checks its state now and then; it holds the state weakly,
//! so it ends with the connection.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

use atomic_waker::AtomicWaker;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

use super::ConnectionPermit;
use super::coalesce::Coalesced;
use crate::limits::Limits;

/// What a connection's calls and its watchdog share.
#[derive(Debug)]
pub struct ConnectionState {
    opened: Instant,
    /// Requests begun on the connection, ever.
    requests: AtomicU64,
    /// Calls in flight (a stream counts until it ends).
    in_flight: AtomicUsize,
    /// When the last call ended, in micros since `opened`.
    last_end: AtomicU64,
    closed: AtomicBool,
    /// The reader to wake when the connection is closed.
    reader: AtomicWaker,
    /// Calls of callers not known yet held open on it (`unauthenticated`).
    pub unauthenticated: Arc<AtomicU32>,
}

impl ConnectionState {
    fn new() -> ConnectionState {
        ConnectionState {
            opened: Instant::now(),
            requests: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            last_end: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            reader: AtomicWaker::new(),
            unauthenticated: Arc::default(),
        }
    }

    /// A call began on the connection.
    pub fn call_started(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
    }

    /// A call ended (its response was sent whole, or dropped).
    pub fn call_ended(&self) {
        let now = u64::try_from(self.opened.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.last_end.store(now, Ordering::Relaxed);
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }

    /// Closes the connection: its next read ends it.
    pub fn close(&self, why: &str) {
        if !self.closed.swap(true, Ordering::Relaxed) {
            tracing::debug!(why, "closing a connection");
            self.reader.wake();
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// How long the connection has had no call in flight (zero while one is).
    fn idle_for(&self) -> Duration {
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return Duration::ZERO;
        }
        let last = Duration::from_micros(self.last_end.load(Ordering::Relaxed));
        self.opened.elapsed().saturating_sub(last)
    }
}

/// What a request learns of its connection (in its extensions): the addresses, and the
/// state its calls report to.
#[derive(Debug, Clone)]
pub struct ConnectionInfo {
    pub tcp: TcpConnectInfo,
    pub state: Arc<ConnectionState>,
}

/// An accepted TCP connection, guarded.
#[derive(Debug)]
pub struct Guarded {
    socket: Coalesced<TcpStream>,
    state: Arc<ConnectionState>,
    _permit: ConnectionPermit,
}

impl Guarded {
    pub(super) fn new(socket: TcpStream, permit: ConnectionPermit, limits: &Limits) -> Guarded {
        let state = Arc::new(ConnectionState::new());
        tokio::spawn(watchdog(
            Arc::downgrade(&state),
            limits.handshake_timeout,
            limits.idle_timeout,
        ));
        Guarded {
            socket: Coalesced::new(socket),
            state,
            _permit: permit,
        }
    }

    pub fn socket(&self) -> &TcpStream {
        self.socket.get_ref()
    }
}

/// Closes the connection if it sends no request within `handshake`, and later once it has
/// had no call in flight for `idle`.
async fn watchdog(state: Weak<ConnectionState>, handshake: Duration, idle: Duration) {
    tokio::time::sleep(handshake).await;
    {
        let Some(state) = state.upgrade() else { return };
        if state.requests.load(Ordering::Relaxed) == 0 {
            state.close("no request within the handshake timeout");
            return;
        }
    }
    // Checked a few times per idle period: a connection lives at most a quarter longer.
    let every = (idle / 4).max(Duration::from_millis(10));
    loop {
        tokio::time::sleep(every).await;
        let Some(state) = state.upgrade() else { return };
        if state.is_closed() {
            return;
        }
        if state.idle_for() >= idle {
            state.close("idle");
            return;
        }
    }
}

impl Connected for Guarded {
    type ConnectInfo = ConnectionInfo;

    fn connect_info(&self) -> ConnectionInfo {
        ConnectionInfo {
            tcp: self.socket.get_ref().connect_info(),
            state: self.state.clone(),
        }
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.state.is_closed() {
            // The end of the stream: the server lets the connection go.
            return Poll::Ready(Ok(()));
        }
        self.state.reader.register(cx.waker());
        if self.state.is_closed() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.socket).poll_read(cx, buf)
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.state.is_closed() {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        Pin::new(&mut self.socket).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.state.is_closed() {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        Pin::new(&mut self.socket).poll_write_vectored(cx, bufs)
    }

    /// No vectored writes, on purpose: with them, h2 keeps every DATA frame of 256 bytes or
    /// more out of its buffer and flushes before it takes the next frame, a flush per message
    /// (a game's update is 0.5–1 KB). Without, it copies frames under 1 KB into its buffer,
    /// and the flushes that remain are gathered by [`Coalesced`].
    fn is_write_vectored(&self) -> bool {
        false
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_silent_connection_is_closed_after_the_handshake_timeout() {
        let state = Arc::new(ConnectionState::new());
        let watching = tokio::spawn(watchdog(
            Arc::downgrade(&state),
            Duration::from_secs(5),
            Duration::from_secs(60),
        ));
        tokio::time::sleep(Duration::from_millis(4_900)).await;
        assert!(!state.is_closed());
        watching.await.unwrap();
        assert!(state.is_closed(), "no request in 5 s");
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_is_closed_once_idle_and_never_while_a_call_is_in_flight() {
        let state = Arc::new(ConnectionState::new());
        let watching = tokio::spawn(watchdog(
            Arc::downgrade(&state),
            Duration::from_secs(5),
            Duration::from_secs(60),
        ));
        state.call_started();
        // A stream open for ten minutes keeps its connection.
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(!state.is_closed());
        state.call_ended();
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert!(!state.is_closed());
        watching.await.unwrap();
        assert!(
            state.is_closed(),
            "closed within a quarter of the idle time after"
        );
        assert!(state.idle_for() >= Duration::from_secs(60));
    }
}
