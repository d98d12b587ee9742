//! `boss-bot`, the sample bot, strategy arena and load generator of The Boss.
//!
//! Not built yet: issue #4 brings the gRPC bot, `boss-bot arena` and `boss-bot load`. Until
//! then the binary says so and exits with status 2.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!("boss-bot: the bot client is not built yet (issue #4)");
    ExitCode::from(2)
}
