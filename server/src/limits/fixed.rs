//! The limits that are not flags, and the one table of every limit. Flags bound what a
//! deployment may want to size (connections, streams, tables); the limits here are the
//! service's rules, the same on every server: a ladder's or a contract's promise that
//! clients count on, or a request's size whose larger values no honest client sends.
//!
//! Each is defined once: here when only the RPC that checks it used it, or where its rule
//! lives (the ladder's crate, the text rules, the settings), and [`rows`] names them all.
//! The README's "Limits" table is [`rows`] and the flags' defaults; a test below fails when
//! the two disagree, and prints the rows the README should hold.

use crate::text;

/// The largest request message the services decode: the largest honest one is well under a
/// kilobyte, and a larger one is refused (OUT_OF_RANGE) before it costs its decoding.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// Open `Offers` streams one player may hold.
pub const OFFER_STREAMS: u32 = 4;

/// The most ladder games a player may ask to play at once.
pub const LADDER_PARALLEL: u8 = 8;

/// Bytes of a `SubmitAction`'s idempotency key (a UUID is 36).
pub const IDEMPOTENCY_KEY_BYTES: usize = 128;

/// Seconds a challenge may wait for its answers (`expires_in_secs`).
pub const CHALLENGE_EXPIRY_SECS: u32 = 3600;

/// A `ListGames` page: 0 asks for the default.
pub const LISTING_PAGE: u32 = 100;
pub const LISTING_PAGE_DEFAULT: u32 = 20;

/// An `ExportGames` page of game records: 0 asks for the default.
pub const EXPORT_PAGE: u32 = 200;
pub const EXPORT_PAGE_DEFAULT: u32 = 50;

/// One row of the README's table: the limit's value and what happens past it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub value: String,
    pub past_it: String,
}

fn row(value: impl ToString, past_it: impl Into<String>) -> Row {
    Row {
        value: value.to_string(),
        past_it: past_it.into(),
    }
}

/// Every fixed limit, in the README's order.
pub fn rows() -> Vec<Row> {
    use theboss_ladder::{challenge, tournament};
    let kib = MAX_REQUEST_BYTES / 1024;
    vec![
        row(
            OFFER_STREAMS,
            "`Offers` streams per player: `RESOURCE_EXHAUSTED` (`TOO_MANY_STREAMS`)",
        ),
        row(
            challenge::MAX_OPEN_CHALLENGES,
            "challenges of one player that someone can still see (waiting for answers or \
             seats, or closed in the last two minutes): `TOO_MANY_CHALLENGES`",
        ),
        row(
            challenge::MAX_FROM_STRANGERS,
            "challenges a player sees at once from players it does not know: a stranger's \
             challenge to it is `TOO_MANY_CHALLENGES` (subject `player:<it>`)",
        ),
        row(
            format!(
                "{}, {}",
                tournament::MAX_OPEN_TOURNAMENTS,
                tournament::MAX_ENTRANTS
            ),
            "unfinished tournaments a player created (`TOO_MANY_TOURNAMENTS`); entrants of one",
        ),
        row(
            LADDER_PARALLEL,
            "ladder games a player waits for or plays at once, when its `Enqueue` asks for \
             more than one (`parallel`); without it, one",
        ),
        row(
            format!("{kib} KiB"),
            "a request message: `OUT_OF_RANGE`, before it is decoded",
        ),
        row(
            IDEMPOTENCY_KEY_BYTES,
            "bytes of a `SubmitAction`'s idempotency key: `INVALID_ARGUMENT`",
        ),
        row(
            format!("{LISTING_PAGE}, {EXPORT_PAGE}"),
            format!(
                "a `ListGames` page, an `ExportGames` page (0 asks for {LISTING_PAGE_DEFAULT}, \
                 {EXPORT_PAGE_DEFAULT}): `INVALID_ARGUMENT`"
            ),
        ),
        row(
            format!(
                "{}, {}, {}",
                text::DISPLAY_NAME.max_chars,
                text::DESCRIPTION.max_chars,
                text::TOURNAMENT_NAME.max_chars
            ),
            "characters of a display name, a profile's description, a tournament's name: \
             `INVALID_ARGUMENT`",
        ),
        row(
            thousands(u64::from(crate::domain::MAX_TURN_TIME_LIMIT_SECS)),
            "seconds of a game's turn clock: `INVALID_ARGUMENT`",
        ),
        row(
            thousands(u64::from(CHALLENGE_EXPIRY_SECS)),
            "seconds a challenge may wait for its answers: `INVALID_ARGUMENT`",
        ),
        row(
            tournament::MAX_SETS_PER_PAIR,
            "duplicate sets each pair of a tournament's entrants plays: `INVALID_ARGUMENT`",
        ),
    ]
}

/// `86400` as the README writes it: `86,400`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// The README's "Limits" section: the lines of its table.
    fn readme_table() -> Vec<&'static str> {
        let readme = include_str!("../../../README.md");
        let section = readme
            .split("\n### Limits\n")
            .nth(1)
            .expect("the README has a Limits section");
        let section = section.split("\n### ").next().unwrap_or(section);
        section.lines().filter(|l| l.starts_with("| ")).collect()
    }

    fn cells(line: &str) -> Vec<&str> {
        line.trim_matches('|').split(" | ").map(str::trim).collect()
    }

    #[test]
    fn thousands_are_grouped_as_the_readme_writes_them() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(3600), "3,600");
        assert_eq!(thousands(86_400), "86,400");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn the_readme_lists_every_fixed_limit_as_the_code_defines_it() {
        let listed: Vec<Row> = readme_table()
            .into_iter()
            .filter(|l| l.starts_with("| (fixed) |"))
            .map(|l| {
                let cells = cells(l);
                row(cells[1], cells[2])
            })
            .collect();
        let expected = rows();
        let rendered: String = expected
            .iter()
            .map(|r| format!("| (fixed) | {} | {} |\n", r.value, r.past_it))
            .collect();
        assert_eq!(
            listed, expected,
            "the README's fixed limits differ from the code's; they should read:\n{rendered}"
        );
    }

    #[test]
    fn the_readme_lists_every_limit_flag_with_its_default() {
        let command = crate::config::Config::command();
        let limit_args =
            <crate::config::LimitArgs as clap::Args>::augment_args(clap::Command::new("limits"));
        let mut listed = std::collections::HashMap::new();
        for line in readme_table() {
            let cells = cells(line);
            if !cells[0].starts_with("`--") {
                continue;
            }
            let flags = cells[0].split(", ").map(|f| f.trim_matches('`'));
            let defaults = cells[1].split(", ");
            for (flag, default) in flags.zip(defaults) {
                listed.insert(flag.to_string(), default.replace(',', ""));
            }
        }
        let mut limit_flags = 0;
        for arg in command.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let flag = format!("--{long}");
            let default: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            let is_limit = limit_args
                .get_arguments()
                .any(|a| a.get_long() == Some(long));
            if is_limit {
                limit_flags += 1;
                assert!(
                    listed.contains_key(&flag),
                    "the README's limits omit {flag}"
                );
            }
            if let Some(shown) = listed.get(&flag) {
                assert_eq!(
                    [shown.clone()].as_slice(),
                    default.as_slice(),
                    "the README shows {flag}'s default as {shown}"
                );
            }
        }
        assert!(limit_flags > 10, "{limit_flags} limit flags found");
        for flag in listed.keys() {
            assert!(
                command
                    .get_arguments()
                    .any(|a| a.get_long().map(|l| format!("--{l}")).as_deref() == Some(flag)),
                "the README lists {flag}, which the server does not have"
            );
        }
    }
}
