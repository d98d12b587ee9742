//! The stored form of the action log, written out here, field by field, and versioned, so
//! that no change to a Rust type elsewhere (a renamed field, a new derive) can change what
//! is written or make a stored game unreadable.
//!
//! Each row of `actions` carries its format number. Format 1 is the JSON the server has
//! written from the start; a change of format gets a new number and a new module here, and
//! every format ever written stays readable. `server/tests/golden/` pins them: games stored
//! by earlier versions of the server must load and replay to the same outcome forever.

use theboss_engine::{Card, City, Face, Location, Placement, Sanction, Turn};

use crate::domain::PlayerInfo;
use crate::table::Action;

/// The newest format: rows are written in the oldest format that holds their action, so
/// that a server one version older still reads every game nobody resigned.
pub const CURRENT: i16 = 2;

/// A stored action: its format number and its payload.
pub fn encode(action: &Action) -> (i16, String) {
    let stored = v1::Action::from(action);
    let format = if matches!(action, Action::Resign { .. }) {
        2
    } else {
        1
    };
    (
        format,
        serde_json::to_string(&stored).expect("stored actions serialize"),
    )
}

/// An action from its stored form, or why it cannot be read.
pub fn decode(format: i16, payload: &str) -> Result<Action, String> {
    match format {
        1 | 2 => {
            let stored: v1::Action = serde_json::from_str(payload).map_err(|e| e.to_string())?;
            if format == 1 && matches!(stored, v1::Action::Resign { .. }) {
                return Err("a resignation is not an action of format 1".into());
            }
            Action::try_from(stored)
        }
        other => Err(format!(
            "format {other} is unknown to this version of the server (it reads 1 to {CURRENT})"
        )),
    }
}

/// Format 1: externally tagged JSON, snake_case names, e.g.
/// `{"turn":{"seat":1,"turn":{"placement":{"location":{"city":"boston"},"experts":2,
/// "occasionals":0},"card":{"city":"detroit","face":{"money":3}}},"by_timeout":false}}`.
/// Frozen: field order and names are the format.
///
/// Format 2: format 1 and one more action, a resignation: `{"resign":{"seat":1}}`.
mod v1 {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Action {
        Join {
            seat: u8,
            player: Player,
        },
        Leave {
            seat: u8,
        },
        /// Format 2 only.
        Resign {
            seat: u8,
        },
        Turn {
            seat: u8,
            turn: Turn,
            #[serde(default)]
            by_timeout: bool,
        },
        Abort {
            reason: String,
        },
    }

    #[derive(Serialize, Deserialize)]
    pub struct Player {
        pub id: String,
        pub display_name: String,
        pub is_bot: bool,
    }

    #[derive(Serialize, Deserialize)]
    pub struct Turn {
        pub placement: Option<Placement>,
        pub card: Card,
    }

    #[derive(Serialize, Deserialize)]
    pub struct Placement {
        pub location: Location,
        pub experts: u8,
        pub occasionals: u8,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Location {
        City(City),
        Chicago,
    }

    #[derive(Serialize, Deserialize, Clone, Copy)]
    #[serde(rename_all = "snake_case")]
    // The names are the format ("kansas_city").
    #[allow(clippy::enum_variant_names)]
    pub enum City {
        NewYork,
        Boston,
        Detroit,
        KansasCity,
        Cincinnati,
        Memphis,
        Philadelphia,
    }

    #[derive(Serialize, Deserialize)]
    pub struct Card {
        pub city: City,
        pub face: Face,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Face {
        Money(u8),
        Sanction(Sanction),
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Sanction {
        Revolver,
        Prison,
        Hospital,
        Banished,
    }
}

impl From<City> for v1::City {
    fn from(city: City) -> v1::City {
        match city {
            City::NewYork => v1::City::NewYork,
            City::Boston => v1::City::Boston,
            City::Detroit => v1::City::Detroit,
            City::KansasCity => v1::City::KansasCity,
            City::Cincinnati => v1::City::Cincinnati,
            City::Memphis => v1::City::Memphis,
            City::Philadelphia => v1::City::Philadelphia,
        }
    }
}

impl From<v1::City> for City {
    fn from(city: v1::City) -> City {
        match city {
            v1::City::NewYork => City::NewYork,
            v1::City::Boston => City::Boston,
            v1::City::Detroit => City::Detroit,
            v1::City::KansasCity => City::KansasCity,
            v1::City::Cincinnati => City::Cincinnati,
            v1::City::Memphis => City::Memphis,
            v1::City::Philadelphia => City::Philadelphia,
        }
    }
}

impl From<&Turn> for v1::Turn {
    fn from(turn: &Turn) -> v1::Turn {
        v1::Turn {
            placement: turn.placement.map(|p| v1::Placement {
                location: match p.location {
                    Location::City(city) => v1::Location::City(city.into()),
                    Location::Chicago => v1::Location::Chicago,
                },
                experts: p.experts,
                occasionals: p.occasionals,
            }),
            card: v1::Card {
                city: turn.card.city.into(),
                face: match turn.card.face {
                    Face::Money(value) => v1::Face::Money(value),
                    Face::Sanction(s) => v1::Face::Sanction(match s {
                        Sanction::Revolver => v1::Sanction::Revolver,
                        Sanction::Prison => v1::Sanction::Prison,
                        Sanction::Hospital => v1::Sanction::Hospital,
                        Sanction::Banished => v1::Sanction::Banished,
                    }),
                },
            },
        }
    }
}

impl TryFrom<v1::Turn> for Turn {
    type Error = String;

    fn try_from(turn: v1::Turn) -> Result<Turn, String> {
        let card = Card::new(
            turn.card.city.into(),
            match turn.card.face {
                v1::Face::Money(value) => Face::Money(value),
                v1::Face::Sanction(s) => Face::Sanction(match s {
                    v1::Sanction::Revolver => Sanction::Revolver,
                    v1::Sanction::Prison => Sanction::Prison,
                    v1::Sanction::Hospital => Sanction::Hospital,
                    v1::Sanction::Banished => Sanction::Banished,
                }),
            },
        );
        if !card.exists() {
            return Err(format!("there is no card {card}"));
        }
        let placement = turn.placement.map(|p| Placement {
            location: match p.location {
                v1::Location::City(city) => Location::City(city.into()),
                v1::Location::Chicago => Location::Chicago,
            },
            experts: p.experts,
            occasionals: p.occasionals,
        });
        Ok(Turn { placement, card })
    }
}

impl From<&Action> for v1::Action {
    fn from(action: &Action) -> v1::Action {
        match action {
            Action::Join { seat, player } => v1::Action::Join {
                seat: *seat,
                player: v1::Player {
                    id: player.id.clone(),
                    display_name: player.display_name.clone(),
                    is_bot: player.is_bot,
                },
            },
            Action::Leave { seat } => v1::Action::Leave { seat: *seat },
            Action::Resign { seat } => v1::Action::Resign { seat: *seat },
            Action::Turn {
                seat,
                turn,
                by_timeout,
            } => v1::Action::Turn {
                seat: *seat,
                turn: turn.into(),
                by_timeout: *by_timeout,
            },
            Action::Abort { reason } => v1::Action::Abort {
                reason: reason.clone(),
            },
        }
    }
}

impl TryFrom<v1::Action> for Action {
    type Error = String;

    fn try_from(action: v1::Action) -> Result<Action, String> {
        Ok(match action {
            v1::Action::Join { seat, player } => Action::Join {
                seat,
                player: PlayerInfo {
                    id: player.id,
                    display_name: player.display_name,
                    is_bot: player.is_bot,
                },
            },
            v1::Action::Leave { seat } => Action::Leave { seat },
            v1::Action::Resign { seat } => Action::Resign { seat },
            v1::Action::Turn {
                seat,
                turn,
                by_timeout,
            } => Action::Turn {
                seat,
                turn: turn.try_into()?,
                by_timeout,
            },
            v1::Action::Abort { reason } => Action::Abort { reason },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows as format 1 wrote them (taken from `server/tests/golden/v1/theboss.db`).
    const FORMAT_1: [&str; 7] = [
        r#"{"join":{"seat":2,"player":{"id":"p-1","display_name":"Open A","is_bot":false}}}"#,
        r#"{"leave":{"seat":2}}"#,
        r#"{"turn":{"seat":1,"turn":{"placement":null,"card":{"city":"boston","face":{"sanction":"prison"}}},"by_timeout":false}}"#,
        r#"{"turn":{"seat":1,"turn":{"placement":{"location":"chicago","experts":1,"occasionals":1},"card":{"city":"new_york","face":{"money":0}}},"by_timeout":false}}"#,
        r#"{"turn":{"seat":0,"turn":{"placement":{"location":{"city":"kansas_city"},"experts":2,"occasionals":0},"card":{"city":"philadelphia","face":{"sanction":"revolver"}}},"by_timeout":true}}"#,
        r#"{"abort":{"reason":"nobody is playing: every seat forfeited"}}"#,
        r#"{"turn":{"seat":3,"turn":{"placement":null,"card":{"city":"memphis","face":{"sanction":"hospital"}}},"by_timeout":false}}"#,
    ];

    #[test]
    fn format_1_reads_and_writes_byte_for_byte() {
        for payload in FORMAT_1 {
            let action = decode(1, payload).unwrap_or_else(|e| panic!("{payload}: {e}"));
            assert_eq!(encode(&action), (1, payload.to_string()));
        }
        let Action::Turn {
            seat,
            turn,
            by_timeout,
        } = decode(1, FORMAT_1[4]).unwrap()
        else {
            panic!("a turn");
        };
        assert_eq!(seat, 0);
        assert!(by_timeout);
        assert_eq!(
            turn,
            Turn::place_and_play(
                Placement::new(City::KansasCity, 2, 0),
                Card::new(City::Philadelphia, Face::Sanction(Sanction::Revolver))
            )
        );
    }

    #[test]
    fn format_1_rows_written_before_by_timeout_existed_read_as_not_timed_out() {
        let old = r#"{"turn":{"seat":0,"turn":{"placement":null,"card":{"city":"detroit","face":{"money":4}}}}}"#;
        assert!(matches!(
            decode(1, old),
            Ok(Action::Turn {
                by_timeout: false,
                ..
            })
        ));
    }

    #[test]
    fn unreadable_rows_say_why() {
        assert!(decode(1, r#"{"turn":{"seat":0}}"#).is_err());
        let no_such_card = r#"{"turn":{"seat":0,"turn":{"placement":null,"card":{"city":"new_york","face":{"money":9}}},"by_timeout":false}}"#;
        assert!(decode(1, no_such_card).unwrap_err().contains("no card"));
        assert!(decode(3, FORMAT_1[1]).unwrap_err().contains("unknown"));
    }

    #[test]
    fn a_resignation_is_format_2_and_every_other_action_stays_format_1() {
        let resign = Action::Resign { seat: 3 };
        let (format, payload) = encode(&resign);
        assert_eq!((format, payload.as_str()), (2, r#"{"resign":{"seat":3}}"#));
        assert_eq!(decode(2, &payload), Ok(resign));
        assert!(decode(1, &payload).unwrap_err().contains("format 1"));
        // Format 2 reads format 1's actions too.
        for payload in FORMAT_1 {
            assert_eq!(decode(2, payload), decode(1, payload));
        }
    }
}
