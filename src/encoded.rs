//! What the generated servers send on a `WatchGame` stream: a [`WatchGameResponse`] that is
//! either a message, encoded as it is sent, or the bytes of one encoded ahead. A game's
//! update is the same for every stream of the same viewer, so the server encodes it once and
//! every such stream sends the same bytes (the encoder copies them into its buffer) instead
//! of encoding its own copy. Clients see an ordinary `theboss.v1.WatchGameResponse`: the
//! bytes are its encoding.

use bytes::{Buf, BufMut, Bytes};
use prost::Message;
use prost::encoding::{DecodeContext, WireType};

use crate::v1;

/// A `theboss.v1.WatchGameResponse` to send.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchGameResponse {
    /// A message, encoded when sent.
    Message(Box<v1::WatchGameResponse>),
    /// A message's encoding (without a length delimiter), shared by every stream that sends
    /// it. Build it with [`WatchGameResponse::encode_once`].
    Encoded(Bytes),
}

impl WatchGameResponse {
    /// Encodes a message once, to be sent on any number of streams.
    pub fn encode_once(message: &v1::WatchGameResponse) -> WatchGameResponse {
        WatchGameResponse::Encoded(Bytes::from(message.encode_to_vec()))
    }

    /// The message, decoded if it was sent encoded (for tests and logs).
    pub fn message(&self) -> Result<v1::WatchGameResponse, prost::DecodeError> {
        match self {
            WatchGameResponse::Message(message) => Ok((**message).clone()),
            WatchGameResponse::Encoded(bytes) => v1::WatchGameResponse::decode(bytes.clone()),
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
            WatchGameResponse::Encoded(bytes) => buf.put_slice(bytes),
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
        if let WatchGameResponse::Encoded(bytes) = self {
            *self =
                WatchGameResponse::Message(Box::new(v1::WatchGameResponse::decode(bytes.clone())?));
        }
        match self {
            WatchGameResponse::Message(message) => message.merge_field(tag, wire_type, buf, ctx),
            WatchGameResponse::Encoded(_) => unreachable!("made a message above"),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            WatchGameResponse::Message(message) => message.encoded_len(),
            WatchGameResponse::Encoded(bytes) => bytes.len(),
        }
    }

    fn clear(&mut self) {
        *self = WatchGameResponse::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::watch_game_response::Message as Kind;

    #[test]
    fn bytes_encoded_once_are_the_message_on_the_wire() {
        let message = v1::WatchGameResponse {
            message: Some(Kind::KeepAlive(v1::KeepAlive {
                seq: 42,
                server_time: None,
            })),
        };
        let once = WatchGameResponse::encode_once(&message);
        let sent = once.encode_length_delimited_to_vec();
        assert_eq!(sent, message.encode_length_delimited_to_vec());
        assert_eq!(
            v1::WatchGameResponse::decode_length_delimited(&sent[..]).unwrap(),
            message
        );
        assert_eq!(once.message().unwrap(), message);
        let decoded = WatchGameResponse::decode(&message.encode_to_vec()[..]).unwrap();
        assert_eq!(decoded, WatchGameResponse::Message(Box::new(message)));
    }
}
