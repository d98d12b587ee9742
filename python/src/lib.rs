//! `theboss._engine`: the rules engine (`theboss-engine`) for Python, through PyO3.
//!
//! Nothing here decides a rule: every call goes to the engine, and every value crosses into
//! Python as the same protobuf message the server sends (built by `theboss::convert`, the
//! one place engine and wire types meet, then decoded into the `theboss` package's generated
//! classes). So a bot reads one observation type offline and online.
//!
//! The Python package re-exports this module as `theboss.engine`; its stubs are
//! `python/src/theboss/_engine.pyi`. Every argument is read through `errors`, so that a bad
//! one is always an exception of `theboss.errors`.

mod actions;
mod errors;
mod game;
mod messages;
mod record;

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
fn determinize(view: &Bound<'_, PyAny>, seed: &Bound<'_, PyAny>) -> PyResult<PyGame> {
    let view = game_view(view)?;
    let seed: u64 = errors::int_arg(seed, "seed")?;
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
    let view = game_view(view)?;
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
fn city_sets(players: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<i32>>> {
    let players: u8 =
        errors::int_arg_or(players, "players", |m| errors::invalid_config("players", m))?;
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
    let view = game_view(view)?;
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
    let turn = turn_action(turn)?;
    actions::id_of(&turn)
        .ok_or_else(|| errors::invalid("turn", "more gangsters than a player has, so no action id"))
}

/// The `TurnAction` of an action id.
#[pyfunction]
fn action_of_id<'py>(py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let turn = game::action_turn(id)?;
    TURN_ACTION.message(py, &convert::turn_to_wire(&turn))
}

/// A turn in the CLI's notation: `place boston 2e 1o; play detroit 3`, or
/// `play kansas city revolver` without a placement. `parse_turn` reads it back.
#[pyfunction]
fn turn_text(turn: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(engine::notation::turn_text(&turn_action(turn)?))
}

/// A `TurnAction` from the notation people type (`place bos 2e 1o; play det 3`: names may be
/// abbreviated when unambiguous). With a view (a `GameView`), the turn is checked against
/// its legal set and the game's locations, with the reason in words; without one, only the
/// grammar and the names. A text that is not a turn raises `InvalidNotation`.
#[pyfunction]
#[pyo3(signature = (text, view=None))]
fn parse_turn<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    view: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let text = errors::str_arg(text, "text")?;
    let view = view.filter(|v| !v.is_none()).map(game_view).transpose()?;
    let turn =
        engine::notation::parse_turn(&text, view.as_ref()).map_err(errors::notation_error)?;
    TURN_ACTION.message(py, &convert::turn_to_wire(&turn))
}

/// A location's name as the notation writes it (`New York`, `Chicago`), from its
/// `Location` (or `City`) number.
#[pyfunction]
fn location_name(location: &Bound<'_, PyAny>) -> PyResult<String> {
    let number: i32 = errors::int_arg(location, "location")?;
    let location = convert::location_from_wire(number, "location")
        .map_err(|e| errors::invalid("location", e.to_string()))?;
    Ok(engine::notation::location_name(location))
}

/// A card as the notation writes it (`Detroit 3`, `Kansas City revolver`).
#[pyfunction]
fn card_text(card: &Bound<'_, PyAny>) -> PyResult<String> {
    let card = messages::value::<v1::Card>(card, "card", "theboss.v1.Card")?;
    let card = convert::card_from_wire(&card, "card")
        .map_err(|e| errors::invalid_message(&e.field, e.to_string()))?;
    Ok(format!(
        "{} {}",
        card.city.name(),
        engine::notation::face_word(card.face)
    ))
}

/// The commitment a view shows for a seed and salt (`GameView.seed_commitment`): once a
/// game's history reveals them, equal commitments prove the shuffle was fixed in advance.
#[pyfunction]
fn seed_commitment(seed: &Bound<'_, PyAny>, salt: &Bound<'_, PyAny>) -> PyResult<String> {
    let seed: u64 = errors::int_arg(seed, "seed")?;
    let salt = errors::str_arg(salt, "salt")?;
    Ok(theboss::fairness::seed_commitment(seed, &salt))
}

/// Plays `games` complete games of `players` in Rust, each turn drawn uniformly among the
/// legal ones (the loop of the engine's criterion benchmark), and returns the seconds it
/// took: the yardstick beside which `python/benchmarks/playout.py` times the same loop
/// written in Python over this module.
#[pyfunction]
fn bench_random_games(
    py: Python<'_>,
    players: &Bound<'_, PyAny>,
    games: &Bound<'_, PyAny>,
    seed: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    let players: u8 = errors::int_arg(players, "players")?;
    let games: u32 = errors::int_arg(games, "games")?;
    let seed: u64 = errors::int_arg(seed, "seed")?;
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

fn game_view(view: &Bound<'_, PyAny>) -> PyResult<engine::View> {
    errors::engine_view(&messages::value(view, "view", "theboss.v1.GameView")?)
}

fn turn_action(turn: &Bound<'_, PyAny>) -> PyResult<engine::Turn> {
    errors::engine_turn(&messages::value::<v1::TurnAction>(
        turn,
        "turn",
        "theboss.v1.TurnAction",
    )?)
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
    m.add_function(wrap_pyfunction!(turn_text, m)?)?;
    m.add_function(wrap_pyfunction!(parse_turn, m)?)?;
    m.add_function(wrap_pyfunction!(location_name, m)?)?;
    m.add_function(wrap_pyfunction!(card_text, m)?)?;
    m.add_function(wrap_pyfunction!(record::record_turns, m)?)?;
    m.add_function(wrap_pyfunction!(record::replay_record, m)?)?;
    m.add("RULE_NAMES", errors::rule_names())?;
    m.add("ACTION_COUNT", actions::ACTION_COUNT)?;
    m.add("RULES_VERSION", engine::RulesVersion::LATEST.number())?;
    m.add("NOTATION", engine::notation::GRAMMAR)?;
    m.add("TURNS_PER_ROUND", engine::rules::TURNS_PER_ROUND)?;
    // Each round reveals one police card and the deck is never reshuffled, so the badges
    // end the game by the time it is spent; one decisive round may follow.
    m.add("MAX_ROUNDS", engine::POLICE_DECK.len() + 1)?;
    m.add("EXPERTS_PER_PLAYER", engine::rules::EXPERTS_PER_PLAYER)?;
    m.add(
        "OCCASIONALS_PER_PLAYER",
        engine::rules::OCCASIONALS_PER_PLAYER,
    )?;
    Ok(())
}
