//! How the extension's failures become Python exceptions, and how its arguments are read.
//!
//! The exception classes live in Python (`theboss.errors`), so that engine and client errors
//! share one hierarchy and carry the same attributes (`reason`, `field`); this module raises
//! them. Arguments are read here too, so that a bad one is always the kit's own exception
//! (`InvalidArgument` and its subclasses for a value, `WrongType` for a type) and never a
//! Python built-in such as `OverflowError` or `IndexError`.

use prost::Message;
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use theboss::convert::{self, WireError};
use theboss::v1;
use theboss_engine as engine;

pyo3::import_exception!(theboss.errors, RuleViolation);
pyo3::import_exception!(theboss.errors, InvalidArgument);
pyo3::import_exception!(theboss.errors, InvalidConfig);
pyo3::import_exception!(theboss.errors, InvalidMessage);
pyo3::import_exception!(theboss.errors, InvalidNotation);
pyo3::import_exception!(theboss.errors, InvalidRecord);
pyo3::import_exception!(theboss.errors, InconsistentView);
pyo3::import_exception!(theboss.errors, WrongType);

/// Every exception of `theboss.errors` takes `(message, reason, field)`.
type Args = (String, Option<&'static str>, Option<String>);

fn args(message: impl Into<String>, reason: Option<&'static str>, field: Option<&str>) -> Args {
    (message.into(), reason, field.map(str::to_string))
}

/// A broken rule: `RuleViolation`, its `reason` the rule's name as the server's
/// `ErrorInfo.reason` gives it. A seat out of range is no rule but a bad argument, as the
/// server answers it (INVALID_ARGUMENT naming the field `seat`).
pub fn rule_error(error: engine::RuleError) -> PyErr {
    match error {
        engine::RuleError::NoSuchSeat { .. } => {
            InvalidArgument::new_err(args(error.to_string(), None, Some("seat")))
        }
        _ => RuleViolation::new_err(args(error.to_string(), Some(error.rule()), None)),
    }
}

/// The names `RuleViolation.reason` takes: every rule the engine enforces.
pub fn rule_names() -> Vec<&'static str> {
    use engine::{Card, City, Face, Location, RuleError};
    let card = Card::new(City::Detroit, Face::Money(3));
    let location = Location::Chicago;
    let every = [
        RuleError::GameOver,
        RuleError::NotYourTurn {
            seat: 0,
            to_move: 1,
        },
        RuleError::CardNotInHand { card },
        RuleError::EmptyPlacement,
        RuleError::CityNotInPlay { city: card.city },
        RuleError::Banished { city: card.city },
        RuleError::ChicagoTooEarly,
        RuleError::NotEnoughExperts {
            requested: 1,
            available: 0,
        },
        RuleError::NotEnoughOccasionals {
            requested: 1,
            available: 0,
        },
        RuleError::OccasionalsNeedExpert { location },
        RuleError::MustTakeLead {
            location,
            needed: 1,
            leader: 0,
            leader_count: 1,
            yours: 0,
        },
    ];
    // The list above must name every rule: this match stops compiling when the engine adds
    // one. (A seat out of range is no rule: see `rule_error`.)
    for error in &every {
        match error {
            RuleError::GameOver
            | RuleError::NoSuchSeat { .. }
            | RuleError::NotYourTurn { .. }
            | RuleError::CardNotInHand { .. }
            | RuleError::EmptyPlacement
            | RuleError::CityNotInPlay { .. }
            | RuleError::Banished { .. }
            | RuleError::ChicagoTooEarly
            | RuleError::NotEnoughExperts { .. }
            | RuleError::NotEnoughOccasionals { .. }
            | RuleError::OccasionalsNeedExpert { .. }
            | RuleError::MustTakeLead { .. } => {}
        }
    }
    every.iter().map(RuleError::rule).collect()
}

pub fn config_error(error: engine::ConfigError) -> PyErr {
    let field = match error {
        engine::ConfigError::PlayerCount { .. } => "players",
        engine::ConfigError::CitySet { .. } => "cities",
    };
    InvalidConfig::new_err(args(error.to_string(), None, Some(field)))
}

pub fn config_wire_error(error: WireError) -> PyErr {
    InvalidConfig::new_err(args(error.to_string(), None, Some(&error.field)))
}

/// A setting out of range, named by `field` (its message names it too).
pub fn invalid_config(field: &str, message: impl Into<String>) -> PyErr {
    InvalidConfig::new_err(args(message, None, Some(field)))
}

pub fn determinize_error(error: engine::DeterminizeError) -> PyErr {
    InconsistentView::new_err(args(error.to_string(), None, Some("view")))
}

pub fn notation_error(error: engine::notation::NotationError) -> PyErr {
    InvalidNotation::new_err(args(error.to_string(), None, Some("text")))
}

pub fn record_error(error: theboss::record::RecordError) -> PyErr {
    InvalidRecord::new_err(args(error.to_string(), None, None))
}

/// A value out of the range an argument takes.
pub fn invalid(field: &str, message: impl Into<String>) -> PyErr {
    InvalidArgument::new_err(args(message, None, Some(field)))
}

pub fn invalid_message(field: &str, message: impl Into<String>) -> PyErr {
    InvalidMessage::new_err(args(message, None, Some(field)))
}

pub fn wrong_type(field: &str, message: impl Into<String>) -> PyErr {
    WrongType::new_err(args(message, None, Some(field)))
}

/// Reads an integer argument (a Python `int`, or anything with `__index__`) of type `T`:
/// a value of another type is `WrongType`, one out of `T`'s range is `out_of_range`'s error.
pub fn int_arg_or<T: TryFrom<i128> + num_bounds::Bounds>(
    value: &Bound<'_, PyAny>,
    field: &str,
    out_of_range: impl Fn(String) -> PyErr,
) -> PyResult<T> {
    let range = || format!("{field} must be from {} to {}", T::MIN, T::MAX);
    match value.extract::<i128>() {
        Ok(number) => {
            T::try_from(number).map_err(|_| out_of_range(format!("{}, not {number}", range())))
        }
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => {
            Err(out_of_range(format!("{}, not {}", range(), value.repr()?)))
        }
        Err(e) if e.is_instance_of::<PyTypeError>(value.py()) => Err(wrong_type(
            field,
            format!("{field} must be an int, not {}", value.get_type().name()?),
        )),
        Err(e) => Err(e),
    }
}

/// An integer argument whose bad values are `InvalidArgument` naming it.
pub fn int_arg<T: TryFrom<i128> + num_bounds::Bounds>(
    value: &Bound<'_, PyAny>,
    field: &str,
) -> PyResult<T> {
    int_arg_or(value, field, |message| invalid(field, message))
}

/// A string argument.
pub fn str_arg(value: &Bound<'_, PyAny>, field: &str) -> PyResult<String> {
    value.extract::<String>().map_err(|_| {
        let kind = value
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        wrong_type(field, format!("{field} must be a str, not {kind}"))
    })
}

/// The bounds [`int_arg`] names in its messages.
pub mod num_bounds {
    pub trait Bounds: std::fmt::Display + Sized {
        const MIN: Self;
        const MAX: Self;
    }

    macro_rules! bounds {
        ($($t:ty),*) => {$(
            impl Bounds for $t {
                const MIN: $t = <$t>::MIN;
                const MAX: $t = <$t>::MAX;
            }
        )*};
    }

    bounds!(u8, u32, u64, usize, i32, i128);
}

/// Decodes a protobuf message, naming what it was for when it does not decode.
pub fn parse<M: Message + Default>(bytes: &[u8], field: &str, what: &str) -> PyResult<M> {
    M::decode(bytes).map_err(|e| invalid_message(field, format!("not an encoded {what}: {e}")))
}

pub fn engine_view(view: &v1::GameView) -> PyResult<engine::View> {
    convert::view_from_wire(view).map_err(|e| invalid_message(&e.field, e.to_string()))
}

pub fn engine_turn(turn: &v1::TurnAction) -> PyResult<engine::Turn> {
    convert::turn_from_wire(turn, "turn").map_err(|e| invalid_message(&e.field, e.to_string()))
}
