//! Writes that leave together. An action reaches every stream that follows its game: the
//! submitter's answer and each seat's update are made by different tasks, one after the
//! other, and the HTTP/2 connection used to write each to the socket as soon as it had it, a
//! system call per message (6 writes to clients for each persisted action in the benchmark's
//! 100-game load, 1.3 since; on loopback the sender also pays for delivering each segment).
//!
//! [`Coalesced`] holds what is written until it is flushed, and on a flush lets the
//! runtime's other ready tasks run once first (the task wakes itself and yields): the
//! messages those tasks produce meanwhile are written out in the same system call. No timer
//! is involved: a flush yields at most once, so an idle connection's message leaves after one
//! turn of the scheduler. The buffer is bounded (a write past [`CAPACITY`] first writes out
//! what is held) and freed once written out, so idle connections hold none.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::AsyncWrite;

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
    /// Whether this flush already gave the other tasks their turn.
    yielded: bool,
}

impl<W> Coalesced<W> {
    pub fn new(inner: W) -> Coalesced<W> {
        Coalesced {
            inner,
            held: Vec::new(),
            yielded: false,
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
        if !this.held.is_empty() {
            if !this.yielded {
                this.yielded = true;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            ready!(this.poll_write_out(cx))?;
        }
        this.yielded = false;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.poll_write_out(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tokio::io::AsyncWriteExt;

    use super::*;

    /// A writer that records each write it is asked for, taking at most `max` bytes of it.
    #[derive(Clone, Default)]
    struct Recorder {
        writes: Arc<Mutex<Vec<Vec<u8>>>>,
        max: Option<usize>,
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
