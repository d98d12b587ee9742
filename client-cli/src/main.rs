//! `boss`, the reference command-line client of The Boss.
//!
//! Not built yet: issue #5 brings `boss play --bots N`, `register`, `create`, `join`, `list`,
//! `watch`, `replay` and `status`. Until then the binary says so and exits with status 2.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!("boss: the command-line client is not built yet (issue #5)");
    ExitCode::from(2)
}
