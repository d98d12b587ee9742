//! Drawing a game as text: the table, the deduction panel and one-line event descriptions.
//! Colours (one per seat) come from a [`Painter`]; a plain painter gives the same layout
//! without escape codes, which is what tests pin and what pipes receive.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use theboss::v1::{self, game_event::Kind};
use theboss_engine::{Card, Face, Location, Seat, View, face_down_odds};

use crate::names::{city_short, face_short, location_name};

const SEAT_COLOURS: [AnsiColor; 4] = [
    AnsiColor::Red,
    AnsiColor::Blue,
    AnsiColor::Green,
    AnsiColor::Magenta,
];

/// Applies styles, or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Painter {
    pub colour: bool,
}

impl Painter {
    pub const PLAIN: Painter = Painter { colour: false };

    fn paint(&self, style: Style, text: &str) -> String {
        if self.colour {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }

    fn seat(&self, seat: Seat, text: &str) -> String {
        let colour = SEAT_COLOURS[usize::from(seat) % SEAT_COLOURS.len()];
        self.paint(Style::new().fg_color(Some(colour.into())).bold(), text)
    }

    fn strong(&self, text: &str) -> String {
        self.paint(Style::new().bold(), text)
    }

    fn dim(&self, text: &str) -> String {
        self.paint(Style::new().dimmed(), text)
    }
}

/// Display names by seat.
pub fn names(view: &v1::GameView) -> Vec<String> {
    view.seats
        .iter()
        .map(|s| {
            s.player
                .as_ref()
                .map_or_else(|| format!("seat {}", s.seat), |p| p.display_name.clone())
        })
        .collect()
}

fn card_text(card: Card) -> String {
    format!("{} {}", city_short(card.city), face_short(card.face))
}

/// Pads a string that may hold escape codes to `width` visible characters.
fn pad(text: &str, visible: usize, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(visible)))
}

/// The whole table as the viewer sees it.
pub fn table(wire: &v1::GameView, view: &View, p: Painter) -> String {
    let names = names(wire);
    let seat_name = |s: Seat| p.seat(s, &names[usize::from(s)]);
    let mut out = String::new();
    let status = v1::GameStatus::try_from(wire.status).unwrap_or_default();
    let _ = write!(
        out,
        "{}  round {} · turn {}/5",
        p.strong("THE BOSS"),
        view.round,
        view.turn
    );
    if view.last_round {
        let _ = write!(out, " · {}", p.strong("LAST ROUND"));
    }
    if let Some(contenders) = &view.contenders {
        let who: Vec<String> = contenders.iter().map(|&s| seat_name(s)).collect();
        let _ = write!(out, " · decisive round: {}", who.join(", "));
    }
    let _ = writeln!(
        out,
        "  [{}]",
        status
            .as_str_name()
            .trim_start_matches("GAME_STATUS_")
            .to_lowercase()
    );
    let revealed: Vec<String> = view
        .police
        .revealed
        .iter()
        .map(|c| format!("{c:?}"))
        .collect();
    let _ = writeln!(
        out,
        "Police: silver {}/3, gold {}/3 (revealed: {}; {} left)",
        view.police.silver,
        view.police.gold,
        if revealed.is_empty() {
            "none".to_string()
        } else {
            revealed.join(", ")
        },
        view.police.remaining
    );
    out.push('\n');

    // The row.
    let n = view.seats.len();
    let _ = write!(
        out,
        "  {:<14} {:<22} {:<4} {:<18}",
        "location", "rewards", "down", "played"
    );
    for (s, name) in names.iter().enumerate().take(n) {
        let short: String = name.chars().take(8).collect();
        let _ = write!(
            out,
            " {}",
            pad(&p.seat(s as Seat, &short), short.chars().count(), 8)
        );
    }
    out.push('\n');
    for l in &view.locations {
        let (name, rewards) = match l.location {
            Location::Chicago => (
                "Chicago".to_string(),
                format!("pays {} M$", view.chicago_value),
            ),
            Location::City(city) => (
                city.name().to_string(),
                city.faces()
                    .iter()
                    .map(|f| face_short(*f))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        };
        let down = if l.face_down { "[?]" } else { "" };
        let played: Vec<String> = l.played.iter().map(|c| face_short(c.face)).collect();
        let played_text = played.join(",");
        let played_cell = match played.split_last() {
            Some((last, rest)) => {
                let shown = if rest.is_empty() {
                    String::new()
                } else {
                    format!("{},", rest.join(","))
                };
                pad(
                    &format!("{shown}{}", p.strong(&format!("{last}*"))),
                    played_text.len() + 1,
                    18,
                )
            }
            None => pad("", 0, 18),
        };
        let banished: Vec<Seat> = view
            .seats
            .iter()
            .filter(|s| l.location.city().is_some_and(|c| s.banished.contains(&c)))
            .map(|s| s.seat)
            .collect();
        let leader_mark = |s: usize| l.leader == Some(s as Seat);
        let _ = write!(
            out,
            "  {:<14} {:<22} {:<4} {}",
            name, rewards, down, played_cell
        );
        for (s, g) in l.gangsters.iter().enumerate() {
            let cell = if banished.contains(&(s as Seat)) {
                "banned".to_string()
            } else if g.total() == 0 {
                "·".to_string()
            } else {
                let mut c = format!("{}E", g.experts);
                if g.occasionals > 0 {
                    let _ = write!(c, "+{}O", g.occasionals);
                }
                if leader_mark(s) {
                    c.push('!');
                }
                c
            };
            let shown = if g.total() > 0 {
                p.seat(s as Seat, &cell)
            } else {
                p.dim(&cell)
            };
            let _ = write!(out, " {}", pad(&shown, cell.chars().count(), 8));
        }
        out.push('\n');
    }
    out.push('\n');

    // The players.
    out.push_str("  player         M$   free Exp. placed  hosp prison dead  Occ  hand (backs)\n");
    for s in &view.seats {
        let i = usize::from(s.seat);
        let mut name: String = names[i].chars().take(10).collect();
        if view.to_move == Some(s.seat) {
            name.push_str(" >");
        }
        let width = name.chars().count();
        let backs: Vec<String> = s
            .hand_backs
            .iter()
            .filter(|c| c.count > 0)
            .map(|c| format!("{}×{}", city_short(c.city), c.count))
            .collect();
        let _ = writeln!(
            out,
            "  {} {:>4} {:>11} {:>6} {:>5} {:>6} {:>4} {:>4}  {}",
            pad(&p.seat(s.seat, &name), width, 12),
            s.money,
            s.supply.experts_free,
            s.supply.experts_placed,
            s.supply.experts_in_hospital(),
            s.supply.experts_in_prison(),
            s.supply.killed,
            s.supply.occasionals,
            backs.join(" ")
        );
    }
    if let Some(hand) = &view.hand {
        let cards: Vec<String> = hand.iter().map(|c| card_text(*c)).collect();
        let _ = writeln!(out, "\nYour hand: {}", cards.join(", "));
    }
    if view.last_turn && !view.turn_order.is_empty() {
        let order: Vec<String> = view.turn_order.iter().map(|&s| seat_name(s)).collect();
        let _ = writeln!(out, "Last-turn order: {}", order.join(" → "));
    }
    match (view.to_move, &view.outcome) {
        (_, Some(outcome)) => {
            let winners: Vec<String> = outcome.winners.iter().map(|&s| seat_name(s)).collect();
            let _ = writeln!(out, "Game over. Winner: {}", winners.join(" and "));
        }
        (Some(s), None) if view.my_turn() => {
            let _ = writeln!(out, "{}", p.strong("Your turn."));
            let _ = s;
        }
        (Some(s), None) => {
            let _ = writeln!(out, "Waiting for {}.", seat_name(s));
        }
        (None, None) => {}
    }
    out
}

/// For every face-down card: what it can still be, with probabilities; and Chicago's value.
pub fn odds(view: &View) -> String {
    let mut out = String::from("Face-down cards (from your hand and the cards played):\n");
    for city in face_down_odds(view) {
        let mut candidates = city.candidates.clone();
        candidates.sort_by_key(|(card, _)| card.face);
        let list: Vec<String> = candidates
            .iter()
            .map(|(card, p)| format!("{} {:.0}%", face_short(card.face), p * 100.0))
            .collect();
        let _ = writeln!(
            out,
            "  {:<13} {}   (expected {:.2} M$)",
            city.city.name(),
            list.join("  "),
            city.expected_money()
        );
    }
    let _ = writeln!(
        out,
        "  {:<13} pays {} M$ now",
        "Chicago", view.chicago_value
    );
    out
}

fn turn_text(action: &v1::TurnAction) -> String {
    let Ok(turn) = theboss::convert::turn_from_wire(action, "action") else {
        return "an unreadable turn".into();
    };
    let card = format!("played {}", turn.card);
    match turn.placement {
        Some(p) => {
            let mut who = format!("{} Expert(s)", p.experts);
            if p.occasionals > 0 {
                let _ = write!(who, " and {} Occasional(s)", p.occasionals);
            }
            format!("placed {who} in {}, {card}", location_name(p.location))
        }
        None => card,
    }
}

/// One line describing an event, or None for events not worth a line.
pub fn event_text(event: &v1::GameEvent, names: &[String], p: Painter) -> Option<String> {
    let name = |s: u32| {
        names
            .get(s as usize)
            .map_or_else(|| format!("seat {s}"), |n| p.seat(s as Seat, n))
    };
    Some(match event.kind.as_ref()? {
        Kind::PlayerJoined(j) => {
            let who = j.player.as_ref()?;
            format!("{} sits down at seat {}", who.display_name, who.seat)
        }
        Kind::PlayerLeft(l) if l.resigned => {
            format!("{} resigns", l.player.as_ref()?.display_name)
        }
        Kind::PlayerLeft(l) => format!("{} leaves", l.player.as_ref()?.display_name),
        Kind::GameStarted(g) => format!("The game starts with {} players", g.players),
        Kind::RoundStarted(r) => format!(
            "Round {}{} — {} starts",
            r.round,
            if r.decisive { " (decisive)" } else { "" },
            name(r.start_player)
        ),
        Kind::HandDealt(_) => "You get a new hand".to_string(),
        Kind::PoliceRevealed(c) => format!(
            "Police: {:?} (silver {}, gold {}){}",
            v1::PoliceCard::try_from(c.card).unwrap_or_default(),
            c.silver,
            c.gold,
            if c.last_round {
                " — this is the last round"
            } else {
                ""
            }
        ),
        Kind::TurnTaken(t) => format!(
            "{} {}{}",
            name(t.seat),
            turn_text(t.action.as_ref()?),
            if t.by_timeout { " (time ran out)" } else { "" }
        ),
        Kind::LastTurnOrder(o) => format!(
            "Last turn order: {}",
            o.order
                .iter()
                .map(|&s| name(s))
                .collect::<Vec<_>>()
                .join(" → ")
        ),
        Kind::RoundResolved(r) => {
            let mut parts = Vec::new();
            for a in &r.awards {
                let Some(winner) = a.winner else { continue };
                let location = v1::Location::try_from(a.location).unwrap_or_default();
                let place = theboss::convert::location_from_wire(location as i32, "l")
                    .map(location_name)
                    .unwrap_or_default();
                let what = match &a.card {
                    Some(card) => theboss::convert::card_from_wire(card, "c")
                        .map(|c| match c.face {
                            Face::Money(m) => format!("{m} M$"),
                            Face::Sanction(s) => format!("{s}"),
                        })
                        .unwrap_or_default(),
                    None => format!("{} M$", a.money),
                };
                parts.push(format!("{} takes {place} ({what})", name(winner)));
            }
            format!("Round {} resolved: {}", r.round, parts.join("; "))
        }
        Kind::DecisiveRound(d) => format!(
            "Tie! Decisive round between {}",
            d.contenders
                .iter()
                .map(|&s| name(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Kind::GameEnded(e) => {
            let o = e.outcome.as_ref()?;
            let standings: Vec<String> = o
                .standings
                .iter()
                .map(|s| format!("{} {} M$", name(s.seat), s.money))
                .collect();
            format!("Game over: {}", standings.join(", "))
        }
        Kind::GameAborted(a) => format!("Game aborted: {}", a.reason),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_ignores_escape_codes() {
        let p = Painter { colour: true };
        let coloured = p.seat(0, "Ann");
        assert!(coloured.len() > 3);
        assert_eq!(pad(&coloured, 3, 6).len(), coloured.len() + 3);
        assert_eq!(Painter::PLAIN.seat(0, "Ann"), "Ann");
    }
}
