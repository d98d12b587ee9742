//! A game's views and updates as each viewer may see them, and the encodings a step's
//! streams share: every viewer of one kind (a seat, or the spectators) and one choice of
//! views is sent the same bytes, encoded once by whoever needs them first.

use prost::Message;
use theboss::convert::{self, event_to_wire, view_to_wire};
use theboss::encoded::{
    EncodedUpdate, PublicFields, SeatFields, encode_own_view, encode_public_view,
};
use theboss::v1;
use theboss_engine::{Seat, Viewer};

use super::{player_to_wire, seat_player, settings_to_wire, status_to_wire, timestamp};
use std::sync::OnceLock;

use crate::domain::{GameInfo, GameStatus};
use crate::game_error::GameError;
use crate::store::StoreError;
use crate::table::{Logged, TableEvent, TableState};

/// A committed step as this module encodes it, borrowed from the actor's batch: the game, the
/// table after the step and the events that led there, and the step's encodings.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub record: &'a GameInfo,
    /// The record's seed commitment, which every view shows: hashed once per game.
    pub seed_commitment: &'a str,
    pub state: &'a TableState,
    /// The number of events before this step; its events are `seq_before + 1 ..`.
    pub seq_before: u64,
    pub events: &'a [TableEvent],
    /// When the seat to move will be played for (micros), if the game has a clock.
    pub deadline: Option<i64>,
    pub encodings: &'a Encodings,
}

impl Step<'_> {
    pub fn seq_after(&self) -> u64 {
        self.seq_before + self.events.len() as u64
    }
}

/// Kinds of viewer: four seats and spectators.
const VIEWERS: usize = 5;

/// How many encodings a step may keep: one per kind of viewer and per choice of views (on
/// every update, or on an action's last one).
const ENCODED_SLOTS: usize = 2 * VIEWERS;

/// One viewer's updates of a step, each with its seq, each a `GameUpdate`'s encoding.
pub type Encoded = std::sync::Arc<[(u64, EncodedUpdate)]>;

/// A step's encoded updates, each slot filled once by whoever needs it first, and the parts
/// they are made of: the encoding of what every viewer sees of the table after it, which
/// they all start from, and each of its events'. The actor keeps one beside each step it
/// keeps, so the encodings live as long as the step.
#[derive(Debug, Default)]
pub struct Encodings {
    slots: [OnceLock<Encoded>; ENCODED_SLOTS],
    public_view: OnceLock<bytes::Bytes>,
    /// Each event of the step as a `GameEvent`: every viewer who sees an event is sent the
    /// same, so it is encoded once for all of them.
    events: OnceLock<Vec<Vec<u8>>>,
}

#[cfg(test)]
impl Encodings {
    /// Whether what every viewer shares is encoded yet.
    pub fn shared_encoded(&self) -> bool {
        self.events.get().is_some() && self.public_view.get().is_some()
    }

    /// Whether a viewer's updates are encoded yet, for this choice of views.
    pub fn has_updates(&self, viewer: Viewer, views: ViewsOn) -> bool {
        self.slots[slot_of(viewer, views)].get().is_some()
    }
}

/// The cards of a game's city set, by city in play.
pub fn catalogue(record: &GameInfo) -> Result<v1::GetCatalogueResponse, GameError> {
    // Settings are validated at creation, so a stored game's that do not are corrupt.
    let setup = record
        .settings
        .engine_config(record.seed)
        .validate()
        .map_err(|e| StoreError::Corrupt(format!("game {}: its settings: {e}", record.id)))?;
    Ok(v1::GetCatalogueResponse {
        cities: setup
            .cities()
            .iter()
            .map(|&city| convert::city_cards_to_wire(city))
            .collect(),
    })
}

/// Who a player is at this table.
pub fn viewer_of(state: &TableState, player_id: &str) -> Viewer {
    state
        .seat_of(player_id)
        .map_or(Viewer::Spectator, Viewer::Seat)
}

/// A viewer's whole view of a table after event `seq`: what every viewer sees
/// ([`public_view`]) with the viewer's own part ([`own_view`]). `seed_commitment` is the
/// record's (hashed once per game, not per view); `deadline` is when the seat to move will be
/// played for (micros), if the game has a clock.
pub fn table_view(
    record: &GameInfo,
    seed_commitment: &str,
    state: &TableState,
    viewer: Viewer,
    seq: u64,
    deadline: Option<i64>,
) -> v1::GameView {
    let own = own_view(state, viewer, deadline);
    v1::GameView {
        viewer_seat: own.viewer_seat,
        hand: own.hand,
        legal: own.legal,
        ..public_view(record, seed_commitment, state, seq)
    }
}

/// What every viewer may see of a table after event `seq`: a spectator's whole view, and a
/// seat's but for its own part.
fn public_view(
    record: &GameInfo,
    seed_commitment: &str,
    state: &TableState,
    seq: u64,
) -> v1::GameView {
    let mut view = match &state.game {
        Some(game) => view_to_wire(&game.view(Viewer::Spectator)),
        None => v1::GameView {
            seats: (0..record.settings.players())
                .map(|seat| v1::SeatView {
                    seat: u32::from(seat),
                    ..Default::default()
                })
                .collect(),
            rules_version: record.settings.rules().number(),
            ..Default::default()
        },
    };
    debug_assert!(view.viewer_seat.is_none() && view.hand.is_empty() && view.legal.is_none());
    view.game_id = record.id.clone();
    view.seeded = record.seeded;
    view.seed_commitment = seed_commitment.to_string();
    view.status = status_to_wire(state.status) as i32;
    view.settings = Some(settings_to_wire(&record.settings));
    view.seq = seq;
    if state.status != GameStatus::Running {
        view.to_move = None;
    }
    for seat_view in &mut view.seats {
        let i = seat_view.seat as usize;
        seat_view.player = state.seats[i]
            .as_ref()
            .map(|p| player_to_wire(seat_view.seat as Seat, p));
        seat_view.timeouts_in_a_row = state.timeouts_in_a_row[i];
        seat_view.forfeited = state.forfeited[i];
    }
    view
}

/// [`public_view`]'s encoding, written straight from the engine's view once the game has
/// started (see `theboss::encoded`): the same bytes, without the message built first.
fn public_view_encoded(
    record: &GameInfo,
    seed_commitment: &str,
    state: &TableState,
    seq: u64,
) -> bytes::Bytes {
    let Some(game) = &state.game else {
        return public_view(record, seed_commitment, state, seq)
            .encode_to_vec()
            .into();
    };
    let seats: Vec<SeatFields> = (0..state.seats.len())
        .map(|i| SeatFields {
            player: state.seats[i].as_ref().map(seat_player),
            timeouts_in_a_row: state.timeouts_in_a_row[i],
            forfeited: state.forfeited[i],
        })
        .collect();
    let table = PublicFields {
        game_id: &record.id,
        status: status_to_wire(state.status),
        settings: &settings_to_wire(&record.settings),
        seq,
        shows_to_move: state.status == GameStatus::Running,
        seats: &seats,
        seed_commitment,
        seeded: record.seeded,
    };
    thread_local! {
        /// A spectator's view to write each step's into: its thirty-odd lists are reused
        /// from step to step (see `Game::view_into`) instead of allocated and freed.
        static SPECTATOR: std::cell::RefCell<theboss_engine::View> = Default::default();
    }
    SPECTATOR.with_borrow_mut(|view| {
        game.view_into(Viewer::Spectator, view);
        encode_public_view(view, &table).into()
    })
}

/// A seat's own part of its view, only what no other viewer sees: its hand, and its legal
/// turns when it is to move (a seat before the game starts has neither).
struct OwnPart<'a> {
    seat: Seat,
    hand: &'a [theboss_engine::Card],
    legal: Option<theboss_engine::LegalTurns>,
}

/// A viewer's own part: none for spectators, nor for a seat outside the game.
fn own_part(state: &TableState, viewer: Viewer) -> Option<OwnPart<'_>> {
    let Viewer::Seat(seat) = viewer else {
        return None;
    };
    let Some(game) = &state.game else {
        return Some(OwnPart {
            seat,
            hand: &[],
            legal: None,
        });
    };
    // As the engine's own views: a seat outside the game sees what a spectator sees.
    if seat >= game.players() {
        return None;
    }
    let legal = match state.status {
        GameStatus::Running => game.legal_turns(seat),
        _ => None,
    };
    Some(OwnPart {
        seat,
        hand: game.hand(seat),
        legal,
    })
}

/// A viewer's own part of its view as a message, the legal turns with the deadline (micros).
/// Empty for spectators.
fn own_view(state: &TableState, viewer: Viewer, deadline: Option<i64>) -> v1::GameView {
    let Some(own) = own_part(state, viewer) else {
        return v1::GameView::default();
    };
    v1::GameView {
        viewer_seat: Some(u32::from(own.seat)),
        hand: convert::hand_to_wire(own.hand),
        legal: own.legal.map(|legal| v1::LegalTurns {
            deadline: deadline.map(timestamp),
            ..convert::legal_to_wire(&legal)
        }),
        ..Default::default()
    }
}

/// [`own_view`]'s encoding, written straight from the engine's values.
fn own_view_encoded(state: &TableState, viewer: Viewer, deadline: Option<i64>) -> Vec<u8> {
    let Some(own) = own_part(state, viewer) else {
        return Vec::new();
    };
    let deadline = own.legal.as_ref().and(deadline).map(timestamp);
    encode_own_view(own.seat, own.hand, own.legal.as_ref(), deadline.as_ref())
}

pub fn table_event_to_wire(event: &TableEvent) -> v1::GameEvent {
    use v1::game_event::Kind;
    let kind = match event {
        TableEvent::Joined { seat, player } => Kind::PlayerJoined(v1::PlayerJoined {
            player: Some(player_to_wire(*seat, player)),
        }),
        TableEvent::Left { seat, player } => Kind::PlayerLeft(v1::PlayerLeft {
            player: Some(player_to_wire(*seat, player)),
            resigned: false,
        }),
        TableEvent::Resigned { seat, player } => Kind::PlayerLeft(v1::PlayerLeft {
            player: Some(player_to_wire(*seat, player)),
            resigned: true,
        }),
        TableEvent::Game { event, by_timeout } => {
            let mut wire = event_to_wire(&event.event);
            if let Some(Kind::TurnTaken(turn)) = wire.kind.as_mut() {
                turn.by_timeout = *by_timeout;
            }
            return wire;
        }
        TableEvent::Aborted { reason } => Kind::GameAborted(v1::GameAborted {
            reason: reason.clone(),
        }),
    };
    v1::GameEvent { kind: Some(kind) }
}

/// A viewer's view of the table right after a step.
pub fn view_after(step: Step<'_>, viewer: Viewer) -> v1::GameView {
    table_view(
        step.record,
        step.seed_commitment,
        step.state,
        viewer,
        step.seq_after(),
        step.deadline,
    )
}

/// Which updates of an action carry its view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewsOn {
    EveryUpdate,
    LastUpdate,
}

/// The updates of a step a viewer may see, without their views; the last one completes
/// the action.
#[cfg(test)]
fn step_events(step: Step<'_>, viewer: Viewer) -> Vec<v1::GameUpdate> {
    let mut updates: Vec<v1::GameUpdate> =
        crate::table::numbered(step.seq_before, step.events, viewer, false)
            .map(|(seq, event)| v1::GameUpdate {
                seq,
                event: Some(table_event_to_wire(event)),
                view: None,
                action_complete: false,
            })
            .collect();
    if let Some(last) = updates.last_mut() {
        last.action_complete = true;
    }
    updates
}

/// Whether update `i` of `n` carries the view after the action.
fn carries_view(views: ViewsOn, i: usize, n: usize) -> bool {
    views == ViewsOn::EveryUpdate || i + 1 == n
}

/// The updates of a step a viewer may see, as messages: what [`encoded_updates`] encodes.
#[cfg(test)]
pub fn step_updates(step: Step<'_>, viewer: Viewer, views: ViewsOn) -> Vec<v1::GameUpdate> {
    let mut updates = step_events(step, viewer);
    let n = updates.len();
    for (i, update) in updates.iter_mut().enumerate() {
        if carries_view(views, i, n) {
            update.view = Some(view_after(step, viewer));
        }
    }
    updates
}

/// The updates of `step` a viewer may see, each with its seq, encoded once per kind of viewer
/// and choice of views, and shared by every stream and answer that needs the same. The view
/// they carry is encoded in two parts: what every viewer sees, once per step for all of them,
/// then the viewer's own part (see `theboss::encoded`).
pub fn encoded_updates(step: Step<'_>, viewer: Viewer, views: ViewsOn) -> Encoded {
    let slot = slot_of(viewer, views);
    let encodings = step.encodings;
    encodings.slots[slot]
        .get_or_init(|| {
            // The step's events this viewer sees, by their place in the step (which also
            // numbers them: see `table::numbered`).
            let seen = |at: &usize| step.events[*at].visible_to(viewer, false);
            let n = (0..step.events.len()).filter(seen).count();
            if n == 0 {
                return Encoded::from([]);
            }
            let events = shared_events(step);
            let public = public_part(step);
            let own = own_view_encoded(step.state, viewer, step.deadline);
            let view: [&[u8]; 2] = [public, &own];
            let mut places = (0..step.events.len()).filter(seen);
            // Mapped from a range, the updates are collected straight into the shared slice
            // (its length known), without a list of the places first.
            (0..n)
                .map(|i| {
                    let at = places.next().expect("as many places as counted");
                    let seq = step.seq_before + 1 + at as u64;
                    let view = carries_view(views, i, n).then_some(&view[..]);
                    let bytes = theboss::encoded::encode_update(seq, &events[at], view, i + 1 == n);
                    (seq, bytes)
                })
                .collect()
        })
        .clone()
}

/// Where a step keeps a viewer's updates: by kind of viewer and choice of views.
fn slot_of(viewer: Viewer, views: ViewsOn) -> usize {
    let kind = match viewer {
        Viewer::Seat(seat) => usize::from(seat).min(VIEWERS - 2),
        Viewer::Spectator => VIEWERS - 1,
    };
    match views {
        ViewsOn::EveryUpdate => kind,
        ViewsOn::LastUpdate => VIEWERS + kind,
    }
}

/// The viewer and choice of views whose updates `slot` keeps ([`slot_of`]'s inverse).
fn slot_viewer(slot: usize) -> (Viewer, ViewsOn) {
    let views = if slot < VIEWERS {
        ViewsOn::EveryUpdate
    } else {
        ViewsOn::LastUpdate
    };
    let viewer = match Seat::try_from(slot % VIEWERS) {
        Ok(seat) if usize::from(seat) < VIEWERS - 1 => Viewer::Seat(seat),
        _ => Viewer::Spectator,
    };
    (viewer, views)
}

/// Encodes ahead what `step`'s viewers will be sent, before the first of them asks: what
/// every viewer is sent alike (its events, what all see of the table after it), and the
/// updates of each kind of viewer and choice of views the step before (`previous`) was
/// asked for, as those are the game's watchers. The actor does it while the step's action
/// is written, off the path from the commit to the watchers; done or not,
/// [`encoded_updates`] sends the same bytes, each kind of viewer only its own.
pub fn encode_ahead(step: Step<'_>, previous: &Encodings) {
    shared_events(step);
    public_part(step);
    for (slot, asked) in previous.slots.iter().enumerate() {
        if asked.get().is_some() {
            let (viewer, views) = slot_viewer(slot);
            encoded_updates(step, viewer, views);
        }
    }
}

/// Each event of `step` as a `GameEvent`: encoded by the first who needs them.
fn shared_events<'a>(step: Step<'a>) -> &'a [Vec<u8>] {
    step.encodings.events.get_or_init(|| {
        step.events
            .iter()
            .map(|event| table_event_to_wire(event).encode_to_vec())
            .collect()
    })
}

/// What every viewer sees of the table after `step`: encoded by the first who needs it.
fn public_part<'a>(step: Step<'a>) -> &'a bytes::Bytes {
    step.encodings.public_view.get_or_init(|| {
        public_view_encoded(
            step.record,
            step.seed_commitment,
            step.state,
            step.seq_after(),
        )
    })
}

/// A viewer's view of the table after `step`, as `GetView` answers it: what every viewer
/// sees, encoded once per step for all of them, then the viewer's own fields.
pub fn view_response(step: Step<'_>, viewer: Viewer) -> theboss::encoded::GetViewResponse {
    theboss::encoded::GetViewResponse::View {
        public: public_part(step).clone(),
        own: own_view_encoded(step.state, viewer, step.deadline).into(),
    }
}

/// What an action tells the seat that sent it: the events it may see, and the seq after.
/// The updates are the bytes that seat's streams send (made once for both).
pub fn submit_response(
    step: Step<'_>,
    seat: Seat,
    views: ViewsOn,
) -> theboss::encoded::SubmitActionResponse {
    let updates = encoded_updates(step, Viewer::Seat(seat), views);
    theboss::encoded::SubmitActionResponse::Updates {
        updates: updates.iter().map(|(_, bytes)| bytes.clone()).collect(),
        seq: step.seq_after(),
    }
}

/// A game's history as a player may see it: its own events while the game runs, everything
/// and the seed once `reveal` (the game is over and, for a table of a duplicate set, every
/// table of its set has ended).
pub fn history_response(
    log: &[Logged],
    latest: Step<'_>,
    player_id: &str,
    reveal: bool,
) -> v1::GetHistoryResponse {
    let over = reveal && latest.state.status.is_over();
    let viewer = viewer_of(latest.state, player_id);
    let entries = log
        .iter()
        .flat_map(|logged| {
            logged
                .visible_events(viewer, over)
                .map(|(seq, event)| v1::HistoryEntry {
                    seq,
                    event: Some(table_event_to_wire(event)),
                    at: Some(timestamp(logged.at)),
                })
        })
        .collect();
    v1::GetHistoryResponse {
        entries,
        seed: over.then_some(latest.record.seed),
        seed_salt: latest.record.seed_salt.clone().filter(|_| over),
        seeded: latest.record.seeded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::fixtures;

    /// `GetView` answers with a view in parts, the same parts as the streams'; it must decode
    /// to exactly the view built whole, for every viewer, before the deal and after.
    #[tokio::test]
    async fn a_view_answered_in_parts_is_the_view_built_whole_for_every_viewer() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) = fixtures::clocked_two_player_game(store).await;
        let before_the_deal = game.latest().await.unwrap();
        fixtures::play_to_end(&game, &players).await;
        let mut batches = game.watch(Some(0)).await.unwrap().backlog.unwrap().build();
        batches.push(before_the_deal);
        let mut dealt = 0;
        for batch in &batches {
            dealt += usize::from(batch.state.game.is_some());
            for viewer in [
                Viewer::Seat(0),
                Viewer::Seat(1),
                Viewer::Seat(2),
                Viewer::Spectator,
            ] {
                let answer = view_response(batch.step(), viewer);
                let whole = v1::GetViewResponse {
                    view: Some(view_after(batch.step(), viewer)),
                };
                assert_eq!(
                    answer.message().unwrap(),
                    whole,
                    "{viewer:?}, after {}",
                    batch.seq_after()
                );
                assert_eq!(answer.encoded_len(), answer.encode_to_vec().len());
            }
        }
        assert!(
            dealt > 20 && dealt < batches.len(),
            "{dealt} of {} dealt",
            batches.len()
        );
    }

    /// What a step's viewers are sent is encoded ahead while its action is written; every
    /// viewer's updates must be the same bytes as when the first viewer encodes them, and
    /// only the kinds of viewer the step before was asked for are encoded ahead.
    #[tokio::test]
    async fn updates_are_the_same_bytes_whether_encoded_ahead_or_not() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) = fixtures::clocked_two_player_game(store).await;
        fixtures::play_to_end(&game, &players).await;
        let batches = game.watch(Some(0)).await.unwrap().backlog.unwrap().build();
        assert!(batches.len() > 20, "{} batches", batches.len());
        let viewers = [
            Viewer::Seat(0),
            Viewer::Seat(1),
            Viewer::Seat(2),
            Viewer::Spectator,
        ];
        let choices = [ViewsOn::EveryUpdate, ViewsOn::LastUpdate];
        let afresh = |batch: &crate::actor::Batch| crate::actor::Batch {
            seq_before: batch.seq_before,
            events: batch.events.clone(),
            at: batch.at,
            record: batch.record.clone(),
            seed_commitment: batch.seed_commitment.clone(),
            state: batch.state.clone(),
            deadline: batch.deadline,
            encoded: Encodings::default(),
        };
        // A step before that one viewer asked of, and one that every viewer did.
        let every_asked = afresh(&batches[0]);
        let hint = afresh(&batches[0]);
        encoded_updates(hint.step(), Viewer::Seat(1), ViewsOn::LastUpdate);
        for viewer in viewers {
            for views in choices {
                encoded_updates(every_asked.step(), viewer, views);
            }
        }
        for batch in &batches {
            let one = afresh(batch);
            encode_ahead(one.step(), &hint.encoded);
            assert!(one.encoded.shared_encoded());
            let every = afresh(batch);
            encode_ahead(every.step(), &every_asked.encoded);
            for viewer in viewers {
                for views in choices {
                    let asked = (viewer, views) == (Viewer::Seat(1), ViewsOn::LastUpdate);
                    assert_eq!(one.encoded.has_updates(viewer, views), asked);
                    assert!(every.encoded.has_updates(viewer, views));
                    let lazily = encoded_updates(batch.step(), viewer, views);
                    assert_eq!(
                        encoded_updates(one.step(), viewer, views),
                        lazily,
                        "{viewer:?}, {views:?}, after {}",
                        batch.seq_after()
                    );
                    assert_eq!(encoded_updates(every.step(), viewer, views), lazily);
                }
                assert_eq!(
                    view_response(every.step(), viewer),
                    view_response(batch.step(), viewer)
                );
            }
        }
    }

    /// The views an action's updates carry are encoded in parts, shared between viewers; the
    /// bytes every stream and answer sends must decode to exactly the messages built whole.
    #[tokio::test]
    async fn encoded_updates_are_the_updates_built_whole_for_every_viewer() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) = fixtures::clocked_two_player_game(store).await;
        fixtures::play_to_end(&game, &players).await;
        let batches = game.watch(Some(0)).await.unwrap().backlog.unwrap().build();
        assert!(batches.len() > 20, "{} batches", batches.len());
        let mut with_views = 0;
        let mut with_legal = 0;
        for batch in &batches {
            for viewer in [
                Viewer::Seat(0),
                Viewer::Seat(1),
                Viewer::Seat(2),
                Viewer::Spectator,
            ] {
                for views in [ViewsOn::EveryUpdate, ViewsOn::LastUpdate] {
                    let whole = step_updates(batch.step(), viewer, views);
                    let encoded = encoded_updates(batch.step(), viewer, views);
                    let decoded: Vec<v1::GameUpdate> = encoded
                        .iter()
                        .map(|(seq, bytes)| {
                            let update = v1::GameUpdate::decode(bytes.update()).unwrap();
                            assert_eq!(update.seq, *seq);
                            update
                        })
                        .collect();
                    assert_eq!(
                        decoded,
                        whole,
                        "{viewer:?}, {views:?}, after {}",
                        batch.seq_after()
                    );
                    for update in &whole {
                        with_views += usize::from(update.view.is_some());
                        with_legal += usize::from(
                            update
                                .view
                                .as_ref()
                                .and_then(|v| v.legal.as_ref())
                                .is_some_and(|l| l.deadline.is_some()),
                        );
                    }
                }
            }
        }
        // What the split relies on: the engine's view of a seat is its spectator view plus
        // the seat's own fields, and `own_view` takes exactly those.
        let mut seats_checked = 0;
        for batch in &batches {
            let Some(game) = &batch.state.game else {
                continue;
            };
            let spectator = view_to_wire(&game.view(Viewer::Spectator));
            for seat in 0..game.players() {
                let engine = view_to_wire(&game.view(Viewer::Seat(seat)));
                let own = own_view(&batch.state, Viewer::Seat(seat), None);
                assert_eq!(
                    (&own.viewer_seat, &own.hand),
                    (&engine.viewer_seat, &engine.hand)
                );
                if batch.state.status == GameStatus::Running {
                    assert_eq!(own.legal, engine.legal);
                }
                let public_part = v1::GameView {
                    viewer_seat: None,
                    hand: Vec::new(),
                    legal: None,
                    ..engine
                };
                assert_eq!(public_part, spectator, "seat {seat}");
                seats_checked += 1;
            }
        }
        assert!(seats_checked > 40, "{seats_checked} seats' views checked");
        // The views compared held hands, legal turns and deadlines, not only empty parts.
        assert!(
            with_views > 100 && with_legal > 20,
            "{with_views} views, {with_legal} with legal turns"
        );
    }
}
