//! Game records (`docs/game-record.schema.json`) for Python: read through the workspace's own
//! reader (`theboss::record`), so the format is parsed once, in Rust, and replayed by the
//! engine with the record's checks (its outcome, its seed against the commitment).
//! `theboss/record.py` wraps these functions in the `GameRecord` class.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use theboss::convert;
use theboss::fairness::Verdict;
use theboss::record::GameRecord;
use theboss_engine as engine;

use crate::errors;
use crate::game::PyGame;
use crate::messages::TURN_ACTION;

fn read(json: &Bound<'_, PyAny>) -> PyResult<GameRecord> {
    let text = errors::str_arg(json, "record")?;
    GameRecord::from_json(&text).map_err(errors::record_error)
}

fn turn_of(record: &theboss::record::TurnRecord) -> PyResult<engine::Turn> {
    Ok(engine::Turn {
        placement: record.placement.map(|p| {
            engine::Placement::new(engine::Location::from(p.location), p.experts, p.occasionals)
        }),
        card: record.card.card().map_err(errors::record_error)?,
    })
}

/// What the Python `GameRecord` is built from: the settings as wire numbers (`players`,
/// `seed`, `cities` as City numbers, `rules_version`) and the turns as
/// `(seq, at, seat, round, turn, TurnAction, by_timeout)`; the rest of the document is read
/// as JSON.
#[pyfunction]
pub fn record_turns<'py>(
    py: Python<'py>,
    json: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let record = read(json)?;
    let seed: u64 = record.seed.parse().map_err(|_| {
        errors::record_error(theboss::record::RecordError::Invalid(format!(
            "seed {:?}",
            record.seed
        )))
    })?;
    let out = PyDict::new(py);
    out.set_item("players", record.players)?;
    out.set_item("seed", seed)?;
    out.set_item("rules_version", record.rules_version)?;
    let cities: Vec<i32> = record
        .cities
        .iter()
        .map(|&c| convert::city_to_wire(engine::City::from(c)) as i32)
        .collect();
    out.set_item("cities", cities)?;
    let turns = record
        .turns
        .iter()
        .map(|t| {
            let action = TURN_ACTION.message(py, &convert::turn_to_wire(&turn_of(t)?))?;
            Ok((
                t.seq,
                t.at.clone(),
                t.seat,
                t.round,
                t.turn,
                action,
                t.by_timeout,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("turns", turns)?;
    Ok(out)
}

/// Replays a record with the engine: its turns from its seed, checked to end as recorded.
/// Returns the game (with every event in its log) and what the revealed seed says of the
/// deal: `"verified"` (it hashes to the commitment the views showed), `"unavailable"` (the
/// record has no commitment: a game from before they existed) or `"mismatch"`.
#[pyfunction]
pub fn replay_record(json: &Bound<'_, PyAny>) -> PyResult<(PyGame, &'static str)> {
    let record = read(json)?;
    let replayed = record.replay().map_err(errors::record_error)?;
    // The check above rebuilt the game without its log: play the turns again for it.
    let config = replayed.game.setup().config();
    let (mut game, mut log) = engine::Game::start(&config).map_err(errors::config_error)?;
    for t in &record.turns {
        log.extend(
            game.apply(t.seat, &turn_of(t)?)
                .map_err(errors::rule_error)?,
        );
    }
    let shuffle = match replayed.shuffle {
        Verdict::Verified => "verified",
        Verdict::Unavailable => "unavailable",
        Verdict::Mismatch { .. } => "mismatch",
    };
    Ok((PyGame::from_parts(game, log), shuffle))
}
