//! Game records: one documented JSON format for a finished game, for bot authors to keep,
//! replay and train on. `docs/game-record.schema.json` is its JSON Schema; [`GameRecord`] is
//! the same format in Rust, [`GameRecord::from_wire`] builds one from what the service sends
//! (a game's summary and its `GetHistory`), and [`GameRecord::replay`] rebuilds the game with
//! the engine, checking that its turns replay to the recorded outcome and that the revealed
//! seed is the one the game committed to.
//!
//! A record names cities, locations, sanctions and police cards in lowercase words
//! (`"kansas_city"`, `"chicago"`, `"prison"`, `"double"`), times in RFC 3339 (UTC), and the
//! seed as a decimal string (a 64-bit seed does not fit a JSON number exactly). `format` and
//! `version` say which format a document is; readers should ignore fields they do not know,
//! so that later versions can add some.

use serde::{Deserialize, Serialize};
use theboss_engine as engine;

use crate::convert::{self, WireError};
use crate::fairness::{self, Verdict};
use crate::v1;

/// The `format` of every game record.
pub const FORMAT: &str = "theboss-game-record";
/// The version of the format this crate writes.
pub const VERSION: u32 = 1;
/// The JSON Schema of the format.
pub const SCHEMA: &str = include_str!("../docs/game-record.schema.json");

/// Why a record could not be made or replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("not a game record: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a game record of this format: format {format:?}, version {version}")]
    Format { format: String, version: u32 },
    #[error("{0}")]
    Wire(#[from] WireError),
    #[error("the game is not over, or its seed is not revealed yet")]
    NotOver,
    #[error("invalid record: {0}")]
    Invalid(String),
    #[error("turn {index} does not replay: {error}")]
    Illegal {
        index: usize,
        error: engine::RuleError,
    },
    #[error("the turns replay to {found}, but the record says {recorded}")]
    Outcome { recorded: String, found: String },
}

/// One finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format's version: [`VERSION`].
    pub version: u32,
    pub game_id: String,
    /// The rules the game was played under (`GameSettings.rules_version`).
    pub rules_version: u32,
    pub players: u8,
    /// The cities in play, in number order.
    pub cities: Vec<CityName>,
    /// Seconds a seat had for each turn; 0: no limit.
    pub turn_time_limit_seconds: u32,
    /// Created by the ladder's matchmaker.
    pub ladder: bool,
    /// The creator chose the seed.
    pub seeded: bool,
    /// A table of a duplicate set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<SeriesRecord>,
    /// Who sat where.
    pub seats: Vec<SeatRecord>,
    pub created_at: String,
    /// When the game's last turn was committed.
    pub finished_at: String,
    /// Every shuffle and the first start player come from it (decimal).
    pub seed: String,
    /// With the seed, hashes to `seed_commitment` (absent for games made before
    /// commitments existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_salt: Option<String>,
    /// SHA-256 of `"theboss-seed-v1:" + seed_salt + ":" + seed`, as every view showed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_commitment: Option<String>,
    /// Every turn in order: all a replay needs with the seed.
    pub turns: Vec<TurnRecord>,
    /// Everything that happened, in order.
    pub events: Vec<EventRecord>,
    pub outcome: OutcomeRecord,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeriesRecord {
    pub id: String,
    /// This table's index, from 0.
    pub table: u32,
    pub tables: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRecord {
    pub seat: u8,
    pub player_id: String,
    pub display_name: String,
    pub is_bot: bool,
}

/// A player who gave its seat up: before the start, or by resigning a running game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftRecord {
    #[serde(flatten)]
    pub player: SeatRecord,
    /// It resigned a running game (its seat forfeited); absent (false) before the start.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resigned: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    /// The sequence number of the turn's event.
    pub seq: u64,
    pub at: String,
    pub seat: u8,
    pub round: u8,
    /// 1..5 within the round.
    pub turn: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<PlacementRecord>,
    pub card: CardRecord,
    /// The server played it because the seat's time ran out.
    #[serde(default)]
    pub by_timeout: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementRecord {
    pub location: LocationName,
    pub experts: u8,
    pub occasionals: u8,
}

/// A card: a city's money card (`money`) or sanction (`sanction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardRecord {
    pub city: CityName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub money: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanction: Option<SanctionName>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRecord {
    pub seq: u64,
    pub at: String,
    #[serde(flatten)]
    pub event: EventKind,
}

/// An event, by its `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    PlayerJoined(SeatRecord),
    PlayerLeft(LeftRecord),
    GameStarted {
        players: u8,
        cities: Vec<CityName>,
        rules_version: u32,
    },
    RoundStarted {
        round: u8,
        start_player: u8,
        /// Every location left to right, Chicago included.
        row: Vec<LocationName>,
        decisive: bool,
    },
    HandDealt {
        seat: u8,
        cards: Vec<CardRecord>,
    },
    PoliceRevealed {
        card: PoliceName,
        silver: u8,
        gold: u8,
        last_round: bool,
    },
    TurnTaken {
        seat: u8,
        round: u8,
        turn: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placement: Option<PlacementRecord>,
        card: CardRecord,
        by_timeout: bool,
    },
    LastTurnOrder {
        order: Vec<u8>,
    },
    RoundResolved {
        round: u8,
        /// The face-down cards, left to right.
        face_down: Vec<CardRecord>,
        /// One per location, left to right, Chicago included.
        awards: Vec<AwardRecord>,
        /// By seat.
        money_won: Vec<u32>,
    },
    DecisiveRound {
        contenders: Vec<u8>,
    },
    GameEnded {
        outcome: OutcomeRecord,
    },
    GameAborted {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwardRecord {
    pub location: LocationName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<CardRecord>,
    pub money: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chicago_sum: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanction: Option<SanctionName>,
    pub sanction_applied: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeRecord {
    pub winners: Vec<u8>,
    pub rounds: u8,
    /// The seats that played a decisive round (empty if none was needed).
    pub contenders: Vec<u8>,
    /// Best first.
    pub standings: Vec<StandingRecord>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingRecord {
    pub seat: u8,
    pub money: u32,
    pub money_last_round: u32,
    pub gangsters_owned: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CityName {
    NewYork,
    Boston,
    Detroit,
    KansasCity,
    Cincinnati,
    Memphis,
    Philadelphia,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocationName {
    NewYork,
    Boston,
    Detroit,
    KansasCity,
    Cincinnati,
    Memphis,
    Philadelphia,
    Chicago,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SanctionName {
    Revolver,
    Prison,
    Hospital,
    Banished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoliceName {
    Silver,
    Gold,
    Double,
}

const CITIES: [(engine::City, CityName); 7] = [
    (engine::City::NewYork, CityName::NewYork),
    (engine::City::Boston, CityName::Boston),
    (engine::City::Detroit, CityName::Detroit),
    (engine::City::KansasCity, CityName::KansasCity),
    (engine::City::Cincinnati, CityName::Cincinnati),
    (engine::City::Memphis, CityName::Memphis),
    (engine::City::Philadelphia, CityName::Philadelphia),
];

impl From<engine::City> for CityName {
    fn from(city: engine::City) -> CityName {
        CITIES
            .iter()
            .find(|(c, _)| *c == city)
            .expect("every city")
            .1
    }
}

impl From<CityName> for engine::City {
    fn from(name: CityName) -> engine::City {
        CITIES
            .iter()
            .find(|(_, n)| *n == name)
            .expect("every city")
            .0
    }
}

impl From<engine::Location> for LocationName {
    fn from(location: engine::Location) -> LocationName {
        match location {
            engine::Location::Chicago => LocationName::Chicago,
            engine::Location::City(city) => match CityName::from(city) {
                CityName::NewYork => LocationName::NewYork,
                CityName::Boston => LocationName::Boston,
                CityName::Detroit => LocationName::Detroit,
                CityName::KansasCity => LocationName::KansasCity,
                CityName::Cincinnati => LocationName::Cincinnati,
                CityName::Memphis => LocationName::Memphis,
                CityName::Philadelphia => LocationName::Philadelphia,
            },
        }
    }
}

impl From<LocationName> for engine::Location {
    fn from(name: LocationName) -> engine::Location {
        let city = match name {
            LocationName::Chicago => return engine::Location::Chicago,
            LocationName::NewYork => CityName::NewYork,
            LocationName::Boston => CityName::Boston,
            LocationName::Detroit => CityName::Detroit,
            LocationName::KansasCity => CityName::KansasCity,
            LocationName::Cincinnati => CityName::Cincinnati,
            LocationName::Memphis => CityName::Memphis,
            LocationName::Philadelphia => CityName::Philadelphia,
        };
        engine::Location::City(city.into())
    }
}

impl From<engine::Sanction> for SanctionName {
    fn from(sanction: engine::Sanction) -> SanctionName {
        match sanction {
            engine::Sanction::Revolver => SanctionName::Revolver,
            engine::Sanction::Prison => SanctionName::Prison,
            engine::Sanction::Hospital => SanctionName::Hospital,
            engine::Sanction::Banished => SanctionName::Banished,
        }
    }
}

impl From<SanctionName> for engine::Sanction {
    fn from(name: SanctionName) -> engine::Sanction {
        match name {
            SanctionName::Revolver => engine::Sanction::Revolver,
            SanctionName::Prison => engine::Sanction::Prison,
            SanctionName::Hospital => engine::Sanction::Hospital,
            SanctionName::Banished => engine::Sanction::Banished,
        }
    }
}

impl From<engine::Card> for CardRecord {
    fn from(card: engine::Card) -> CardRecord {
        let (money, sanction) = match card.face {
            engine::Face::Money(m) => (Some(m), None),
            engine::Face::Sanction(s) => (None, Some(s.into())),
        };
        CardRecord {
            city: card.city.into(),
            money,
            sanction,
        }
    }
}

impl CardRecord {
    /// The engine's card, if the record names one that exists.
    pub fn card(&self) -> Result<engine::Card, RecordError> {
        let face = match (self.money, self.sanction) {
            (Some(m), None) => engine::Face::Money(m),
            (None, Some(s)) => engine::Face::Sanction(s.into()),
            _ => {
                return Err(RecordError::Invalid(
                    "a card has either money or a sanction".into(),
                ));
            }
        };
        let card = engine::Card::new(self.city.into(), face);
        if !card.exists() {
            return Err(RecordError::Invalid(format!("no such card: {card}")));
        }
        Ok(card)
    }
}

fn time(at: Option<&prost_types::Timestamp>) -> String {
    at.cloned().unwrap_or_default().to_string()
}

fn seat_u8(value: u32, field: &str) -> Result<u8, RecordError> {
    u8::try_from(value).map_err(|_| RecordError::Invalid(format!("{field}: {value} is not a seat")))
}

fn seats(values: &[u32], field: &str) -> Result<Vec<u8>, RecordError> {
    values.iter().map(|&v| seat_u8(v, field)).collect()
}

fn card(card: Option<&v1::Card>, field: &str) -> Result<CardRecord, RecordError> {
    let card = card.ok_or_else(|| RecordError::Invalid(format!("{field}: missing")))?;
    Ok(convert::card_from_wire(card, field)?.into())
}

fn cards(cards: &[v1::Card], field: &str) -> Result<Vec<CardRecord>, RecordError> {
    cards.iter().map(|c| card(Some(c), field)).collect()
}

fn cities(values: &[i32], field: &str) -> Result<Vec<CityName>, RecordError> {
    values
        .iter()
        .map(|&c| Ok(convert::city_from_wire(c, field)?.into()))
        .collect()
}

fn placement(
    p: Option<&v1::Placement>,
    field: &str,
) -> Result<Option<PlacementRecord>, RecordError> {
    p.map(|p| {
        let engine = convert::placement_from_wire(p, field)?;
        Ok(PlacementRecord {
            location: engine.location.into(),
            experts: engine.experts,
            occasionals: engine.occasionals,
        })
    })
    .transpose()
}

fn sanction(value: i32) -> Option<SanctionName> {
    match v1::Sanction::try_from(value).ok()? {
        v1::Sanction::Unspecified => None,
        v1::Sanction::Revolver => Some(SanctionName::Revolver),
        v1::Sanction::Prison => Some(SanctionName::Prison),
        v1::Sanction::Hospital => Some(SanctionName::Hospital),
        v1::Sanction::Banished => Some(SanctionName::Banished),
    }
}

fn outcome(o: &v1::Outcome) -> Result<OutcomeRecord, RecordError> {
    Ok(OutcomeRecord {
        winners: seats(&o.winners, "outcome.winners")?,
        rounds: u8::try_from(o.rounds).map_err(|_| RecordError::Invalid("rounds".into()))?,
        contenders: seats(&o.contenders, "outcome.contenders")?,
        standings: o
            .standings
            .iter()
            .map(|s| {
                Ok(StandingRecord {
                    seat: seat_u8(s.seat, "standings.seat")?,
                    money: s.money,
                    money_last_round: s.money_last_round,
                    gangsters_owned: u8::try_from(s.gangsters_owned)
                        .map_err(|_| RecordError::Invalid("gangsters_owned".into()))?,
                })
            })
            .collect::<Result<_, RecordError>>()?,
    })
}

fn seat_player(p: Option<&v1::SeatPlayer>) -> Result<SeatRecord, RecordError> {
    let p = p.ok_or_else(|| RecordError::Invalid("a seat's player: missing".into()))?;
    Ok(SeatRecord {
        seat: seat_u8(p.seat, "player.seat")?,
        player_id: p.player_id.clone(),
        display_name: p.display_name.clone(),
        is_bot: p.is_bot,
    })
}

fn small(value: u32, field: &str) -> Result<u8, RecordError> {
    u8::try_from(value).map_err(|_| RecordError::Invalid(format!("{field}: {value}")))
}

fn event(e: &v1::GameEvent) -> Result<Option<EventKind>, RecordError> {
    use v1::game_event::Kind;
    let Some(kind) = &e.kind else {
        return Ok(None);
    };
    Ok(Some(match kind {
        Kind::PlayerJoined(j) => EventKind::PlayerJoined(seat_player(j.player.as_ref())?),
        Kind::PlayerLeft(l) => EventKind::PlayerLeft(LeftRecord {
            player: seat_player(l.player.as_ref())?,
            resigned: l.resigned,
        }),
        Kind::GameStarted(g) => EventKind::GameStarted {
            players: small(g.players, "players")?,
            cities: cities(&g.cities, "cities")?,
            rules_version: g.rules_version,
        },
        Kind::RoundStarted(r) => EventKind::RoundStarted {
            round: small(r.round, "round")?,
            start_player: seat_u8(r.start_player, "start_player")?,
            row: r
                .row
                .iter()
                .map(|&l| Ok(convert::location_from_wire(l, "row")?.into()))
                .collect::<Result<_, RecordError>>()?,
            decisive: r.decisive,
        },
        Kind::HandDealt(h) => EventKind::HandDealt {
            seat: seat_u8(h.seat, "hand.seat")?,
            cards: cards(&h.cards, "hand.cards")?,
        },
        Kind::PoliceRevealed(p) => EventKind::PoliceRevealed {
            card: match v1::PoliceCard::try_from(p.card) {
                Ok(v1::PoliceCard::Silver) => PoliceName::Silver,
                Ok(v1::PoliceCard::Gold) => PoliceName::Gold,
                Ok(v1::PoliceCard::Double) => PoliceName::Double,
                _ => return Err(RecordError::Invalid("police card".into())),
            },
            silver: small(p.silver, "silver")?,
            gold: small(p.gold, "gold")?,
            last_round: p.last_round,
        },
        Kind::TurnTaken(t) => {
            let action = t
                .action
                .as_ref()
                .ok_or_else(|| RecordError::Invalid("turn_taken.action: missing".into()))?;
            EventKind::TurnTaken {
                seat: seat_u8(t.seat, "turn.seat")?,
                round: small(t.round, "turn.round")?,
                turn: small(t.turn, "turn.turn")?,
                placement: placement(action.placement.as_ref(), "turn.placement")?,
                card: card(action.card.as_ref(), "turn.card")?,
                by_timeout: t.by_timeout,
            }
        }
        Kind::LastTurnOrder(o) => EventKind::LastTurnOrder {
            order: seats(&o.order, "order")?,
        },
        Kind::RoundResolved(r) => EventKind::RoundResolved {
            round: small(r.round, "round")?,
            face_down: cards(&r.face_down, "face_down")?,
            awards: r
                .awards
                .iter()
                .map(|a| {
                    Ok(AwardRecord {
                        location: convert::location_from_wire(a.location, "award.location")?.into(),
                        winner: a.winner.map(|w| seat_u8(w, "award.winner")).transpose()?,
                        card: a
                            .card
                            .as_ref()
                            .map(|c| card(Some(c), "award.card"))
                            .transpose()?,
                        money: a.money,
                        chicago_sum: a.chicago_sum,
                        sanction: sanction(a.sanction),
                        sanction_applied: a.sanction_applied,
                    })
                })
                .collect::<Result<_, RecordError>>()?,
            money_won: r.money_won.clone(),
        },
        Kind::DecisiveRound(d) => EventKind::DecisiveRound {
            contenders: seats(&d.contenders, "contenders")?,
        },
        Kind::GameEnded(g) => EventKind::GameEnded {
            outcome: outcome(
                g.outcome
                    .as_ref()
                    .ok_or_else(|| RecordError::Invalid("game_ended.outcome".into()))?,
            )?,
        },
        Kind::GameAborted(a) => EventKind::GameAborted {
            reason: a.reason.clone(),
        },
    }))
}

/// What replaying a record found.
#[derive(Debug)]
pub struct Replayed {
    /// The game rebuilt by the engine, over.
    pub game: engine::Game,
    /// The revealed seed against the commitment.
    pub shuffle: Verdict,
}

impl GameRecord {
    /// The record of a finished game from its summary (`ListGames`), its whole history
    /// (`GetHistory` once the game is over: every event, the seed and the salt) and the
    /// commitment its views showed.
    pub fn from_wire(
        summary: &v1::GameSummary,
        history: &v1::GetHistoryResponse,
        seed_commitment: &str,
    ) -> Result<GameRecord, RecordError> {
        let seed = history.seed.ok_or(RecordError::NotOver)?;
        let settings = summary.settings.clone().unwrap_or_default();
        let mut turns = Vec::new();
        let mut events = Vec::new();
        let mut ended = None;
        let mut finished_at = String::new();
        for entry in &history.entries {
            let Some(event) = entry.event.as_ref().map(event).transpose()?.flatten() else {
                continue;
            };
            let at = time(entry.at.as_ref());
            if let EventKind::TurnTaken {
                seat,
                round,
                turn,
                placement,
                card,
                by_timeout,
            } = &event
            {
                turns.push(TurnRecord {
                    seq: entry.seq,
                    at: at.clone(),
                    seat: *seat,
                    round: *round,
                    turn: *turn,
                    placement: *placement,
                    card: *card,
                    by_timeout: *by_timeout,
                });
            }
            if let EventKind::GameEnded { outcome } = &event {
                ended = Some(outcome.clone());
            }
            finished_at.clone_from(&at);
            events.push(EventRecord {
                seq: entry.seq,
                at,
                event,
            });
        }
        let outcome = ended.ok_or(RecordError::NotOver)?;
        let rules_version = events
            .iter()
            .find_map(|e| match &e.event {
                EventKind::GameStarted { rules_version, .. } => Some(*rules_version),
                _ => None,
            })
            .unwrap_or(settings.rules_version);
        Ok(GameRecord {
            format: FORMAT.to_string(),
            version: VERSION,
            game_id: summary.game_id.clone(),
            rules_version,
            players: small(settings.players, "players")?,
            cities: {
                let mut cities = cities(&settings.cities, "settings.cities")?;
                if cities.is_empty() {
                    // The default set: the game's own start says which.
                    cities = events
                        .iter()
                        .find_map(|e| match &e.event {
                            EventKind::GameStarted { cities, .. } => Some(cities.clone()),
                            _ => None,
                        })
                        .unwrap_or_default();
                }
                cities.sort_by_key(|&c| engine::City::from(c).number());
                cities
            },
            turn_time_limit_seconds: settings.turn_time_limit_seconds,
            ladder: summary.ladder,
            seeded: summary.seeded || history.seeded,
            series: (!summary.series_id.is_empty()).then(|| SeriesRecord {
                id: summary.series_id.clone(),
                table: summary.series_table,
                tables: summary.series_tables,
            }),
            seats: summary
                .seats
                .iter()
                .map(|p| seat_player(Some(p)))
                .collect::<Result<_, _>>()?,
            created_at: time(summary.created_at.as_ref()),
            finished_at,
            seed: seed.to_string(),
            seed_salt: history.seed_salt.clone(),
            seed_commitment: (!seed_commitment.is_empty()).then(|| seed_commitment.to_string()),
            turns,
            events,
            outcome,
        })
    }

    /// A record from its JSON, checked to be of this format.
    pub fn from_json(json: &str) -> Result<GameRecord, RecordError> {
        let record: GameRecord = serde_json::from_str(json)?;
        if record.format != FORMAT || record.version != VERSION {
            return Err(RecordError::Format {
                format: record.format,
                version: record.version,
            });
        }
        Ok(record)
    }

    /// The record as one line of JSON (NDJSON-friendly).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a record is plain data")
    }

    /// Rebuilds the game with the engine from the seed and the turns, and checks it ends as
    /// recorded and that the revealed seed is the one committed to.
    pub fn replay(&self) -> Result<Replayed, RecordError> {
        let seed: u64 = self
            .seed
            .parse()
            .map_err(|_| RecordError::Invalid(format!("seed {:?}", self.seed)))?;
        let rules = engine::RulesVersion::from_number(self.rules_version).ok_or_else(|| {
            RecordError::Invalid(format!("no rules version {}", self.rules_version))
        })?;
        let config = engine::GameConfig::new(self.players, seed)
            .with_cities(self.cities.iter().map(|&c| c.into()).collect())
            .with_rules(rules);
        let mut game = engine::Game::new(&config)
            .map_err(|e| RecordError::Invalid(format!("settings: {e}")))?;
        for (index, t) in self.turns.iter().enumerate() {
            let turn = engine::Turn {
                placement: t.placement.map(|p| {
                    engine::Placement::new(
                        engine::Location::from(p.location),
                        p.experts,
                        p.occasionals,
                    )
                }),
                card: t.card.card()?,
            };
            game.apply(t.seat, &turn)
                .map_err(|error| RecordError::Illegal { index, error })?;
        }
        let found = game
            .outcome()
            .map(|o| outcome(&convert::outcome_to_wire(o)))
            .transpose()?;
        if found.as_ref() != Some(&self.outcome) {
            return Err(RecordError::Outcome {
                recorded: format!("{:?}", self.outcome),
                found: format!("{found:?}"),
            });
        }
        let shuffle = fairness::verify(
            self.seed_commitment.as_deref().unwrap_or_default(),
            Some(seed),
            self.seed_salt.as_deref(),
        );
        Ok(Replayed { game, shuffle })
    }
}
