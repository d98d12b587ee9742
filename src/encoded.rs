//! The three responses the generated servers may send from bytes encoded ahead: a game's
//! update is the same for every stream of the same viewer, and for the `SubmitAction` answer
//! of the seat that caused it, so the server encodes each [`v1::GameUpdate`] once
//! ([`encode_update`], from its event's encoding, itself made once for every viewer who sees
//! it) and every such answer copies the same bytes into its buffer instead of building and
//! encoding its own copy.
//!
//! A view may itself be given in encoded parts: protobuf lets a message's fields come in any
//! order, a field that comes again merges into (or, for a scalar, replaces) the one before,
//! and a decoder reads the concatenation of two encodings of the same message type as their
//! merge. So what every viewer sees of a table is encoded once, and each seat's view is that
//! followed by the encoding of its own fields (its seat, its hand, its legal turns): in an
//! update, and in a `GetView` answer, which shares the step's encoding of the first part.
//!
//! Both parts are written straight to their encodings from the engine's values, without a
//! wire message built first: what every viewer sees from the engine's spectator view
//! ([`encode_public_view`]), a seat's own fields from its hand and legal turns
//! ([`encode_own_view`]).
//!
//! - [`WatchGameResponse`]: a message, or one update encoded ahead.
//! - [`SubmitActionResponse`]: a message, or the updates encoded ahead and the seq.
//! - [`GetViewResponse`]: a message, or a view in its two encoded parts.
//!
//! An update encoded ahead ([`EncodedUpdate`]) is kept as the whole gRPC message a
//! `WatchGame` stream sends for it, its five-byte prefix included: a stream hands those very
//! bytes to its connection ([`WatchGameResponse::grpc_message`]), with no copy of its own,
//! and an answer copies the update from their end.
//!
//! Clients see ordinary `theboss.v1` messages: the bytes written decode as the message they
//! stand for, and are exactly its encoding but for a view given in parts, whose fields then
//! come in another order (the tests below hold both to that).

use bytes::{Buf, BufMut, Bytes};
use prost::Message;
use prost::encoding::{self, DecodeContext, WireType};

use crate::v1;

mod view;
pub use view::{PublicFields, SeatFields, SeatPlayer, encode_own_view, encode_public_view};

/// `GameUpdate`'s field numbers.
const UPDATE_SEQ: u32 = 1;
const UPDATE_EVENT: u32 = 2;
const UPDATE_VIEW: u32 = 3;
const UPDATE_ACTION_COMPLETE: u32 = 4;
/// `WatchGameResponse.update`'s field number.
const WATCH_UPDATE: u32 = 2;
/// `SubmitActionResponse.updates`' field number.
const SUBMIT_UPDATES: u32 = 1;
/// `SubmitActionResponse.seq`'s field number.
const SUBMIT_SEQ: u32 = 2;
/// `GetViewResponse.view`'s field number.
const GET_VIEW_VIEW: u32 = 1;

/// A `theboss.v1.GameUpdate`'s encoding from its parts encoded ahead: `event`, a
/// `GameEvent`'s encoding (the same for every viewer who sees it), and `view`, the
/// encodings of parts of one `GameView` (see the module's header), if it carries one. The
/// fields come in number order: the bytes are prost's encoding of the update but for a
/// view given in parts.
pub fn encode_update(
    seq: u64,
    event: &[u8],
    view: Option<&[&[u8]]>,
    action_complete: bool,
) -> EncodedUpdate {
    // proto3 leaves a zero seq and a false flag out.
    let seq_len = if seq != 0 {
        encoding::uint64::encoded_len(UPDATE_SEQ, &seq)
    } else {
        0
    };
    let len = seq_len
        + message_field_len(UPDATE_EVENT, event)
        + view.map_or(0, |parts| parts_field_len(UPDATE_VIEW, parts))
        + if action_complete {
            encoding::bool::encoded_len(UPDATE_ACTION_COMPLETE, &action_complete)
        } else {
            0
        };
    let (mut buf, update_at) = EncodedUpdate::buffer(len);
    if seq != 0 {
        encoding::uint64::encode(UPDATE_SEQ, &seq, &mut buf);
    }
    put_message_field(UPDATE_EVENT, event, &mut buf);
    if let Some(parts) = view {
        put_parts_field(UPDATE_VIEW, parts, &mut buf);
    }
    if action_complete {
        encoding::bool::encode(UPDATE_ACTION_COMPLETE, &action_complete, &mut buf);
    }
    debug_assert_eq!(buf.len(), update_at + len, "the update's length as counted");
    EncodedUpdate {
        message: Bytes::from(buf),
        update_at,
    }
}

/// The bytes before a gRPC message on the wire: a flag (0: not compressed), then the
/// message's length in four bytes, big-endian.
const GRPC_PREFIX: usize = 5;

/// A buffer for a gRPC message of `len` bytes, holding its prefix ([`GRPC_PREFIX`]).
fn grpc_buffer(len: usize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(GRPC_PREFIX + len);
    buf.push(0);
    let len = u32::try_from(len).expect("a message below 4 GiB");
    buf.extend_from_slice(&len.to_be_bytes());
    buf
}

/// A `theboss.v1.GameUpdate` encoded once for every stream and answer that carries it
/// ([`encode_update`]), kept as the gRPC message of the `WatchGameResponse` that carries it
/// (the module's header says why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedUpdate {
    /// The prefix, the response's `update` field's key and length, then the update.
    message: Bytes,
    /// Where the update starts in `message`.
    update_at: usize,
}

impl EncodedUpdate {
    /// An update already encoded (by prost, or read back from what a server sent).
    pub fn new(update: &[u8]) -> EncodedUpdate {
        let (mut buf, update_at) = EncodedUpdate::buffer(update.len());
        buf.extend_from_slice(update);
        EncodedUpdate {
            message: Bytes::from(buf),
            update_at,
        }
    }

    /// A buffer holding all but the update, an update of `len` bytes long, and where the
    /// update is to start in it.
    fn buffer(len: usize) -> (Vec<u8>, usize) {
        let field_len = encoding::key_len(WATCH_UPDATE) + encoding::encoded_len_varint(len as u64);
        let mut buf = grpc_buffer(field_len + len);
        encoding::encode_key(WATCH_UPDATE, WireType::LengthDelimited, &mut buf);
        encoding::encode_varint(len as u64, &mut buf);
        (buf, GRPC_PREFIX + field_len)
    }

    /// The `GameUpdate`'s encoding.
    pub fn update(&self) -> &[u8] {
        &self.message[self.update_at..]
    }

    /// The encoding of `WatchGameResponse { update }`.
    fn watch_response(&self) -> &[u8] {
        &self.message[GRPC_PREFIX..]
    }
}

/// Writes `bytes`, a message's encoding, as field `tag` of the message being encoded.
fn put_message_field(tag: u32, bytes: &[u8], buf: &mut impl BufMut) {
    put_parts_field(tag, &[bytes], buf);
}

/// Writes `parts`, encodings of parts of one message, as field `tag` of the message being
/// encoded: a decoder reads them as their merge (see the module's header).
fn put_parts_field(tag: u32, parts: &[&[u8]], buf: &mut impl BufMut) {
    let n: usize = parts.iter().map(|p| p.len()).sum();
    encoding::encode_key(tag, WireType::LengthDelimited, buf);
    encoding::encode_varint(n as u64, buf);
    for part in parts {
        buf.put_slice(part);
    }
}

/// The length [`put_message_field`] writes.
fn message_field_len(tag: u32, bytes: &[u8]) -> usize {
    parts_field_len(tag, &[bytes])
}

/// The length [`put_parts_field`] writes.
fn parts_field_len(tag: u32, parts: &[&[u8]]) -> usize {
    let n: usize = parts.iter().map(|p| p.len()).sum();
    encoding::key_len(tag) + encoding::encoded_len_varint(n as u64) + n
}

/// A `theboss.v1.WatchGameResponse` to send.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchGameResponse {
    /// A message, encoded when sent.
    Message(Box<v1::WatchGameResponse>),
    /// `message { update }`, the update encoded ahead by [`encode_update`].
    Update(EncodedUpdate),
}

impl WatchGameResponse {
    /// The message, decoded if it was encoded ahead (for tests and logs).
    pub fn message(&self) -> Result<v1::WatchGameResponse, prost::DecodeError> {
        match self {
            WatchGameResponse::Message(message) => Ok((**message).clone()),
            WatchGameResponse::Update(update) => Ok(v1::WatchGameResponse {
                message: Some(v1::watch_game_response::Message::Update(
                    v1::GameUpdate::decode(update.update())?,
                )),
            }),
        }
    }

    /// This response as a gRPC message on the wire, its prefix included: an update's bytes
    /// as they were encoded ahead (shared, not copied), a message encoded here.
    pub fn grpc_message(&self) -> Bytes {
        match self {
            WatchGameResponse::Update(update) => update.message.clone(),
            WatchGameResponse::Message(message) => {
                let mut buf = grpc_buffer(message.encoded_len());
                message.encode_raw(&mut buf);
                Bytes::from(buf)
            }
        }
    }
}

impl Default for WatchGameResponse {
    fn default() -> WatchGameResponse {
        WatchGameResponse::Message(Box::default())
    }
}

impl From<v1::WatchGameResponse> for WatchGameResponse {
    fn from(message: v1::WatchGameResponse) -> WatchGameResponse {
        WatchGameResponse::Message(Box::new(message))
    }
}

impl Message for WatchGameResponse {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        match self {
            WatchGameResponse::Message(message) => message.encode_raw(buf),
            WatchGameResponse::Update(update) => buf.put_slice(update.watch_response()),
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        // Decoding makes a message (servers never decode what they send; this keeps the type
        // a whole prost message).
        if let WatchGameResponse::Update(_) = self {
            *self = WatchGameResponse::Message(Box::new(self.message()?));
        }
        match self {
            WatchGameResponse::Message(message) => message.merge_field(tag, wire_type, buf, ctx),
            WatchGameResponse::Update(_) => unreachable!("made a message above"),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            WatchGameResponse::Message(message) => message.encoded_len(),
            WatchGameResponse::Update(update) => update.watch_response().len(),
        }
    }

    fn clear(&mut self) {
        *self = WatchGameResponse::default();
    }
}

/// A `theboss.v1.SubmitActionResponse` to send.
#[derive(Debug, Clone, PartialEq)]
pub enum SubmitActionResponse {
    /// A message, encoded when sent (an answer forwarded from another replica).
    Message(v1::SubmitActionResponse),
    /// `updates`, each encoded ahead by [`encode_update`], and `seq`.
    Updates {
        updates: Vec<EncodedUpdate>,
        seq: u64,
    },
}

impl SubmitActionResponse {
    /// The message, decoded if its updates were encoded ahead (for tests and logs).
    pub fn message(&self) -> Result<v1::SubmitActionResponse, prost::DecodeError> {
        match self {
            SubmitActionResponse::Message(message) => Ok(message.clone()),
            SubmitActionResponse::Updates { updates, seq } => Ok(v1::SubmitActionResponse {
                updates: updates
                    .iter()
                    .map(|update| v1::GameUpdate::decode(update.update()))
                    .collect::<Result<_, _>>()?,
                seq: *seq,
            }),
        }
    }
}

impl Default for SubmitActionResponse {
    fn default() -> SubmitActionResponse {
        SubmitActionResponse::Message(v1::SubmitActionResponse::default())
    }
}

impl From<v1::SubmitActionResponse> for SubmitActionResponse {
    fn from(message: v1::SubmitActionResponse) -> SubmitActionResponse {
        SubmitActionResponse::Message(message)
    }
}

impl Message for SubmitActionResponse {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        match self {
            SubmitActionResponse::Message(message) => message.encode_raw(buf),
            SubmitActionResponse::Updates { updates, seq } => {
                for update in updates {
                    put_message_field(SUBMIT_UPDATES, update.update(), buf);
                }
                if *seq != 0 {
                    encoding::uint64::encode(SUBMIT_SEQ, seq, buf);
                }
            }
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        if let SubmitActionResponse::Updates { .. } = self {
            *self = SubmitActionResponse::Message(self.message()?);
        }
        match self {
            SubmitActionResponse::Message(message) => message.merge_field(tag, wire_type, buf, ctx),
            SubmitActionResponse::Updates { .. } => unreachable!("made a message above"),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            SubmitActionResponse::Message(message) => message.encoded_len(),
            SubmitActionResponse::Updates { updates, seq } => {
                let seq_len = if *seq != 0 {
                    encoding::uint64::encoded_len(SUBMIT_SEQ, seq)
                } else {
                    0
                };
                updates
                    .iter()
                    .map(|update| message_field_len(SUBMIT_UPDATES, update.update()))
                    .sum::<usize>()
                    + seq_len
            }
        }
    }

    fn clear(&mut self) {
        *self = SubmitActionResponse::default();
    }
}

/// A `theboss.v1.GetViewResponse` to send.
#[derive(Debug, Clone, PartialEq)]
pub enum GetViewResponse {
    /// A message, encoded when sent (an answer forwarded from another replica).
    Message(Box<v1::GetViewResponse>),
    /// `view`, in two encoded parts (see the module's header): what every viewer sees of
    /// the table, encoded once per step and shared, then the viewer's own fields.
    View { public: Bytes, own: Bytes },
}

impl GetViewResponse {
    /// The message, decoded if its view was encoded ahead (for tests and logs).
    pub fn message(&self) -> Result<v1::GetViewResponse, prost::DecodeError> {
        match self {
            GetViewResponse::Message(message) => Ok((**message).clone()),
            GetViewResponse::View { .. } => {
                v1::GetViewResponse::decode(self.encode_to_vec().as_slice())
            }
        }
    }
}

impl Default for GetViewResponse {
    fn default() -> GetViewResponse {
        GetViewResponse::Message(Box::default())
    }
}

impl From<v1::GetViewResponse> for GetViewResponse {
    fn from(message: v1::GetViewResponse) -> GetViewResponse {
        GetViewResponse::Message(Box::new(message))
    }
}

impl Message for GetViewResponse {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        match self {
            GetViewResponse::Message(message) => message.encode_raw(buf),
            GetViewResponse::View { public, own } => {
                put_parts_field(GET_VIEW_VIEW, &[public, own], buf);
            }
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        if let GetViewResponse::View { .. } = self {
            *self = GetViewResponse::Message(Box::new(self.message()?));
        }
        match self {
            GetViewResponse::Message(message) => message.merge_field(tag, wire_type, buf, ctx),
            GetViewResponse::View { .. } => unreachable!("made a message above"),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            GetViewResponse::Message(message) => message.encoded_len(),
            GetViewResponse::View { public, own } => parts_field_len(GET_VIEW_VIEW, &[public, own]),
        }
    }

    fn clear(&mut self) {
        *self = GetViewResponse::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::watch_game_response::Message as Kind;

    /// An update big enough for its length to take two bytes.
    fn update(seq: u64) -> v1::GameUpdate {
        v1::GameUpdate {
            seq,
            event: Some(v1::GameEvent {
                kind: Some(v1::game_event::Kind::GameAborted(v1::GameAborted {
                    reason: "x".repeat(200),
                })),
            }),
            view: Some(v1::GameView {
                seq,
                game_id: "0b2d6c1e-5f1a-4c1e-9a0e-2b9d1c3f4a5b".into(),
                ..Default::default()
            }),
            action_complete: seq.is_multiple_of(2),
        }
    }

    #[test]
    fn an_update_encoded_ahead_is_the_watch_message_on_the_wire() {
        let message = v1::WatchGameResponse {
            message: Some(Kind::Update(update(7))),
        };
        let ahead = WatchGameResponse::Update(EncodedUpdate::new(&update(7).encode_to_vec()));
        let sent = ahead.encode_length_delimited_to_vec();
        assert_eq!(sent, message.encode_length_delimited_to_vec());
        assert_eq!(ahead.encoded_len(), message.encoded_len());
        assert_eq!(
            v1::WatchGameResponse::decode_length_delimited(&sent[..]).unwrap(),
            message
        );
        assert_eq!(ahead.message().unwrap(), message);
        let decoded = WatchGameResponse::decode(&message.encode_to_vec()[..]).unwrap();
        assert_eq!(decoded, WatchGameResponse::Message(Box::new(message)));
    }

    /// A gRPC message as tonic frames one: no compression, the length, the encoding.
    fn framed(encoding: &[u8]) -> Vec<u8> {
        let mut frame = vec![0];
        frame.extend_from_slice(&(encoding.len() as u32).to_be_bytes());
        frame.extend_from_slice(encoding);
        frame
    }

    #[test]
    fn a_response_is_framed_as_tonic_frames_its_encoding() {
        // An update whose length takes one byte, one whose length takes two, a message.
        let short = v1::GameUpdate {
            seq: 3,
            ..Default::default()
        };
        for update in [short, update(8)] {
            let encoding = update.encode_to_vec();
            let message = v1::WatchGameResponse {
                message: Some(Kind::Update(update)),
            };
            let ahead = EncodedUpdate::new(&encoding);
            assert_eq!(ahead.update(), &encoding[..]);
            let sent = WatchGameResponse::Update(ahead).grpc_message();
            assert_eq!(&sent[..], &framed(&message.encode_to_vec())[..]);
        }
        let keep_alive = v1::WatchGameResponse {
            message: Some(Kind::KeepAlive(v1::KeepAlive {
                seq: 300,
                server_time: None,
            })),
        };
        let sent = WatchGameResponse::from(keep_alive.clone()).grpc_message();
        assert_eq!(&sent[..], &framed(&keep_alive.encode_to_vec())[..]);
        // An empty message is a prefix alone.
        let empty = WatchGameResponse::default().grpc_message();
        assert_eq!(&empty[..], &[0, 0, 0, 0, 0]);
    }

    #[test]
    fn a_view_in_encoded_parts_decodes_as_their_merge() {
        let public = v1::GameView {
            game_id: "g".into(),
            seq: 7,
            round: 2,
            seats: vec![v1::SeatView {
                seat: 0,
                money: 3,
                ..Default::default()
            }],
            ..Default::default()
        };
        let own = v1::GameView {
            viewer_seat: Some(0),
            hand: vec![v1::Card::default(); 3],
            legal: Some(v1::LegalTurns::default()),
            ..Default::default()
        };
        let whole = v1::GameView {
            viewer_seat: own.viewer_seat,
            hand: own.hand.clone(),
            legal: own.legal.clone(),
            ..public.clone()
        };
        for seq in [0, 7, 8, 300] {
            let mut bare = update(seq);
            bare.view = None;
            let event = bare.event.as_ref().unwrap().encode_to_vec();
            let parts = (public.encode_to_vec(), own.encode_to_vec());
            let bytes = encode_update(
                seq,
                &event,
                Some(&[&parts.0[..], &parts.1[..]]),
                bare.action_complete,
            );
            let decoded = v1::GameUpdate::decode(bytes.update()).unwrap();
            assert_eq!(decoded.view.as_ref(), Some(&whole));
            assert_eq!(
                v1::GameUpdate {
                    view: None,
                    ..decoded
                },
                bare
            );
            // Without a view, or with it whole, exactly prost's encoding.
            let no_view = encode_update(seq, &event, None, bare.action_complete);
            assert_eq!(no_view.update(), &bare.encode_to_vec()[..]);
            assert_eq!(no_view, EncodedUpdate::new(&bare.encode_to_vec()));
            let with_whole = whole.encode_to_vec();
            let whole_update = v1::GameUpdate {
                view: Some(whole.clone()),
                ..bare.clone()
            };
            assert_eq!(
                encode_update(seq, &event, Some(&[&with_whole[..]]), bare.action_complete).update(),
                &whole_update.encode_to_vec()[..]
            );
        }
    }

    #[test]
    fn a_view_in_parts_is_the_get_view_answer_of_their_merge() {
        let public = v1::GameView {
            game_id: "g".repeat(150),
            seq: 7,
            seats: vec![v1::SeatView {
                seat: 1,
                money: 3,
                ..Default::default()
            }],
            ..Default::default()
        };
        let own = v1::GameView {
            viewer_seat: Some(1),
            hand: vec![v1::Card::default(); 2],
            ..Default::default()
        };
        let whole = v1::GetViewResponse {
            view: Some(v1::GameView {
                viewer_seat: own.viewer_seat,
                hand: own.hand.clone(),
                ..public.clone()
            }),
        };
        // The length of the view takes two bytes here, one below.
        for (public, own) in [
            (public.clone(), own.clone()),
            (v1::GameView::default(), own),
        ] {
            let ahead = GetViewResponse::View {
                public: public.encode_to_vec().into(),
                own: own.encode_to_vec().into(),
            };
            let sent = ahead.encode_to_vec();
            assert_eq!(ahead.encoded_len(), sent.len());
            let mut merged = public.clone();
            merged.merge(own.encode_to_vec().as_slice()).unwrap();
            let expected = v1::GetViewResponse { view: Some(merged) };
            assert_eq!(
                v1::GetViewResponse::decode(sent.as_slice()).unwrap(),
                expected
            );
            assert_eq!(ahead.message().unwrap(), expected);
        }
        let public_only = GetViewResponse::View {
            public: public.encode_to_vec().into(),
            own: Bytes::new(),
        };
        let spectator = v1::GetViewResponse {
            view: Some(public.clone()),
        };
        assert_eq!(
            public_only.encode_to_vec(),
            spectator.encode_to_vec(),
            "one part: prost's bytes"
        );
        let sent = GetViewResponse::from(whole.clone()).encode_to_vec();
        assert_eq!(sent, whole.encode_to_vec());
        assert_eq!(
            GetViewResponse::decode(sent.as_slice()).unwrap(),
            GetViewResponse::Message(Box::new(whole))
        );
    }

    #[test]
    fn a_message_is_sent_as_itself() {
        let message = v1::WatchGameResponse {
            message: Some(Kind::KeepAlive(v1::KeepAlive {
                seq: 42,
                server_time: None,
            })),
        };
        let sent = WatchGameResponse::from(message.clone()).encode_to_vec();
        assert_eq!(sent, message.encode_to_vec());
    }

    #[test]
    fn updates_encoded_ahead_are_the_submit_answer_on_the_wire() {
        for (updates, seq) in [(vec![5, 6, 7], 9), (vec![3], 3), (vec![], 12), (vec![], 0)] {
            let message = v1::SubmitActionResponse {
                updates: updates.iter().map(|&s| update(s)).collect(),
                seq,
            };
            let ahead = SubmitActionResponse::Updates {
                updates: updates
                    .iter()
                    .map(|&s| EncodedUpdate::new(&update(s).encode_to_vec()))
                    .collect(),
                seq,
            };
            assert_eq!(ahead.encode_to_vec(), message.encode_to_vec());
            assert_eq!(ahead.encoded_len(), message.encoded_len());
            assert_eq!(ahead.message().unwrap(), message);
            let decoded = SubmitActionResponse::decode(&ahead.encode_to_vec()[..]).unwrap();
            assert_eq!(decoded, SubmitActionResponse::Message(message.clone()));
            let forwarded = SubmitActionResponse::from(message.clone());
            assert_eq!(forwarded.encode_to_vec(), message.encode_to_vec());
        }
    }
}
