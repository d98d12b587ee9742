//! [`Finishing`]: work that runs to its end even if the one waiting for it goes away. A call
//! a client cancels drops its future at whatever await it had reached; work that others
//! depend on (a write carrying other games' actions, a game's turn half committed) must not
//! stop there, so the rest of it goes on on a task of its own.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;

/// A future that, dropped before it is done, finishes on a task of its own (its output then
/// goes nowhere). A future that panicked is not resumed, and outside a runtime (the process
/// ending) nothing is left to finish it.
pub struct Finishing<T: Send + 'static>(Option<BoxFuture<'static, T>>);

impl<T: Send + 'static> Finishing<T> {
    pub fn new(work: impl Future<Output = T> + Send + 'static) -> Finishing<T> {
        Finishing(Some(Box::pin(work)))
    }
}

impl<T: Send + 'static> Future for Finishing<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let Some(work) = self.0.as_mut() else {
            panic!("a Finishing future polled after it finished");
        };
        let done = work.as_mut().poll(cx);
        if done.is_ready() {
            self.0 = None;
        }
        done
    }
}

impl<T: Send + 'static> Drop for Finishing<T> {
    fn drop(&mut self) {
        if let Some(work) = self.0.take()
            && !std::thread::panicking()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                work.await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;

    /// Dropped midway, the work still gets to its end; awaited, it answers as itself.
    #[tokio::test]
    async fn work_dropped_midway_finishes_on_its_own() {
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let done = Arc::new(AtomicBool::new(false));
        let marked = done.clone();
        let mut work = Box::pin(Finishing::new(async move {
            let _ = released.await;
            marked.store(true, Ordering::SeqCst);
            7
        }));
        assert!(futures::poll!(work.as_mut()).is_pending());
        drop(work);
        release.send(()).unwrap();
        for _ in 0..500 {
            if done.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(done.load(Ordering::SeqCst), "the dropped work finished");
        assert_eq!(Finishing::new(async { 7 }).await, 7);
    }
}
