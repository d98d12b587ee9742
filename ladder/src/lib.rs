//! # theboss-ladder
//!
//! The rules of The Boss's ladder, pure: no IO, no async, no protobuf, no SQL (`.ci/run`
//! checks its dependencies, as the engine's). The server runs them over its store and its
//! streams; here they are plain functions of plain values, unit-tested alone.
//!
//! - [`rating`]: Weng-Lin ratings per player count and overall, what a finished game or
//!   duplicate set rates, and the rules that keep ratings from being farmed.
//! - [`grouping`]: which waiting requests form a game or a duplicate set.
//! - [`challenge`] and [`tournament`]: games arranged for named players, their records and
//!   rules; [`schedule`]: a tournament's rounds; [`crosstable`]: its comparisons and standings.

pub mod challenge;
pub mod crosstable;
pub mod grouping;
pub mod rating;
pub mod schedule;
pub mod tournament;

/// A registered player, as the ladder (and the whole service) knows it: an id the service
/// made, the name others see, and what it says it is (a bot or a person).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerInfo {
    pub id: String,
    pub display_name: String,
    pub is_bot: bool,
}

/// One table of a duplicate set as it ended (or has not): who sat where and what they made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetTable {
    pub game_id: String,
    pub status: TableStatus,
    /// Player ids by seat.
    pub players: Vec<String>,
    /// Final money by seat (empty until finished).
    pub money: Vec<u32>,
    /// Whether each seat played a turn itself (not by its clock).
    pub acted: Vec<bool>,
}

/// Where a table of a set is: its game still waiting or being played, finished, or aborted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableStatus {
    Playing,
    Finished,
    Aborted,
}

impl TableStatus {
    /// The table ended, finished or not.
    pub fn is_over(self) -> bool {
        self != TableStatus::Playing
    }
}
