//! Messages across the boundary: prost values become instances of the `theboss` package's
//! generated protobuf classes (decoded from their encoding), and Python messages (or their
//! encoding as `bytes`) become prost values, checked by their full name.

use prost::Message;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyType};

use crate::errors;

/// A Python class, imported once.
pub struct Class {
    cell: PyOnceLock<Py<PyType>>,
    module: &'static str,
    name: &'static str,
}

impl Class {
    const fn new(module: &'static str, name: &'static str) -> Class {
        Class {
            cell: PyOnceLock::new(),
            module,
            name,
        }
    }

    pub fn get<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyType>> {
        self.cell.import(py, self.module, self.name)
    }

    /// The Python message of a prost value (the class must be its message type).
    pub fn message<'py>(
        &self,
        py: Python<'py>,
        value: &impl Message,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bytes = PyBytes::new(py, &value.encode_to_vec());
        self.get(py)?
            .call_method1(intern!(py, "FromString"), (bytes,))
    }
}

const MODEL: &str = "theboss.v1.model_pb2";
pub static GAME_VIEW: Class = Class::new(MODEL, "GameView");
pub static GAME_EVENT: Class = Class::new(MODEL, "GameEvent");
pub static TURN_ACTION: Class = Class::new(MODEL, "TurnAction");
pub static OUTCOME: Class = Class::new(MODEL, "Outcome");
pub static CARD: Class = Class::new(MODEL, "Card");
/// `theboss.engine.LoggedEvent(private_to, event)`.
pub static LOGGED_EVENT: Class = Class::new("theboss._types", "LoggedEvent");
/// `theboss.engine.CityOdds(city, candidates, expected)`.
pub static CITY_ODDS: Class = Class::new("theboss._types", "CityOdds");

/// A Python message of type `full_name` (e.g. `theboss.v1.TurnAction`), or its encoding,
/// given as the argument `field`. Any other object is `WrongType`.
pub fn value<M: Message + Default>(
    object: &Bound<'_, PyAny>,
    field: &str,
    full_name: &str,
) -> PyResult<M> {
    let py = object.py();
    if let Ok(bytes) = object.cast::<PyBytes>() {
        return errors::parse(bytes.as_bytes(), field, full_name);
    }
    let name = object
        .getattr(intern!(py, "DESCRIPTOR"))
        .and_then(|d| d.getattr(intern!(py, "full_name")))
        .and_then(|n| n.extract::<String>())
        .ok();
    if name.as_deref() != Some(full_name) {
        return Err(errors::wrong_type(
            field,
            format!(
                "{field}: expected a {full_name} message (or its encoding as bytes), not {}",
                object.get_type().name()?
            ),
        ));
    }
    let encoded = object.call_method0(intern!(py, "SerializeToString"))?;
    errors::parse(encoded.cast::<PyBytes>()?.as_bytes(), field, full_name)
}
