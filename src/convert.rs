//! The one place where engine types and `theboss.v1` wire types meet.
//!
//! Engine → wire is total. Wire → engine is checked: a malformed message gives a
//! [`WireError`] naming the offending field, which servers report as `INVALID_ARGUMENT`.
//! The server adds what the engine does not know (game id, status, seat players, sequence
//! numbers, deadlines) on top of [`view_to_wire`].

use theboss_engine as engine;
use thiserror::Error;

use crate::v1;

/// A wire message that does not describe a valid engine value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{field}: {problem}")]
pub struct WireError {
    /// The field path, e.g. `action.placement.location`.
    pub field: String,
    pub problem: String,
}

impl WireError {
    /// `field` of a message breaks a rule of the contract: `problem` says which.
    pub fn new(field: &str, problem: impl Into<String>) -> WireError {
        WireError {
            field: field.to_string(),
            problem: problem.into(),
        }
    }

    fn within(mut self, parent: &str) -> WireError {
        self.field = format!("{parent}.{}", self.field);
        self
    }
}

fn seat(s: engine::Seat) -> u32 {
    u32::from(s)
}

fn seats(s: &[engine::Seat]) -> Vec<u32> {
    s.iter().copied().map(seat).collect()
}

pub fn city_to_wire(city: engine::City) -> v1::City {
    match city {
        engine::City::NewYork => v1::City::NewYork,
        engine::City::Boston => v1::City::Boston,
        engine::City::Detroit => v1::City::Detroit,
        engine::City::KansasCity => v1::City::KansasCity,
        engine::City::Cincinnati => v1::City::Cincinnati,
        engine::City::Memphis => v1::City::Memphis,
        engine::City::Philadelphia => v1::City::Philadelphia,
    }
}

/// A wire city (as its raw enum value) to the engine's.
/// A rules version by its number (every published version; 0 is not one).
pub fn rules_from_wire(value: u32, field: &str) -> Result<engine::RulesVersion, WireError> {
    engine::RulesVersion::from_number(value).ok_or_else(|| {
        let known: Vec<String> = engine::RulesVersion::ALL
            .iter()
            .map(|v| v.number().to_string())
            .collect();
        WireError::new(
            field,
            format!(
                "{value} is not a rules version (published: {})",
                known.join(", ")
            ),
        )
    })
}

pub fn city_from_wire(value: i32, field: &str) -> Result<engine::City, WireError> {
    u8::try_from(value)
        .ok()
        .and_then(engine::City::from_number)
        .ok_or_else(|| WireError::new(field, format!("{value} is not a city")))
}

pub fn location_to_wire(location: engine::Location) -> v1::Location {
    match location {
        engine::Location::Chicago => v1::Location::Chicago,
        engine::Location::City(city) => {
            v1::Location::try_from(city_to_wire(city) as i32).expect("cities share numbers")
        }
    }
}

pub fn location_from_wire(value: i32, field: &str) -> Result<engine::Location, WireError> {
    if value == v1::Location::Chicago as i32 {
        return Ok(engine::Location::Chicago);
    }
    city_from_wire(value, field)
        .map(engine::Location::City)
        .map_err(|_| WireError::new(field, format!("{value} is not a location")))
}

pub(crate) fn sanction_to_wire(sanction: engine::Sanction) -> v1::Sanction {
    match sanction {
        engine::Sanction::Revolver => v1::Sanction::Revolver,
        engine::Sanction::Prison => v1::Sanction::Prison,
        engine::Sanction::Hospital => v1::Sanction::Hospital,
        engine::Sanction::Banished => v1::Sanction::Banished,
    }
}

fn sanction_from_wire(value: i32, field: &str) -> Result<engine::Sanction, WireError> {
    match v1::Sanction::try_from(value) {
        Ok(v1::Sanction::Revolver) => Ok(engine::Sanction::Revolver),
        Ok(v1::Sanction::Prison) => Ok(engine::Sanction::Prison),
        Ok(v1::Sanction::Hospital) => Ok(engine::Sanction::Hospital),
        Ok(v1::Sanction::Banished) => Ok(engine::Sanction::Banished),
        _ => Err(WireError::new(field, format!("{value} is not a sanction"))),
    }
}

pub(crate) fn police_to_wire(card: engine::PoliceCard) -> v1::PoliceCard {
    match card {
        engine::PoliceCard::Silver => v1::PoliceCard::Silver,
        engine::PoliceCard::Gold => v1::PoliceCard::Gold,
        engine::PoliceCard::Double => v1::PoliceCard::Double,
    }
}

/// A city and all its cards, from the engine's deck table.
pub fn city_cards_to_wire(city: engine::City) -> v1::CityCards {
    v1::CityCards {
        city: city_to_wire(city) as i32,
        cards: city.cards().map(card_to_wire).collect(),
    }
}

pub fn card_to_wire(card: engine::Card) -> v1::Card {
    v1::Card {
        city: city_to_wire(card.city) as i32,
        face: Some(match card.face {
            engine::Face::Money(value) => v1::card::Face::Money(u32::from(value)),
            engine::Face::Sanction(s) => v1::card::Face::Sanction(sanction_to_wire(s) as i32),
        }),
    }
}

/// A wire card to the engine's; the card must exist in the deck.
pub fn card_from_wire(card: &v1::Card, field: &str) -> Result<engine::Card, WireError> {
    let city = city_from_wire(card.city, "city").map_err(|e| e.within(field))?;
    let face = match card.face {
        Some(v1::card::Face::Money(value)) => u8::try_from(value)
            .map(engine::Face::Money)
            .map_err(|_| WireError::new("money", "out of range").within(field))?,
        Some(v1::card::Face::Sanction(value)) => engine::Face::Sanction(
            sanction_from_wire(value, "sanction").map_err(|e| e.within(field))?,
        ),
        None => {
            return Err(WireError::new(
                field,
                "a card needs a face (money or sanction)",
            ));
        }
    };
    let card = engine::Card::new(city, face);
    if card.exists() {
        Ok(card)
    } else {
        Err(WireError::new(field, format!("there is no {card} card")))
    }
}

pub fn placement_to_wire(p: engine::Placement) -> v1::Placement {
    v1::Placement {
        location: location_to_wire(p.location) as i32,
        experts: u32::from(p.experts),
        occasionals: u32::from(p.occasionals),
    }
}

fn count_from_wire(value: u32, field: &str) -> Result<u8, WireError> {
    u8::try_from(value).map_err(|_| WireError::new(field, format!("{value} is too many")))
}

pub fn placement_from_wire(p: &v1::Placement, field: &str) -> Result<engine::Placement, WireError> {
    // Each part's path is written only if it is wrong: a turn is read at every action.
    let placement = || -> Result<engine::Placement, WireError> {
        Ok(engine::Placement {
            location: location_from_wire(p.location, "location")?,
            experts: count_from_wire(p.experts, "experts")?,
            occasionals: count_from_wire(p.occasionals, "occasionals")?,
        })
    };
    placement().map_err(|e| e.within(field))
}

pub fn turn_to_wire(turn: &engine::Turn) -> v1::TurnAction {
    v1::TurnAction {
        placement: turn.placement.map(placement_to_wire),
        card: Some(card_to_wire(turn.card)),
    }
}

/// A wire turn to the engine's. Only the message's shape is checked here; the rules are the
/// engine's job.
pub fn turn_from_wire(action: &v1::TurnAction, field: &str) -> Result<engine::Turn, WireError> {
    let turn = || -> Result<engine::Turn, WireError> {
        let card = action
            .card
            .as_ref()
            .ok_or_else(|| WireError::new("card", "a turn must play a card"))?;
        Ok(engine::Turn {
            placement: action
                .placement
                .as_ref()
                .map(|p| placement_from_wire(p, "placement"))
                .transpose()?,
            card: card_from_wire(card, "card")?,
        })
    };
    turn().map_err(|e| e.within(field))
}

fn supply_to_wire(s: &engine::Supply) -> v1::Supply {
    v1::Supply {
        experts_free: u32::from(s.experts_free),
        experts_placed: u32::from(s.experts_placed),
        experts_in_hospital: u32::from(s.experts_in_hospital()),
        experts_in_prison: s.prison.iter().copied().map(u32::from).collect(),
        experts_killed: u32::from(s.killed),
        occasionals: u32::from(s.occasionals),
        occasionals_placed: u32::from(s.occasionals_placed),
        occasionals_used: u32::from(s.occasionals_used),
    }
}

/// A seat's legal turns on the wire (without the deadline, which the server knows).
pub fn legal_to_wire(legal: &engine::LegalTurns) -> v1::LegalTurns {
    v1::LegalTurns {
        cards: legal.cards.iter().copied().map(card_to_wire).collect(),
        placements: legal
            .placements
            .iter()
            .map(|o| v1::PlacementOption {
                location: location_to_wire(o.location) as i32,
                min_gangsters: u32::from(o.min_gangsters),
                max_experts: u32::from(o.max_experts),
                max_occasionals: u32::from(o.max_occasionals),
                expert_present: o.expert_present,
            })
            .collect(),
        deadline: None,
    }
}

pub fn round_summary_to_wire(r: &engine::RoundSummary) -> v1::RoundSummary {
    v1::RoundSummary {
        round: u32::from(r.round),
        face_down: r.face_down.iter().copied().map(card_to_wire).collect(),
        awards: r
            .awards
            .iter()
            .map(|a| v1::Award {
                location: location_to_wire(a.location) as i32,
                winner: a.winner.map(seat),
                card: a.card.map(card_to_wire),
                money: a.money,
                chicago_sum: a.chicago_sum,
                sanction: a
                    .sanction
                    .map_or(v1::Sanction::Unspecified, |s| sanction_to_wire(s.sanction))
                    as i32,
                sanction_applied: a.sanction.is_some_and(|s| s.applied),
            })
            .collect(),
        money_won: r.money_won.clone(),
    }
}

pub fn outcome_to_wire(o: &engine::Outcome) -> v1::Outcome {
    v1::Outcome {
        winners: seats(&o.winners),
        standings: o
            .standings
            .iter()
            .map(|s| v1::Standing {
                seat: seat(s.seat),
                money: s.money,
                money_last_round: s.money_last_round,
                gangsters_owned: u32::from(s.gangsters_owned),
            })
            .collect(),
        rounds: u32::from(o.rounds),
        contenders: seats(&o.contenders),
    }
}

/// A viewer's deduction about one face-down card.
pub fn odds_to_wire(odds: &engine::CityOdds) -> v1::CityOdds {
    v1::CityOdds {
        city: city_to_wire(odds.city) as i32,
        cards: odds
            .candidates
            .iter()
            .map(|(card, p)| v1::CardOdds {
                card: Some(card_to_wire(*card)),
                probability: *p,
            })
            .collect(),
        expected_money: odds.expected_money(),
    }
}

/// The engine's part of a view. The caller fills `game_id`, `status`, `settings`, `seq`,
/// each seat's `player` and timeouts, and the legal turns' deadline.
pub fn view_to_wire(view: &engine::View) -> v1::GameView {
    v1::GameView {
        viewer_seat: match view.viewer {
            engine::Viewer::Seat(s) => Some(seat(s)),
            engine::Viewer::Spectator => None,
        },
        cities: view
            .cities
            .iter()
            .map(|&c| city_to_wire(c) as i32)
            .collect(),
        rules_version: view.rules.number(),
        round: u32::from(view.round),
        turn: u32::from(view.turn),
        start_player: seat(view.start_player),
        to_move: view.to_move.map(seat),
        turn_order: seats(&view.turn_order),
        acted_this_turn: u32::from(view.acted_this_turn),
        last_turn: view.last_turn,
        last_round: view.last_round,
        contenders: view.contenders.as_deref().map(seats).unwrap_or_default(),
        locations: view
            .locations
            .iter()
            .map(|l| v1::LocationView {
                location: location_to_wire(l.location) as i32,
                gangsters: l
                    .gangsters
                    .iter()
                    .map(|g| v1::Gangsters {
                        experts: u32::from(g.experts),
                        occasionals: u32::from(g.occasionals),
                    })
                    .collect(),
                leader: l.leader.map(seat),
                played: l.played.iter().copied().map(card_to_wire).collect(),
                face_down: l.face_down,
            })
            .collect(),
        chicago_value: view.chicago_value,
        seats: view
            .seats
            .iter()
            .map(|s| v1::SeatView {
                seat: seat(s.seat),
                player: None,
                money: s.money,
                money_last_round: s.money_last_round,
                supply: Some(supply_to_wire(&s.supply)),
                banished: s.banished.iter().map(|&c| city_to_wire(c) as i32).collect(),
                hand_backs: s
                    .hand_backs
                    .iter()
                    .map(|c| v1::CityCount {
                        city: city_to_wire(c.city) as i32,
                        count: u32::from(c.count),
                    })
                    .collect(),
                hand_size: u32::from(s.hand_size()),
                timeouts_in_a_row: 0,
                forfeited: false,
            })
            .collect(),
        hand: view.hand.as_deref().map(hand_to_wire).unwrap_or_default(),
        legal: view.legal.as_ref().map(legal_to_wire),
        police: Some(v1::PoliceView {
            revealed: view
                .police
                .revealed
                .iter()
                .map(|&c| police_to_wire(c) as i32)
                .collect(),
            silver: u32::from(view.police.silver),
            gold: u32::from(view.police.gold),
            remaining: u32::from(view.police.remaining),
        }),
        last_resolution: view.last_resolution.as_ref().map(round_summary_to_wire),
        outcome: view.outcome.as_ref().map(outcome_to_wire),
        ..Default::default()
    }
}

/// A hand's cards on the wire.
pub fn hand_to_wire(hand: &[engine::Card]) -> Vec<v1::Card> {
    hand.iter().copied().map(card_to_wire).collect()
}

/// An engine event on the wire.
pub fn event_to_wire(event: &engine::Event) -> v1::GameEvent {
    use v1::game_event::Kind;
    let kind = match event {
        engine::Event::GameStarted {
            players,
            cities,
            rules,
        } => Kind::GameStarted(v1::GameStarted {
            players: u32::from(*players),
            cities: cities.iter().map(|&c| city_to_wire(c) as i32).collect(),
            rules_version: rules.number(),
        }),
        engine::Event::RoundStarted {
            round,
            start_player,
            row,
            decisive,
        } => Kind::RoundStarted(v1::RoundStarted {
            round: u32::from(*round),
            start_player: seat(*start_player),
            row: row.iter().map(|&l| location_to_wire(l) as i32).collect(),
            decisive: *decisive,
        }),
        engine::Event::HandDealt { seat: s, cards } => Kind::HandDealt(v1::HandDealt {
            seat: seat(*s),
            cards: cards.iter().copied().map(card_to_wire).collect(),
        }),
        engine::Event::PoliceRevealed {
            card,
            silver,
            gold,
            last_round,
        } => Kind::PoliceRevealed(v1::PoliceRevealed {
            card: police_to_wire(*card) as i32,
            silver: u32::from(*silver),
            gold: u32::from(*gold),
            last_round: *last_round,
        }),
        engine::Event::TurnTaken {
            seat: s,
            round,
            turn,
            placement,
            card,
        } => Kind::TurnTaken(v1::TurnTaken {
            seat: seat(*s),
            round: u32::from(*round),
            turn: u32::from(*turn),
            action: Some(turn_to_wire(&engine::Turn {
                placement: *placement,
                card: *card,
            })),
            by_timeout: false,
        }),
        engine::Event::LastTurnOrder { order } => Kind::LastTurnOrder(v1::LastTurnOrder {
            order: seats(order),
        }),
        engine::Event::RoundResolved(summary) => {
            Kind::RoundResolved(round_summary_to_wire(summary))
        }
        engine::Event::DecisiveRound { contenders } => Kind::DecisiveRound(v1::DecisiveRound {
            contenders: seats(contenders),
        }),
        engine::Event::GameEnded(outcome) => Kind::GameEnded(v1::GameEnded {
            outcome: Some(outcome_to_wire(outcome)),
        }),
    };
    v1::GameEvent { kind: Some(kind) }
}

/// The legal turns of `seat` as the wire gives them (the inverse of [`legal_to_wire`]).
pub fn legal_from_wire(
    legal: &v1::LegalTurns,
    seat: engine::Seat,
) -> Result<engine::LegalTurns, WireError> {
    let field = "view.legal.placements";
    let small = |value: u32| -> Result<u8, WireError> { count_from_wire(value, field) };
    Ok(engine::LegalTurns {
        seat,
        cards: legal
            .cards
            .iter()
            .map(|c| card_from_wire(c, "view.legal.cards"))
            .collect::<Result<_, _>>()?,
        placements: legal
            .placements
            .iter()
            .map(|o| {
                Ok(engine::PlacementOption {
                    location: location_from_wire(o.location, field)?,
                    min_gangsters: small(o.min_gangsters)?,
                    max_experts: small(o.max_experts)?,
                    max_occasionals: small(o.max_occasionals)?,
                    expert_present: o.expert_present,
                })
            })
            .collect::<Result<_, WireError>>()?,
    })
}

/// A wire view back to the engine's, for clients that reason with the engine (bots, the
/// CLI's deduction panel). Server-only fields (ids, players, deadline) are dropped.
pub fn view_from_wire(view: &v1::GameView) -> Result<engine::View, WireError> {
    let players = u8::try_from(view.seats.len())
        .ok()
        .filter(|n| engine::PLAYER_COUNTS.contains(n))
        .ok_or_else(|| WireError::new("view.seats", "not a player count the rules allow"))?;
    let seat_in = |value: u32, field: &str| -> Result<engine::Seat, WireError> {
        u8::try_from(value)
            .ok()
            .filter(|&s| s < players)
            .ok_or_else(|| WireError::new(field, format!("{value} is not a seat")))
    };
    let seats_in = |values: &[u32], field: &str| -> Result<Vec<engine::Seat>, WireError> {
        values.iter().map(|&v| seat_in(v, field)).collect()
    };
    let small =
        |value: u32, field: &str| -> Result<u8, WireError> { count_from_wire(value, field) };
    let viewer = match view.viewer_seat {
        Some(s) => engine::Viewer::Seat(seat_in(s, "view.viewer_seat")?),
        None => engine::Viewer::Spectator,
    };
    let cards = |cards: &[v1::Card], field: &str| -> Result<Vec<engine::Card>, WireError> {
        cards.iter().map(|c| card_from_wire(c, field)).collect()
    };
    let cities = view
        .cities
        .iter()
        .map(|&c| city_from_wire(c, "view.cities"))
        .collect::<Result<Vec<_>, _>>()?;
    let locations = view
        .locations
        .iter()
        .map(|l| {
            Ok(engine::LocationView {
                location: location_from_wire(l.location, "view.locations.location")?,
                gangsters: l
                    .gangsters
                    .iter()
                    .map(|g| {
                        Ok(engine::Gangsters {
                            experts: small(g.experts, "view.locations.gangsters")?,
                            occasionals: small(g.occasionals, "view.locations.gangsters")?,
                        })
                    })
                    .collect::<Result<Vec<_>, WireError>>()?,
                leader: l
                    .leader
                    .map(|s| seat_in(s, "view.locations.leader"))
                    .transpose()?,
                played: cards(&l.played, "view.locations.played")?,
                face_down: l.face_down,
            })
        })
        .collect::<Result<Vec<_>, WireError>>()?;
    let seats = view
        .seats
        .iter()
        .map(|s| {
            let supply = s.supply.clone().unwrap_or_default();
            let mut prison = [0u8; engine::rules::PRISON_ROUNDS as usize];
            for (slot, &n) in prison.iter_mut().zip(&supply.experts_in_prison) {
                *slot = small(n, "view.seats.supply.experts_in_prison")?;
            }
            let field = "view.seats.supply";
            Ok(engine::SeatView {
                seat: seat_in(s.seat, "view.seats.seat")?,
                money: s.money,
                money_last_round: s.money_last_round,
                supply: engine::Supply {
                    experts_free: small(supply.experts_free, field)?,
                    experts_placed: small(supply.experts_placed, field)?,
                    hospital: [small(supply.experts_in_hospital, field)?;
                        engine::rules::HOSPITAL_ROUNDS as usize],
                    prison,
                    killed: small(supply.experts_killed, field)?,
                    occasionals: small(supply.occasionals, field)?,
                    occasionals_placed: small(supply.occasionals_placed, field)?,
                    occasionals_used: small(supply.occasionals_used, field)?,
                },
                banished: s
                    .banished
                    .iter()
                    .map(|&c| city_from_wire(c, "view.seats.banished"))
                    .collect::<Result<Vec<_>, _>>()?,
                hand_backs: s
                    .hand_backs
                    .iter()
                    .map(|c| {
                        Ok(engine::CityCount {
                            city: city_from_wire(c.city, "view.seats.hand_backs.city")?,
                            count: small(c.count, "view.seats.hand_backs.count")?,
                        })
                    })
                    .collect::<Result<Vec<_>, WireError>>()?,
            })
        })
        .collect::<Result<Vec<_>, WireError>>()?;
    let legal = match (&view.legal, viewer) {
        (Some(legal), engine::Viewer::Seat(seat)) => Some(legal_from_wire(legal, seat)?),
        _ => None,
    };
    let police = view.police.clone().unwrap_or_default();
    Ok(engine::View {
        viewer,
        players,
        cities,
        rules: rules_from_wire(view.rules_version, "view.rules_version")?,
        round: small(view.round, "view.round")?,
        turn: small(view.turn, "view.turn")?,
        start_player: seat_in(view.start_player, "view.start_player")?,
        to_move: view
            .to_move
            .map(|s| seat_in(s, "view.to_move"))
            .transpose()?,
        turn_order: seats_in(&view.turn_order, "view.turn_order")?,
        acted_this_turn: small(view.acted_this_turn, "view.acted_this_turn")?,
        last_turn: view.last_turn,
        last_round: view.last_round,
        contenders: (!view.contenders.is_empty())
            .then(|| seats_in(&view.contenders, "view.contenders"))
            .transpose()?,
        locations,
        chicago_value: view.chicago_value,
        seats,
        hand: match viewer {
            engine::Viewer::Seat(_) => Some(cards(&view.hand, "view.hand")?),
            engine::Viewer::Spectator => None,
        },
        legal,
        police: engine::PoliceView {
            revealed: police
                .revealed
                .iter()
                .map(|&c| police_from_wire(c, "view.police.revealed"))
                .collect::<Result<Vec<_>, _>>()?,
            silver: small(police.silver, "view.police.silver")?,
            gold: small(police.gold, "view.police.gold")?,
            remaining: small(police.remaining, "view.police.remaining")?,
        },
        last_resolution: view
            .last_resolution
            .as_ref()
            .map(|r| round_summary_from_wire(r, players))
            .transpose()?,
        outcome: view
            .outcome
            .as_ref()
            .map(|o| outcome_from_wire(o, players))
            .transpose()?,
    })
}

fn police_from_wire(value: i32, field: &str) -> Result<engine::PoliceCard, WireError> {
    match v1::PoliceCard::try_from(value) {
        Ok(v1::PoliceCard::Silver) => Ok(engine::PoliceCard::Silver),
        Ok(v1::PoliceCard::Gold) => Ok(engine::PoliceCard::Gold),
        Ok(v1::PoliceCard::Double) => Ok(engine::PoliceCard::Double),
        _ => Err(WireError::new(
            field,
            format!("{value} is not a police card"),
        )),
    }
}

fn seat_below(value: u32, players: u8, field: &str) -> Result<engine::Seat, WireError> {
    u8::try_from(value)
        .ok()
        .filter(|&s| s < players)
        .ok_or_else(|| WireError::new(field, format!("{value} is not a seat")))
}

pub fn round_summary_from_wire(
    r: &v1::RoundSummary,
    players: u8,
) -> Result<engine::RoundSummary, WireError> {
    let field = "round_summary";
    Ok(engine::RoundSummary {
        round: count_from_wire(r.round, field)?,
        face_down: r
            .face_down
            .iter()
            .map(|c| card_from_wire(c, field))
            .collect::<Result<Vec<_>, _>>()?,
        awards: r
            .awards
            .iter()
            .map(|a| {
                Ok(engine::Award {
                    location: location_from_wire(a.location, field)?,
                    winner: a
                        .winner
                        .map(|s| seat_below(s, players, field))
                        .transpose()?,
                    card: a
                        .card
                        .as_ref()
                        .map(|c| card_from_wire(c, field))
                        .transpose()?,
                    money: a.money,
                    chicago_sum: a.chicago_sum,
                    sanction: match a.sanction {
                        0 => None,
                        s => Some(engine::SanctionEffect {
                            sanction: sanction_from_wire(s, field)?,
                            applied: a.sanction_applied,
                        }),
                    },
                })
            })
            .collect::<Result<Vec<_>, WireError>>()?,
        money_won: r.money_won.clone(),
    })
}

pub fn outcome_from_wire(o: &v1::Outcome, players: u8) -> Result<engine::Outcome, WireError> {
    let field = "outcome";
    let seats = |values: &[u32]| -> Result<Vec<engine::Seat>, WireError> {
        values
            .iter()
            .map(|&v| seat_below(v, players, field))
            .collect()
    };
    Ok(engine::Outcome {
        winners: seats(&o.winners)?,
        standings: o
            .standings
            .iter()
            .map(|s| {
                Ok(engine::Standing {
                    seat: seat_below(s.seat, players, field)?,
                    money: s.money,
                    money_last_round: s.money_last_round,
                    gangsters_owned: count_from_wire(s.gangsters_owned, field)?,
                })
            })
            .collect::<Result<Vec<_>, WireError>>()?,
        rounds: count_from_wire(o.rounds, field)?,
        contenders: seats(&o.contenders)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Game, GameConfig, Viewer};

    #[test]
    fn every_card_round_trips() {
        for city in engine::City::ALL {
            for card in city.cards() {
                assert_eq!(card_from_wire(&card_to_wire(card), "card"), Ok(card));
            }
        }
    }

    #[test]
    fn every_location_round_trips() {
        let mut all: Vec<engine::Location> = engine::City::ALL
            .into_iter()
            .map(engine::Location::City)
            .collect();
        all.push(engine::Location::Chicago);
        for l in all {
            assert_eq!(location_from_wire(location_to_wire(l) as i32, "l"), Ok(l));
        }
    }

    #[test]
    fn malformed_turns_name_the_field() {
        let no_card = v1::TurnAction {
            placement: None,
            card: None,
        };
        assert_eq!(
            turn_from_wire(&no_card, "action").unwrap_err().field,
            "action.card"
        );
        let bad_city = v1::TurnAction {
            placement: None,
            card: Some(v1::Card {
                city: 42,
                face: Some(v1::card::Face::Money(1)),
            }),
        };
        assert_eq!(
            turn_from_wire(&bad_city, "action").unwrap_err().field,
            "action.card.city"
        );
        let no_such_card = v1::TurnAction {
            placement: None,
            card: Some(v1::Card {
                city: 1,
                face: Some(v1::card::Face::Money(4)),
            }),
        };
        let err = turn_from_wire(&no_such_card, "action").unwrap_err();
        assert_eq!(
            (err.field.as_str(), err.problem.as_str()),
            ("action.card", "there is no New York 4 M$ card")
        );
        let bad_location = v1::TurnAction {
            placement: Some(v1::Placement {
                location: 0,
                experts: 1,
                occasionals: 0,
            }),
            card: Some(card_to_wire(engine::Card::new(
                engine::City::NewYork,
                engine::Face::Money(1),
            ))),
        };
        assert_eq!(
            turn_from_wire(&bad_location, "action").unwrap_err().field,
            "action.placement.location"
        );
        let too_many = v1::TurnAction {
            placement: Some(v1::Placement {
                location: 8,
                experts: 300,
                occasionals: 0,
            }),
            card: bad_location.card,
        };
        assert_eq!(
            turn_from_wire(&too_many, "action").unwrap_err().field,
            "action.placement.experts"
        );
    }

    #[test]
    fn every_legal_turn_round_trips() {
        let game = Game::new(&GameConfig::new(4, 3)).unwrap();
        let seat = game.to_move().unwrap();
        for turn in game.legal_actions(seat) {
            assert_eq!(turn_from_wire(&turn_to_wire(&turn), "action"), Ok(turn));
        }
    }

    #[test]
    fn views_round_trip_through_the_wire() {
        let mut checked = 0;
        for seed in 0..12u64 {
            let players = 2 + (seed % 3) as u8;
            let mut game = Game::new(&GameConfig::new(players, seed)).unwrap();
            let mut rng = engine::GameRng::from_seed(seed);
            loop {
                let mut viewers = vec![Viewer::Spectator];
                viewers.extend((0..players).map(Viewer::Seat));
                for viewer in viewers {
                    let view = game.view(viewer);
                    assert_eq!(view_from_wire(&view_to_wire(&view)), Ok(view));
                    checked += 1;
                }
                let Some(seat) = game.to_move() else { break };
                let legal = game.legal_turns(seat).unwrap();
                let turn = legal.nth(rng.below(legal.count() as u32) as usize).unwrap();
                game.apply(seat, &turn).unwrap();
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn a_view_carries_the_engine_view() {
        let game = Game::new(&GameConfig::new(3, 8)).unwrap();
        let seat = game.to_move().unwrap();
        let wire = view_to_wire(&game.view(Viewer::Seat(seat)));
        assert_eq!(wire.viewer_seat, Some(u32::from(seat)));
        assert_eq!(wire.hand.len(), 5);
        assert!(wire.legal.is_some());
        assert_eq!(wire.locations.len(), 6);
        assert_eq!(wire.seats.iter().map(|s| s.hand_size).sum::<u32>(), 15);
        let spectator = view_to_wire(&game.view(Viewer::Spectator));
        assert!(
            spectator.hand.is_empty()
                && spectator.legal.is_none()
                && spectator.viewer_seat.is_none()
        );
    }
}
