//! A `WatchGame` response's body, sent from bytes framed ahead. An update is the same for
//! every stream of the same viewer, and is kept as the whole gRPC message a stream sends
//! for it (`theboss::encoded::EncodedUpdate`): each stream hands those bytes to its
//! connection as they are. tonic's own body for a stream would encode every message into
//! a buffer of the stream's, a copy of each update per stream, and keep that buffer (the
//! size of the largest view it sent) for the stream's life.
//!
//! The generated server still does the rest of the call (the request decoded, the
//! method called, its refusals answered, the response's headers): `watch_game` answers
//! with an empty stream and hands its watcher over in the response's extensions
//! ([`respond`]); [`FramedWatch`], around the generated server, finds it there and makes
//! it the body ([`WatchBody`]), which ends with the trailers tonic would send: OK when the
//! stream ends, the status when it ends with one.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use futures::future::BoxFuture;
use http_body::{Body, Frame};
use tonic::server::NamedService;
use tonic::{Response, Status};

use crate::game_stream::{WatchStream, Watcher};

/// The path of `WatchGame` (the only call whose response is handed over).
const WATCH_GAME: &str = "/theboss.v1.GameService/WatchGame";

/// A watcher on its way from `watch_game` to its response's body. (An extension must be
/// `Clone` and `Sync`; the watcher is neither, and is taken once.)
#[derive(Clone)]
struct Handoff(Arc<Mutex<Option<Watcher>>>);

/// `watch_game`'s answer: an empty stream for the generated server, the watcher that sends
/// the response in its extensions.
pub fn respond(watcher: Watcher) -> Response<WatchStream> {
    let mut response = Response::new(futures::stream::empty().boxed());
    response
        .extensions_mut()
        .insert(Handoff(Arc::new(Mutex::new(Some(watcher)))));
    response
}

/// The generated `GameService` server, whose `WatchGame` responses are sent by their
/// watchers' [`WatchBody`]. Every other call passes as it is, without a future of its own.
#[derive(Clone)]
pub struct FramedWatch<S>(S);

impl<S> FramedWatch<S> {
    pub fn new(service: S) -> FramedWatch<S> {
        FramedWatch(service)
    }
}

impl<S: NamedService> NamedService for FramedWatch<S> {
    const NAME: &'static str = S::NAME;
}

type Answer = BoxFuture<'static, Result<http::Response<tonic::body::Body>, Infallible>>;

impl<S> tower::Service<http::Request<tonic::body::Body>> for FramedWatch<S>
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = Infallible,
            Future = Answer,
        >,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = Answer;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Answer {
        let watching = request.uri().path() == WATCH_GAME;
        let answer = self.0.call(request);
        if !watching {
            return answer;
        }
        Box::pin(async move {
            let mut response = answer.await?;
            // A refusal has no watcher: tonic's answer is sent as it is.
            if let Some(Handoff(handoff)) = response.extensions_mut().remove::<Handoff>()
                && let Some(watcher) = handoff
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take()
            {
                *response.body_mut() = tonic::body::Body::new(WatchBody::new(watcher));
            }
            Ok(response)
        })
    }
}

/// A `WatchGame` response's body: the watcher's messages as gRPC messages, then the
/// trailers.
pub struct WatchBody {
    /// None once the trailers are sent.
    watcher: Option<Watcher>,
    /// The status to end with, once what was sent before it is: the watcher ended while
    /// the messages before its end were gathered. (Boxed: a held stream keeps the room.)
    ending: Option<Box<Status>>,
}

/// Bytes of messages ready at once that a frame gathers (tonic's threshold for the same).
const GATHERED: usize = 32 * 1024;

impl WatchBody {
    pub fn new(watcher: Watcher) -> WatchBody {
        WatchBody {
            watcher: Some(watcher),
            ending: None,
        }
    }

    /// The trailers that end the response with `status`, as tonic makes them (its code,
    /// message and details, and its metadata). The watcher is dropped now, not with the
    /// response, its permit with it.
    fn end(&mut self, status: &Status) -> Result<Frame<Bytes>, Status> {
        self.watcher = None;
        let mut trailers = http::HeaderMap::with_capacity(3 + status.metadata().len());
        status
            .add_header(&mut trailers)
            .map(|()| Frame::trailers(trailers))
    }
}

impl Body for WatchBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        if let Some(status) = this.ending.take() {
            return Poll::Ready(Some(this.end(&status)));
        }
        let Some(watcher) = &mut this.watcher else {
            return Poll::Ready(None);
        };
        let first = match ready!(watcher.poll_next_unpin(cx)) {
            Some(Ok(message)) => message.grpc_message(),
            Some(Err(status)) => return Poll::Ready(Some(this.end(&status))),
            None => return Poll::Ready(Some(this.end(&Status::ok("")))),
        };
        // Messages ready together (a step's several updates, a catch-up) go in one frame:
        // a frame costs the connection far more than copying a message does.
        let mut gathered: Option<BytesMut> = None;
        while gathered.as_ref().map_or(first.len(), BytesMut::len) < GATHERED {
            match watcher.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(message))) => gathered
                    .get_or_insert_with(|| BytesMut::from(&first[..]))
                    .extend_from_slice(&message.grpc_message()),
                Poll::Ready(Some(Err(status))) => {
                    this.ending = Some(Box::new(status));
                    break;
                }
                Poll::Ready(None) => {
                    this.ending = Some(Box::new(Status::ok("")));
                    break;
                }
                Poll::Pending => break,
            }
        }
        let data = gathered.map_or(first, BytesMut::freeze);
        Poll::Ready(Some(Ok(Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.watcher.is_none()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use http_body_util::BodyExt;
    use prost::Message;
    use theboss::v1;
    use theboss::v1::watch_game_response::Message as Kind;
    use tokio::sync::watch as signal;

    use super::*;
    use crate::actor::{ActorOptions, GameHandle, fixtures};
    use crate::game_stream::{self, WatchOptions};
    use crate::limits::{Limits, StreamCounts};
    use crate::wire::{self, ViewsOn};

    /// The body of a stream of `game` to `player` from its snapshot, counted in `counts`.
    async fn body(
        game: &GameHandle,
        player: &str,
        counts: &Arc<StreamCounts>,
        stopping: signal::Receiver<bool>,
    ) -> WatchBody {
        let watcher = game_stream::stream(
            game.clone(),
            player.into(),
            game.watch(None).await.unwrap(),
            WatchOptions {
                after_seq: None,
                views: ViewsOn::EveryUpdate,
                keep_alive: Duration::from_secs(3600),
            },
            counts.open(Some(player), "g", false).unwrap(),
            stopping,
        );
        WatchBody::new(watcher)
    }

    /// A data frame as a gRPC client reads it: whole messages, each after its prefix.
    fn messages(frame: &Bytes) -> Vec<v1::WatchGameResponse> {
        let mut rest = &frame[..];
        let mut messages = Vec::new();
        while !rest.is_empty() {
            assert_eq!(rest[0], 0, "not compressed");
            let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
            messages.push(v1::WatchGameResponse::decode(&rest[5..5 + len]).unwrap());
            rest = &rest[5 + len..];
        }
        messages
    }

    /// The next frame, which must be data.
    async fn data(body: &mut WatchBody) -> Bytes {
        let frame = body.frame().await.expect("a frame").expect("no error");
        frame.into_data().expect("a data frame")
    }

    /// The seqs of the updates of a frame.
    fn seqs(frame: &Bytes) -> Vec<u64> {
        messages(frame)
            .into_iter()
            .map(|m| match m.message {
                Some(Kind::Update(update)) => update.seq,
                other => panic!("an update, not {other:?}"),
            })
            .collect()
    }

    /// The seqs of the updates `player` may see of the game's last step.
    async fn last_step(game: &GameHandle, player: &str) -> Vec<u64> {
        let step = game.latest().await.unwrap();
        let viewer = wire::viewer_of(&step.state, player);
        let updates = wire::encoded_updates(step.step(), viewer, ViewsOn::EveryUpdate);
        updates.iter().map(|(seq, _)| *seq).collect()
    }

    #[tokio::test]
    async fn a_stream_sends_whole_messages_then_the_status_it_ends_with() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) = fixtures::two_player_game(store, ActorOptions::default()).await;
        let counts = StreamCounts::new(&Limits::default());
        let (stop, stopping) = signal::channel(false);
        let player = players[0].id.as_str();
        let mut first = body(&game, player, &counts, stopping.clone()).await;
        let mut second = body(&game, player, &counts, stopping).await;
        for body in [&mut first, &mut second] {
            let snapshot = messages(&data(body).await);
            assert!(matches!(&snapshot[..], [m] if matches!(m.message, Some(Kind::Snapshot(_)))));
        }
        // A step of one update: both streams of the seat send the one encoding of it, not
        // copies of it.
        game.join(players[0].clone(), None).await.unwrap();
        let expected = last_step(&game, player).await;
        assert_eq!(expected.len(), 1);
        let (a, b) = (data(&mut first).await, data(&mut second).await);
        assert_eq!(seqs(&a), expected);
        assert_eq!((a.as_ptr(), a.len()), (b.as_ptr(), b.len()));
        // A step of several (the game starts): one frame holds them all.
        game.join(players[1].clone(), None).await.unwrap();
        let expected = last_step(&game, player).await;
        assert!(expected.len() > 1, "{expected:?}");
        for body in [&mut first, &mut second] {
            assert_eq!(seqs(&data(body).await), expected);
        }
        assert_eq!(counts.of_player(player), 2);
        stop.send(true).unwrap();
        let trailers = first
            .frame()
            .await
            .expect("the trailers")
            .expect("no error")
            .into_trailers()
            .expect("trailers after the data");
        assert_eq!(trailers["grpc-status"], "14", "UNAVAILABLE");
        let why = trailers["grpc-message"].to_str().unwrap();
        assert!(why.contains("shutting%20down"), "{why}");
        assert!(first.is_end_stream());
        assert!(first.frame().await.is_none(), "nothing after the trailers");
        // The ended stream's watcher is gone, its permit with it; the other's is held.
        assert_eq!(counts.of_player(player), 1);
        drop(second);
        assert_eq!(counts.of_player(player), 0);
    }

    #[tokio::test]
    async fn a_stream_that_ends_sends_an_ok_status() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) = fixtures::two_player_game(store, ActorOptions::default()).await;
        fixtures::play_to_end(&game, &players).await;
        let counts = StreamCounts::new(&Limits::default());
        let (_stop, stopping) = signal::channel(false);
        let mut body = body(&game, &players[0].id, &counts, stopping).await;
        let snapshot = messages(&data(&mut body).await);
        assert!(matches!(&snapshot[..], [m] if matches!(m.message, Some(Kind::Snapshot(_)))));
        // The game is over: the snapshot is all there is.
        let trailers = body
            .frame()
            .await
            .unwrap()
            .unwrap()
            .into_trailers()
            .unwrap();
        assert_eq!(trailers["grpc-status"], "0");
        assert!(trailers.get("grpc-message").is_none());
        assert!(body.is_end_stream());
    }
}
