//! Names of cities, locations and card faces as the table shows them. They are the turn
//! notation's (`theboss_engine::notation`), so that what the table prints is what a player
//! types back; re-exported here for the renderer.

pub use theboss_engine::notation::{city_short, face_short, location_name};
