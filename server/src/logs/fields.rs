//! How span and event fields are written into a log line: as tracing-subscriber's default
//! formatter writes them (`name=value`, a string quoted and escaped as `Debug` escapes it),
//! but a string with nothing to escape (an id, a method's name: nearly all of them) is
//! written as its name, `="`, itself and `"`, without `Debug`'s escaping one character at a
//! time nor the formatting machinery around it.
//!
//! Why it matters: the fmt layer writes a span's fields when the span opens, whether or not a
//! line is ever logged in it, and every call opens an `rpc` span with its method, game and
//! player. Written the default way, those strings cost about 2% of the server's instructions
//! per persisted action (callgrind).
//!
//! Every string a client chooses (a game id it asks for) must be recorded as a string, never
//! with `%` (`Display`): the default formatter writes a `Display` value as it is, so a newline
//! in it would start a line of the client's making in the operator's log.

use std::fmt;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::{MakeVisitor, VisitFmt, VisitOutput};
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};

/// The server's field formatter (see the module's header).
#[derive(Debug, Default, Clone, Copy)]
pub struct Fields;

impl<'a> MakeVisitor<Writer<'a>> for Fields {
    type Visitor = FieldsVisitor<'a>;

    fn make_visitor(&self, target: Writer<'a>) -> FieldsVisitor<'a> {
        FieldsVisitor {
            writer: target,
            is_empty: true,
            result: Ok(()),
        }
    }
}

/// Writes a plain string's field itself; any other field, as the default visitor writes it
/// (a default visitor made for that field alone, told whether a field came before).
pub struct FieldsVisitor<'a> {
    writer: Writer<'a>,
    is_empty: bool,
    result: fmt::Result,
}

/// Whether `Debug` would write `s` unchanged between its quotes: printable ASCII but the
/// quote and the backslash.
fn plain(s: &str) -> bool {
    s.bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
}

/// The longest field written in one piece: a name and an id with room to spare.
const JOINED: usize = 128;

/// `parts` one after the other in `buffer`, if they fit.
fn joined<'b>(parts: &[&str], buffer: &'b mut [u8; JOINED]) -> Option<&'b str> {
    let mut len = 0;
    for part in parts {
        buffer
            .get_mut(len..len + part.len())?
            .copy_from_slice(part.as_bytes());
        len += part.len();
    }
    // Whole strings one after another are one.
    std::str::from_utf8(&buffer[..len]).ok()
}

impl FieldsVisitor<'_> {
    /// Writes the field as the default visitor does.
    fn by_default(&mut self, field: &Field, record: impl FnOnce(&mut DefaultVisitor<'_>)) {
        if self.result.is_err() {
            return;
        }
        let mut visitor = DefaultVisitor::new(self.writer.by_ref(), self.is_empty);
        record(&mut visitor);
        self.result = visitor.finish();
        // The default visitor writes nothing of a `log.` field (the `log` crate's metadata,
        // with tracing-subscriber's `tracing-log` feature, a default one: the tests compare
        // such a field's line with the default formatter's).
        self.is_empty &= field.name().starts_with("log.");
    }
}

impl Visit for FieldsVisitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        let name = field.name();
        // A message, a raw identifier's or the `log` crate's field, or colours: the
        // default visitor's ways.
        let usual = name != "message"
            && !name.starts_with("r#")
            && !name.starts_with("log.")
            && !self.writer.has_ansi_escapes();
        if !(usual && plain(value)) {
            return self.by_default(field, |v| v.record_str(field, value));
        }
        if self.result.is_err() {
            return;
        }
        let separator = if std::mem::take(&mut self.is_empty) {
            ""
        } else {
            " "
        };
        let parts = [separator, name, "=\"", value, "\""];
        self.result = match joined(&parts, &mut [0; JOINED]) {
            // One write, so that the span's string grows once per field, not once per part.
            Some(field) => self.writer.write_str(field),
            None => parts
                .into_iter()
                .try_for_each(|part| self.writer.write_str(part)),
        };
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.by_default(field, |v| v.record_error(field, value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.by_default(field, |v| v.record_debug(field, value));
    }
}

impl VisitOutput<fmt::Result> for FieldsVisitor<'_> {
    fn finish(self) -> fmt::Result {
        self.result
    }
}

impl VisitFmt for FieldsVisitor<'_> {
    fn writer(&mut self) -> &mut dyn fmt::Write {
        &mut self.writer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::LogLines;
    use tracing_subscriber::fmt::format::DefaultFields;
    use tracing_subscriber::layer::SubscriberExt;

    /// The lines logged while `log` runs, with `fields` (and colours if `ansi`).
    fn logged<N>(fields: N, ansi: bool, log: impl FnOnce()) -> String
    where
        N: for<'w> tracing_subscriber::fmt::FormatFields<'w> + Send + Sync + 'static,
    {
        let lines = LogLines::default();
        let subscriber = tracing_subscriber::registry().with(
            tracing_subscriber::fmt::layer()
                .fmt_fields(fields)
                .with_writer(lines.clone())
                .with_ansi(ansi)
                .without_time(),
        );
        tracing::subscriber::with_default(subscriber, log);
        lines.text()
    }

    /// An event in an `rpc` span whose game and player are `value`.
    fn in_rpc_span(value: &str) {
        let span = tracing::info_span!(
            "rpc",
            method = "SubmitAction",
            game = value,
            player = tracing::field::Empty
        );
        span.record("player", value);
        span.in_scope(|| tracing::warn!(seq = 3, plain = "a b", "refused"));
    }

    /// Events with fields of every kind the default visitor writes its own way.
    fn of_every_kind(value: &str) {
        let error = std::io::Error::other(value.to_string());
        let error: &(dyn std::error::Error + 'static) = &error;
        tracing::warn!(
            log.target = "x",
            r#type = value,
            error,
            message = value,
            last = value
        );
        tracing::warn!(
            log.target = "x",
            first = value,
            "after a field that is not written"
        );
    }

    const VALUES: &[&str] = &[
        "8c1d2f4e-0b7a-4c55-9a43-5f0e6d7c8b9a",
        "",
        "with \"quotes\" and \\ backslash",
        "a\nnew line",
        "\u{1b}[31mred",
        "naïve ünïcödé",
        "tab\tand\u{7f}del",
    ];

    #[test]
    fn fields_are_written_as_the_default_formatter_writes_them() {
        let all = || {
            for value in VALUES {
                in_rpc_span(value);
                of_every_kind(value);
            }
        };
        for ansi in [false, true] {
            assert_eq!(
                logged(Fields, ansi, all),
                logged(DefaultFields::new(), ansi, all),
                "ansi: {ansi}"
            );
        }
        let id = VALUES[0];
        let ours = logged(Fields, false, || in_rpc_span(id));
        assert!(
            ours.contains(&format!(
                r#"rpc{{method="SubmitAction" game="{id}" player="{id}"}}"#
            )),
            "{ours}"
        );
    }

    #[test]
    fn a_string_a_client_chose_cannot_start_a_line_of_its_own() {
        let forged = "x\n2026-01-01T00:00:00Z  INFO forged line";
        let text = logged(Fields, false, || in_rpc_span(forged));
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains(r#"game="x\n2026"#), "{text}");
    }

    #[test]
    fn parts_are_joined_when_they_fit_and_left_apart_when_not() {
        let mut buffer = [0; JOINED];
        assert_eq!(
            joined(&["a", "=\"", "é", "\""], &mut buffer),
            Some("a=\"é\"")
        );
        assert_eq!(joined(&[], &mut buffer), Some(""));
        let long = "x".repeat(JOINED);
        assert_eq!(joined(&[&long], &mut buffer), Some(long.as_str()));
        assert_eq!(joined(&[&long, "y"], &mut buffer), None);
        // A field too long to join is written all the same, in parts.
        let text = logged(Fields, false, || in_rpc_span(&long));
        assert!(text.contains(&format!(r#"game="{long}""#)), "{text}");
    }

    #[test]
    fn plain_strings_are_those_debug_leaves_as_they_are() {
        for s in ["", "abc-DEF_019 ~!@#$%^&*()'", "8c1d2f4e"] {
            assert!(plain(s));
            assert_eq!(format!("\"{s}\""), format!("{s:?}"));
        }
        for s in ["\"", "\\", "\n", "\u{7f}", "é", "\u{0}"] {
            assert!(!plain(s), "{s:?}");
        }
    }
}
