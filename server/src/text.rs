//! Free text others will read: display names, descriptions, tournament names, and any such
//! field added to the contract later. One validator for all of them ([`checked`]), so that
//! every field refuses the same things the same way: a request's bytes are bounded before
//! anything else, then the text is trimmed and put in Unicode Normalization Form C, and must
//! hold no control (Cc), format (Cf: zero-width characters, bidirectional overrides and
//! isolates), private-use (Co), unassigned (Cn), line or paragraph separator (Zl, Zp)
//! character, so that a text shows as what it is (nothing invisible to tell two look-alikes
//! apart, nothing that reorders the text around it); then its length in characters.
//!
//! [`REQUEST_STRINGS`] says what every string field of every request of the contract holds;
//! `tests/text_fields.rs` reads the protos' descriptors and fails on a string field it does
//! not list, and sends every free-text field the same hostile texts.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// A free-text field and its bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextField {
    /// The request field's name, as `BadRequest` names it.
    pub field: &'static str,
    /// Characters (Unicode scalar values) after normalisation.
    pub min_chars: usize,
    pub max_chars: usize,
}

impl TextField {
    /// The most bytes a request may carry before it is normalised: a normalised character
    /// is at most 4 bytes, and a little room is left for what trimming and NFC take away.
    pub const fn max_bytes(&self) -> usize {
        self.max_chars * 16
    }
}

pub const DISPLAY_NAME: TextField = TextField {
    field: "display_name",
    min_chars: 1,
    max_chars: 32,
};
pub const DESCRIPTION: TextField = TextField {
    field: "description",
    min_chars: 0,
    max_chars: 200,
};
pub const TOURNAMENT_NAME: TextField = TextField {
    field: "name",
    min_chars: 1,
    max_chars: 60,
};

/// Why a text is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("{min} to {max} characters")]
    Length { min: usize, max: usize },
    #[error(
        "U+{:04X} is not allowed: a {what} character (category {category}); text others read may hold no invisible, control or direction-changing characters",
        u32::from(*.character)
    )]
    Character {
        character: char,
        category: &'static str,
        what: &'static str,
    },
}

/// `raw` as the server keeps and shows it in `field`, or why not.
pub fn checked(field: &TextField, raw: &str) -> Result<String, TextError> {
    let length = TextError::Length {
        min: field.min_chars,
        max: field.max_chars,
    };
    if raw.len() > field.max_bytes() {
        return Err(length);
    }
    let text: String = raw.trim().nfc().collect();
    for character in text.chars() {
        let (category, what) = match character.general_category() {
            GeneralCategory::Control => ("Cc", "control"),
            GeneralCategory::Format => ("Cf", "format"),
            GeneralCategory::PrivateUse => ("Co", "private-use"),
            GeneralCategory::Unassigned => ("Cn", "unassigned"),
            GeneralCategory::LineSeparator => ("Zl", "line separator"),
            GeneralCategory::ParagraphSeparator => ("Zp", "paragraph separator"),
            _ => continue,
        };
        return Err(TextError::Character {
            character,
            category,
            what,
        });
    }
    let chars = text.chars().count();
    if chars < field.min_chars || chars > field.max_chars {
        return Err(length);
    }
    Ok(text)
}

/// What a string field of a request holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringField {
    /// Text others read, checked by [`checked`].
    FreeText(TextField),
    /// An id the service made (a UUID), checked as one before anything else.
    Id,
    /// A token the service or the client made that nobody reads as text (page tokens,
    /// idempotency keys): bounded in bytes, compared byte for byte.
    Opaque,
}

/// Every string field of every request message of the contract, by its full name.
pub const REQUEST_STRINGS: &[(&str, StringField)] = &[
    (
        "theboss.v1.RegisterRequest.display_name",
        StringField::FreeText(DISPLAY_NAME),
    ),
    (
        "theboss.v1.RegisterRequest.description",
        StringField::FreeText(DESCRIPTION),
    ),
    (
        "theboss.v1.UpdateProfileRequest.description",
        StringField::FreeText(DESCRIPTION),
    ),
    (
        "theboss.v1.CreateTournamentRequest.name",
        StringField::FreeText(TOURNAMENT_NAME),
    ),
    ("theboss.v1.JoinGameRequest.game_id", StringField::Id),
    ("theboss.v1.LeaveGameRequest.game_id", StringField::Id),
    ("theboss.v1.GetViewRequest.game_id", StringField::Id),
    ("theboss.v1.GetCatalogueRequest.game_id", StringField::Id),
    ("theboss.v1.WatchGameRequest.game_id", StringField::Id),
    ("theboss.v1.SubmitActionRequest.game_id", StringField::Id),
    ("theboss.v1.GetHistoryRequest.game_id", StringField::Id),
    ("theboss.v1.GetOddsRequest.game_id", StringField::Id),
    ("theboss.v1.GetPlayerRequest.player_id", StringField::Id),
    ("theboss.v1.ChallengeRequest.opponents", StringField::Id),
    (
        "theboss.v1.AnswerChallengeRequest.challenge_id",
        StringField::Id,
    ),
    (
        "theboss.v1.CreateTournamentRequest.hero_id",
        StringField::Id,
    ),
    (
        "theboss.v1.EnterTournamentRequest.tournament_id",
        StringField::Id,
    ),
    (
        "theboss.v1.StartTournamentRequest.tournament_id",
        StringField::Id,
    ),
    (
        "theboss.v1.GetTournamentRequest.tournament_id",
        StringField::Id,
    ),
    (
        "theboss.v1.SubmitActionRequest.idempotency_key",
        StringField::Opaque,
    ),
    (
        "theboss.v1.ListGamesRequest.page_token",
        StringField::Opaque,
    ),
    (
        "theboss.v1.ExportGamesRequest.page_token",
        StringField::Opaque,
    ),
    (
        "theboss.v1.LeaderboardRequest.page_token",
        StringField::Opaque,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_trimmed_normalised_and_bounded() {
        assert_eq!(checked(&DISPLAY_NAME, "  Alice "), Ok("Alice".into()));
        // "e" + combining acute accent becomes "é": one character, as shown.
        assert_eq!(checked(&DISPLAY_NAME, "Jose\u{301}"), Ok("José".into()));
        assert_eq!(
            checked(&DISPLAY_NAME, "   "),
            Err(TextError::Length { min: 1, max: 32 })
        );
        assert_eq!(checked(&DESCRIPTION, ""), Ok(String::new()));
        assert!(checked(&DISPLAY_NAME, &"é".repeat(32)).is_ok());
        assert!(checked(&DISPLAY_NAME, &"é".repeat(33)).is_err());
        assert!(checked(&TOURNAMENT_NAME, &"x".repeat(60)).is_ok());
        // Far too many bytes is refused before it is normalised.
        assert_eq!(
            checked(&DESCRIPTION, &"x".repeat(1 << 20)),
            Err(TextError::Length { min: 0, max: 200 })
        );
    }

    #[test]
    fn every_field_refuses_what_hides_or_reorders_text() {
        for field in [DISPLAY_NAME, DESCRIPTION, TOURNAMENT_NAME] {
            for (text, code) in [
                ("a\u{202E}b", "U+202E"),
                ("a\u{200B}b", "U+200B"),
                ("a\u{2066}b", "U+2066"),
                ("a\u{0085}b", "U+0085"),
                ("a\u{0007}b", "U+0007"),
                ("a\u{E000}b", "U+E000"),
                ("a\u{2028}b", "U+2028"),
            ] {
                let refused = checked(&field, text).unwrap_err().to_string();
                assert!(refused.contains(code), "{}: {refused}", field.field);
            }
        }
    }
}
