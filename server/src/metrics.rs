//! Prometheus metrics: the one place that names them, the recorder, the `/metrics` endpoint
//! (`--metrics-listen`) and the tower layer that counts and times every RPC.
//!
//! Recording goes through the `metrics` facade, so a server without `--metrics-listen`
//! installs no recorder and every record below is a no-op. The recorder is process-wide:
//! in one process (tests) every server records into it.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body::{Body, Frame, SizeHint};
use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tonic::Code;
use tower::{Layer, Service};

/// Why the metrics endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("cannot install the metrics recorder: {0}")]
    Install(String),
    #[error("cannot listen for metrics on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Histogram buckets of latencies, in seconds: from 100 µs (a cached read) to 10 s (a
/// stalled store).
const LATENCY_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

static RECORDER: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// Installs the process's recorder (once; later calls return the same handle) and describes
/// every metric, so a scrape lists them all from the start.
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    RECORDER
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
                .map_err(|e| e.to_string())?
                .install_recorder()
                .map_err(|e| e.to_string())?;
            describe();
            // Series without labels exist from the start, so a scrape shows a zero rather
            // than nothing (which alerting rules cannot tell from a missing exporter).
            for name in [
                ACTIONS_COMMITTED,
                TURN_TIMEOUTS,
                FORFEITS,
                WATCH_LAGGED,
                GAMES_TAKEN_OVER,
            ] {
                counter!(name).absolute(0);
            }
            for name in [GAME_ACTORS, GAMES_OWNED, WATCH_STREAMS, LADDER_QUEUE] {
                gauge!(name).increment(0.0);
            }
            Ok(handle)
        })
        .clone()
        .map_err(MetricsError::Install)
}

/// Where the metrics are served, on `--metrics-listen`'s address.
pub const PATH: &str = "/metrics";

/// Serves the metrics in Prometheus' text format at `GET /metrics` on `listener` until
/// `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    handle: PrometheusHandle,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::routing::get;
    let router = axum::Router::new().route(
        PATH,
        get(move || {
            let handle = handle.clone();
            async move {
                (
                    [(
                        http::header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    handle.render(),
                )
            }
        }),
    );
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}

/// Binds `addr` and serves the metrics there in the background until `shutdown`.
pub async fn start(
    addr: SocketAddr,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<SocketAddr, MetricsError> {
    let handle = install()?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| MetricsError::Bind { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| MetricsError::Bind { addr, source })?;
    tokio::spawn(async move {
        if let Err(error) = serve(listener, handle, shutdown).await {
            tracing::error!(%error, "the metrics endpoint failed");
        }
    });
    // Not `addr`: that field names where the gRPC service listens.
    tracing::info!(endpoint = %format!("http://{local}/metrics"), "metrics");
    Ok(local)
}

const RPC_HANDLED: &str = "theboss_rpc_handled_total";
const RPC_DURATION: &str = "theboss_rpc_duration_seconds";
const ACTIONS_COMMITTED: &str = "theboss_actions_committed_total";
const ACTION_BROADCAST: &str = "theboss_action_broadcast_seconds";
const TURN_TIMEOUTS: &str = "theboss_turn_timeouts_total";
const FORFEITS: &str = "theboss_forfeits_total";
const GAME_ACTORS: &str = "theboss_game_actors";
const GAMES_OWNED: &str = "theboss_games_owned";
const WATCH_STREAMS: &str = "theboss_watch_streams";
const WATCH_LAGGED: &str = "theboss_watch_lagged_total";
const CLIENT_EVENTS: &str = "theboss_client_events_total";
const STORE_DURATION: &str = "theboss_store_duration_seconds";
const STORE_ERRORS: &str = "theboss_store_errors_total";
const STORE_AUTOVACUUM_OFF: &str = "theboss_store_autovacuum_off";
const LADDER_QUEUE: &str = "theboss_ladder_queue_length";
const LADDER_GAMES_FORMED: &str = "theboss_ladder_games_formed_total";
const LEASE_HELD: &str = "theboss_replica_lease_held";
const GAMES_TAKEN_OVER: &str = "theboss_games_taken_over_total";
const HOUSE_BOT_THINK: &str = "theboss_house_bot_think_seconds";

fn describe() {
    describe_counter!(
        RPC_HANDLED,
        "RPCs completed, by service, method and gRPC status code"
    );
    describe_histogram!(
        RPC_DURATION,
        metrics::Unit::Seconds,
        "Time from an RPC's request to its status, by service and method (a stream's lifetime)"
    );
    describe_counter!(
        ACTIONS_COMMITTED,
        "Actions (joins, leaves, turns, aborts) committed by this server's game actors"
    );
    describe_histogram!(
        ACTION_BROADCAST,
        metrics::Unit::Seconds,
        "SubmitAction handed to its game's actor until the action is committed and broadcast"
    );
    describe_counter!(TURN_TIMEOUTS, "Turns played for a seat whose clock ran out");
    describe_counter!(
        CLIENT_EVENTS,
        "Client-caused events (refusals, resets, connections closed), by cause; the log shows one line per cause per interval"
    );
    describe_counter!(FORFEITS, "Seats forfeited after three timeouts in a row");
    describe_gauge!(
        GAME_ACTORS,
        "Games live in memory: their actors (owners and followers)"
    );
    describe_gauge!(GAMES_OWNED, "Games this server runs (their one writer)");
    describe_gauge!(
        STORE_AUTOVACUUM_OFF,
        "1 when PostgreSQL's autovacuum is off: its tables get no statistics unless ANALYZE is run"
    );
    describe_gauge!(WATCH_STREAMS, "Open WatchGame streams");
    describe_counter!(
        WATCH_LAGGED,
        "Times a WatchGame stream fell behind and re-read what it missed"
    );
    describe_histogram!(
        STORE_DURATION,
        metrics::Unit::Seconds,
        "Store calls' latency, by operation"
    );
    describe_counter!(STORE_ERRORS, "Store calls that failed, by operation");
    describe_gauge!(
        LADDER_QUEUE,
        "Requests in the ladder's queue, as the matchmaker last saw it"
    );
    describe_counter!(
        LADDER_GAMES_FORMED,
        "Ladder games formed, by number of players"
    );
    describe_gauge!(
        LEASE_HELD,
        "With replicas: 1 while this replica's lease in the database runs"
    );
    describe_histogram!(
        HOUSE_BOT_THINK,
        metrics::Unit::Seconds,
        "A house bot's turn, from its seat to move to its turn chosen (waiting included), by strategy"
    );
    describe_counter!(
        GAMES_TAKEN_OVER,
        "With replicas: games this replica claimed after their owner died or stopped"
    );
}

/// An action committed by a game's actor; `timed_out` for a turn played by its clock,
/// `forfeits` the seats it forfeited.
pub fn action_committed(timed_out: bool, forfeits: usize) {
    counter!(ACTIONS_COMMITTED).increment(1);
    if timed_out {
        counter!(TURN_TIMEOUTS).increment(1);
    }
    if forfeits > 0 {
        counter!(FORFEITS).increment(forfeits as u64);
    }
}

/// A house bot of `strategy` chose a turn `elapsed` after it was asked (its wait for a thread
/// included).
pub fn house_bot_thought(strategy: &'static str, elapsed: Duration) {
    histogram!(HOUSE_BOT_THINK, "strategy" => strategy).record(elapsed);
}

/// A submitted action was committed and broadcast `elapsed` after its actor was asked.
pub fn action_broadcast(elapsed: Duration) {
    histogram!(ACTION_BROADCAST).record(elapsed);
}

/// A game's actor started (+1) or stopped (-1).
pub fn game_actors(delta: f64) {
    gauge!(GAME_ACTORS).increment(delta);
}

/// This server started (+1) or stopped (-1) running a game as its owner.
pub fn games_owned(delta: f64) {
    gauge!(GAMES_OWNED).increment(delta);
}

/// Whether the PostgreSQL database runs without autovacuum (so without statistics, unless
/// the operator runs `ANALYZE`).
pub fn store_autovacuum_off(off: bool) {
    gauge!(STORE_AUTOVACUUM_OFF).set(if off { 1.0 } else { 0.0 });
}

/// A `WatchGame` stream opened (+1) or closed (-1).
pub fn watch_streams(delta: f64) {
    gauge!(WATCH_STREAMS).increment(delta);
}

pub fn watch_lagged() {
    counter!(WATCH_LAGGED).increment(1);
}

/// Something a client caused that the log shows only a line of per interval (`logs`).
pub fn client_event(cause: &'static str) {
    counter!(CLIENT_EVENTS, "cause" => cause).increment(1);
}

pub fn ladder_queue(length: usize) {
    gauge!(LADDER_QUEUE).set(length as f64);
}

pub fn ladder_game_formed(players: u8) {
    counter!(LADDER_GAMES_FORMED, "players" => players.to_string()).increment(1);
}

pub fn lease_held(held: bool) {
    gauge!(LEASE_HELD).set(if held { 1.0 } else { 0.0 });
}

pub fn games_taken_over(games: usize) {
    counter!(GAMES_TAKEN_OVER).increment(games as u64);
}

/// Times one store call and counts its failure.
pub async fn store_call<T, E>(
    op: &'static str,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let started = Instant::now();
    let result = call.await;
    histogram!(STORE_DURATION, "op" => op).record(started.elapsed());
    if result.is_err() {
        counter!(STORE_ERRORS, "op" => op).increment(1);
    }
    result
}

/// `GET /metrics` from a server's metrics endpoint at `addr`: the body, in Prometheus' text
/// format.
pub async fn scrape(addr: SocketAddr) -> std::io::Result<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut socket = tokio::net::TcpStream::connect(addr).await?;
    socket
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await?;
    let mut response = String::new();
    socket.read_to_string(&mut response).await?;
    let invalid = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidData, why);
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| invalid("not an HTTP response".into()))?;
    if !head.starts_with("HTTP/1.1 200") || !head.contains("text/plain; version=0.0.4") {
        return Err(invalid(format!("not a Prometheus scrape: {head}")));
    }
    Ok(body.to_string())
}

/// The sum of the samples of `name` in a Prometheus text `scrape` whose labels include
/// `labels` (for tests and the soak, which read the endpoint back).
pub fn sample_value(scrape: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    scrape
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            let wanted = metric == name
                && labels
                    .iter()
                    .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\"")));
            wanted.then(|| value.parse::<f64>().ok()).flatten()
        })
        // Not `sum()`: an empty one is -0.
        .fold(0.0, |total, value| total + value)
}

/// The tower layer that counts every RPC by method and status code and times it.
#[derive(Debug, Clone, Copy, Default)]
pub struct RpcMetricsLayer;

impl<S> Layer<S> for RpcMetricsLayer {
    type Service = RpcMetrics<S>;

    fn layer(&self, inner: S) -> RpcMetrics<S> {
        RpcMetrics { inner }
    }
}

#[derive(Debug, Clone)]
pub struct RpcMetrics<S> {
    inner: S,
}

impl<S, B, R> Service<http::Request<B>> for RpcMetrics<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<Observed<R>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        // Without a recorder nothing is recorded: no labels to build either.
        // A page of the front end is not an RPC.
        let call = (RECORDER.get().is_some_and(Result::is_ok) && is_rpc(&request))
            .then(|| Call::new(request.uri().path()));
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = match response.await {
                Ok(response) => response,
                Err(error) => {
                    if let Some(call) = call {
                        call.finish(Code::Unknown);
                    }
                    return Err(error);
                }
            };
            let (parts, body) = response.into_parts();
            // A "trailers-only" answer (every error tonic returns) has its status in the
            // headers; any other has it in the trailers at the body's end.
            let call = match (call, grpc_status(&parts.headers)) {
                (Some(call), Some(code)) => {
                    call.finish(code);
                    None
                }
                (call, _) => call,
            };
            Ok(http::Response::from_parts(parts, Observed { body, call }))
        })
    }
}

/// Whether a request is an RPC (gRPC or gRPC-Web: `application/grpc…`) rather than a page of
/// the front end: what the RPC layer counts, and what `web` sends on to the services.
pub fn is_rpc<B>(request: &http::Request<B>) -> bool {
    request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"))
}

/// An RPC under way: its labels and start.
#[derive(Debug)]
struct Call {
    service: String,
    method: String,
    started: Instant,
}

impl Call {
    fn new(path: &str) -> Call {
        // gRPC paths are `/package.Service/Method`.
        let (service, method) = path
            .trim_start_matches('/')
            .split_once('/')
            .unwrap_or(("unknown", path));
        Call {
            service: service.to_string(),
            method: method.to_string(),
            started: Instant::now(),
        }
    }

    fn finish(self, code: Code) {
        let Call {
            mut service,
            mut method,
            started,
        } = self;
        // Paths no RPC serves are one series, whatever a client makes up.
        if code == Code::Unimplemented {
            service = "unknown".to_string();
            method = "unknown".to_string();
        }
        histogram!(RPC_DURATION, "service" => service.clone(), "method" => method.clone())
            .record(started.elapsed());
        counter!(RPC_HANDLED, "service" => service, "method" => method, "code" => code_name(code))
            .increment(1);
    }
}

fn grpc_status(headers: &http::HeaderMap) -> Option<Code> {
    let value = headers.get("grpc-status")?.to_str().ok()?.parse().ok()?;
    Some(Code::from_i32(value))
}

/// The status code's canonical name, as gRPC's documentation spells it.
fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// A response body that records its RPC once the status is known: in the trailers, or
/// CANCELLED if the client went away before them.
#[derive(Debug)]
pub struct Observed<B> {
    body: B,
    call: Option<Call>,
}

impl<B> Drop for Observed<B> {
    fn drop(&mut self) {
        if let Some(call) = self.call.take() {
            call.finish(Code::Cancelled);
        }
    }
}

impl<B: Body + Unpin> Body for Observed<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        let code = match &polled {
            Poll::Ready(Some(Ok(frame))) => frame.trailers_ref().and_then(grpc_status),
            Poll::Ready(Some(Err(_))) => Some(Code::Unknown),
            // A body that ends without trailers carried no status.
            Poll::Ready(None) => Some(Code::Unknown),
            Poll::Pending => None,
        };
        if let Some(code) = code
            && let Some(call) = self.call.take()
        {
            call.finish(code);
        }
        polled
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

    #[test]
    fn a_call_is_named_by_its_service_and_method() {
        let call = Call::new("/theboss.v1.GameService/SubmitAction");
        assert_eq!(call.service, "theboss.v1.GameService");
        assert_eq!(call.method, "SubmitAction");
    }

    #[test]
    fn samples_are_summed_over_the_series_that_match() {
        let scrape = "# HELP x_total X\n\
                      x_total{method=\"A\",code=\"OK\"} 3\n\
                      x_total{method=\"A\",code=\"ABORTED\"} 1\n\
                      x_total{method=\"B\",code=\"OK\"} 5\n\
                      x_totally 7\n";
        assert_eq!(sample_value(scrape, "x_total", &[]), 9.0);
        assert_eq!(sample_value(scrape, "x_total", &[("code", "OK")]), 8.0);
        assert_eq!(
            sample_value(scrape, "x_total", &[("method", "A"), ("code", "OK")]),
            3.0
        );
        assert_eq!(sample_value(scrape, "missing", &[]), 0.0);
    }

    #[test]
    fn status_codes_read_from_headers_and_trailers() {
        let mut headers = http::HeaderMap::new();
        assert_eq!(grpc_status(&headers), None);
        headers.insert("grpc-status", http::HeaderValue::from_static("9"));
        assert_eq!(grpc_status(&headers), Some(Code::FailedPrecondition));
        assert_eq!(code_name(Code::FailedPrecondition), "FAILED_PRECONDITION");
    }
}
