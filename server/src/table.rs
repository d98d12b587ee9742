//! One game table as the server keeps it: who sits where, the lobby, the engine's game once
//! it starts, turn clocks' bookkeeping, and the actions that change it.
//!
//! A table is event-sourced: its [`GameInfo`] (settings and seed) plus its [`Action`] log
//! define it completely, and [`TableState::apply`] is the only way it changes. This module is
//! synchronous and does no IO, so the actor, the restore path and tests all share it.

use std::sync::Arc;

use theboss_engine::{Game, LoggedEvent, RuleError, Seat, Turn, Viewer};
use thiserror::Error;

use crate::domain::{GameInfo, GameStatus, PlayerInfo, Settings};

/// Seats that time out this many turns in a row forfeit (a ladder rule: see the README's ladder section).
pub const TIMEOUTS_TO_FORFEIT: u32 = 3;

/// Why an open table that nobody filled in time was aborted.
pub const EXPIRED: &str = "expired: the table was not filled in time";

/// Everything that changes a table, in the order it happened. Its stored form is
/// `store::format`'s business, not a derive's: renaming anything here changes no stored game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Join {
        seat: Seat,
        player: PlayerInfo,
    },
    Leave {
        seat: Seat,
    },
    /// A seated player gave a running game up: its seat is forfeited.
    Resign {
        seat: Seat,
    },
    Turn {
        seat: Seat,
        turn: Turn,
        /// The server played it because the seat's clock ran out.
        by_timeout: bool,
    },
    Abort {
        reason: String,
    },
}

/// What happened at a table, as every viewer will be told (filtered by visibility).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableEvent {
    Joined {
        seat: Seat,
        player: PlayerInfo,
    },
    Left {
        seat: Seat,
        player: PlayerInfo,
    },
    Resigned {
        seat: Seat,
        player: PlayerInfo,
    },
    Game {
        event: LoggedEvent,
        by_timeout: bool,
    },
    Aborted {
        reason: String,
    },
}

impl TableEvent {
    /// Whether a viewer may see the event: game events by their visibility, table events
    /// always; once the game is over, everything (`reveal_all`).
    pub fn visible_to(&self, viewer: Viewer, reveal_all: bool) -> bool {
        match self {
            TableEvent::Game { event, .. } => reveal_all || event.visible_to(viewer),
            _ => true,
        }
    }
}

/// Why an action does not apply. The table is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TableError {
    #[error("the game has already started")]
    NotOpen,
    #[error("the game is not running")]
    NotRunning,
    #[error("there is no seat {seat} at a table of {players}")]
    NoSuchSeat { seat: Seat, players: u8 },
    #[error("seat {seat} is taken")]
    SeatTaken { seat: Seat },
    #[error("the table is full")]
    TableFull,
    #[error("you are already seated at seat {seat}")]
    AlreadySeated { seat: Seat },
    #[error("you are not seated in this game")]
    NotSeated,
    #[error(transparent)]
    Rule(#[from] RuleError),
}

impl TableError {
    /// A stable name for `ErrorInfo.reason`.
    pub fn reason(&self) -> &'static str {
        match self {
            TableError::NotOpen => "GAME_NOT_OPEN",
            TableError::NotRunning => "GAME_NOT_RUNNING",
            TableError::NoSuchSeat { .. } => "NO_SUCH_SEAT",
            TableError::SeatTaken { .. } => "SEAT_TAKEN",
            TableError::TableFull => "TABLE_FULL",
            TableError::AlreadySeated { .. } => "ALREADY_SEATED",
            TableError::NotSeated => "NOT_SEATED",
            TableError::Rule(rule) => rule.rule(),
        }
    }
}

/// The live state of a table. Cloned before an action is tried, so a failed action or a
/// failed commit leaves the table as it was; shared read-only with watchers afterwards.
#[derive(Debug, Clone)]
pub struct TableState {
    /// Who sits where. Shared between the clones: the table is cloned for every action, and
    /// only a join or a leave changes its seats (their players' ids and names, eight strings
    /// at four seats, would otherwise be copied each time).
    pub seats: Arc<Vec<Option<PlayerInfo>>>,
    pub game: Option<Game>,
    pub status: GameStatus,
    /// Turns in a row each seat's clock ran out.
    pub timeouts_in_a_row: Vec<u32>,
    pub forfeited: Vec<bool>,
    /// Whether each seat has played a turn itself (not by its clock): a ladder game in
    /// which a seat never did is not rated.
    pub acted: Vec<bool>,
}

impl TableState {
    pub fn new(settings: &Settings) -> TableState {
        let n = usize::from(settings.players());
        TableState {
            seats: Arc::new(vec![None; n]),
            game: None,
            status: GameStatus::Open,
            timeouts_in_a_row: vec![0; n],
            forfeited: vec![false; n],
            acted: vec![false; n],
        }
    }

    pub fn seat_of(&self, player_id: &str) -> Option<Seat> {
        self.seats
            .iter()
            .position(|p| p.as_ref().is_some_and(|p| p.id == player_id))
            .map(|i| Seat::try_from(i).expect("at most 4 seats"))
    }

    pub fn to_move(&self) -> Option<Seat> {
        match self.status {
            GameStatus::Running => self.game.as_ref().and_then(Game::to_move),
            _ => None,
        }
    }

    /// Money by seat (zeros before the game starts).
    pub fn money(&self) -> Vec<u32> {
        match &self.game {
            Some(game) => (0..game.players()).map(|s| game.player(s).money).collect(),
            None => vec![0; self.seats.len()],
        }
    }

    pub fn winners(&self) -> Vec<Seat> {
        self.game
            .as_ref()
            .and_then(Game::outcome)
            .map(|o| o.winners.clone())
            .unwrap_or_default()
    }

    /// The seat a joining player gets, or why it cannot join.
    pub fn seat_for(&self, player_id: &str, wanted: Option<Seat>) -> Result<Seat, TableError> {
        // Checked first, so that a player coming back to a running game hears where it sits.
        if let Some(seat) = self.seat_of(player_id) {
            return Err(TableError::AlreadySeated { seat });
        }
        if self.status != GameStatus::Open {
            return Err(TableError::NotOpen);
        }
        let players = u8::try_from(self.seats.len()).expect("at most 4 seats");
        match wanted {
            Some(seat) if seat >= players => Err(TableError::NoSuchSeat { seat, players }),
            Some(seat) if self.seats[usize::from(seat)].is_some() => {
                Err(TableError::SeatTaken { seat })
            }
            Some(seat) => Ok(seat),
            None => self
                .seats
                .iter()
                .position(Option::is_none)
                .map(|i| Seat::try_from(i).expect("at most 4 seats"))
                .ok_or(TableError::TableFull),
        }
    }

    /// The turn the server plays for a seat whose clock ran out: no placement and the first
    /// card of its legal cards (the engine lists them in a fixed order), so replays agree.
    pub fn default_turn(&self, seat: Seat) -> Option<Turn> {
        let legal = self.game.as_ref()?.legal_turns(seat)?;
        legal.cards.first().copied().map(Turn::play)
    }

    /// Whether nobody plays any more: every seat forfeited but the house bots' (which the
    /// server plays for nobody once every person and remote bot has gone).
    pub fn abandoned(&self) -> bool {
        self.status == GameStatus::Running
            && self.forfeited.iter().any(|f| *f)
            && self
                .seats
                .iter()
                .zip(&self.forfeited)
                .all(|(player, forfeited)| {
                    *forfeited || player.as_ref().is_some_and(crate::domain::is_house_bot)
                })
    }

    /// What the server plays by itself at once, without waiting for a clock: the abort of a
    /// game nobody plays any more ([`Self::abandoned`]), or the turn of a seat that forfeited.
    pub fn forced_action(&self) -> Option<Action> {
        if self.abandoned() {
            return Some(Action::Abort {
                reason: "nobody is playing: every seat forfeited".into(),
            });
        }
        let seat = self.to_move()?;
        if !self.forfeited[usize::from(seat)] {
            return None;
        }
        self.timeout_action()
    }

    /// What the server plays when the clock of the seat to move runs out.
    pub fn timeout_action(&self) -> Option<Action> {
        let seat = self.to_move()?;
        Some(Action::Turn {
            seat,
            turn: self.default_turn(seat)?,
            by_timeout: true,
        })
    }

    /// What ends a table that nobody filled in time (`None` once it has started).
    pub fn expiry_action(&self) -> Option<Action> {
        (self.status == GameStatus::Open).then(|| Action::Abort {
            reason: EXPIRED.into(),
        })
    }

    /// Applies one action. On error nothing has changed.
    pub fn apply(
        &mut self,
        record: &GameInfo,
        action: &Action,
    ) -> Result<Vec<TableEvent>, TableError> {
        match action {
            Action::Join { seat, player } => {
                let got = self.seat_for(&player.id, Some(*seat))?;
                Arc::make_mut(&mut self.seats)[usize::from(got)] = Some(player.clone());
                let mut events = vec![TableEvent::Joined {
                    seat: got,
                    player: player.clone(),
                }];
                if self.seats.iter().all(Option::is_some) {
                    let config = record.settings.engine_config(record.seed);
                    // Settings were validated at creation, so the config is valid.
                    let (game, started) = Game::start(&config)
                        .unwrap_or_else(|e| panic!("stored settings are invalid: {e}"));
                    self.game = Some(game);
                    self.status = GameStatus::Running;
                    events.extend(started.into_iter().map(|event| TableEvent::Game {
                        event,
                        by_timeout: false,
                    }));
                }
                Ok(events)
            }
            Action::Leave { seat } => {
                if self.status != GameStatus::Open {
                    return Err(TableError::NotOpen);
                }
                let player = Arc::make_mut(&mut self.seats)
                    .get_mut(usize::from(*seat))
                    .and_then(Option::take)
                    .ok_or(TableError::NotSeated)?;
                Ok(vec![TableEvent::Left {
                    seat: *seat,
                    player,
                }])
            }
            Action::Resign { seat } => {
                if self.status != GameStatus::Running {
                    return Err(if self.status == GameStatus::Open {
                        TableError::NotRunning
                    } else {
                        TableError::Rule(RuleError::GameOver)
                    });
                }
                let i = usize::from(*seat);
                let player = self
                    .seats
                    .get(i)
                    .cloned()
                    .flatten()
                    .ok_or(TableError::NotSeated)?;
                self.forfeited[i] = true;
                Ok(vec![TableEvent::Resigned {
                    seat: *seat,
                    player,
                }])
            }
            Action::Turn {
                seat,
                turn,
                by_timeout,
            } => {
                if self.status != GameStatus::Running {
                    return Err(if self.status == GameStatus::Open {
                        TableError::NotRunning
                    } else {
                        TableError::Rule(RuleError::GameOver)
                    });
                }
                let game = self.game.as_mut().expect("a running table has a game");
                let events = game.apply(*seat, turn)?;
                let i = usize::from(*seat);
                if *by_timeout {
                    self.timeouts_in_a_row[i] += 1;
                    if self.timeouts_in_a_row[i] >= TIMEOUTS_TO_FORFEIT {
                        self.forfeited[i] = true;
                    }
                } else {
                    self.timeouts_in_a_row[i] = 0;
                    self.acted[i] = true;
                }
                if game.is_over() {
                    self.status = GameStatus::Finished;
                }
                Ok(events
                    .into_iter()
                    .map(|event| TableEvent::Game {
                        event,
                        by_timeout: *by_timeout,
                    })
                    .collect())
            }
            Action::Abort { reason } => {
                if self.status.is_over() {
                    return Err(TableError::Rule(RuleError::GameOver));
                }
                self.status = GameStatus::Aborted;
                Ok(vec![TableEvent::Aborted {
                    reason: reason.clone(),
                }])
            }
        }
    }
}

/// One action as the log shows it: its events and when it was committed.
#[derive(Debug, Clone)]
pub struct Logged {
    pub seq_before: u64,
    pub events: std::sync::Arc<[TableEvent]>,
    pub at: i64,
}

impl Logged {
    /// The events a viewer may see, numbered; `reveal_all` once the game is over.
    pub fn visible_events(
        &self,
        viewer: Viewer,
        reveal_all: bool,
    ) -> impl Iterator<Item = (u64, &TableEvent)> {
        numbered(self.seq_before, &self.events, viewer, reveal_all)
    }
}

/// The events after event `seq_before` a viewer may see, numbered; `reveal_all` once the
/// game is over.
pub fn numbered(
    seq_before: u64,
    events: &[TableEvent],
    viewer: Viewer,
    reveal_all: bool,
) -> impl Iterator<Item = (u64, &TableEvent)> {
    (seq_before + 1..)
        .zip(events)
        .filter(move |(_, e)| e.visible_to(viewer, reveal_all))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Visibility;

    fn record(players: u8) -> GameInfo {
        GameInfo {
            id: "g".into(),
            settings: Settings::new(players, vec![], 0, Visibility::Public).unwrap(),
            seed: 7,
            created_by: "p0".into(),
            created_at: 0,
            ladder: false,
            series: None,
            seed_salt: None,
            seeded: false,
        }
    }

    fn player(i: u8) -> PlayerInfo {
        PlayerInfo {
            id: format!("p{i}"),
            display_name: format!("Player {i}"),
            is_bot: false,
        }
    }

    #[test]
    fn the_game_starts_when_the_last_seat_is_taken() {
        let record = record(2);
        let mut table = TableState::new(&record.settings);
        let first = Action::Join {
            seat: 1,
            player: player(0),
        };
        assert_eq!(table.apply(&record, &first).unwrap().len(), 1);
        assert_eq!(table.status, GameStatus::Open);
        assert_eq!(
            table.seat_for("p0", None),
            Err(TableError::AlreadySeated { seat: 1 })
        );
        assert_eq!(
            table.seat_for("p1", Some(1)),
            Err(TableError::SeatTaken { seat: 1 })
        );
        assert_eq!(table.seat_for("p1", None), Ok(0));
        let events = table
            .apply(
                &record,
                &Action::Join {
                    seat: 0,
                    player: player(1),
                },
            )
            .unwrap();
        assert_eq!(table.status, GameStatus::Running);
        assert!(events.len() > 2, "join, game started, round started, hands");
        assert_eq!(table.seat_for("p9", None), Err(TableError::NotOpen));
        assert_eq!(
            table.apply(&record, &Action::Leave { seat: 0 }),
            Err(TableError::NotOpen)
        );
    }

    #[test]
    fn leaving_frees_the_seat_and_errors_change_nothing() {
        let record = record(3);
        let mut table = TableState::new(&record.settings);
        table
            .apply(
                &record,
                &Action::Join {
                    seat: 2,
                    player: player(0),
                },
            )
            .unwrap();
        let before = format!("{table:?}");
        assert_eq!(
            table.apply(&record, &Action::Leave { seat: 0 }),
            Err(TableError::NotSeated)
        );
        let turn = Action::Turn {
            seat: 2,
            turn: Turn::play(theboss_engine::City::NewYork.cards().next().unwrap()),
            by_timeout: false,
        };
        assert_eq!(table.apply(&record, &turn), Err(TableError::NotRunning));
        assert_eq!(format!("{table:?}"), before);
        table.apply(&record, &Action::Leave { seat: 2 }).unwrap();
        assert_eq!(table.seat_of("p0"), None);
    }

    /// The seats are shared between a table and its clones: a join or a leave on a clone (an
    /// action being tried) must leave the table it was cloned from as it was.
    #[test]
    fn seating_a_clone_leaves_the_table_it_was_cloned_from_as_it_was() {
        let record = record(3);
        let table = TableState::new(&record.settings);
        let mut joined = table.clone();
        let join = Action::Join {
            seat: 1,
            player: player(0),
        };
        joined.apply(&record, &join).unwrap();
        assert_eq!(table.seat_of("p0"), None);
        assert_eq!(joined.seat_of("p0"), Some(1));
        let mut left = joined.clone();
        left.apply(&record, &Action::Leave { seat: 1 }).unwrap();
        assert_eq!(joined.seat_of("p0"), Some(1));
        assert_eq!(left.seat_of("p0"), None);
        assert_eq!(table.seat_of("p0"), None);
    }

    #[test]
    fn three_timeouts_in_a_row_forfeit_and_a_real_turn_resets_the_count() {
        let record = record(2);
        let mut table = TableState::new(&record.settings);
        for seat in 0..2 {
            table
                .apply(
                    &record,
                    &Action::Join {
                        seat,
                        player: player(seat),
                    },
                )
                .unwrap();
        }
        // Seat 0 always times out; seat 1 times out twice, then plays by hand.
        let mut seat1_turns = 0;
        while let Some(seat) = table.to_move() {
            let turn = table.default_turn(seat).unwrap();
            let by_timeout = seat == 0 || seat1_turns < 2;
            if seat == 1 {
                seat1_turns += 1;
            }
            table
                .apply(
                    &record,
                    &Action::Turn {
                        seat,
                        turn,
                        by_timeout,
                    },
                )
                .unwrap();
            if seat == 1 && seat1_turns == 2 {
                assert_eq!(table.timeouts_in_a_row[1], 2);
                assert!(!table.forfeited[1]);
            }
        }
        assert_eq!(table.status, GameStatus::Finished);
        assert!(table.forfeited[0] && table.timeouts_in_a_row[0] >= TIMEOUTS_TO_FORFEIT);
        assert!(!table.forfeited[1] && table.timeouts_in_a_row[1] == 0);
        assert!(!table.winners().is_empty());
    }

    #[test]
    fn abort_ends_a_table_once() {
        let record = record(2);
        let mut table = TableState::new(&record.settings);
        let abort = Action::Abort {
            reason: "test".into(),
        };
        table.apply(&record, &abort).unwrap();
        assert_eq!(table.status, GameStatus::Aborted);
        assert_eq!(
            table.apply(&record, &abort),
            Err(TableError::Rule(RuleError::GameOver))
        );
    }
}
