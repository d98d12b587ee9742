//! The turn notation people type and read, `place boston 2e 1o; play detroit 3`, with the
//! names and abbreviations of cities, locations and card faces it uses. Every client that
//! reads or writes turns as text (the CLI, the Python kit) uses this one grammar.
//!
//! A turn is an optional `place <location> [<n>e] [<n>o]` (Experts, Occasionals) and then
//! `play <city> <face>`, the face being the card's M$ or its sanction. Words may be
//! separated by spaces, commas or semicolons; names are case-insensitive and may be
//! abbreviated to any unambiguous prefix or short form (`ny`, `bos`, `kc`, `chi`, `rev`).
//! [`turn_text`] writes the canonical form, which [`parse_turn`] reads back to the same turn.
//!
//! Parsing with a view checks the turn against the view's legal set (the locations and
//! cities of that game, and `View::legal`), with the reason in plain words, so that a client
//! can refuse a turn before it is sent; without a view only the grammar and the names are
//! checked, and [`crate::Game::apply`] stays the judge. Pure: text in, values out.

use std::fmt;

use crate::action::{Location, Placement, Turn};
use crate::cards::{Card, City, Face, Sanction};
use crate::legal::PlacementOption;
use crate::view::View;

/// Why a text is not a turn (or not one the view allows), in words for the player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotationError(String);

impl NotationError {
    fn new(message: impl Into<String>) -> NotationError {
        NotationError(message.into())
    }

    /// The reason, as shown to the player.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotationError {}

/// The two steps of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// `place <location> [<n>e] [<n>o]`.
    Place,
    /// `play <city> <face>`.
    Play,
}

/// One step of a turn, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Place(Placement),
    Play(Card),
}

/// How the notation writes each step, for help texts.
pub const GRAMMAR: &str = "place <location> [<n>e] [<n>o]; play <city> <face>";

/// The keyword of a step (`place` or `pl`, `play`), case-insensitive.
pub fn step_keyword(word: &str) -> Option<StepKind> {
    match word.to_ascii_lowercase().as_str() {
        "place" | "pl" => Some(StepKind::Place),
        "play" => Some(StepKind::Play),
        _ => None,
    }
}

/// The words of a line: separated by whitespace, commas and semicolons.
pub fn words(line: &str) -> Vec<&str> {
    line.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|w| !w.is_empty())
        .collect()
}

/// A short form for narrow columns (`NY`, `BOS`, `KC`…).
pub fn city_short(city: City) -> &'static str {
    match city {
        City::NewYork => "NY",
        City::Boston => "BOS",
        City::Detroit => "DET",
        City::KansasCity => "KC",
        City::Cincinnati => "CIN",
        City::Memphis => "MEM",
        City::Philadelphia => "PHI",
    }
}

/// A location's full name (`New York`, `Chicago`).
pub fn location_name(location: Location) -> String {
    match location {
        Location::Chicago => "Chicago".to_string(),
        Location::City(city) => city.name().to_string(),
    }
}

/// A face in three characters or fewer (`3`, `Rev`), for the table.
pub fn face_short(face: Face) -> String {
    match face {
        Face::Money(m) => m.to_string(),
        Face::Sanction(Sanction::Revolver) => "Rev".into(),
        Face::Sanction(Sanction::Prison) => "Pri".into(),
        Face::Sanction(Sanction::Hospital) => "Hos".into(),
        Face::Sanction(Sanction::Banished) => "Ban".into(),
    }
}

/// A face as the notation writes it: its M$, or its sanction's name in lowercase.
pub fn face_word(face: Face) -> String {
    match face {
        Face::Money(m) => m.to_string(),
        Face::Sanction(s) => SANCTIONS
            .iter()
            .find(|(_, sanction)| *sanction == s)
            .map(|(name, _)| (*name).to_string())
            .expect("every sanction has a name"),
    }
}

const SANCTIONS: [(&str, Sanction); 4] = [
    ("revolver", Sanction::Revolver),
    ("prison", Sanction::Prison),
    ("hospital", Sanction::Hospital),
    ("banished", Sanction::Banished),
];

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Every name a location answers to: its full name without spaces and its short form.
fn location_names(location: Location) -> Vec<String> {
    match location {
        Location::Chicago => vec!["chicago".into()],
        Location::City(city) => vec![squash(city.name()), squash(city_short(city))],
    }
}

/// Every location, Chicago last.
fn every_location() -> Vec<Location> {
    City::ALL
        .into_iter()
        .map(Location::City)
        .chain([Location::Chicago])
        .collect()
}

/// Parses a location among `candidates`: a short form, or any prefix of exactly one name.
pub fn parse_location(word: &str, candidates: &[Location]) -> Result<Location, NotationError> {
    let word = squash(word);
    if word.is_empty() {
        return Err(NotationError::new("name a location"));
    }
    if let Some(exact) = candidates
        .iter()
        .find(|l| location_names(**l).contains(&word))
    {
        return Ok(*exact);
    }
    let matches: Vec<Location> = candidates
        .iter()
        .copied()
        .filter(|l| location_names(*l).iter().any(|n| n.starts_with(&word)))
        .collect();
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => Err(NotationError::new(format!(
            "{word:?} is no location in this game"
        ))),
        many => Err(NotationError::new(format!(
            "{word:?} could be {}",
            many.iter()
                .map(|l| location_name(*l))
                .collect::<Vec<_>>()
                .join(" or ")
        ))),
    }
}

/// Parses a card face: a number of M$ (`3`, `3m`), or a sanction's name or prefix.
pub fn parse_face(word: &str) -> Result<Face, NotationError> {
    let word = squash(word).trim_end_matches('m').to_string();
    if let Ok(value) = word.parse::<u8>() {
        return Ok(Face::Money(value));
    }
    let matches: Vec<Sanction> = SANCTIONS
        .iter()
        .filter(|(name, _)| !word.is_empty() && name.starts_with(&word))
        .map(|(_, s)| *s)
        .collect();
    match matches.as_slice() {
        [one] => Ok(Face::Sanction(*one)),
        _ => Err(NotationError::new(format!(
            "{word:?} is no card face: give the M$ (0-4) or a sanction (revolver, prison, hospital, banished)"
        ))),
    }
}

fn count(word: &str, suffix: char) -> Option<u8> {
    word.to_ascii_lowercase()
        .strip_suffix(suffix)
        .and_then(|n| n.parse().ok())
}

/// Parses the words after `place` (`boston 2e 1o`). With a view, the placement must be one
/// its legal set allows.
pub fn parse_place(args: &[&str], view: Option<&View>) -> Result<Placement, NotationError> {
    let (mut experts, mut occasionals) = (None, None);
    let mut name = Vec::new();
    for word in args {
        if let Some(n) = count(word, 'e') {
            experts = Some(n);
        } else if let Some(n) = count(word, 'o') {
            occasionals = Some(n);
        } else if experts.is_none() && occasionals.is_none() {
            name.push(*word);
        } else {
            return Err(NotationError::new(format!(
                "{word:?}: write counts as 2e (Experts) and 1o (Occasionals)"
            )));
        }
    }
    let candidates = match view {
        Some(view) => view.locations.iter().map(|l| l.location).collect(),
        None => every_location(),
    };
    let location = parse_location(&name.join(" "), &candidates)?;
    let (e, o) = (experts.unwrap_or(0), occasionals.unwrap_or(0));
    if e == 0 && o == 0 {
        return Err(NotationError::new(
            "say how many: e.g. `2e` for two Experts, `1o` for one Occasional",
        ));
    }
    if let Some(view) = view {
        let legal = view
            .legal
            .as_ref()
            .ok_or_else(|| NotationError::new("it is not your turn"))?;
        let option = legal
            .placements
            .iter()
            .find(|p| p.location == location)
            .ok_or_else(|| cannot_place_reason(view, location))?;
        check_option(option, e, o)?;
    }
    Ok(Placement::new(location, e, o))
}

fn cannot_place_reason(view: &View, location: Location) -> NotationError {
    let name = location_name(location);
    let me = view.legal.as_ref().map(|l| l.seat);
    let banished = location
        .city()
        .is_some_and(|city| me.is_some_and(|s| view.seat(s).banished.contains(&city)));
    NotationError::new(if banished {
        format!("you are banished from {name} for the rest of the game")
    } else if location == Location::Chicago {
        "Chicago needs gangsters of yours in another city first, placed on an earlier turn of this round".into()
    } else {
        format!("you cannot place in {name} now: you have no gangsters left to take the lead there")
    })
}

fn check_option(option: &PlacementOption, e: u8, o: u8) -> Result<(), NotationError> {
    let name = location_name(option.location);
    if e > option.max_experts {
        return Err(NotationError::new(format!(
            "you have {} Expert(s) available, not {e}",
            option.max_experts
        )));
    }
    if o > option.max_occasionals {
        return Err(NotationError::new(format!(
            "you have {} Occasional(s) left, not {o}",
            option.max_occasionals
        )));
    }
    if o > 0 && e == 0 && !option.expert_present {
        return Err(NotationError::new(format!(
            "Occasionals in {name} need an Expert: place one with them, or have one there already"
        )));
    }
    if !option.allows(e, o) {
        return Err(NotationError::new(format!(
            "you need at least {} gangsters in {name} to take the lead",
            option.min_gangsters.max(1)
        )));
    }
    Ok(())
}

/// Parses the words after `play` (`detroit 3`). With a view, the card must be one its legal
/// set allows.
pub fn parse_play(args: &[&str], view: Option<&View>) -> Result<Card, NotationError> {
    let Some((face, city_words)) = args.split_last() else {
        return Err(NotationError::new(
            "play <city> <face>, e.g. `play detroit 3`",
        ));
    };
    let cities: Vec<Location> = match view {
        Some(view) => view.cities.iter().map(|&c| Location::City(c)).collect(),
        None => City::ALL.into_iter().map(Location::City).collect(),
    };
    let Location::City(city) = parse_location(&city_words.join(" "), &cities)? else {
        unreachable!("only cities were offered")
    };
    let card = Card::new(city, parse_face(face)?);
    match view {
        Some(view) => {
            let legal = view
                .legal
                .as_ref()
                .ok_or_else(|| NotationError::new("it is not your turn"))?;
            if !legal.cards.contains(&card) {
                return Err(NotationError::new(format!("you have no {card} card")));
            }
        }
        None if !card.exists() => {
            return Err(NotationError::new(format!("there is no {card} card")));
        }
        None => {}
    }
    Ok(card)
}

/// Parses the steps of a line (`place …`, `play …`, in any number), each checked as
/// [`parse_place`] and [`parse_play`] do. `other` tells which further words start something
/// else (a client's own commands): the words from one to the next keyword are skipped and
/// reported as `Err(word)` in place, so a client can handle them.
pub fn parse_steps<'a>(
    words: &[&'a str],
    view: Option<&View>,
    other: impl Fn(&str) -> bool,
) -> Result<Vec<Result<Step, &'a str>>, NotationError> {
    let starts = |w: &str| step_keyword(w).is_some() || other(w);
    let mut steps = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let end = (i + 1..words.len())
            .find(|&j| starts(words[j]))
            .unwrap_or(words.len());
        let args = &words[i + 1..end];
        steps.push(match step_keyword(word) {
            Some(StepKind::Place) => Ok(Step::Place(parse_place(args, view)?)),
            Some(StepKind::Play) => Ok(Step::Play(parse_play(args, view)?)),
            None if other(word) => Err(word),
            None => {
                return Err(NotationError::new(format!(
                    "{word:?} is not part of a turn: write {GRAMMAR}"
                )));
            }
        });
        i = end;
    }
    Ok(steps)
}

/// Parses one whole turn: an optional `place …` then `play …`. With a view, checked against
/// its legal set.
pub fn parse_turn(text: &str, view: Option<&View>) -> Result<Turn, NotationError> {
    let words = words(text);
    let steps = parse_steps(&words, view, |_| false)?;
    let steps: Vec<Step> = steps.into_iter().filter_map(Result::ok).collect();
    match steps.as_slice() {
        [Step::Play(card)] => Ok(Turn::play(*card)),
        [Step::Place(placement), Step::Play(card)] => Ok(Turn::place_and_play(*placement, *card)),
        [] => Err(NotationError::new(format!("no turn: write {GRAMMAR}"))),
        [.., Step::Place(_)] => Err(NotationError::new(
            "a turn ends with the card: add `play <city> <face>`",
        )),
        _ => Err(NotationError::new(format!(
            "one turn is at most one placement and then one card: {GRAMMAR}"
        ))),
    }
}

/// A turn in the notation's canonical form: `place boston 2e 1o; play detroit 3`, or
/// `play kansas city revolver` without a placement (counts of zero are left out).
pub fn turn_text(turn: &Turn) -> String {
    let card = format!(
        "play {} {}",
        turn.card.city.name().to_lowercase(),
        face_word(turn.card.face)
    );
    match turn.placement {
        Some(p) => {
            let mut counts = Vec::new();
            if p.experts > 0 || p.occasionals == 0 {
                counts.push(format!("{}e", p.experts));
            }
            if p.occasionals > 0 {
                counts.push(format!("{}o", p.occasionals));
            }
            format!(
                "place {} {}; {card}",
                location_name(p.location).to_lowercase(),
                counts.join(" ")
            )
        }
        None => card,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, GameConfig, Viewer};

    fn all() -> Vec<Location> {
        every_location()
    }

    fn my_view() -> View {
        let game = Game::new(&GameConfig::new(3, 5)).unwrap();
        game.view(Viewer::Seat(game.to_move().unwrap()))
    }

    #[test]
    fn every_legal_turn_written_out_parses_back_with_and_without_the_view() {
        for players in 2..=4 {
            for seed in 0..5 {
                let game = Game::new(&GameConfig::new(players, seed)).unwrap();
                let view = game.view(Viewer::Seat(game.to_move().unwrap()));
                for turn in game.legal_actions(game.to_move().unwrap()) {
                    let text = turn_text(&turn);
                    assert_eq!(parse_turn(&text, Some(&view)), Ok(turn), "{text}");
                    assert_eq!(parse_turn(&text, None), Ok(turn), "{text}");
                }
            }
        }
    }

    #[test]
    fn the_canonical_form_and_the_forms_people_type() {
        let turn = Turn::place_and_play(
            Placement::new(Location::City(City::Boston), 2, 1),
            Card::new(City::Detroit, Face::Money(3)),
        );
        assert_eq!(turn_text(&turn), "place boston 2e 1o; play detroit 3");
        for text in [
            "place boston 2e 1o; play detroit 3",
            "place boston 2e 1o play detroit 3",
            "PL bos 1o 2e, play det 3m",
            "place   Boston 2E 1O ;play DETROIT 3",
        ] {
            assert_eq!(parse_turn(text, None), Ok(turn), "{text}");
        }
        let sanction = Turn::play(Card::new(
            City::KansasCity,
            Face::Sanction(Sanction::Revolver),
        ));
        assert_eq!(turn_text(&sanction), "play kansas city revolver");
        assert_eq!(parse_turn("play kc rev", None), Ok(sanction));
        let occasionals = Turn::place_and_play(
            Placement::new(Location::Chicago, 0, 2),
            Card::new(City::NewYork, Face::Money(1)),
        );
        assert_eq!(turn_text(&occasionals), "place chicago 2o; play new york 1");
        assert_eq!(parse_turn(&turn_text(&occasionals), None), Ok(occasionals));
    }

    #[test]
    fn what_is_not_one_turn_is_refused_with_a_reason() {
        let err = |text: &str| parse_turn(text, None).unwrap_err().to_string();
        assert!(err("").contains("no turn"));
        assert!(err("place boston 2e").contains("ends with the card"));
        assert!(err("play detroit 3; play boston 2").contains("at most one placement"));
        assert!(err("dance").contains("not part of a turn"));
        assert!(
            err("play detroit 9").contains("no Detroit 9"),
            "{}",
            err("play detroit 9")
        );
        assert!(err("play chicago 3").contains("no location"));
        assert!(err("place boston 2e x; play detroit 3").contains("write counts as"));
    }

    #[test]
    fn refusals_against_a_view_say_why() {
        let view = my_view();
        let err = |line: &str| parse_turn(line, Some(&view)).unwrap_err().to_string();
        let card = turn_text(&Turn::play(view.legal.as_ref().unwrap().cards[0]));
        assert!(err(&format!("place chicago 1e; {card}")).contains("Chicago needs gangsters"));
        assert!(err(&format!("place boston 9e; {card}")).contains("Expert(s) available"));
        assert!(err(&format!("place boston 1o; {card}")).contains("need an Expert"));
        assert!(err(&format!("place boston; {card}")).contains("say how many"));
        assert!(
            err("play boston").contains("no card face") || err("play boston").contains("location")
        );
        let not_mine = City::ALL
            .into_iter()
            .filter(|c| view.cities.contains(c))
            .flat_map(|c| c.cards())
            .find(|c| !view.hand.as_ref().unwrap().contains(c))
            .unwrap();
        assert!(err(&turn_text(&Turn::play(not_mine))).contains("you have no"));
        // Not the viewer's turn: nothing is legal.
        let game = Game::new(&GameConfig::new(3, 5)).unwrap();
        let waiting = (game.to_move().unwrap() + 1) % 3;
        let other = game.view(Viewer::Seat(waiting));
        assert!(
            parse_turn(&card, Some(&other))
                .unwrap_err()
                .to_string()
                .contains("not your turn")
        );
    }

    #[test]
    fn steps_leave_a_clients_own_words_to_it() {
        let view = my_view();
        let card = view.legal.as_ref().unwrap().cards[0];
        let line = format!("odds {} table", turn_text(&Turn::play(card)));
        let words = words(&line);
        let steps = parse_steps(&words, Some(&view), |w| w == "odds" || w == "table").unwrap();
        assert_eq!(steps, vec![Err("odds"), Ok(Step::Play(card)), Err("table")]);
    }

    #[test]
    fn abbreviations_resolve_when_unambiguous() {
        let all = all();
        assert_eq!(
            parse_location("bos", &all),
            Ok(Location::City(City::Boston))
        );
        assert_eq!(
            parse_location("NY", &all),
            Ok(Location::City(City::NewYork))
        );
        assert_eq!(
            parse_location("new york", &all),
            Ok(Location::City(City::NewYork))
        );
        assert_eq!(
            parse_location("kc", &all),
            Ok(Location::City(City::KansasCity))
        );
        assert_eq!(parse_location("chi", &all), Ok(Location::Chicago));
        assert_eq!(
            parse_location("cin", &all),
            Ok(Location::City(City::Cincinnati))
        );
        let err = parse_location("c", &all).unwrap_err().to_string();
        assert!(
            err.contains("Chicago") && err.contains("Cincinnati"),
            "{err}"
        );
        // Only the game's locations count: "m" is Memphis alone when Memphis is in play.
        assert_eq!(parse_location("m", &all), Ok(Location::City(City::Memphis)));
        assert!(parse_location("memphis", &all[..3]).is_err());
    }

    #[test]
    fn faces_parse_from_numbers_and_sanctions() {
        assert_eq!(parse_face("3"), Ok(Face::Money(3)));
        assert_eq!(parse_face("3m"), Ok(Face::Money(3)));
        assert_eq!(parse_face("rev"), Ok(Face::Sanction(Sanction::Revolver)));
        assert_eq!(parse_face("H"), Ok(Face::Sanction(Sanction::Hospital)));
        assert!(parse_face("x").is_err());
        assert!(parse_face("").is_err());
        for (name, sanction) in SANCTIONS {
            assert_eq!(face_word(Face::Sanction(sanction)), name);
            assert_eq!(parse_face(name), Ok(Face::Sanction(sanction)));
        }
    }
}
