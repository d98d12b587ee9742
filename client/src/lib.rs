//! # theboss-client
//!
//! The client side of the `theboss.v1` contract, written as the reference for integrators and
//! shared by every Rust client of the service: the sample bots, the `boss` CLI, the load and
//! benchmark tools and the server's own integration tests.
//!
//! 1. [`Connection::connect`] to one server, or [`Connection::connect_any`] to several replicas
//!    of one service (calls fail over to the next replica when one is unreachable);
//! 2. register once and keep the token ([`Connection::authenticate`], [`Credentials`]);
//! 3. make typed calls on a [`Session`]: one method per RPC of `GameService` and
//!    `LadderService`, every failure a [`ClientError`] value (no panics);
//! 4. follow a game through a [`GameFeed`]: a `WatchGame` stream that resumes with
//!    `after_seq` after a dropped stream or a silent one, so nothing is missed or seen twice;
//! 5. submit turns with [`Session::submit_retrying`]: `expected_seq` from the view, one
//!    idempotency key per intended turn, transport failures retried with the same key.

mod arranged;
mod connection;
pub mod credentials;
mod error;
mod feed;
mod session;

pub use connection::Connection;
pub use credentials::Credentials;
pub use error::{ClientError, Outage, RIDE_THROUGH, is_transient, reason};
pub use feed::{FeedItem, FeedOptions, GameFeed};
pub use session::{Session, Submitted};
