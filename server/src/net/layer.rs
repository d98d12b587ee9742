//! The tower layers of the transport's guards:
//!
//! - [`ConnectionLayer`], outermost: tells each request's connection that a call began and,
//!   when its response is sent whole or dropped, that it ended (`conn`'s idle timeout counts
//!   from there); gives the request the connection's addresses, as tonic's own connections
//!   do, and its client's key (`address`); counts every call whose caller is not known yet
//!   among the unauthenticated (`unauthenticated`; over a cap: RESOURCE_EXHAUSTED before any
//!   service is asked); and ends the streams the server's own code does not (health
//!   watches, reflection) with UNAVAILABLE when the server stops, so that no client can hold
//!   its shutdown up.
//! - [`RequestBodyLayer`], inside the gRPC-Web translation: a request's message must arrive
//!   whole within the request timeout, or the call fails and its connection is closed; and a
//!   request body that does not decode (bad gRPC-Web base64, a malformed frame) is the
//!   caller's mistake, INVALID_ARGUMENT, not tonic-web's INTERNAL.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use tokio::sync::watch;
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};

use super::address::{AddressPolicy, ClientAddr};
use super::conn::{ConnectionInfo, ConnectionState};
use super::unauthenticated::{Release, Unauthenticated};
use crate::limits::Limits;
use crate::shutdown::Stop;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Streams served by code that does not end them when the server stops.
fn ends_on_stop(path: &str) -> bool {
    path == "/grpc.health.v1.Health/Watch" || path.starts_with("/grpc.reflection.")
}

/// See the module's header.
#[derive(Clone)]
pub struct ConnectionLayer {
    addresses: Arc<AddressPolicy>,
    unauthenticated: Arc<Unauthenticated>,
    known: Arc<dyn KnownCallers>,
    stopping: watch::Receiver<bool>,
}

/// Who tells the transport which callers it knows already (`auth`, from its cache of tokens):
/// a known caller's call holds no place among the unauthenticated.
pub trait KnownCallers: Send + Sync {
    /// Whether the caller of a request with these headers is known; if so, what it knows of
    /// it goes into `extensions` for the service to find.
    fn recognise(&self, headers: &http::HeaderMap, extensions: &mut http::Extensions) -> bool;
}

impl ConnectionLayer {
    /// `stopping` becomes true when the server stops; `known` says which callers are known.
    pub fn new(
        limits: &Limits,
        addresses: AddressPolicy,
        known: Arc<dyn KnownCallers>,
        stopping: watch::Receiver<bool>,
    ) -> ConnectionLayer {
        ConnectionLayer {
            addresses: Arc::new(addresses),
            unauthenticated: Unauthenticated::new(limits),
            known,
            stopping,
        }
    }
}

impl<S> Layer<S> for ConnectionLayer {
    type Service = ConnectionService<S>;

    fn layer(&self, inner: S) -> ConnectionService<S> {
        ConnectionService {
            inner,
            layer: self.clone(),
        }
    }
}

#[derive(Clone)]
pub struct ConnectionService<S> {
    inner: S,
    layer: ConnectionLayer,
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B, R> Service<http::Request<B>> for ConnectionService<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    R: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    R::Error: Into<BoxError>,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let info = request.extensions().get::<ConnectionInfo>().cloned();
        let peer = info
            .as_ref()
            .and_then(|i| i.tcp.remote_addr)
            .map(|a| a.ip());
        let client = peer.map(|peer| self.layer.addresses.client(peer, request.headers()));
        if let Some(client) = client {
            request.extensions_mut().insert(ClientAddr(client));
        }
        // A caller the service knows holds nothing here; any other is counted until `auth`
        // learns who it is, or for as long as its call lasts.
        let (mut parts, body) = request.into_parts();
        let known = self
            .layer
            .known
            .recognise(&parts.headers, &mut parts.extensions);
        let mut request = http::Request::from_parts(parts, body);
        let release = if known {
            None
        } else {
            let connection = info
                .as_ref()
                .map(|i| i.state.unauthenticated.clone())
                .unwrap_or_default();
            match self.layer.unauthenticated.admit(client, &connection) {
                Ok(permit) => {
                    let release = Release::holding(permit);
                    request.extensions_mut().insert(release.clone());
                    Some(release)
                }
                Err(refusal) => {
                    let (subject, limit) = refusal.subject(client);
                    crate::logs::client_event(
                        "unauthenticated_calls_refused",
                        &format!("calls of callers not known yet refused ({subject})"),
                    );
                    let refused = crate::error::unauthenticated_calls_exhausted(subject, limit);
                    return Box::pin(async move { Ok(refused.into_http()) });
                }
            }
        };
        let stop =
            ends_on_stop(request.uri().path()).then(|| Stop::new(self.layer.stopping.clone()));
        let call = info.map(|info| {
            // Requests see their peer as they would on tonic's own connections.
            request.extensions_mut().insert(info.tcp.clone());
            info.state.call_started();
            CallGuard(info.state)
        });
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            Ok(response.map(|body| {
                Body::new(Tracked {
                    body,
                    stop,
                    stopped: false,
                    _call: call,
                    _unauthenticated: release,
                })
            }))
        })
    }
}

/// A call in flight on its connection, until dropped.
#[derive(Debug)]
struct CallGuard(Arc<ConnectionState>);

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.0.call_ended();
    }
}

/// A response body that holds its call's guards until it is sent whole or dropped, and, for
/// the streams that do not end by themselves, ends when the server stops.
struct Tracked<B> {
    /// Unpin (tonic's bodies are boxed already), so held as it is, not in a box of its own.
    body: B,
    stop: Option<Stop>,
    stopped: bool,
    _call: Option<CallGuard>,
    _unauthenticated: Option<Release>,
}

impl<B> HttpBody for Tracked<B>
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        if self.stopped {
            return Poll::Ready(None);
        }
        if let Some(stop) = self.stop.as_mut()
            && stop.poll(cx).is_ready()
        {
            self.stop = None;
            self.stopped = true;
            let trailers = crate::error::shutdown_trailers();
            return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
        }
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.stopped || self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// See the module's header.
#[derive(Debug, Clone, Copy)]
pub struct RequestBodyLayer {
    timeout: Duration,
}

impl RequestBodyLayer {
    pub fn new(limits: &Limits) -> RequestBodyLayer {
        RequestBodyLayer {
            timeout: limits.request_timeout,
        }
    }
}

impl<S> Layer<S> for RequestBodyLayer {
    type Service = RequestBodyService<S>;

    fn layer(&self, inner: S) -> RequestBodyService<S> {
        RequestBodyService {
            inner,
            timeout: self.timeout,
        }
    }
}

#[derive(Debug, Clone)]
pub struct RequestBodyService<S> {
    inner: S,
    timeout: Duration,
}

/// Streams whose requests may come over time (reflection's conversation): not timed.
fn is_client_streaming(path: &str) -> bool {
    path.starts_with("/grpc.reflection.")
}

impl<S> Service<http::Request<Body>> for RequestBodyService<S>
where
    S: Service<http::Request<Body>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> S::Future {
        let timed = !is_client_streaming(request.uri().path());
        let connection = request
            .extensions()
            .get::<ConnectionInfo>()
            .map(|info| info.state.clone());
        let timeout = self.timeout;
        let request = request.map(|body| {
            Body::new(Checked {
                body,
                deadline: timed.then(|| Box::pin(tokio::time::sleep(timeout))),
                connection,
                timeout,
            })
        });
        self.inner.call(request)
    }
}

/// A request body with a deadline, whose decoding errors are the caller's.
struct Checked {
    body: Body,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    connection: Option<Arc<ConnectionState>>,
    timeout: Duration,
}

impl HttpBody for Checked {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        match polled {
            Poll::Ready(None) => {
                self.deadline = None;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Ok(frame))) => {
                if self.body.is_end_stream() {
                    self.deadline = None;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(status))) => {
                Poll::Ready(Some(Err(crate::error::undecodable_body(status))))
            }
            Poll::Pending => {
                let Some(deadline) = self.deadline.as_mut() else {
                    return Poll::Pending;
                };
                if deadline.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                self.deadline = None;
                if let Some(connection) = &self.connection {
                    connection.close("a request's message did not arrive in time");
                }
                crate::logs::client_event(
                    "request_too_slow",
                    "a request's message did not arrive in time: its connection was closed",
                );
                Poll::Ready(Some(Err(crate::error::request_too_slow(self.timeout))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that never sends anything: a health watch with nothing to say.
    struct Silent;

    impl HttpBody for Silent {
        type Data = Bytes;
        type Error = Status;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_stream_that_does_not_end_by_itself_is_ended_when_the_server_stops() {
        let (stop, stopping) = watch::channel(false);
        let mut body = Box::pin(Tracked {
            body: Box::pin(Silent),
            stop: Some(Stop::new(stopping)),
            stopped: false,
            _call: None,
            _unauthenticated: None,
        });
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(body.as_mut().poll_frame(&mut cx).is_pending());
        assert!(
            body.as_mut().poll_frame(&mut cx).is_pending(),
            "polled again"
        );
        stop.send(true).unwrap();
        let Poll::Ready(Some(Ok(frame))) = body.as_mut().poll_frame(&mut cx) else {
            panic!("the stop ends the stream");
        };
        let trailers = frame.into_trailers().expect("trailers");
        assert_eq!(
            trailers["grpc-status"],
            (tonic::Code::Unavailable as i32).to_string()
        );
        assert!(body.is_end_stream());
        assert!(matches!(
            body.as_mut().poll_frame(&mut cx),
            Poll::Ready(None)
        ));
    }
}
