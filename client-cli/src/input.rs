//! What a player types: commands, and a turn entered in one line (`place boston 2e 1o play
//! detroit 3`) or in steps (`place …`, then `play …`). Turns are checked against the legal
//! set of the view before anything is sent, with the reason in plain words.

use theboss_engine::{Card, Location, Placement, PlacementOption, Turn, View};

use crate::names::{location_name, parse_face, parse_location};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Gangsters to place with the next card.
    Place(Placement),
    /// The card: completes the turn (with the pending placement, if any).
    Play(Card),
    /// Forget the pending placement.
    Undo,
    Help,
    Odds,
    Table,
    Quit,
}

pub const HELP: &str = "\
Your turn: optionally place gangsters, then play a card.
  place <location> [<n>e] [<n>o]   e.g. `place boston 2e 1o` (e = Experts, o = Occasionals)
  play <city> <face>               e.g. `play detroit 3`, `play ny revolver`
  both on one line:                `place bos 2e play det 3`
  undo-input   forget the placement you entered
  odds         what each face-down card can be
  table        draw the table again
  quit         leave (the game goes on without you)
Names may be abbreviated when unambiguous (ny, bos, det, kc, cin, mem, phi, chi).";

fn keyword(word: &str) -> Option<&'static str> {
    match word.to_ascii_lowercase().as_str() {
        "place" | "pl" => Some("place"),
        "play" => Some("play"),
        "undo-input" | "undo" => Some("undo"),
        "help" | "?" | "h" => Some("help"),
        "odds" | "deduction" => Some("odds"),
        "table" | "t" => Some("table"),
        "quit" | "exit" | "q" => Some("quit"),
        _ => None,
    }
}

/// Parses one line into commands, checked against the view's legal turns.
pub fn parse_line(line: &str, view: &View) -> Result<Vec<Command>, String> {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let mut commands = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let Some(key) = keyword(words[i]) else {
            return Err(format!("{:?} is not a command; type `help`", words[i]));
        };
        let end = (i + 1..words.len())
            .find(|&j| keyword(words[j]).is_some())
            .unwrap_or(words.len());
        let args = &words[i + 1..end];
        commands.push(match key {
            "place" => Command::Place(parse_place(args, view)?),
            "play" => Command::Play(parse_play(args, view)?),
            "undo" => Command::Undo,
            "help" => Command::Help,
            "odds" => Command::Odds,
            "table" => Command::Table,
            _ => Command::Quit,
        });
        i = end;
    }
    Ok(commands)
}

fn count(word: &str, suffix: char) -> Option<u8> {
    word.to_ascii_lowercase()
        .strip_suffix(suffix)
        .and_then(|n| n.parse().ok())
}

fn parse_place(args: &[&str], view: &View) -> Result<Placement, String> {
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
            return Err(format!(
                "{word:?}: write counts as 2e (Experts) and 1o (Occasionals)"
            ));
        }
    }
    let all: Vec<Location> = view.locations.iter().map(|l| l.location).collect();
    let location = parse_location(&name.join(" "), &all)?;
    let (e, o) = (experts.unwrap_or(0), occasionals.unwrap_or(0));
    if e == 0 && o == 0 {
        return Err("say how many: e.g. `2e` for two Experts, `1o` for one Occasional".into());
    }
    let legal = view.legal.as_ref().ok_or("it is not your turn")?;
    let option = legal
        .placements
        .iter()
        .find(|p| p.location == location)
        .ok_or_else(|| cannot_place_reason(view, location))?;
    check_option(option, e, o)?;
    Ok(Placement::new(location, e, o))
}

fn cannot_place_reason(view: &View, location: Location) -> String {
    let name = location_name(location);
    let me = view.legal.as_ref().map(|l| l.seat);
    let banished = location
        .city()
        .is_some_and(|city| me.is_some_and(|s| view.seat(s).banished.contains(&city)));
    if banished {
        format!("you are banished from {name} for the rest of the game")
    } else if location == Location::Chicago {
        "Chicago needs gangsters of yours in another city first, placed on an earlier turn of this round".into()
    } else {
        format!("you cannot place in {name} now: you have no gangsters left to take the lead there")
    }
}

fn check_option(option: &PlacementOption, e: u8, o: u8) -> Result<(), String> {
    let name = location_name(option.location);
    if e > option.max_experts {
        return Err(format!(
            "you have {} Expert(s) available, not {e}",
            option.max_experts
        ));
    }
    if o > option.max_occasionals {
        return Err(format!(
            "you have {} Occasional(s) left, not {o}",
            option.max_occasionals
        ));
    }
    if o > 0 && e == 0 && !option.expert_present {
        return Err(format!(
            "Occasionals in {name} need an Expert: place one with them, or have one there already"
        ));
    }
    if !option.allows(e, o) {
        return Err(format!(
            "you need at least {} gangsters in {name} to take the lead",
            option.min_gangsters.max(1)
        ));
    }
    Ok(())
}

fn parse_play(args: &[&str], view: &View) -> Result<Card, String> {
    let Some((face, city_words)) = args.split_last() else {
        return Err("play <city> <face>, e.g. `play detroit 3`".into());
    };
    let cities: Vec<Location> = view.cities.iter().map(|&c| Location::City(c)).collect();
    let Location::City(city) = parse_location(&city_words.join(" "), &cities)? else {
        unreachable!("only cities were offered")
    };
    let card = Card::new(city, parse_face(face)?);
    let legal = view.legal.as_ref().ok_or("it is not your turn")?;
    if !legal.cards.contains(&card) {
        return Err(format!("you have no {card} card"));
    }
    Ok(card)
}

/// A turn being entered.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Draft {
    pub placement: Option<Placement>,
}

impl Draft {
    /// Applies a command; returns the finished turn when a card was played.
    pub fn apply(&mut self, command: &Command) -> Option<Turn> {
        match command {
            Command::Place(p) => {
                self.placement = Some(*p);
                None
            }
            Command::Undo => {
                self.placement = None;
                None
            }
            Command::Play(card) => Some(Turn {
                placement: self.placement.take(),
                card: *card,
            }),
            _ => None,
        }
    }
}

/// How a turn is written in this grammar (for scripts, logs and tests).
pub fn turn_text(turn: &Turn) -> String {
    let card = format!(
        "play {} {}",
        turn.card.city.name().to_lowercase(),
        crate::names::face_short(turn.card.face).to_lowercase()
    );
    match turn.placement {
        Some(p) => format!(
            "place {} {}e {}o {card}",
            location_name(p.location).to_lowercase(),
            p.experts,
            p.occasionals
        ),
        None => card,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::{Game, GameConfig, Viewer};

    fn my_view() -> View {
        let game = Game::new(&GameConfig::new(3, 5)).unwrap();
        game.view(Viewer::Seat(game.to_move().unwrap()))
    }

    #[test]
    fn every_legal_turn_written_out_parses_back() {
        for seed in 0..5 {
            let game = Game::new(&GameConfig::new(4, seed)).unwrap();
            let view = game.view(Viewer::Seat(game.to_move().unwrap()));
            for turn in game.legal_actions(game.to_move().unwrap()) {
                let mut draft = Draft::default();
                let commands = parse_line(&turn_text(&turn), &view).unwrap();
                let done: Vec<Turn> = commands.iter().filter_map(|c| draft.apply(c)).collect();
                assert_eq!(done, vec![turn]);
            }
        }
    }

    #[test]
    fn steps_combine_and_undo_forgets_the_placement() {
        let view = my_view();
        let legal = view.legal.clone().unwrap();
        let card = legal.cards[0];
        let option = legal.placements[0];
        let place = format!(
            "place {} {}e",
            location_name(option.location),
            option.min_gangsters.max(1)
        );
        let mut draft = Draft::default();
        for c in parse_line(&place, &view).unwrap() {
            assert_eq!(draft.apply(&c), None);
        }
        assert!(draft.placement.is_some());
        draft.apply(&Command::Undo);
        let play = turn_text(&Turn::play(card));
        let turn = parse_line(&play, &view)
            .unwrap()
            .iter()
            .find_map(|c| draft.apply(c));
        assert_eq!(turn, Some(Turn::play(card)));
    }

    #[test]
    fn refusals_say_why() {
        let view = my_view();
        let err = |line: &str| parse_line(line, &view).unwrap_err();
        assert!(err("dance").contains("not a command"));
        assert!(err("place chicago 1e").contains("Chicago needs gangsters"));
        assert!(err("place boston 9e").contains("Expert(s) available"));
        assert!(err("place boston 1o").contains("need an Expert"));
        assert!(err("place boston").contains("say how many"));
        assert!(
            err("play boston").contains("no card face") || err("play boston").contains("location")
        );
        let not_mine = theboss_engine::City::ALL
            .into_iter()
            .filter(|c| view.cities.contains(c))
            .flat_map(|c| c.cards())
            .find(|c| !view.hand.as_ref().unwrap().contains(c))
            .unwrap();
        assert!(err(&turn_text(&Turn::play(not_mine))).contains("you have no"));
    }
}
