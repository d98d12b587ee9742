//! # theboss-bot
//!
//! The sample bot for The Boss and the tools around it:
//! - [`strategy`]: how a bot chooses a turn from its seat's view (random, heuristic, ismcts):
//!   the `theboss-bots` crate, which the server's house bots share;
//! - [`arena`]: strategies against each other with the engine alone, with statistics;
//! - [`play`]: a bot at the table, over a `theboss_client::Session`: get a seat, follow the
//!   game, ask the strategy on our turn and submit; a panicking strategy costs one game;
//! - [`ladder`]: ladder mode, playing the games the matchmaker seats us in;
//! - [`load`]: a load generator that plays many games through a real server.

pub mod arena;
pub mod ladder;
pub mod load;
pub mod offers;
pub mod play;
pub use theboss_bots as strategy;
