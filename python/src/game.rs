//! `theboss._engine.Game`: one game of the engine, driven from Python.
//!
//! Turns, views, events and outcomes cross as `theboss.v1` messages (`TurnAction`,
//! `GameView`, `GameEvent`, `Outcome`); the fast paths for playouts (`legal_count`,
//! `apply_index`, action ids) cross as integers and build no message at all.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use theboss::convert;
use theboss::v1;
use theboss_engine::{self as engine, Seat, Viewer};

use crate::actions;
use crate::errors;
use crate::messages::{self, CARD, GAME_EVENT, GAME_VIEW, LOGGED_EVENT, OUTCOME, TURN_ACTION};

#[pyclass(module = "theboss._engine", name = "Game")]
#[derive(Clone)]
pub struct PyGame {
    game: engine::Game,
    /// Every event since the deal, with its visibility: the game's own record.
    log: Vec<engine::LoggedEvent>,
}

impl PyGame {
    /// A game found by other means (a determinization): its log starts empty.
    pub fn from_game(game: engine::Game) -> PyGame {
        PyGame {
            game,
            log: Vec::new(),
        }
    }

    fn seat_to_move(&self) -> PyResult<Seat> {
        self.game
            .to_move()
            .ok_or_else(|| errors::rule_error(engine::RuleError::GameOver))
    }

    fn seat(&self, seat: u32) -> PyResult<Seat> {
        u8::try_from(seat)
            .ok()
            .filter(|&s| s < self.game.players())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "there is no seat {seat} in a game of {} players",
                    self.game.players()
                ))
            })
    }

    fn viewer(&self, seat: Option<u32>) -> PyResult<Viewer> {
        seat.map_or(Ok(Viewer::Spectator), |s| self.seat(s).map(Viewer::Seat))
    }

    fn play(&mut self, seat: Seat, turn: &engine::Turn) -> PyResult<usize> {
        let events = self.game.apply(seat, turn).map_err(errors::rule_error)?;
        let from = self.log.len();
        self.log.extend(events);
        Ok(from)
    }

    /// The logged events from `from` on, as `LoggedEvent(private_to, GameEvent)`.
    fn events_from<'py>(&self, py: Python<'py>, from: usize) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let class = LOGGED_EVENT.get(py)?;
        self.log[from..]
            .iter()
            .map(|logged| {
                let private_to = match logged.visibility {
                    engine::Visibility::Public => None,
                    engine::Visibility::Seat(s) => Some(s),
                };
                let event = GAME_EVENT.message(py, &convert::event_to_wire(&logged.event))?;
                class.call1((private_to, event))
            })
            .collect()
    }
}

#[pymethods]
impl PyGame {
    /// Deals a new game. `cities`: `City` numbers, None for the rulebook's default set;
    /// `rules_version`: None for the newest.
    #[new]
    #[pyo3(signature = (players, seed, cities=None, rules_version=None))]
    fn new(
        players: u8,
        seed: u64,
        cities: Option<Vec<i32>>,
        rules_version: Option<u32>,
    ) -> PyResult<PyGame> {
        let mut config = engine::GameConfig::new(players, seed);
        if let Some(cities) = cities {
            let cities = cities
                .into_iter()
                .map(|c| convert::city_from_wire(c, "cities"))
                .collect::<Result<Vec<_>, _>>()
                .map_err(errors::config_wire_error)?;
            config = config.with_cities(cities);
        }
        if let Some(number) = rules_version {
            let rules = convert::rules_from_wire(number, "rules_version")
                .map_err(errors::config_wire_error)?;
            config = config.with_rules(rules);
        }
        let (game, log) = engine::Game::start(&config).map_err(errors::config_error)?;
        Ok(PyGame { game, log })
    }

    #[getter]
    fn players(&self) -> u8 {
        self.game.players()
    }

    /// The seed every shuffle comes from (for a determinized game, the sampled one).
    #[getter]
    fn seed(&self) -> u64 {
        self.game.setup().seed()
    }

    /// The cities in play, as `City` numbers.
    #[getter]
    fn cities(&self) -> Vec<i32> {
        self.game
            .setup()
            .cities()
            .iter()
            .map(|&c| convert::city_to_wire(c) as i32)
            .collect()
    }

    #[getter]
    fn rules_version(&self) -> u32 {
        self.game.setup().rules().number()
    }

    #[getter]
    fn round(&self) -> u8 {
        self.game.round()
    }

    #[getter]
    fn turn(&self) -> u8 {
        self.game.turn()
    }

    #[getter]
    fn start_player(&self) -> Seat {
        self.game.start_player()
    }

    /// The seat to play, None once the game is over.
    #[getter]
    fn to_move(&self) -> Option<Seat> {
        self.game.to_move()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// Money by seat.
    fn money(&self) -> Vec<u32> {
        (0..self.game.players())
            .map(|s| self.game.player(s).money)
            .collect()
    }

    /// The `Outcome`, once the game is over.
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.game
            .outcome()
            .map(|o| OUTCOME.message(py, &convert::outcome_to_wire(o)))
            .transpose()
    }

    /// A seat's hand (`Card`s). Offline, every hand may be read.
    fn hand<'py>(&self, py: Python<'py>, seat: u32) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let seat = self.seat(seat)?;
        self.game
            .hand(seat)
            .iter()
            .map(|c| CARD.message(py, &convert::card_to_wire(*c)))
            .collect()
    }

    /// What a seat (None: a spectator) may know now: a `GameView`, as the server sends it
    /// but for the table's own fields (game id, status, settings, players, seq).
    #[pyo3(signature = (seat=None))]
    fn view<'py>(&self, py: Python<'py>, seat: Option<u32>) -> PyResult<Bound<'py, PyAny>> {
        let viewer = self.viewer(seat)?;
        GAME_VIEW.message(py, &convert::view_to_wire(&self.game.view(viewer)))
    }

    /// The legal turns of the seat to move (`TurnAction`s); empty once over.
    fn legal_turns<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        match self.game.to_move() {
            Some(seat) => self
                .game
                .legal_actions(seat)
                .iter()
                .map(|t| TURN_ACTION.message(py, &convert::turn_to_wire(t)))
                .collect(),
            None => Ok(Vec::new()),
        }
    }

    /// How many legal turns the seat to move has (0 once over), without listing them.
    fn legal_count(&self) -> usize {
        self.game
            .to_move()
            .and_then(|seat| self.game.legal_turns(seat))
            .map_or(0, |legal| legal.count())
    }

    /// The legal turns of the seat to move as action ids, ascending.
    fn legal_action_ids(&self) -> Vec<u32> {
        let Some(legal) = self.game.to_move().and_then(|s| self.game.legal_turns(s)) else {
            return Vec::new();
        };
        let mut ids: Vec<u32> = (0..legal.count())
            .filter_map(|i| legal.nth(i))
            .filter_map(|turn| actions::id_of(&turn))
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Plays a turn (a `TurnAction`) for `seat`, by default the seat to move. Returns the
    /// events it caused. A broken rule raises `RuleViolation` and changes nothing.
    #[pyo3(signature = (turn, seat=None))]
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        turn: &Bound<'py, PyAny>,
        seat: Option<u32>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let action = messages::value::<v1::TurnAction>(turn, "theboss.v1.TurnAction")?;
        let turn = errors::engine_turn(&action)?;
        let seat = match seat {
            None => self.seat_to_move()?,
            Some(s) => u8::try_from(s).unwrap_or(u8::MAX),
        };
        let from = self.play(seat, &turn)?;
        self.events_from(py, from)
    }

    /// Plays the `index`-th legal turn of the seat to move (`index < legal_count()`): the
    /// playout loop's way, with nothing encoded.
    fn apply_index(&mut self, index: usize) -> PyResult<()> {
        let seat = self.seat_to_move()?;
        let turn = self
            .game
            .legal_turns(seat)
            .and_then(|legal| legal.nth(index))
            .ok_or_else(|| PyIndexError::new_err(format!("no legal turn {index}")))?;
        self.play(seat, &turn).map(drop)
    }

    /// Plays the turn of an action id for the seat to move.
    fn apply_action_id(&mut self, id: u32) -> PyResult<()> {
        let turn = actions::turn_of(id)
            .ok_or_else(|| errors::invalid(format!("{id} is not an action id")))?;
        let seat = self.seat_to_move()?;
        self.play(seat, &turn).map(drop)
    }

    /// How many events the game has logged since the deal.
    fn event_count(&self) -> usize {
        self.log.len()
    }

    /// The logged events from index `start` on, each with the seat it is private to.
    #[pyo3(signature = (start=0))]
    fn events<'py>(&self, py: Python<'py>, start: usize) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.events_from(py, start.min(self.log.len()))
    }

    /// An independent copy (search bots try turns on copies).
    fn copy(&self) -> PyGame {
        self.clone()
    }

    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }

    fn __repr__(&self) -> String {
        match self.game.to_move() {
            Some(seat) => format!(
                "Game(players={}, round={}, turn={}, to_move={seat})",
                self.game.players(),
                self.game.round(),
                self.game.turn()
            ),
            None => format!(
                "Game(players={}, over after {} rounds)",
                self.game.players(),
                self.game.round()
            ),
        }
    }
}
