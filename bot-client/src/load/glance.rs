//! What the load generator reads of the server's messages, and how it calls for them.
//!
//! A load run's driver shares the machine with the server it measures, so every microsecond
//! it spends is one the server does not get. Most of it went on decoding whole views: each
//! action reaches four streams and the submitter's answer, and the driver needs of them only
//! each view's `seq` and whose turn it is, and the legal turns of the seat to move (all its
//! random player reads). These types read the same bytes as `theboss::v1`'s but keep a view
//! as the bytes it came in (a slice of the received buffer, no copy) and decode only `seq`
//! and `to_move`; of the seat to move's view, only its legal turns are decoded then. Their
//! tags are `theboss.v1`'s; the tests hold them to it.

use bytes::Bytes;
use prost::Message;
use theboss::v1;
use theboss_client::{ClientError, Session};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::{Status, Streaming};
use tonic_prost::ProstCodec;

/// `WatchGameResponse`, its view left encoded.
#[derive(Clone, PartialEq, Message)]
pub struct WatchFrame {
    #[prost(bytes = "bytes", optional, tag = "1")]
    pub snapshot: Option<Bytes>,
    #[prost(bytes = "bytes", optional, tag = "2")]
    pub update: Option<Bytes>,
}

/// `GameUpdate`, its view left encoded.
#[derive(Clone, PartialEq, Message)]
struct UpdateFrame {
    #[prost(bytes = "bytes", optional, tag = "3")]
    view: Option<Bytes>,
}

/// The two fields of a `GameView` the driver reads of every view.
#[derive(Clone, PartialEq, Message)]
struct ViewGlance {
    #[prost(uint64, tag = "5")]
    seq: u64,
    #[prost(uint32, optional, tag = "10")]
    to_move: Option<u32>,
}

/// A `GameView`'s legal turns, the rest skipped.
#[derive(Clone, PartialEq, Message)]
struct LegalGlance {
    #[prost(message, optional, tag = "20")]
    legal: Option<v1::LegalTurns>,
}

/// `SubmitActionResponse`'s sequence number, the rest skipped.
#[derive(Clone, PartialEq, Message)]
pub struct SubmitAnswer {
    #[prost(uint64, tag = "2")]
    pub seq: u64,
}

/// A view's `seq` and `to_move`, and the view itself still encoded.
#[derive(Debug, Clone)]
pub struct Glance {
    pub seq: u64,
    pub to_move: Option<u32>,
    pub view: Bytes,
}

impl Glance {
    /// The view's legal turns (present for the seat to move's own view).
    pub fn legal(&self) -> Result<Option<v1::LegalTurns>, prost::DecodeError> {
        Ok(LegalGlance::decode(self.view.clone())?.legal)
    }
}

impl WatchFrame {
    /// The view this message carries, if any (keep-alives and updates without a view
    /// carry none).
    pub fn glance(self) -> Result<Option<Glance>, prost::DecodeError> {
        let view = match (self.snapshot, self.update) {
            (Some(view), _) => Some(view),
            (None, Some(update)) => UpdateFrame::decode(update)?.view,
            (None, None) => None,
        };
        view.map(|view| {
            let ViewGlance { seq, to_move } = ViewGlance::decode(view.clone())?;
            Ok(Glance { seq, to_move, view })
        })
        .transpose()
    }
}

const WATCH_GAME: &str = "/theboss.v1.GameService/WatchGame";
const SUBMIT_ACTION: &str = "/theboss.v1.GameService/SubmitAction";

/// A message that does not decode, reported as tonic reports its own: INTERNAL.
pub fn undecodable(call: &'static str, error: prost::DecodeError) -> ClientError {
    ClientError::Rpc {
        call,
        status: Status::internal(error.to_string()),
    }
}

fn not_ready(error: tonic::transport::Error) -> Status {
    Status::unknown(format!("the service was not ready: {error}"))
}

/// `WatchGame`, read as [`WatchFrame`]s.
pub async fn watch(
    session: &Session,
    message: v1::WatchGameRequest,
) -> Result<Streaming<WatchFrame>, ClientError> {
    session
        .call("WatchGame", true, |channel| {
            let request = session.stream_request(message.clone());
            async move {
                let mut grpc = tonic::client::Grpc::new(channel);
                grpc.ready().await.map_err(not_ready)?;
                let codec = ProstCodec::<v1::WatchGameRequest, WatchFrame>::default();
                grpc.server_streaming(request, PathAndQuery::from_static(WATCH_GAME), codec)
                    .await
            }
        })
        .await
}

/// `SubmitAction` under a fresh idempotency key, tried again under the same key while the
/// server is away (within `theboss_client::RIDE_THROUGH`: the turn is played once, whatever
/// became of an attempt); returns the game's `seq` after the turn, and the key.
pub async fn submit(
    session: &Session,
    game_id: &str,
    expected_seq: u64,
    action: v1::TurnAction,
) -> Result<(u64, String), ClientError> {
    let key = uuid::Uuid::new_v4().to_string();
    let message = Session::submit_request(game_id, expected_seq, &key, action);
    let mut outage = theboss_client::Outage::default();
    loop {
        let answer = session
            .call("SubmitAction", false, |channel| {
                let request = session.request(message.clone());
                async move {
                    let mut grpc = tonic::client::Grpc::new(channel);
                    grpc.ready().await.map_err(not_ready)?;
                    let codec = ProstCodec::<v1::SubmitActionRequest, SubmitAnswer>::default();
                    grpc.unary(request, PathAndQuery::from_static(SUBMIT_ACTION), codec)
                        .await
                }
            })
            .await;
        match answer {
            Ok(answer) => return Ok((answer.seq, key)),
            Err(e) if e.is_transient() && outage.retry(SUBMIT_TRIES).await => {
                tracing::debug!(game = %game_id, error = %e, "submit failed; again, same key");
            }
            Err(e) => return Err(e),
        }
    }
}

/// Tries in a row a turn is given, besides `RIDE_THROUGH`.
const SUBMIT_TRIES: u32 = 20;

#[cfg(test)]
mod tests {
    use super::*;

    fn view(seq: u64, to_move: Option<u32>) -> v1::GameView {
        v1::GameView {
            seq,
            to_move,
            viewer_seat: Some(2),
            game_id: "g".into(),
            // The viewer's legal turns when it is to move, after the fields the driver skips.
            legal: (to_move == Some(2)).then(|| v1::LegalTurns {
                cards: vec![v1::Card::default(); 2],
                placements: vec![v1::PlacementOption {
                    max_experts: 1,
                    ..Default::default()
                }],
                deadline: None,
            }),
            hand: vec![v1::Card::default(); 3],
            ..Default::default()
        }
    }

    #[test]
    fn frames_read_as_the_real_messages_do() {
        use v1::watch_game_response::Message as M;
        let cases = [
            (M::Snapshot(view(7, Some(1))), Some((7, Some(1)))),
            // Seat 0 to move is not "nobody to move".
            (M::Snapshot(view(8, Some(0))), Some((8, Some(0)))),
            // The viewer to move: its legal turns are read.
            (M::Snapshot(view(6, Some(2))), Some((6, Some(2)))),
            (
                M::Update(v1::GameUpdate {
                    seq: 9,
                    view: Some(view(9, None)),
                    action_complete: true,
                    ..Default::default()
                }),
                Some((9, None)),
            ),
            (
                M::Update(v1::GameUpdate {
                    seq: 10,
                    ..Default::default()
                }),
                None,
            ),
            (
                M::KeepAlive(v1::KeepAlive {
                    seq: 11,
                    ..Default::default()
                }),
                None,
            ),
        ];
        for (message, expected) in cases {
            let real = v1::WatchGameResponse {
                message: Some(message),
            };
            let glance = WatchFrame::decode(real.encode_to_vec().as_slice())
                .unwrap()
                .glance()
                .unwrap();
            assert_eq!(
                glance.as_ref().map(|g| (g.seq, g.to_move)),
                expected,
                "{real:?}"
            );
            if let Some(glance) = glance {
                let whole = real.into_view().unwrap();
                assert_eq!(v1::GameView::decode(glance.view.clone()).unwrap(), whole);
                assert_eq!(glance.legal().unwrap(), whole.legal);
            }
        }
    }

    #[test]
    fn the_answer_reads_its_seq() {
        let real = v1::SubmitActionResponse {
            updates: vec![v1::GameUpdate {
                seq: 3,
                view: Some(view(3, Some(0))),
                ..Default::default()
            }],
            seq: 4,
        };
        let answer = SubmitAnswer::decode(real.encode_to_vec().as_slice()).unwrap();
        assert_eq!(answer.seq, 4);
    }
}
