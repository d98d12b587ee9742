//! `theboss._engine`: the rules engine (`theboss-engine`) for Python, through PyO3.
//!
//! Nothing here decides a rule: every call goes to the engine, and every value crosses into
//! Python as the same protobuf message the server sends (built by `theboss::convert`, the
//! one place engine and wire types meet, then decoded into the `theboss` package's generated
//! classes). So a bot reads one observation type offline and online.
//!
//! The Python package re-exports this module as `theboss.engine`; its stubs are
//! `python/theboss/_engine.pyi`.

mod actions;
mod errors;
mod game;
mod messages;

use pyo3::prelude::*;
use theboss::convert;
use theboss::v1;
use theboss_engine as engine;

use crate::game::PyGame;
use crate::messages::{CARD, CITY_ODDS, TURN_ACTION};

/// A whole game consistent with a seat's view (a `GameView`): what the view shows is kept,
/// what it hides (other hands' faces, face-down cards, the police order, the seed) is drawn
/// with `seed`. The same view and seed always give the same game.
#[pyfunction]
fn determinize(view: &Bound<'_, PyAny>, seed: u64) -> PyResult<PyGame> {
    let view = errors::engine_view(&messages::value(view, "theboss.v1.GameView")?)?;
    let mut rng = engine::GameRng::from_seed(seed);
    let game = engine::Game::determinize(&view, &mut rng).map_err(errors::determinize_error)?;
    Ok(PyGame::from_game(game))
}

/// What each face-down card can be, from a view (a `GameView`): for every city with a
/// face-down card, left to right, a `CityOdds(city, [(Card, probability)], expected money)`.
#[pyfunction]
fn face_down_odds<'py>(
    py: Python<'py>,
    view: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let view = errors::engine_view(&messages::value(view, "theboss.v1.GameView")?)?;
    engine::face_down_odds(&view)
        .iter()
        .map(|odds| {
            let candidates = odds
                .candidates
                .iter()
                .map(|(card, p)| Ok((CARD.message(py, &convert::card_to_wire(*card))?, *p)))
                .collect::<PyResult<Vec<_>>>()?;
            CITY_ODDS.get(py)?.call1((
                convert::city_to_wire(odds.city) as i32,
                candidates,
                odds.expected_money(),
            ))
        })
        .collect()
}

/// Every card of the game, each once, in the order action ids use.
#[pyfunction]
fn deck(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyAny>>> {
    actions::CARDS
        .iter()
        .map(|card| CARD.message(py, &convert::card_to_wire(*card)))
        .collect()
}

/// The rules versions this engine plays, oldest first (the numbers of `GameSettings`).
#[pyfunction]
fn rules_versions() -> Vec<u32> {
    engine::RulesVersion::ALL
        .iter()
        .map(|v| v.number())
        .collect()
}

/// The city sets a game of `players` may use (lists of `City` numbers): the rulebook's
/// default first, then its optional sets.
#[pyfunction]
fn city_sets(players: u8) -> PyResult<Vec<Vec<i32>>> {
    let default = engine::rules::default_cities(players)
        .ok_or_else(|| errors::config_error(engine::ConfigError::PlayerCount { players }))?;
    let mut sets = vec![
        default
            .iter()
            .map(|&c| convert::city_to_wire(c) as i32)
            .collect(),
    ];
    sets.extend(
        engine::rules::optional_city_sets(players)
            .iter()
            .map(|set| set.iter().map(|&n| i32::from(n)).collect()),
    );
    Ok(sets)
}

/// Every legal turn a view offers (its `legal`, expanded by the engine): no placement or
/// each allowed placement, with each card. Empty when it is not the viewer's turn.
#[pyfunction]
fn view_turns<'py>(py: Python<'py>, view: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let view = errors::engine_view(&messages::value(view, "theboss.v1.GameView")?)?;
    let Some(legal) = view.legal else {
        return Ok(Vec::new());
    };
    (0..legal.count())
        .filter_map(|i| legal.nth(i))
        .map(|turn| TURN_ACTION.message(py, &convert::turn_to_wire(&turn)))
        .collect()
}

/// The action id of a `TurnAction` (see `ACTION_COUNT`).
#[pyfunction]
fn action_id(turn: &Bound<'_, PyAny>) -> PyResult<u32> {
    let turn = errors::engine_turn(&messages::value::<v1::TurnAction>(
        turn,
        "theboss.v1.TurnAction",
    )?)?;
    actions::id_of(&turn)
        .ok_or_else(|| errors::invalid("turn: more gangsters than a player has, so no action id"))
}

/// The `TurnAction` of an action id.
#[pyfunction]
fn action_of_id(py: Python<'_>, id: u32) -> PyResult<Bound<'_, PyAny>> {
    let turn =
        actions::turn_of(id).ok_or_else(|| errors::invalid(format!("{id} is not an action id")))?;
    TURN_ACTION.message(py, &convert::turn_to_wire(&turn))
}

/// The commitment a view shows for a seed and salt (`GameView.seed_commitment`): once a
/// game's history reveals them, equal commitments prove the shuffle was fixed in advance.
#[pyfunction]
fn seed_commitment(seed: u64, salt: &str) -> String {
    theboss::fairness::seed_commitment(seed, salt)
}

/// Plays `games` complete games of `players` in Rust, each turn drawn uniformly among the
/// legal ones (the loop of the engine's criterion benchmark), and returns the seconds it
/// took: the yardstick beside which `python/benchmarks/playout.py` times the same loop
/// written in Python over this module.
#[pyfunction]
fn bench_random_games(py: Python<'_>, players: u8, games: u32, seed: u64) -> PyResult<f64> {
    let config = engine::GameConfig::new(players, seed);
    config.validate().map_err(errors::config_error)?;
    Ok(py.detach(|| {
        let started = std::time::Instant::now();
        for i in 0..u64::from(games) {
            let mut game = engine::Game::new(&engine::GameConfig::new(players, seed + i))
                .expect("validated above");
            let mut rng = engine::GameRng::from_seed(!(seed + i));
            while let Some(seat) = game.to_move() {
                let legal = game.legal_turns(seat).expect("the seat to move");
                let turn = legal
                    .nth(rng.below(legal.count() as u32) as usize)
                    .expect("an index below the count");
                game.apply(seat, &turn).expect("a legal turn");
            }
            std::hint::black_box(&game);
        }
        started.elapsed().as_secs_f64()
    }))
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGame>()?;
    m.add_function(wrap_pyfunction!(determinize, m)?)?;
    m.add_function(wrap_pyfunction!(face_down_odds, m)?)?;
    m.add_function(wrap_pyfunction!(deck, m)?)?;
    m.add_function(wrap_pyfunction!(rules_versions, m)?)?;
    m.add_function(wrap_pyfunction!(city_sets, m)?)?;
    m.add_function(wrap_pyfunction!(view_turns, m)?)?;
    m.add_function(wrap_pyfunction!(action_id, m)?)?;
    m.add_function(wrap_pyfunction!(action_of_id, m)?)?;
    m.add_function(wrap_pyfunction!(seed_commitment, m)?)?;
    m.add_function(wrap_pyfunction!(bench_random_games, m)?)?;
    m.add("ACTION_COUNT", actions::ACTION_COUNT)?;
    m.add("RULES_VERSION", engine::RulesVersion::LATEST.number())?;
    m.add("EXPERTS_PER_PLAYER", engine::rules::EXPERTS_PER_PLAYER)?;
    m.add(
        "OCCASIONALS_PER_PLAYER",
        engine::rules::OCCASIONALS_PER_PLAYER,
    )?;
    Ok(())
}
