//! `theboss._engine.Game`: one game of the engine, driven from Python.
//!
//! Turns, views, events and outcomes cross as `theboss.v1` messages (`TurnAction`,
//! `GameView`, `GameEvent`, `Outcome`); the fast paths for playouts (`legal_count`,
//! `apply_index`, action ids) cross as integers and build no message at all. Every argument
//! is read through `errors`, so a bad one raises the kit's own exception.

use pyo3::prelude::*;
use theboss::convert;
use theboss::v1;
use theboss_engine::{self as engine, Seat, Viewer};

use crate::actions;
use crate::errors;
use crate::messages::{self, CARD, GAME_EVENT, GAME_VIEW, LOGGED_EVENT, OUTCOME, TURN_ACTION};

/// One game of The Boss, played by the server's own engine: the same seed and the same turns
/// give the same deals, views, events and scores as the service.
///
/// ``Game(players, seed, cities=None, rules_version=None)`` deals a new game: 2 to 4
/// players, a seed (0 <= seed < 2**64), the cities as ``theboss.v1.City`` numbers (None: the
/// rulebook's default set for that many players) and a rules version (None: the newest).
/// A game the rules do not have raises ``theboss.errors.InvalidConfig``.
///
/// A broken rule raises ``theboss.errors.RuleViolation`` (its ``reason`` names the rule as the
/// server's ``ErrorInfo.reason`` does) and leaves the game unchanged; a bad argument raises
/// ``theboss.errors.InvalidArgument`` (``field`` names it) or ``WrongType``.
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

    /// A game and its log (a replayed record).
    pub fn from_parts(game: engine::Game, log: Vec<engine::LoggedEvent>) -> PyGame {
        PyGame { game, log }
    }

    fn seat_to_move(&self) -> PyResult<Seat> {
        self.game
            .to_move()
            .ok_or_else(|| errors::rule_error(engine::RuleError::GameOver))
    }

    /// A seat of this game, given as the argument `seat`.
    fn seat(&self, value: &Bound<'_, PyAny>) -> PyResult<Seat> {
        let number: i128 = errors::int_arg_or(value, "seat", |m| errors::invalid("seat", m))?;
        u8::try_from(number)
            .ok()
            .filter(|&s| s < self.game.players())
            .ok_or_else(|| {
                errors::invalid(
                    "seat",
                    format!(
                        "there is no seat {number} in a game of {} players",
                        self.game.players()
                    ),
                )
            })
    }

    fn viewer(&self, seat: Option<&Bound<'_, PyAny>>) -> PyResult<Viewer> {
        match seat {
            Some(s) if !s.is_none() => self.seat(s).map(Viewer::Seat),
            _ => Ok(Viewer::Spectator),
        }
    }

    fn play(&mut self, seat: Seat, turn: &engine::Turn) -> PyResult<usize> {
        let events = self.game.apply(seat, turn).map_err(errors::rule_error)?;
        let from = self.log.len();
        self.log.extend(events);
        Ok(from)
    }

    fn status_value(&self) -> v1::GameStatus {
        if self.game.is_over() {
            v1::GameStatus::Finished
        } else {
            v1::GameStatus::Running
        }
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
    #[new]
    #[pyo3(signature = (players, seed, cities=None, rules_version=None))]
    fn new(
        players: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        cities: Option<&Bound<'_, PyAny>>,
        rules_version: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyGame> {
        let config_error = |field: &'static str| {
            move |message: String| {
                errors::config_wire_error(convert::WireError::new(field, message))
            }
        };
        let players: u8 = errors::int_arg_or(players, "players", config_error("players"))?;
        let seed: u64 = errors::int_arg_or(seed, "seed", config_error("seed"))?;
        let mut config = engine::GameConfig::new(players, seed);
        if let Some(cities) = cities.filter(|c| !c.is_none()) {
            let numbers = cities
                .try_iter()
                .map_err(|_| errors::wrong_type("cities", "cities must be a list of City numbers"))?
                .map(|item| errors::int_arg_or::<i32>(&item?, "cities", config_error("cities")))
                .collect::<PyResult<Vec<i32>>>()?;
            let cities = numbers
                .into_iter()
                .map(|c| convert::city_from_wire(c, "cities"))
                .collect::<Result<Vec<_>, _>>()
                .map_err(errors::config_wire_error)?;
            config = config.with_cities(cities);
        }
        if let Some(number) = rules_version.filter(|r| !r.is_none()) {
            let number: u32 =
                errors::int_arg_or(number, "rules_version", config_error("rules_version"))?;
            let rules = convert::rules_from_wire(number, "rules_version")
                .map_err(errors::config_wire_error)?;
            config = config.with_rules(rules);
        }
        let (game, log) = engine::Game::start(&config).map_err(errors::config_error)?;
        Ok(PyGame { game, log })
    }

    /// How many players (2 to 4).
    #[getter]
    fn players(&self) -> u8 {
        self.game.players()
    }

    /// The seed every shuffle comes from (for a determinized game, the sampled one).
    #[getter]
    fn seed(&self) -> u64 {
        self.game.setup().seed()
    }

    /// The cities in play, as ``theboss.v1.City`` numbers.
    #[getter]
    fn cities(&self) -> Vec<i32> {
        self.game
            .setup()
            .cities()
            .iter()
            .map(|&c| convert::city_to_wire(c) as i32)
            .collect()
    }

    /// The rules version the game is played under (``GameSettings.rules_version``).
    #[getter]
    fn rules_version(&self) -> u32 {
        self.game.setup().rules().number()
    }

    /// The round being played, from 1.
    #[getter]
    fn round(&self) -> u8 {
        self.game.round()
    }

    /// The turn within the round, 1 to 5.
    #[getter]
    fn turn(&self) -> u8 {
        self.game.turn()
    }

    /// The seat that started this round.
    #[getter]
    fn start_player(&self) -> Seat {
        self.game.start_player()
    }

    /// The seat to play; None once the game is over.
    #[getter]
    fn to_move(&self) -> Option<Seat> {
        self.game.to_move()
    }

    /// Whether the game is over (then ``outcome()`` says who won).
    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// The game's ``theboss.v1.GameStatus``: ``GAME_STATUS_RUNNING`` while it is played,
    /// ``GAME_STATUS_FINISHED`` once it is over (as its views' ``status`` say).
    #[getter]
    fn status(&self) -> i32 {
        self.status_value() as i32
    }

    /// Money (M$) by seat.
    fn money(&self) -> Vec<u32> {
        (0..self.game.players())
            .map(|s| self.game.player(s).money)
            .collect()
    }

    /// The ``theboss.v1.Outcome`` (winners and standings) once the game is over, else None.
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.game
            .outcome()
            .map(|o| OUTCOME.message(py, &convert::outcome_to_wire(o)))
            .transpose()
    }

    /// A seat's hand (``theboss.v1.Card``s). Offline, every hand may be read.
    fn hand<'py>(
        &self,
        py: Python<'py>,
        seat: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let seat = self.seat(seat)?;
        self.game
            .hand(seat)
            .iter()
            .map(|c| CARD.message(py, &convert::card_to_wire(*c)))
            .collect()
    }

    /// What a seat (None: a spectator) may know now: the ``theboss.v1.GameView`` the server
    /// streams to it, the same field for field but for the table's own fields, which a game
    /// offline does not have: ``game_id``, ``settings``, ``seq``, ``seed_commitment`` and
    /// ``seeded`` are left empty, as are each seat's ``player``, ``timeouts_in_a_row`` and
    /// ``forfeited`` and the legal turns' ``deadline``. ``status`` is ``GAME_STATUS_RUNNING``,
    /// then ``GAME_STATUS_FINISHED`` once the game is over.
    #[pyo3(signature = (seat=None))]
    fn view<'py>(
        &self,
        py: Python<'py>,
        seat: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let viewer = self.viewer(seat)?;
        let mut view = convert::view_to_wire(&self.game.view(viewer));
        view.status = self.status_value() as i32;
        GAME_VIEW.message(py, &view)
    }

    /// The legal turns of the seat to move (``theboss.v1.TurnAction``s); empty once over.
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

    /// The legal turns of the seat to move as action ids (see ``ACTION_COUNT``), ascending.
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

    /// Plays a turn (a ``theboss.v1.TurnAction``, or its encoding) for ``seat``, by default
    /// the seat to move, and returns the events it caused (``LoggedEvent``s). A broken rule
    /// raises ``RuleViolation`` and changes nothing.
    #[pyo3(signature = (turn, seat=None))]
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        turn: &Bound<'py, PyAny>,
        seat: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let action = messages::value::<v1::TurnAction>(turn, "turn", "theboss.v1.TurnAction")?;
        let turn = errors::engine_turn(&action)?;
        let seat = match seat {
            Some(s) if !s.is_none() => self.seat(s)?,
            _ => self.seat_to_move()?,
        };
        let from = self.play(seat, &turn)?;
        self.events_from(py, from)
    }

    /// Plays the ``index``-th legal turn of the seat to move (``0 <= index <
    /// legal_count()``): the playout loop's way, with nothing encoded.
    fn apply_index(&mut self, index: &Bound<'_, PyAny>) -> PyResult<()> {
        let seat = self.seat_to_move()?;
        let index: i128 = errors::int_arg(index, "index")?;
        let legal = self.game.legal_turns(seat);
        let count = legal.as_ref().map_or(0, |l| l.count());
        let turn = usize::try_from(index)
            .ok()
            .and_then(|i| legal.and_then(|l| l.nth(i)))
            .ok_or_else(|| {
                errors::invalid(
                    "index",
                    format!(
                        "no legal turn {index}: the seat to move has {count} (0 to {})",
                        count.saturating_sub(1)
                    ),
                )
            })?;
        self.play(seat, &turn).map(drop)
    }

    /// Plays the turn of an action id (see ``ACTION_COUNT``) for the seat to move.
    fn apply_action_id(&mut self, id: &Bound<'_, PyAny>) -> PyResult<()> {
        let seat = self.seat_to_move()?;
        let turn = action_turn(id)?;
        self.play(seat, &turn).map(drop)
    }

    /// How many events the game has logged since the deal.
    fn event_count(&self) -> usize {
        self.log.len()
    }

    /// The events logged since the deal, from index ``start`` on, each with the seat it is
    /// private to (``LoggedEvent(private_to, event)``, None: public). A determinized game's
    /// log starts empty.
    #[pyo3(signature = (start=None))]
    fn events<'py>(
        &self,
        py: Python<'py>,
        start: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let start: usize = match start {
            Some(s) if !s.is_none() => errors::int_arg(s, "start")?,
            _ => 0,
        };
        self.events_from(py, start.min(self.log.len()))
    }

    /// An independent copy (search bots try turns on copies).
    fn copy(&self) -> PyGame {
        self.clone()
    }

    /// An independent copy, for ``copy.copy``.
    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    /// An independent copy, for ``copy.deepcopy``.
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

/// The turn of an action id given as the argument `id`.
pub fn action_turn(id: &Bound<'_, PyAny>) -> PyResult<engine::Turn> {
    let number: i128 = errors::int_arg(id, "id")?;
    u32::try_from(number)
        .ok()
        .and_then(actions::turn_of)
        .ok_or_else(|| {
            errors::invalid(
                "id",
                format!(
                    "{number} is not an action id (0 to {})",
                    actions::ACTION_COUNT - 1
                ),
            )
        })
}
