//! What a player types: the CLI's own commands (`help`, `odds`, `table`, `undo-input`,
//! `quit`) and turns in the engine's notation (`theboss_engine::notation`), entered in one
//! line (`place boston 2e 1o; play detroit 3`) or in steps (`place …`, then `play …`). Turns
//! are checked against the legal set of the view before anything is sent, with the reason in
//! plain words (the notation's).

use theboss_engine::notation::{self, Step};
use theboss_engine::{Card, Placement, Turn, View};

/// How a turn is written (for scripts, logs and tests): the engine's notation.
pub use theboss_engine::notation::turn_text;

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
  both on one line:                `place bos 2e; play det 3`
  undo-input   forget the placement you entered
  odds         what each face-down card can be
  table        draw the table again
  quit         leave (the game goes on without you)
Names may be abbreviated when unambiguous (ny, bos, det, kc, cin, mem, phi, chi).";

/// The CLI's own commands (the turn's steps are the notation's keywords).
fn keyword(word: &str) -> Option<Command> {
    match word.to_ascii_lowercase().as_str() {
        "undo-input" | "undo" => Some(Command::Undo),
        "help" | "?" | "h" => Some(Command::Help),
        "odds" | "deduction" => Some(Command::Odds),
        "table" | "t" => Some(Command::Table),
        "quit" | "exit" | "q" => Some(Command::Quit),
        _ => None,
    }
}

/// Parses one line into commands, the turn's steps checked against the view's legal turns.
pub fn parse_line(line: &str, view: &View) -> Result<Vec<Command>, String> {
    let words = notation::words(line);
    if let Some(first) = words.first()
        && notation::step_keyword(first).is_none()
        && keyword(first).is_none()
    {
        return Err(format!("{first:?} is not a command; type `help`"));
    }
    let steps = notation::parse_steps(&words, Some(view), |w| keyword(w).is_some())
        .map_err(|e| e.to_string())?;
    Ok(steps
        .into_iter()
        .map(|step| match step {
            Ok(Step::Place(placement)) => Command::Place(placement),
            Ok(Step::Play(card)) => Command::Play(card),
            Err(word) => keyword(word).expect("only the CLI's keywords are left to it"),
        })
        .collect())
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

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::notation::location_name;
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
    fn the_clis_commands_mix_with_a_turns_steps() {
        let view = my_view();
        let card = view.legal.as_ref().unwrap().cards[0];
        let line = format!("odds, {}; table", turn_text(&Turn::play(card)));
        assert_eq!(
            parse_line(&line, &view),
            Ok(vec![Command::Odds, Command::Play(card), Command::Table])
        );
        assert_eq!(parse_line("Q", &view), Ok(vec![Command::Quit]));
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
