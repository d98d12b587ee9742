//! # theboss-bot
//!
//! The sample bot for The Boss and the tools around it:
//! - [`strategy`]: how a bot chooses a turn from its seat's view (random, heuristic, ismcts);
//! - [`arena`]: strategies against each other with the engine alone, with statistics;
//! - [`client`]: the gRPC side: connect, authenticate, follow a game through `WatchGame`,
//!   resume after a dropped stream, submit with expected sequence numbers and idempotency keys;
//! - [`credentials`]: the saved API token;
//! - [`ladder`]: ladder mode, playing the games the matchmaker seats us in;
//! - [`load`]: a load generator that plays many games through a real server.

pub mod arena;
pub mod client;
pub mod credentials;
pub mod ladder;
pub mod load;
pub mod strategy;
