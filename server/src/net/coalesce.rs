//! Writes that leave together. An action reaches every stream that follows its game: the
//! submitter's answer and each seat's update are made by different tasks, one after the
//! other, and the HTTP/2 connection used to write each to the socket as soon as it had it, a
//! system call per message (6 writes to clients for each persisted action in the benchmark's
//! 100-game load; on loopback the sender also pays for delivering each segment).
//!
//! [`Coalesced`] holds what is written until it is flushed, and on a flush lets the
//! runtime's other ready tasks run once first (the task wakes itself): the messages those
//! tasks produce meanwhile are written out in the same system call. No timer is involved, so
//! an idle connection's message leaves after one turn of the scheduler. The buffer is bounded
//! (a write past [`CAPACITY`] first writes out what is held) and freed once written out, so
//! idle connections hold none.
//!
//! How a flush waits depends on what the peer speaks, seen from its first bytes:
//! - **HTTP/2** (gRPC): h2 flushes whenever it takes a DATA frame of 1 KB or more (it cannot
//!   hold a second one until the first is written) as well as at the end of its turn, so a
//!   flush that yielded each time wrote a message or two per system call. A flush answers at
//!   once and the bytes wait for the connection's next turn, which the flush asks for by
//!   waking the task: h2 reads the socket at the start of every turn of its connection (it
//!   reads frames until none is left, then writes the streams' frames and flushes:
//!   `h2::proto::Connection::poll`), so a read marks the next turn, and its first flush
//!   writes out all that the previous turn gathered. Under the benchmark's load the server's
//!   writes per persisted action, its database's included, went from 1.76 to 0.96, and to
//!   about 0.6 once a turn polled all its ready streams before the connection wrote
//!   (`serve.rs`).
//! - **Anything else** (HTTP/1.1, for gRPC-Web): a flush yields once, returning `Pending`,
//!   then writes. HTTP/1.1 need not read at every turn, so nothing waits on a read.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The most a connection holds before it writes out, whatever the flushes: h2's own write
/// buffer's size, far more than an action's messages (about 1 KB a stream), and small enough
/// that the most connections a server takes (10,000 by default) cannot pin much memory by
/// not reading.
pub const CAPACITY: usize = 16 * 1024;

/// An `AsyncWrite` that gathers writes until a flush and yields once before writing them out.
#[derive(Debug)]
pub struct Coalesced<W> {
    inner: W,
    held: Vec<u8>,
    /// What the peer speaks, from the first bytes it sent.
    peer: Peer,
    /// Where what the connection holds stands, in its task's turns.
    turn: Turn,
}

/// What the peer speaks, as far as flushes are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Peer {
    /// Not known yet: what it sent so far (this many bytes) begins the HTTP/2 preface. Its
    /// flushes are those of [`Peer::Other`], which waits for nothing.
    Unknown(usize),
    /// The HTTP/2 connection preface came first: a flush waits for the next turn's read.
    Http2,
    /// Anything else: a flush yields once, then writes.
    Other,
}

/// What a connection holds, in its task's turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// No flush waits.
    Clear,
    /// Flushed in this turn: the task woke itself, and what is held leaves in its next turn
    /// (an HTTP/2 peer's, once it reads; any other peer's, at its next flush).
    Flushed,
    /// The next turn began (the socket was read): the next flush writes out.
    Due,
}

/// The HTTP/2 client connection preface (RFC 9113, 3.4); no HTTP/1.1 request begins with it.
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

impl<W> Coalesced<W> {
    pub fn new(inner: W) -> Coalesced<W> {
        Coalesced {
            inner,
            held: Vec::new(),
            peer: Peer::Unknown(0),
            turn: Turn::Clear,
        }
    }

    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }
}

impl<W: AsyncWrite + Unpin> Coalesced<W> {
    /// Writes out everything held; the buffer is freed once empty.
    fn poll_write_out(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut written = 0;
        let result = loop {
            if written == self.held.len() {
                break Poll::Ready(Ok(()));
            }
            match Pin::new(&mut self.inner).poll_write(cx, &self.held[written..]) {
                Poll::Ready(Ok(0)) => break Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => written += n,
                Poll::Ready(Err(e)) => break Poll::Ready(Err(e)),
                Poll::Pending => break Poll::Pending,
            }
        };
        if written == self.held.len() {
            self.held = Vec::new();
        } else {
            self.held.drain(..written);
        }
        result
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Coalesced<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if !this.held.is_empty() && this.held.len() + buf.len() > CAPACITY {
            ready!(this.poll_write_out(cx))?;
        }
        if this.held.is_empty() && buf.len() >= CAPACITY {
            // Too big to gather: it goes as it is.
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        }
        if this.held.capacity() == 0 {
            // One allocation for the whole gathering. Grown from empty by doubling, the buffer
            // was reallocated and copied up to a dozen times per flush, and the reallocations
            // touched fresh pages (a profile under load showed the kernel zeroing pages under
            // `poll_write`).
            this.held.reserve_exact(CAPACITY);
        }
        this.held.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.held.is_empty() {
            this.turn = Turn::Clear;
            return Pin::new(&mut this.inner).poll_flush(cx);
        }
        match (this.turn, this.peer) {
            // The turn's first flush asks for the task's next turn. An HTTP/2 peer's answers
            // at once (what is held leaves at the next turn's first flush, after its read);
            // any other's yields, and writes when polled again.
            (Turn::Clear, peer) => {
                this.turn = Turn::Flushed;
                cx.waker().wake_by_ref();
                return if peer == Peer::Http2 {
                    Poll::Ready(Ok(()))
                } else {
                    Poll::Pending
                };
            }
            // The HTTP/2 connection's next turn has not begun: this flush waits with the first.
            (Turn::Flushed, Peer::Http2) => return Poll::Ready(Ok(())),
            (Turn::Flushed | Turn::Due, _) => {}
        }
        ready!(this.poll_write_out(cx))?;
        this.turn = Turn::Clear;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.poll_write_out(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

impl<W: AsyncRead + Unpin> AsyncRead for Coalesced<W> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.turn == Turn::Flushed {
            // A new turn of the connection's task: its first flush writes out.
            this.turn = Turn::Due;
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Peer::Unknown(matched) = this.peer {
            this.peer = Peer::after(matched, &buf.filled()[before..]);
        }
        result
    }
}

impl Peer {
    /// What a peer speaks once it sent `read` after the first `matched` bytes of the
    /// preface. Known only once the whole preface came, or a byte that differs from it: a
    /// first read may end anywhere, and an HTTP/1.1 request may begin like the preface
    /// (`P…`), so a preface's beginning alone decides nothing.
    fn after(matched: usize, read: &[u8]) -> Peer {
        let n = read.len().min(HTTP2_PREFACE.len() - matched);
        if read[..n] != HTTP2_PREFACE[matched..matched + n] {
            Peer::Other
        } else if matched + n == HTTP2_PREFACE.len() {
            Peer::Http2
        } else {
            Peer::Unknown(matched + n)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tokio::io::AsyncWriteExt;

    use super::*;

    /// A socket that records each write it is asked for, taking at most `max` bytes of it,
    /// and whose reads give what `incoming` holds, then nothing yet (`Pending`).
    #[derive(Clone, Default)]
    struct Recorder {
        writes: Arc<Mutex<Vec<Vec<u8>>>>,
        max: Option<usize>,
        incoming: Arc<Mutex<Vec<u8>>>,
    }

    impl Recorder {
        fn sending(first: &[u8]) -> Recorder {
            Recorder {
                incoming: Arc::new(Mutex::new(first.to_vec())),
                ..Recorder::default()
            }
        }

        fn writes(&self) -> Vec<Vec<u8>> {
            self.writes.lock().unwrap().clone()
        }
    }

    impl AsyncRead for Recorder {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let mut incoming = self.incoming.lock().unwrap();
            if incoming.is_empty() {
                return Poll::Pending;
            }
            buf.put_slice(&incoming);
            incoming.clear();
            Poll::Ready(Ok(()))
        }
    }

    /// A waker that counts its wakes.
    #[derive(Default)]
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    impl Wakes {
        fn count(&self) -> usize {
            self.0.load(std::sync::atomic::Ordering::Relaxed)
        }
    }

    /// One turn of the connection's task: h2 reads until nothing is left.
    fn read_turn(out: &mut Coalesced<Recorder>, cx: &mut Context<'_>) {
        let mut space = [0u8; 64];
        let mut buf = ReadBuf::new(&mut space);
        while Pin::new(&mut *out).poll_read(cx, &mut buf).is_ready() {
            buf.clear();
        }
    }

    fn write(out: &mut Coalesced<Recorder>, cx: &mut Context<'_>, bytes: &[u8]) {
        assert!(matches!(
            Pin::new(&mut *out).poll_write(cx, bytes),
            Poll::Ready(Ok(n)) if n == bytes.len()
        ));
    }

    #[test]
    fn an_http2_connections_flushes_of_one_turn_leave_together_at_its_next_turn() {
        let socket = Recorder::sending(HTTP2_PREFACE);
        let mut out = Coalesced::new(socket.clone());
        let wakes = Arc::new(Wakes::default());
        let waker = std::task::Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        read_turn(&mut out, &mut cx);
        assert_eq!(out.peer, Peer::Http2);
        // h2 flushes after each large DATA frame and at the end of its turn: each flush
        // answers at once, and the first asks for another turn.
        for frame in [&b"one "[..], b"two ", b"three"] {
            write(&mut out, &mut cx, frame);
            assert!(matches!(
                Pin::new(&mut out).poll_flush(&mut cx),
                Poll::Ready(Ok(()))
            ));
        }
        assert!(socket.writes().is_empty(), "held until the next turn");
        assert_eq!(wakes.count(), 1, "the task asked once for its next turn");
        // The next turn reads first; its first flush writes out the whole turn.
        read_turn(&mut out, &mut cx);
        write(&mut out, &mut cx, b" four");
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
        assert_eq!(socket.writes(), vec![b"one two three four".to_vec()]);
        assert_eq!(out.held.capacity(), 0, "freed once written out");
        // A flush with nothing held writes nothing and asks for no turn.
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
        assert_eq!(wakes.count(), 1);
        // The next write waits for the turn after its flush again.
        write(&mut out, &mut cx, b"five");
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
        assert_eq!(socket.writes().len(), 1);
        read_turn(&mut out, &mut cx);
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
        assert_eq!(socket.writes()[1], b"five");
        assert_eq!(wakes.count(), 2);
        // Held bytes leave on shutdown too, whatever the turn.
        write(&mut out, &mut cx, b"six");
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
        assert!(Pin::new(&mut out).poll_shutdown(&mut cx).is_ready());
        assert_eq!(socket.writes()[2], b"six");
    }

    #[test]
    fn only_a_peer_that_begins_with_the_http2_preface_has_its_flushes_wait_for_a_read() {
        let cases: [(&[u8], Peer); 4] = [
            // The first read may hold only part of the preface: not known yet.
            (&HTTP2_PREFACE[..5], Peer::Unknown(5)),
            (b"P", Peer::Unknown(1)),
            (
                b"POST /theboss.v1.GameService/GetView HTTP/1.1\r\n",
                Peer::Other,
            ),
            (b"PRIX", Peer::Other),
        ];
        for (first, peer) in cases {
            let socket = Recorder::sending(first);
            let mut out = Coalesced::new(socket.clone());
            let waker = noop_waker();
            let mut cx = Context::from_waker(&waker);
            read_turn(&mut out, &mut cx);
            assert_eq!(out.peer, peer, "{first:?}");
            write(&mut out, &mut cx, b"x");
            let flushed = Pin::new(&mut out).poll_flush(&mut cx);
            // An HTTP/1.1 flush yields (Pending) and writes when polled again, without a read;
            // so does a flush before the peer is known.
            assert_eq!(flushed.is_ready(), peer == Peer::Http2, "{first:?}");
            if peer != Peer::Http2 {
                assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
                assert_eq!(socket.writes(), vec![b"x".to_vec()]);
            }
        }
    }

    #[test]
    fn a_peer_is_known_once_its_reads_complete_the_preface_or_depart_from_it() {
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let cases: [(&[&[u8]], Peer); 4] = [
            // The preface in three reads, then a frame in the same read as its end.
            (
                &[
                    &HTTP2_PREFACE[..1],
                    &HTTP2_PREFACE[1..20],
                    b"\r\n\r\n\0\0\0\x04",
                ],
                Peer::Http2,
            ),
            // An HTTP/1.1 request whose first read held one byte of it.
            (&[b"P", b"OST / HTTP/1.1\r\n"], Peer::Other),
            (&[b"PRI * HTTP/2.0\r\n", b"\r\nXX"], Peer::Other),
            (&[&HTTP2_PREFACE[..10], b""], Peer::Unknown(10)),
        ];
        for (reads, peer) in cases {
            let socket = Recorder::default();
            let mut out = Coalesced::new(socket.clone());
            for read in reads {
                socket.incoming.lock().unwrap().extend_from_slice(read);
                read_turn(&mut out, &mut cx);
            }
            assert_eq!(out.peer, peer, "{reads:?}");
        }
    }

    impl AsyncWrite for Recorder {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let n = self.max.map_or(buf.len(), |max| buf.len().min(max));
            self.writes.lock().unwrap().push(buf[..n].to_vec());
            Poll::Ready(Ok(n))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn writes_until_a_flush_leave_in_one_write_after_one_yield() {
        let recorder = Recorder::default();
        let mut out = Coalesced::new(recorder.clone());
        for part in [&b"one "[..], b"two ", b"three"] {
            out.write_all(part).await.unwrap();
        }
        assert!(recorder.writes.lock().unwrap().is_empty(), "held");
        assert_eq!(out.held.capacity(), CAPACITY, "allocated once, not grown");
        out.flush().await.unwrap();
        assert_eq!(
            *recorder.writes.lock().unwrap(),
            vec![b"one two three".to_vec()]
        );
        assert_eq!(out.held.capacity(), 0, "freed once written out");
        // A flush with nothing held writes nothing and does not yield.
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
    }

    /// A peer not known to speak HTTP/2 (no read yet, here).
    #[tokio::test]
    async fn a_flush_yields_once_then_writes_what_came_meanwhile() {
        let recorder = Recorder::default();
        let mut out = Coalesced::new(recorder.clone());
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut out).poll_write(&mut cx, b"a").is_ready());
        assert!(
            Pin::new(&mut out).poll_flush(&mut cx).is_pending(),
            "yields"
        );
        // Another task's message arrives while the connection yields.
        assert!(Pin::new(&mut out).poll_write(&mut cx, b"b").is_ready());
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_ready());
        assert_eq!(*recorder.writes.lock().unwrap(), vec![b"ab".to_vec()]);
        // The next flush yields again.
        assert!(Pin::new(&mut out).poll_write(&mut cx, b"c").is_ready());
        assert!(Pin::new(&mut out).poll_flush(&mut cx).is_pending());
    }

    #[tokio::test]
    async fn the_buffer_is_bounded_and_partial_writes_keep_the_rest() {
        let recorder = Recorder {
            max: Some(CAPACITY / 2),
            ..Recorder::default()
        };
        let mut out = Coalesced::new(recorder.clone());
        let chunk = vec![7u8; CAPACITY / 4];
        for _ in 0..6 {
            out.write_all(&chunk).await.unwrap();
            assert!(out.held.len() <= CAPACITY);
        }
        out.flush().await.unwrap();
        let writes = recorder.writes.lock().unwrap();
        let total: usize = writes.iter().map(Vec::len).sum();
        assert_eq!(total, 6 * CAPACITY / 4, "every byte, once");
        assert!(writes.iter().all(|w| w.len() <= CAPACITY / 2));
        // A write as big as the buffer goes straight through.
        drop(writes);
        let big = vec![1u8; CAPACITY];
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let Poll::Ready(Ok(n)) = Pin::new(&mut out).poll_write(&mut cx, &big) else {
            panic!("written");
        };
        assert_eq!(n, CAPACITY / 2, "what the socket took, nothing held");
        assert!(out.held.is_empty());
    }

    fn noop_waker() -> std::task::Waker {
        std::task::Waker::noop().clone()
    }
}
