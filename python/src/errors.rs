//! How engine and decoding errors become Python exceptions.
//!
//! The exception classes live in Python (`theboss.errors`), so that engine and client errors
//! share one hierarchy and carry attributes (`RuleViolation.rule`); this module raises them.

use prost::Message;
use pyo3::prelude::*;
use theboss::convert::{self, WireError};
use theboss::v1;
use theboss_engine as engine;

pyo3::import_exception!(theboss.errors, RuleViolation);
pyo3::import_exception!(theboss.errors, InvalidConfig);
pyo3::import_exception!(theboss.errors, InvalidMessage);
pyo3::import_exception!(theboss.errors, InconsistentView);

/// A broken rule: `RuleViolation(message, rule)`, the rule named as the server's
/// `ErrorInfo.reason` names it.
pub fn rule_error(error: engine::RuleError) -> PyErr {
    RuleViolation::new_err((error.to_string(), error.rule()))
}

pub fn config_error(error: engine::ConfigError) -> PyErr {
    InvalidConfig::new_err(error.to_string())
}

pub fn config_wire_error(error: WireError) -> PyErr {
    InvalidConfig::new_err(error.to_string())
}

pub fn determinize_error(error: engine::DeterminizeError) -> PyErr {
    InconsistentView::new_err(error.to_string())
}

pub fn invalid(message: impl Into<String>) -> PyErr {
    InvalidMessage::new_err(message.into())
}

/// Decodes a protobuf message, naming what it was for when it does not decode.
pub fn parse<M: Message + Default>(bytes: &[u8], what: &str) -> PyResult<M> {
    M::decode(bytes).map_err(|e| invalid(format!("not an encoded {what}: {e}")))
}

pub fn engine_view(view: &v1::GameView) -> PyResult<engine::View> {
    convert::view_from_wire(view).map_err(|e| invalid(e.to_string()))
}

pub fn engine_turn(turn: &v1::TurnAction) -> PyResult<engine::Turn> {
    convert::turn_from_wire(turn, "turn").map_err(|e| invalid(e.to_string()))
}
