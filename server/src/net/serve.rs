//! Serving accepted connections, each on one task of its own: the connection and every call
//! on it. hyper runs each HTTP/2 stream on an executor; served through tonic's `Server`, that
//! is a tokio task per stream, so an action's responses to the streams of one connection were
//! five tasks, woken at once, which the runtime shared between its workers: the workers then
//! took turns on the connection's lock, and the messages left in three writes where one would
//! do. Here a connection's streams are polled by the task that drives the connection
//! ([`Local`]), one after the other, and what they send leaves together: in each turn the
//! streams go first and the connection after them, so that what they made (a turn's updates
//! and the answer to its submitter) is framed in that same turn, not one later, and written
//! in one system call.
//!
//! What tonic's `Server` added around the routes is kept: the connection's information in
//! each request's extensions, a call's deadline from its `grpc-timeout` header
//! ([`Deadline`]), HTTP/2 keep-alives and the cap on a connection's streams, and graceful
//! shutdown: once `shutdown` resolves no connection is accepted, each open one is told to
//! finish its calls, and this returns once they all did. (The layers answer every refusal
//! as a response, so there is no error left to turn into a status.) A client's calls share
//! its connection's task, so a client cannot spread its work over the runtime's workers at
//! the others' expense: a client that keeps its connection busy slows its own calls. A call
//! over HTTP/2 that panics ends alone, as a task of its own would: its stream is reset, the
//! connection and its other calls go on. (HTTP/1.1 carries one call at a time, in the
//! connection's own future: a panic there ends that connection.)

use std::convert::Infallible;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use atomic_waker::AtomicWaker;
use futures::future::{BoxFuture, FutureExt};
use futures::stream::{FuturesUnordered, Stream, StreamExt};
use http::{HeaderMap, Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tonic::body::Body;
use tonic::transport::server::Connected;
use tower::ServiceExt;

use super::Guarded;

/// How connections are served: what tonic's `Server` builder was told.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The most streams a connection may have open at once (none: HTTP/2's default).
    pub max_concurrent_streams: Option<u32>,
    pub keep_alive_interval: Duration,
    pub keep_alive_timeout: Duration,
}

/// The service a connection's requests go to: the routes with their layers.
pub type Routes = tower::util::BoxCloneSyncService<Request<Body>, Response<Body>, Infallible>;

/// Serves the connections `incoming` yields until `shutdown` resolves, then lets the open
/// ones finish their calls and returns once they all did.
pub async fn serve(
    incoming: impl Stream<Item = std::io::Result<Guarded>>,
    routes: Routes,
    settings: Settings,
    shutdown: impl Future<Output = ()>,
) {
    let (stop, stopping) = tokio::sync::watch::channel(());
    let mut shutdown = pin!(shutdown);
    // Scoped, so that `incoming` (the listener with it) is dropped once nothing is accepted
    // any more: a client that connects then is refused, not left waiting.
    {
        let mut incoming = pin!(incoming);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                accepted = incoming.next() => match accepted {
                    Some(Ok(io)) => {
                        let connection =
                            serve_one(io, routes.clone(), settings.clone(), stopping.clone());
                        tokio::spawn(connection);
                    }
                    Some(Err(error)) => tracing::debug!(%error, "cannot accept a connection"),
                    None => break,
                },
            }
        }
    }
    // Tell the open connections to finish, and wait until every one has dropped its receiver.
    drop(stopping);
    let _ = stop.send(());
    stop.closed().await;
}

/// How many times a connection's turn polls its streams through `FuturesUnordered`'s yields
/// (see [`serve_one`]): enough for a turn's messages, few enough that a connection whose
/// streams always have more to send still reads its socket every turn.
const ROUNDS: usize = 4;

/// Serves one connection: its HTTP/1.1 or HTTP/2 protocol and every call on it, on the
/// caller's task, until the client leaves or, after a stop, its calls are done.
async fn serve_one<I>(
    io: I,
    routes: Routes,
    settings: Settings,
    mut stopping: tokio::sync::watch::Receiver<()>,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Connected + Unpin + Send + 'static,
    I::ConnectInfo: Clone + Send + Sync + 'static,
{
    let info = io.connect_info();
    let service = tower::service_fn(move |request: Request<Incoming>| {
        let mut request = request.map(Body::new);
        request.extensions_mut().insert(info.clone());
        Deadline::of(request.headers()).call(routes.clone().oneshot(request))
    });
    let local = Local::default();
    let mut builder = auto::Builder::new(local.clone());
    builder
        .http1()
        // hyper enforces its HTTP/1.1 header read timeout only with a timer.
        .timer(TokioTimer::new());
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(settings.max_concurrent_streams)
        .keep_alive_interval(Some(settings.keep_alive_interval))
        .keep_alive_timeout(settings.keep_alive_timeout);
    let connection = builder.serve_connection(TokioIo::new(io), TowerToHyperService::new(service));
    let mut connection = pin!(connection);
    let mut streams = FuturesUnordered::new();
    // A stop, or the server gone (its sender dropped): either way the calls finish.
    let mut stop = pin!(stopping.changed());
    let (mut open, mut told) = (true, false);
    // Until every stream waits: the streams' wakers wake this task. `FuturesUnordered`
    // also returns `Pending` when two of its futures woke themselves while polled, or
    // after it polled each once, and leaves the rest for the task's next turn. h2 wakes a
    // stream that sent a message as it gives it room for the next, so an action's updates
    // to four seats and its answer came out over two turns, each one write to the socket.
    // Polling again a few times gathers a turn's messages; [`ROUNDS`] bounds how long a
    // connection's streams keep its reads waiting.
    let run = |streams: &mut FuturesUnordered<_>, cx: &mut std::task::Context<'_>| {
        streams.extend(local.take());
        for _ in 0..ROUNDS {
            while let Poll::Ready(Some(())) = streams.poll_next_unpin(cx) {}
        }
    };
    std::future::poll_fn(|cx| {
        local.shared.waker.register(cx.waker());
        if !told && stop.as_mut().poll(cx).is_ready() {
            told = true;
            connection.as_mut().graceful_shutdown();
        }
        // The streams before the connection: what they send now (a turn's updates, an
        // answer) is framed and written by the connection's poll in this same turn, not
        // one turn later.
        run(&mut streams, cx);
        if open && let Poll::Ready(outcome) = connection.as_mut().poll(cx) {
            open = false;
            if let Err(error) = outcome {
                tracing::debug!(%error, "a connection ended with an error");
            }
        }
        // The calls the connection just read start at once.
        run(&mut streams, cx);
        if open || !streams.is_empty() {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
}

/// A connection's executor: what hyper spawns for it (each HTTP/2 stream) is polled by the
/// connection's own task.
#[derive(Clone, Default)]
struct Local {
    shared: Arc<Spawned>,
}

/// What a connection's executor was given, not polled yet, and the task that polls it.
#[derive(Default)]
struct Spawned {
    futures: Mutex<Vec<BoxFuture<'static, ()>>>,
    waker: AtomicWaker,
}

impl Local {
    fn take(&self) -> Vec<BoxFuture<'static, ()>> {
        let mut futures = self
            .shared
            .futures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *futures)
    }
}

impl<F> hyper::rt::Executor<F> for Local
where
    F: Future<Output = ()> + Send + 'static,
{
    fn execute(&self, future: F) {
        // A call that panics ends alone, as a task of its own would: the panic is caught
        // here, the call dropped (h2 resets its stream), and the connection's other calls go
        // on. Nothing of the call is used after its panic but its drop.
        let call = std::panic::AssertUnwindSafe(future)
            .catch_unwind()
            .map(|ended| {
                if let Err(panic) = ended {
                    let why = crate::logs::panic_message(&*panic);
                    tracing::error!(
                        why,
                        "a call panicked: its stream is reset, its connection kept"
                    );
                }
            });
        self.shared
            .futures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Box::pin(call));
        self.shared.waker.wake();
    }
}

/// A call's deadline, from its `grpc-timeout` header: a call still running then is ended
/// with CANCELLED, as tonic's server does. A header that does not parse sets none.
struct Deadline(Option<Duration>);

impl Deadline {
    fn of(headers: &HeaderMap) -> Deadline {
        Deadline(headers.get("grpc-timeout").and_then(|value| {
            // Visible ASCII only (`to_str`), so the unit is the last byte.
            let value = value.to_str().ok()?;
            let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
            // The header's value is at most eight digits (gRPC over HTTP/2).
            if digits.is_empty() || digits.len() > 8 {
                return None;
            }
            let n: u64 = digits.parse().ok()?;
            Some(match unit {
                "H" => Duration::from_secs(n * 3600),
                "M" => Duration::from_secs(n * 60),
                "S" => Duration::from_secs(n),
                "m" => Duration::from_millis(n),
                "u" => Duration::from_micros(n),
                "n" => Duration::from_nanos(n),
                _ => return None,
            })
        }))
    }

    /// The response of `call`, or CANCELLED once the deadline passed.
    async fn call(
        self,
        call: impl Future<Output = Result<Response<Body>, Infallible>>,
    ) -> Result<Response<Body>, Infallible> {
        let Some(within) = self.0 else {
            return call.await;
        };
        match tokio::time::timeout(within, call).await {
            Ok(response) => response,
            Err(_) => Ok(tonic::Status::cancelled("Timeout expired").into_http()),
        }
    }
}

#[cfg(test)]
mod tests {
    use tower::util::BoxCloneSyncService;

    use super::*;

    fn deadline(value: &str) -> Option<Duration> {
        let mut headers = HeaderMap::new();
        headers.insert("grpc-timeout", value.parse().unwrap());
        Deadline::of(&headers).0
    }

    #[test]
    fn a_deadline_reads_every_unit_and_nothing_malformed() {
        assert_eq!(deadline("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(deadline("3M"), Some(Duration::from_secs(180)));
        assert_eq!(deadline("4S"), Some(Duration::from_secs(4)));
        assert_eq!(deadline("9999999m"), Some(Duration::from_millis(9_999_999)));
        assert_eq!(deadline("5u"), Some(Duration::from_micros(5)));
        assert_eq!(deadline("6n"), Some(Duration::from_nanos(6)));
        for malformed in ["", "S", "123456789S", "1x", "-1S", "1.5S", "S1"] {
            assert_eq!(deadline(malformed), None, "{malformed:?}");
        }
        assert_eq!(Deadline::of(&HeaderMap::new()).0, None);
        // Bytes past ASCII (whose last character would not split off) set none either.
        let mut headers = HeaderMap::new();
        headers.insert(
            "grpc-timeout",
            http::HeaderValue::from_bytes(b"1\xc3\xa9").unwrap(),
        );
        assert_eq!(Deadline::of(&headers).0, None);
    }

    /// A call still running at its deadline is answered CANCELLED; one done in time is
    /// answered as it answered.
    #[tokio::test(start_paused = true)]
    async fn a_call_past_its_deadline_is_cancelled() {
        let status = |response: Response<Body>| {
            response
                .headers()
                .get("grpc-status")
                .map(|v| v.to_str().unwrap().to_string())
        };
        let late = Deadline(Some(Duration::from_millis(50)))
            .call(std::future::pending())
            .await
            .unwrap();
        assert_eq!(status(late).as_deref(), Some("1"));
        let in_time = Deadline(Some(Duration::from_secs(5)))
            .call(async {
                tokio::time::sleep(Duration::from_secs(1)).await;
                Ok(tonic::Status::not_found("x").into_http())
            })
            .await
            .unwrap();
        assert_eq!(status(in_time).as_deref(), Some("5"));
        let unbounded = Deadline(None)
            .call(async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok(tonic::Status::ok("").into_http())
            })
            .await
            .unwrap();
        assert_eq!(status(unbounded).as_deref(), Some("0"));
    }

    /// One end of an in-memory connection, counted: each write that takes bytes is one
    /// system call on a socket.
    struct Counted {
        io: tokio::io::DuplexStream,
        writes: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl tokio::io::AsyncRead for Counted {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            std::pin::Pin::new(&mut self.io).poll_read(cx, buf)
        }
    }

    impl tokio::io::AsyncWrite for Counted {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            let written = std::pin::Pin::new(&mut self.io).poll_write(cx, buf);
            if let Poll::Ready(Ok(n)) = written
                && n > 0
            {
                self.writes
                    .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            written
        }

        fn poll_flush(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> Poll<std::io::Result<()>> {
            std::pin::Pin::new(&mut self.io).poll_flush(cx)
        }

        fn poll_shutdown(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> Poll<std::io::Result<()>> {
            std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
        }
    }

    /// The served end gathers its writes as a socket's are (`Coalesced`).
    impl Connected for super::super::coalesce::Coalesced<Counted> {
        type ConnectInfo = ();
        fn connect_info(&self) {}
    }

    /// A connection served by `serve_one`, in memory, with `routes`: the client's end, and a
    /// count of the served end's writes.
    async fn served(
        routes: Routes,
    ) -> (
        h2::client::SendRequest<bytes::Bytes>,
        Arc<std::sync::atomic::AtomicUsize>,
    ) {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let writes = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let served = super::super::coalesce::Coalesced::new(Counted {
            io: server,
            writes: writes.clone(),
        });
        let settings = Settings {
            max_concurrent_streams: None,
            keep_alive_interval: Duration::from_secs(3600),
            keep_alive_timeout: Duration::from_secs(60),
        };
        let (stop, stopping) = tokio::sync::watch::channel(());
        tokio::spawn(async move {
            serve_one(served, routes, settings, stopping).await;
            drop(stop);
        });
        let (calls, connection) = h2::client::handshake(client).await.unwrap();
        tokio::spawn(connection);
        (calls, writes)
    }

    fn get(path: &str) -> Request<()> {
        Request::get(format!("http://test{path}")).body(()).unwrap()
    }

    /// Routes that answer with the news: `/stream`, each piece as it comes, for as long as
    /// it is open; `/panic` panics; any other path, the next piece once it comes (telling
    /// `arrived` it is waiting).
    fn news_routes(
        news: &tokio::sync::broadcast::Sender<bytes::Bytes>,
        arrived: tokio::sync::mpsc::UnboundedSender<()>,
    ) -> Routes {
        let news = news.clone();
        BoxCloneSyncService::new(tower::service_fn(move |request: Request<Body>| {
            let (mut next, arrived) = (news.subscribe(), arrived.clone());
            async move {
                let body = match request.uri().path() {
                    "/panic" => panic!("a handler's bug"),
                    "/stream" => {
                        let frames = futures::stream::unfold(next, |mut next| async move {
                            let data = next.recv().await.ok()?;
                            Some((Ok::<_, tonic::Status>(http_body::Frame::data(data)), next))
                        });
                        Body::new(http_body_util::StreamBody::new(frames))
                    }
                    _ => {
                        let _ = arrived.send(());
                        Body::new(http_body_util::Full::new(next.recv().await.unwrap()))
                    }
                };
                Ok::<_, Infallible>(Response::new(body))
            }
        }))
    }

    /// The first piece of a call's answer.
    async fn first_data(answer: h2::client::ResponseFuture) -> bytes::Bytes {
        let mut body = answer.await.unwrap().into_body();
        body.data().await.unwrap().unwrap()
    }

    /// A call that panics is reset alone: the connection's other calls, open or new, go on.
    #[tokio::test]
    async fn a_call_that_panics_ends_alone() {
        let (news, _) = tokio::sync::broadcast::channel::<bytes::Bytes>(4);
        let (arrived, mut waiting) = tokio::sync::mpsc::unbounded_channel();
        let (mut calls, _) = served(news_routes(&news, arrived)).await;
        let (stream, _) = calls.send_request(get("/stream"), true).unwrap();
        let mut stream = stream.await.unwrap().into_body();
        let (panicked, _) = calls.send_request(get("/panic"), true).unwrap();
        let reset = panicked.await.expect_err("the call that panicked is reset");
        assert!(reset.is_reset(), "{reset:?}");

        let (answer, _) = calls.send_request(get("/answer"), true).unwrap();
        waiting.recv().await.unwrap();
        news.send(bytes::Bytes::from_static(b"still here")).unwrap();
        assert_eq!(&stream.data().await.unwrap().unwrap()[..], b"still here");
        assert_eq!(&first_data(answer).await[..], b"still here");
    }

    /// How many writes the served end makes once `news` is sent to four open streams and a
    /// call waiting for it on one connection, as a turn's seat updates and its submitter's
    /// answer are.
    async fn writes_of_one_moment(news: bytes::Bytes) -> usize {
        let (moment, _) = tokio::sync::broadcast::channel::<bytes::Bytes>(4);
        let (arrived, mut waiting) = tokio::sync::mpsc::unbounded_channel();
        let (mut calls, writes) = served(news_routes(&moment, arrived)).await;
        let mut streams = Vec::new();
        for _ in 0..4 {
            let (stream, _) = calls.send_request(get("/stream"), true).unwrap();
            streams.push(stream.await.unwrap().into_body());
        }
        let (answer, _) = calls.send_request(get("/answer"), true).unwrap();
        waiting.recv().await.unwrap();
        // Whatever the handshake and the stream's headers took is written by now.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        let before = writes.load(std::sync::atomic::Ordering::SeqCst);

        moment.send(news.clone()).unwrap();
        for stream in &mut streams {
            assert_eq!(stream.data().await.unwrap().unwrap(), news);
        }
        assert_eq!(first_data(answer).await, news);
        writes.load(std::sync::atomic::Ordering::SeqCst) - before
    }

    /// What one moment makes for a connection's calls leaves in one write: small messages,
    /// and messages of a seat update's size (about 1 KB), for which h2 wakes each stream
    /// that sent one as it gives it room for the next.
    #[tokio::test]
    async fn what_one_moment_makes_for_a_connections_calls_leaves_in_one_write() {
        let small = writes_of_one_moment(bytes::Bytes::from_static(b"the news")).await;
        assert_eq!(small, 1, "small messages left together");
        let update = writes_of_one_moment(bytes::Bytes::from(vec![7u8; 1024])).await;
        assert_eq!(update, 1, "updates of 1 KB left together");
    }

    /// What the connection's executor is given waits for the connection's task, which it
    /// wakes.
    #[tokio::test]
    async fn the_local_executor_hands_its_futures_to_the_connections_task() {
        use hyper::rt::Executor;
        let local = Local::default();
        let woken = Arc::new(std::sync::atomic::AtomicBool::new(false));
        struct Flag(Arc<std::sync::atomic::AtomicBool>);
        impl std::task::Wake for Flag {
            fn wake(self: Arc<Self>) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        local
            .shared
            .waker
            .register(&std::task::Waker::from(Arc::new(Flag(woken.clone()))));
        let (tx, rx) = tokio::sync::oneshot::channel();
        local.execute(async move {
            let _ = tx.send(7);
        });
        assert!(woken.load(std::sync::atomic::Ordering::SeqCst));
        let mut taken = local.take();
        assert_eq!(taken.len(), 1);
        taken.pop().unwrap().await;
        assert_eq!(rx.await.unwrap(), 7);
        assert!(local.take().is_empty());
    }
}
