//! A view's two encoded parts (see the `encoded` module's header), written straight from the
//! engine's values to `theboss.v1.GameView` encodings: what every viewer sees, from the
//! engine's spectator view ([`encode_public_view`]), and a seat's own part, its hand and
//! legal turns ([`encode_own_view`]). A step's hot path sends them to every stream, and
//! building the wire message first (some thirty small vectors) then encoding it with prost
//! (which measures each nested message again at every level) cost more than the rest of the
//! view's work together.
//!
//! The bytes are exactly prost's encoding of the message `crate::convert` builds with the
//! server's fields set: fields in number order, proto3 defaults left out, repeated scalars
//! packed, an enum as its `int32` value (the tests hold every step of many games to that).
//! The engine still decides what a view shows; this module only writes it, with `convert`'s
//! enum mappings.

use prost::Message;
use prost::encoding::{self, WireType};
use theboss_engine as engine;

use crate::convert::{
    city_to_wire, location_to_wire, outcome_to_wire, police_to_wire, sanction_to_wire,
};
use crate::v1;

/// What the server adds to the engine's spectator view of a table (see `GameView`'s fields).
#[derive(Debug, Clone, Copy)]
pub struct PublicFields<'a> {
    pub game_id: &'a str,
    pub status: v1::GameStatus,
    pub settings: &'a v1::GameSettings,
    pub seq: u64,
    /// Whether the seat to move is shown (only while the game runs).
    pub shows_to_move: bool,
    /// By seat number.
    pub seats: &'a [SeatFields<'a>],
    pub seed_commitment: &'a str,
    pub seeded: bool,
}

/// What the server adds to one seat's part of the view.
#[derive(Debug, Clone, Copy, Default)]
pub struct SeatFields<'a> {
    pub player: Option<SeatPlayer<'a>>,
    pub timeouts_in_a_row: u32,
    pub forfeited: bool,
}

/// Who sits at a seat: a `theboss.v1.SeatPlayer` but for its seat, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct SeatPlayer<'a> {
    pub player_id: &'a str,
    pub display_name: &'a str,
    pub is_bot: bool,
    pub house_bot: v1::BotStrategy,
}

impl SeatPlayer<'_> {
    /// The message, at seat `seat`.
    pub fn to_wire(&self, seat: engine::Seat) -> v1::SeatPlayer {
        v1::SeatPlayer {
            seat: u32::from(seat),
            player_id: self.player_id.to_string(),
            display_name: self.display_name.to_string(),
            is_bot: self.is_bot,
            house_bot: self.house_bot as i32,
        }
    }
}

/// `view` (a spectator's: no seat, hand or legal turns), with `table`'s fields, as the
/// encoding of a `theboss.v1.GameView`.
pub fn encode_public_view(view: &engine::View, table: &PublicFields<'_>) -> Vec<u8> {
    debug_assert!(view.hand.is_none() && view.legal.is_none());
    let mut w = Writer(Vec::with_capacity(1536));
    w.string(1, table.game_id);
    w.uint(2, table.status as i32 as u64);
    w.message(4, |w| {
        let settings = table.settings;
        w.uint(1, settings.players.into());
        w.packed(2, settings.cities.iter().map(|&c| c as u64));
        w.uint(3, settings.turn_time_limit_seconds.into());
        w.uint(4, settings.visibility as u64);
        w.uint(5, settings.rules_version.into());
    });
    w.uint(5, table.seq);
    w.packed(
        6,
        view.cities.iter().map(|&c| city_to_wire(c) as i32 as u64),
    );
    w.uint(7, view.round.into());
    w.uint(8, view.turn.into());
    w.uint(9, view.start_player.into());
    if let Some(seat) = view.to_move.filter(|_| table.shows_to_move) {
        w.always(10, seat.into());
    }
    w.packed(11, view.turn_order.iter().map(|&s| u64::from(s)));
    w.uint(12, view.acted_this_turn.into());
    w.bool(13, view.last_turn);
    w.bool(14, view.last_round);
    if let Some(contenders) = &view.contenders {
        w.packed(15, contenders.iter().map(|&s| u64::from(s)));
    }
    for location in &view.locations {
        w.message(16, |w| write_location(w, location));
    }
    w.uint(17, view.chicago_value.into());
    for seat in &view.seats {
        let fields = table.seats.get(usize::from(seat.seat));
        w.message(18, |w| write_seat(w, seat, fields));
    }
    w.message(21, |w| {
        let police = &view.police;
        w.packed(
            1,
            police
                .revealed
                .iter()
                .map(|&c| police_to_wire(c) as i32 as u64),
        );
        w.uint(2, police.silver.into());
        w.uint(3, police.gold.into());
        w.uint(4, police.remaining.into());
    });
    if let Some(summary) = &view.last_resolution {
        w.message(22, |w| write_round_summary(w, summary));
    }
    if let Some(outcome) = &view.outcome {
        w.prost(23, &outcome_to_wire(outcome));
    }
    w.uint(24, view.rules.number().into());
    w.string(25, table.seed_commitment);
    w.bool(26, table.seeded);
    w.0
}

/// A seat's own part of its view (see the `encoded` module's header), as the encoding of a
/// `theboss.v1.GameView` holding only these fields: its seat, its hand, and its legal turns
/// with their deadline when it is to move. The same bytes as prost's encoding of that
/// message built with `convert`.
pub fn encode_own_view(
    seat: engine::Seat,
    hand: &[engine::Card],
    legal: Option<&engine::LegalTurns>,
    deadline: Option<&prost_types::Timestamp>,
) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(256));
    w.always(3, seat.into());
    for &card in hand {
        w.message(19, |w| write_card(w, card));
    }
    if let Some(legal) = legal {
        w.message(20, |w| {
            for &card in &legal.cards {
                w.message(1, |w| write_card(w, card));
            }
            for option in &legal.placements {
                w.message(2, |w| {
                    w.uint(1, location_to_wire(option.location) as i32 as u64);
                    w.uint(2, option.min_gangsters.into());
                    w.uint(3, option.max_experts.into());
                    w.uint(4, option.max_occasionals.into());
                    w.bool(5, option.expert_present);
                });
            }
            if let Some(deadline) = deadline {
                w.prost(3, deadline);
            }
        });
    }
    w.0
}

fn write_location(w: &mut Writer, location: &engine::view::LocationView) {
    w.uint(1, location_to_wire(location.location) as i32 as u64);
    for gangsters in &location.gangsters {
        w.message(2, |w| {
            w.uint(1, gangsters.experts.into());
            w.uint(2, gangsters.occasionals.into());
        });
    }
    if let Some(leader) = location.leader {
        w.always(3, leader.into());
    }
    for &card in &location.played {
        w.message(4, |w| write_card(w, card));
    }
    w.bool(5, location.face_down);
}

fn write_round_summary(w: &mut Writer, summary: &engine::RoundSummary) {
    w.uint(1, summary.round.into());
    for &card in &summary.face_down {
        w.message(2, |w| write_card(w, card));
    }
    for award in &summary.awards {
        w.message(3, |w| {
            w.uint(1, location_to_wire(award.location) as i32 as u64);
            if let Some(winner) = award.winner {
                w.always(2, winner.into());
            }
            if let Some(card) = award.card {
                w.message(3, |w| write_card(w, card));
            }
            w.uint(4, award.money.into());
            if let Some(sum) = award.chicago_sum {
                w.always(5, sum.into());
            }
            if let Some(sanction) = award.sanction {
                w.uint(6, sanction_to_wire(sanction.sanction) as i32 as u64);
                w.bool(7, sanction.applied);
            }
        });
    }
    w.packed(4, summary.money_won.iter().map(|&m| u64::from(m)));
}

fn write_card(w: &mut Writer, card: engine::Card) {
    w.uint(1, city_to_wire(card.city) as i32 as u64);
    // A oneof's field is written whatever its value.
    match card.face {
        engine::Face::Money(money) => w.always(2, money.into()),
        engine::Face::Sanction(sanction) => w.always(3, sanction_to_wire(sanction) as i32 as u64),
    }
}

fn write_seat(w: &mut Writer, seat: &engine::view::SeatView, fields: Option<&SeatFields<'_>>) {
    w.uint(1, seat.seat.into());
    if let Some(player) = fields.and_then(|f| f.player) {
        w.message(2, |w| {
            w.uint(1, seat.seat.into());
            w.string(2, player.player_id);
            w.string(3, player.display_name);
            w.bool(4, player.is_bot);
            w.uint(5, player.house_bot as i32 as u64);
        });
    }
    w.uint(3, seat.money.into());
    w.uint(4, seat.money_last_round.into());
    w.message(5, |w| {
        let supply = &seat.supply;
        w.uint(1, supply.experts_free.into());
        w.uint(2, supply.experts_placed.into());
        w.uint(3, supply.experts_in_hospital().into());
        w.packed(4, supply.prison.iter().map(|&n| u64::from(n)));
        w.uint(5, supply.killed.into());
        w.uint(6, supply.occasionals.into());
        w.uint(7, supply.occasionals_placed.into());
        w.uint(8, supply.occasionals_used.into());
    });
    w.packed(
        6,
        seat.banished.iter().map(|&c| city_to_wire(c) as i32 as u64),
    );
    for count in &seat.hand_backs {
        w.message(7, |w| {
            w.uint(1, city_to_wire(count.city) as i32 as u64);
            w.uint(2, count.count.into());
        });
    }
    w.uint(8, seat.hand_size().into());
    if let Some(fields) = fields {
        w.uint(9, fields.timeouts_in_a_row.into());
        w.bool(10, fields.forfeited);
    }
}

/// A message's encoding written field by field, as prost writes it.
struct Writer(Vec<u8>);

impl Writer {
    /// A scalar that proto3 leaves out when it is zero (uint32, uint64, an enum's value).
    fn uint(&mut self, tag: u32, value: u64) {
        if value != 0 {
            self.always(tag, value);
        }
    }

    /// A scalar written whatever its value: an `optional` field that is set, a oneof's.
    fn always(&mut self, tag: u32, value: u64) {
        self.key(tag, WireType::Varint);
        self.varint(value);
    }

    fn key(&mut self, tag: u32, wire_type: WireType) {
        self.varint(u64::from(tag << 3 | wire_type as u32));
    }

    /// A varint: nearly every number of a view (counts, seats, enums, field keys) is below
    /// 128 and takes the one byte written here, without prost's general loop.
    #[inline]
    fn varint(&mut self, value: u64) {
        if value < 0x80 {
            self.0.push(value as u8);
        } else {
            encoding::encode_varint(value, &mut self.0);
        }
    }

    fn bool(&mut self, tag: u32, value: bool) {
        self.uint(tag, u64::from(value));
    }

    fn string(&mut self, tag: u32, value: &str) {
        if !value.is_empty() {
            self.key(tag, WireType::LengthDelimited);
            self.varint(value.len() as u64);
            self.0.extend_from_slice(value.as_bytes());
        }
    }

    /// A repeated scalar, packed (proto3's default); nothing when empty.
    fn packed(&mut self, tag: u32, values: impl Iterator<Item = u64> + Clone) {
        let len: usize = values.clone().map(encoding::encoded_len_varint).sum();
        if len == 0 {
            return;
        }
        self.key(tag, WireType::LengthDelimited);
        self.varint(len as u64);
        for value in values {
            self.varint(value);
        }
    }

    /// A message field, its body written by `body`. Its length is not known ahead: one byte
    /// is kept for it, enough below 128 bytes (most nested messages of a view: locations,
    /// cards, supplies), and the body is moved along by the extra bytes when it needs more
    /// (a seat with its player, a round's summary).
    fn message(&mut self, tag: u32, body: impl FnOnce(&mut Writer)) {
        self.key(tag, WireType::LengthDelimited);
        let at = self.0.len();
        self.0.push(0);
        body(self);
        let len = self.0.len() - at - 1;
        if len < 0x80 {
            self.0[at] = len as u8;
        } else {
            let mut prefix = [0u8; 10];
            let mut rest = &mut prefix[..];
            encoding::encode_varint(len as u64, &mut rest);
            let used = 10 - rest.len();
            self.0.splice(at..at + 1, prefix[..used].iter().copied());
        }
    }

    /// A message field encoded by prost: the outcome, which only a finished game's view has,
    /// and a deadline.
    fn prost(&mut self, tag: u32, message: &impl Message) {
        encoding::message::encode(tag, message, &mut self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::view_to_wire;
    use engine::{Game, GameConfig, Viewer};

    /// The whole message as the server built it before: the engine's view converted, with
    /// the table's fields set.
    fn built(view: &engine::View, table: &PublicFields<'_>) -> v1::GameView {
        let mut message = view_to_wire(view);
        message.game_id = table.game_id.to_string();
        message.status = table.status as i32;
        message.settings = Some(table.settings.clone());
        message.seq = table.seq;
        if !table.shows_to_move {
            message.to_move = None;
        }
        for seat in &mut message.seats {
            if let Some(fields) = table.seats.get(seat.seat as usize) {
                seat.player = fields.player.map(|p| p.to_wire(seat.seat as engine::Seat));
                seat.timeouts_in_a_row = fields.timeouts_in_a_row;
                seat.forfeited = fields.forfeited;
            }
        }
        message.seed_commitment = table.seed_commitment.to_string();
        message.seeded = table.seeded;
        message
    }

    /// Every step of games of 2 to 4 players, played at random to their end, with the
    /// table's fields varied: the bytes written, what every viewer sees and each seat's own
    /// part, are prost's encoding of the message built whole, byte for byte.
    #[test]
    fn a_view_written_is_prosts_encoding_of_the_message_built_whole() {
        let ids = ["", "player-1", "player-2", "player-3"];
        let names: Vec<String> = (0..4).map(|seat| "x".repeat(seat * 70)).collect();
        let mut checked = 0;
        let mut long_messages = 0;
        let mut with_sanctions = 0;
        let mut with_contenders = 0;
        let mut own_checked = 0;
        let mut with_legal = 0;
        for seed in 0..20u64 {
            let players = 2 + (seed % 3) as u8;
            // Settings with every field set, and with defaults left out.
            let settings = v1::GameSettings {
                players: u32::from(players),
                cities: if seed.is_multiple_of(2) {
                    vec![1, 3, 5]
                } else {
                    vec![]
                },
                turn_time_limit_seconds: (seed % 3) as u32 * 30,
                rules_version: (seed % 2) as u32 + 1,
                visibility: (seed % 3) as i32,
            };
            let mut game = Game::new(&GameConfig::new(players, seed)).unwrap();
            let mut rng = engine::GameRng::from_seed(seed);
            let mut seq = 0u64;
            loop {
                let view = game.view(Viewer::Spectator);
                let seats: Vec<SeatFields> = (0..players)
                    .map(|seat| SeatFields {
                        player: (!(u64::from(seat) + seq).is_multiple_of(3)).then(|| SeatPlayer {
                            player_id: ids[usize::from(seat)],
                            display_name: &names[usize::from(seat)],
                            is_bot: seat % 2 == 1,
                            house_bot: [
                                v1::BotStrategy::Unspecified,
                                v1::BotStrategy::Random,
                                v1::BotStrategy::Ismcts,
                            ][usize::from(seat % 3)],
                        }),
                        timeouts_in_a_row: (seq % 3) as u32,
                        forfeited: (u64::from(seat) + seq).is_multiple_of(5),
                    })
                    .collect();
                let table = PublicFields {
                    game_id: if seq.is_multiple_of(7) {
                        ""
                    } else {
                        "0b2d6c1e-5f1a-4c1e"
                    },
                    status: if seq.is_multiple_of(4) {
                        v1::GameStatus::Finished
                    } else {
                        v1::GameStatus::Running
                    },
                    settings: &settings,
                    seq: seq * 37,
                    shows_to_move: !seq.is_multiple_of(4),
                    seats: &seats,
                    seed_commitment: if seq.is_multiple_of(2) { "c0ffee" } else { "" },
                    seeded: seq.is_multiple_of(3),
                };
                let written = encode_public_view(&view, &table);
                let whole = built(&view, &table);
                assert_eq!(written, whole.encode_to_vec(), "seed {seed}, step {seq}");
                assert_eq!(v1::GameView::decode(&written[..]).unwrap(), whole);
                checked += 1;
                with_contenders += usize::from(view.contenders.is_some());
                for seat in 0..players {
                    let legal = game.legal_turns(seat);
                    let deadline = (seq % 2 == 1).then_some(prost_types::Timestamp {
                        seconds: 1_795_685_788 + seq as i64,
                        nanos: (seq as i32 % 5) * 1000,
                    });
                    let written =
                        encode_own_view(seat, game.hand(seat), legal.as_ref(), deadline.as_ref());
                    let whole = v1::GameView {
                        viewer_seat: Some(u32::from(seat)),
                        hand: crate::convert::hand_to_wire(game.hand(seat)),
                        legal: legal.as_ref().map(|legal| v1::LegalTurns {
                            deadline,
                            ..crate::convert::legal_to_wire(legal)
                        }),
                        ..Default::default()
                    };
                    assert_eq!(written, whole.encode_to_vec(), "seed {seed}, step {seq}");
                    own_checked += 1;
                    with_legal += usize::from(legal.is_some());
                }
                with_sanctions += usize::from(view.last_resolution.as_ref().is_some_and(|r| {
                    r.awards
                        .iter()
                        .any(|a| a.sanction.is_some() && a.card.is_some())
                }));
                long_messages += usize::from(whole.seats.iter().any(|s| s.encoded_len() >= 0x80));
                let Some(seat) = game.to_move() else { break };
                let legal = game.legal_turns(seat).unwrap();
                let turn = legal.nth(rng.below(legal.count() as u32) as usize).unwrap();
                game.apply(seat, &turn).unwrap();
                seq += 1;
            }
            assert!(
                game.view(Viewer::Spectator).outcome.is_some(),
                "seed {seed} ended"
            );
        }
        assert!(
            own_checked > 1000 && with_legal > 300,
            "{own_checked} own parts"
        );
        // Views with every kind of field: many steps, a last round's summary with sanctions, a
        // decisive round's contenders, and nested messages whose length takes two bytes.
        assert!(
            checked > 1000 && long_messages > 100 && with_sanctions > 100 && with_contenders > 0,
            "{checked} views, {long_messages} long, {with_sanctions} with sanctions, \
             {with_contenders} with a decisive round's contenders"
        );
    }
}
