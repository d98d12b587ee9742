//! The protobuf codec of the generated servers: prost's, except that a request body that
//! does not decode is the caller's fault (INVALID_ARGUMENT), not the server's (tonic's
//! INTERNAL). Clients keep prost's codec: a response that does not decode is no fault of
//! the request.
//!
//! Its encoder starts each response with a small buffer ([`RESPONSE_BUFFER`]) instead of
//! tonic's 8 KiB: a stream keeps its buffer for its whole life, and a server holds many
//! (`Enqueue`, `Offers`; `WatchGame`'s are sent from bytes framed ahead, with no buffer of
//! their own). The buffer grows to the largest message the stream sends and is reused
//! from then on.

use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::{Code, Status};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// Bytes a response's encoding buffer starts with.
pub const RESPONSE_BUFFER: usize = 512;

/// Encoded bytes a response holds before it hands them to the connection (tonic's default).
const YIELD_THRESHOLD: usize = 32 * 1024;

pub struct ServerCodec<T, U>(ProstCodec<T, U>);

impl<T, U> Default for ServerCodec<T, U> {
    fn default() -> Self {
        ServerCodec(ProstCodec::default())
    }
}

impl<T, U> Codec for ServerCodec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = RequestDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::new(RESPONSE_BUFFER, YIELD_THRESHOLD))
    }

    fn decoder(&mut self) -> Self::Decoder {
        RequestDecoder(self.0.decoder())
    }
}

pub struct RequestDecoder<U>(ProstDecoder<U>);

impl<U: prost::Message + Default> Decoder for RequestDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|status| match status.code() {
            // prost's decode errors; everything else keeps its code.
            Code::Internal => Status::invalid_argument(status.message()),
            _ => status,
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
