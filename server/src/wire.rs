//! The server's own types on the wire: tables, players, settings, statuses, timestamps.
//! Everything engine-shaped goes through `theboss::convert`, the one engine↔wire mapping;
//! this module only adds what the server knows on top (ids, seats' players, sequence
//! numbers, deadlines, clocks).

use std::time::{Duration, UNIX_EPOCH};

use prost::Message;
use theboss::convert::{self, city_from_wire, city_to_wire, event_to_wire, view_to_wire};
use theboss::v1;
use theboss_bots::StrategyKind;
use theboss_engine::{RulesVersion, Seat, Viewer};

use crate::actor::{Batch, Committed, ENCODED_SLOTS, Encoded, History};
use crate::domain::{
    GameInfo, GameStatus, LadderMatch, PlayerInfo, Settings, SettingsError, Visibility,
};
use crate::game_error::GameError;
use crate::store::PlayerRatings;
use crate::store::{GameCursor, GameListing, StoreError};
use crate::table::{TableEvent, TableState};
use theboss_ladder::rating::Rating;

/// The page size a listing request asks for: 0 means 20, at most 100.
pub fn page_size(requested: u32) -> Result<u32, GameError> {
    const DEFAULT: u32 = 20;
    const MAX: u32 = 100;
    match requested {
        0 => Ok(DEFAULT),
        n if n > MAX => Err(GameError::invalid("page_size", format!("at most {MAX}"))),
        n => Ok(n),
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

/// A `ListGames` page token: where the page ended, as `<created_at µs>.<game id>`. Clients
/// treat it as opaque.
pub fn page_token(cursor: &GameCursor) -> String {
    format!("{}.{}", cursor.created_at, cursor.id)
}

pub fn cursor_from_token(token: &str) -> Result<GameCursor, GameError> {
    let invalid = || GameError::invalid("page_token", "not a token from ListGames");
    let (created_at, id) = token.split_once('.').ok_or_else(invalid)?;
    let created_at = created_at.parse().map_err(|_| invalid())?;
    uuid::Uuid::parse_str(id).map_err(|_| invalid())?;
    Ok(GameCursor {
        created_at,
        id: id.to_string(),
    })
}

pub fn timestamp(micros: i64) -> prost_types::Timestamp {
    let time = UNIX_EPOCH + Duration::from_micros(u64::try_from(micros).unwrap_or(0));
    prost_types::Timestamp::from(time)
}

pub fn status_to_wire(status: GameStatus) -> v1::GameStatus {
    match status {
        GameStatus::Open => v1::GameStatus::Open,
        GameStatus::Running => v1::GameStatus::Running,
        GameStatus::Finished => v1::GameStatus::Finished,
        GameStatus::Aborted => v1::GameStatus::Aborted,
    }
}

pub fn status_from_wire(value: i32, field: &str) -> Result<GameStatus, GameError> {
    match v1::GameStatus::try_from(value) {
        Ok(v1::GameStatus::Open) => Ok(GameStatus::Open),
        Ok(v1::GameStatus::Running) => Ok(GameStatus::Running),
        Ok(v1::GameStatus::Finished) => Ok(GameStatus::Finished),
        Ok(v1::GameStatus::Aborted) => Ok(GameStatus::Aborted),
        _ => Err(GameError::invalid(
            field,
            format!("{value} is not a game status"),
        )),
    }
}

pub fn settings_to_wire(settings: &Settings) -> v1::GameSettings {
    v1::GameSettings {
        players: u32::from(settings.players()),
        cities: settings
            .cities()
            .iter()
            .map(|&c| city_to_wire(c) as i32)
            .collect(),
        turn_time_limit_seconds: settings.turn_time_limit_secs(),
        rules_version: settings.rules().number(),
        visibility: match settings.visibility() {
            Visibility::Public => v1::Visibility::Public,
            Visibility::Unlisted => v1::Visibility::Unlisted,
        } as i32,
    }
}

/// The most cities a request may list: every city once.
const MAX_CITIES: usize = theboss_engine::CITY_COUNT;

/// Checks requested settings; the error names the offending field.
pub fn settings_from_wire(settings: Option<&v1::GameSettings>) -> Result<Settings, GameError> {
    let settings = settings.ok_or_else(|| GameError::invalid("settings", "required"))?;
    if settings.cities.len() > MAX_CITIES {
        return Err(GameError::invalid(
            "settings.cities",
            format!("at most {MAX_CITIES} cities, not {}", settings.cities.len()),
        ));
    }
    let players = u8::try_from(settings.players)
        .ok()
        .filter(|p| (2..=4).contains(p))
        .ok_or_else(|| {
            GameError::invalid(
                "settings.players",
                format!(
                    "The Boss is played by 2 to 4 players, not {}",
                    settings.players
                ),
            )
        })?;
    let cities = settings
        .cities
        .iter()
        .enumerate()
        .map(|(i, &c)| city_from_wire(c, &format!("settings.cities[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let visibility = match v1::Visibility::try_from(settings.visibility) {
        Ok(v1::Visibility::Unspecified | v1::Visibility::Public) => Visibility::Public,
        Ok(v1::Visibility::Unlisted) => Visibility::Unlisted,
        Err(_) => {
            return Err(GameError::invalid(
                "settings.visibility",
                format!("{} is not a visibility", settings.visibility),
            ));
        }
    };
    let rules = match settings.rules_version {
        0 => RulesVersion::LATEST,
        n => convert::rules_from_wire(n, "settings.rules_version")?,
    };
    let checked = Settings::new(
        players,
        cities,
        settings.turn_time_limit_seconds,
        visibility,
    )
    .map_err(|e| match e {
        SettingsError::TurnTimeLimit(_) => {
            GameError::invalid("settings.turn_time_limit_seconds", e.to_string())
        }
        SettingsError::Rules(_) => GameError::invalid("settings.cities", e.to_string()),
    })?;
    Ok(checked.with_rules(rules))
}

pub fn player_to_wire(seat: Seat, player: &PlayerInfo) -> v1::SeatPlayer {
    v1::SeatPlayer {
        seat: u32::from(seat),
        player_id: player.id.clone(),
        display_name: player.display_name.clone(),
        is_bot: player.is_bot,
        house_bot: crate::house::kind_of(&player.id).map_or(0, |k| strategy_to_wire(k) as i32),
    }
}

pub fn strategy_to_wire(kind: StrategyKind) -> v1::BotStrategy {
    match kind {
        StrategyKind::Random => v1::BotStrategy::Random,
        StrategyKind::Heuristic => v1::BotStrategy::Heuristic,
        StrategyKind::Ismcts => v1::BotStrategy::Ismcts,
    }
}

/// A `CreateGameRequest`'s house bots, for a table of `players`: at most `players - 1`,
/// UNSPECIFIED standing for the server's default.
pub fn house_bots_from_wire(values: &[i32], players: u8) -> Result<Vec<StrategyKind>, GameError> {
    if values.len() >= usize::from(players) {
        return Err(GameError::invalid(
            "house_bots",
            format!(
                "{} house bots for {players} seats: at most {} (one seat is the creator's to take)",
                values.len(),
                players.saturating_sub(1)
            ),
        ));
    }
    values
        .iter()
        .map(|value| match v1::BotStrategy::try_from(*value) {
            Ok(v1::BotStrategy::Unspecified) => Ok(crate::house::DEFAULT_KIND),
            Ok(v1::BotStrategy::Random) => Ok(StrategyKind::Random),
            Ok(v1::BotStrategy::Heuristic) => Ok(StrategyKind::Heuristic),
            Ok(v1::BotStrategy::Ismcts) => Ok(StrategyKind::Ismcts),
            Err(_) => Err(GameError::invalid(
                "house_bots",
                format!("{value} is not a BotStrategy value"),
            )),
        })
        .collect()
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

/// A viewer's own part of its view, only the fields no other viewer sees: its seat, its
/// hand, and its legal turns (with the deadline) when it is to move. Nothing for spectators.
fn own_view(state: &TableState, viewer: Viewer, deadline: Option<i64>) -> v1::GameView {
    let Viewer::Seat(seat) = viewer else {
        return v1::GameView::default();
    };
    let Some(game) = &state.game else {
        return v1::GameView {
            viewer_seat: Some(u32::from(seat)),
            ..Default::default()
        };
    };
    // As the engine's own views: a seat outside the game sees what a spectator sees.
    if seat >= game.players() {
        return v1::GameView::default();
    }
    let legal = match state.status {
        GameStatus::Running => game.legal_turns(seat).map(|legal| v1::LegalTurns {
            deadline: deadline.map(timestamp),
            ..convert::legal_to_wire(&legal)
        }),
        _ => None,
    };
    v1::GameView {
        viewer_seat: Some(u32::from(seat)),
        hand: convert::hand_to_wire(game.hand(seat)),
        legal,
        ..Default::default()
    }
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

/// A viewer's view of the table right after a batch.
pub fn batch_view(batch: &Batch, viewer: Viewer) -> v1::GameView {
    table_view(
        &batch.record,
        &batch.seed_commitment,
        &batch.state,
        viewer,
        batch.seq_after(),
        batch.deadline,
    )
}

/// Which updates of an action carry its view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewsOn {
    EveryUpdate,
    LastUpdate,
}

/// A request's `update_views`; the error names the field.
pub fn views_on_from_wire(value: i32) -> Result<ViewsOn, GameError> {
    match v1::UpdateViews::try_from(value) {
        Ok(v1::UpdateViews::Unspecified | v1::UpdateViews::Every) => Ok(ViewsOn::EveryUpdate),
        Ok(v1::UpdateViews::ActionComplete) => Ok(ViewsOn::LastUpdate),
        Err(_) => Err(GameError::invalid(
            "update_views",
            format!("{value} is not an UpdateViews value"),
        )),
    }
}

/// The updates of a batch a viewer may see, without their views; the last one completes
/// the action.
fn batch_events(batch: &Batch, viewer: Viewer) -> Vec<v1::GameUpdate> {
    let mut updates: Vec<v1::GameUpdate> = batch
        .visible_events(viewer, false)
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

/// The updates of a batch a viewer may see, as messages: what [`encoded_updates`] encodes.
#[cfg(test)]
pub fn batch_updates(batch: &Batch, viewer: Viewer, views: ViewsOn) -> Vec<v1::GameUpdate> {
    let mut updates = batch_events(batch, viewer);
    let n = updates.len();
    for (i, update) in updates.iter_mut().enumerate() {
        if carries_view(views, i, n) {
            update.view = Some(batch_view(batch, viewer));
        }
    }
    updates
}

/// Kinds of viewer: four seats and spectators.
const VIEWERS: usize = 5;
const _: () = assert!(
    2 * VIEWERS == ENCODED_SLOTS,
    "a slot per viewer and choice of views"
);

/// The updates of `batch` a viewer may see, each with its seq, encoded once per kind of viewer
/// and choice of views, and shared by every stream and answer that needs the same. The view
/// they carry is encoded in two parts: what every viewer sees, once per batch for all of them,
/// then the viewer's own part (see `theboss::encoded`).
pub fn encoded_updates(batch: &Batch, viewer: Viewer, views: ViewsOn) -> Encoded {
    let kind = match viewer {
        Viewer::Seat(seat) => usize::from(seat).min(VIEWERS - 2),
        Viewer::Spectator => VIEWERS - 1,
    };
    let slot = match views {
        ViewsOn::EveryUpdate => kind,
        ViewsOn::LastUpdate => VIEWERS + kind,
    };
    batch.encoded.get_or_init(slot, || {
        let updates = batch_events(batch, viewer);
        if updates.is_empty() {
            return Encoded::from([]);
        }
        let public = batch.encoded.public_view(|| {
            public_view(
                &batch.record,
                &batch.seed_commitment,
                &batch.state,
                batch.seq_after(),
            )
            .encode_to_vec()
            .into()
        });
        let own = own_view(&batch.state, viewer, batch.deadline).encode_to_vec();
        let view: [&[u8]; 2] = [&public, &own];
        let n = updates.len();
        updates
            .iter()
            .enumerate()
            .map(|(i, update)| {
                let view = carries_view(views, i, n).then_some(&view[..]);
                (
                    update.seq,
                    theboss::encoded::encode_update_with_view(update, view),
                )
            })
            .collect()
    })
}

/// What an action tells the seat that sent it: the events it may see, and the seq after.
/// The updates are the bytes that seat's streams send (made once for both).
pub fn submit_response(
    committed: &Committed,
    views: ViewsOn,
) -> theboss::encoded::SubmitActionResponse {
    let updates = encoded_updates(&committed.batch, Viewer::Seat(committed.seat), views);
    theboss::encoded::SubmitActionResponse::Updates {
        updates: updates.iter().map(|(_, bytes)| bytes.clone()).collect(),
        seq: committed.batch.seq_after(),
    }
}

/// A game's history as a player may see it: its own events while the game runs, everything
/// and the seed once `reveal` (the game is over and, for a table of a duplicate set, every
/// table of its set has ended).
pub fn history_response(
    history: &History,
    player_id: &str,
    reveal: bool,
) -> v1::GetHistoryResponse {
    let latest = &history.latest;
    let over = reveal && latest.state.status.is_over();
    let viewer = viewer_of(&latest.state, player_id);
    let entries = history
        .log
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

pub fn listing_to_wire(listing: &GameListing) -> v1::GameSummary {
    // Only duplicate sets are shown as such; earlier versions' series are plain games now.
    let set = listing.record.series.as_ref().filter(|s| s.is_set());
    v1::GameSummary {
        game_id: listing.record.id.clone(),
        settings: Some(settings_to_wire(&listing.record.settings)),
        status: status_to_wire(listing.status) as i32,
        seats: listing
            .seats
            .iter()
            .map(|(seat, player)| player_to_wire(*seat, player))
            .collect(),
        created_at: Some(timestamp(listing.record.created_at)),
        winners: listing.winners.iter().map(|&s| u32::from(s)).collect(),
        ladder: listing.record.ladder,
        seeded: listing.record.seeded,
        series_id: set.map(|s| s.id.clone()).unwrap_or_default(),
        series_table: set.map_or(0, |s| u32::from(s.index)),
        series_tables: set.map_or(0, |s| u32::from(s.tables)),
    }
}

/// A requested turn, checked for shape (the rules are checked by the engine).
pub fn turn_from_wire(action: Option<&v1::TurnAction>) -> Result<theboss_engine::Turn, GameError> {
    let action = action.ok_or_else(|| GameError::invalid("action", "required"))?;
    Ok(convert::turn_from_wire(action, "action")?)
}

pub fn rating_to_wire(players: u8, r: &Rating) -> v1::Rating {
    v1::Rating {
        players: u32::from(players),
        mu: r.mu,
        sigma: r.sigma,
        score: r.score(),
        games: r.games,
        provisional: r.is_provisional(),
        opponents: r.opponents,
        counted_games: r.counted(),
    }
}

pub fn ladder_match_to_wire(m: LadderMatch) -> v1::LadderMatch {
    v1::LadderMatch {
        game_id: m.game_id,
        seat: u32::from(m.seat),
        players: u32::from(m.players),
        already_seated: m.already_seated,
        series_game: m.series.as_ref().map_or(0, |s| u32::from(s.index)),
        series_games: m.series.as_ref().map_or(0, |s| u32::from(s.tables)),
        series_id: m.series.map(|s| s.id).unwrap_or_default(),
    }
}

pub fn player_ratings_to_wire(found: PlayerRatings) -> v1::GetPlayerResponse {
    v1::GetPlayerResponse {
        player_id: found.player.id,
        display_name: found.player.display_name,
        is_bot: found.player.is_bot,
        description: found.description,
        ratings: found
            .ratings
            .iter()
            .map(|(players, r)| rating_to_wire(*players, r))
            .collect(),
        history: found
            .history
            .iter()
            .map(|h| v1::RatingChange {
                game_id: h.game_id.clone(),
                players: u32::from(h.players),
                mu_before: h.before.mu,
                sigma_before: h.before.sigma,
                mu: h.after.mu,
                sigma: h.after.sigma,
                at: Some(timestamp(h.at)),
            })
            .collect(),
    }
}

/// A challenge as it is at `now` (an open one past its expiry is expired).
pub fn challenge_to_wire(
    c: &theboss_ladder::challenge::ChallengeRecord,
    now: i64,
) -> v1::Challenge {
    use theboss_ladder::challenge::{Answer, ChallengeStatus};
    let status = match c.status_at(now) {
        ChallengeStatus::Pending => v1::ChallengeStatus::Pending,
        ChallengeStatus::Seating => v1::ChallengeStatus::Seating,
        ChallengeStatus::Started => v1::ChallengeStatus::Started,
        ChallengeStatus::Declined => v1::ChallengeStatus::Declined,
        ChallengeStatus::Expired => v1::ChallengeStatus::Expired,
        ChallengeStatus::Withdrawn => v1::ChallengeStatus::Withdrawn,
    };
    let challenger = c.challenger();
    v1::Challenge {
        challenge_id: c.id.clone(),
        challenger_id: challenger.id.clone(),
        challenger_name: challenger.display_name.clone(),
        challenger_is_bot: challenger.is_bot,
        opponents: c
            .parties
            .iter()
            .skip(1)
            .map(|(p, answer)| v1::ChallengedPlayer {
                player_id: p.id.clone(),
                display_name: p.display_name.clone(),
                is_bot: p.is_bot,
                answer: match answer {
                    Answer::Pending => v1::ChallengeAnswer::Pending,
                    Answer::Accepted => v1::ChallengeAnswer::Accepted,
                    Answer::Declined => v1::ChallengeAnswer::Declined,
                } as i32,
            })
            .collect(),
        players: u32::from(c.players),
        duplicate: c.duplicate,
        rated: c.rated,
        status: status as i32,
        created_at: Some(timestamp(c.created_at)),
        expires_at: Some(timestamp(c.expires_at)),
        game_ids: c.game_ids.clone(),
    }
}

pub fn policy_to_wire(policy: theboss_ladder::challenge::Policy) -> v1::ChallengePolicy {
    use theboss_ladder::challenge::Policy;
    match policy {
        Policy::Open => v1::ChallengePolicy::Open,
        Policy::BotsOnly => v1::ChallengePolicy::BotsOnly,
        Policy::Closed => v1::ChallengePolicy::Closed,
    }
}

pub fn tournament_status_to_wire(
    status: theboss_ladder::tournament::TournamentStatus,
) -> v1::TournamentStatus {
    use theboss_ladder::tournament::TournamentStatus;
    match status {
        TournamentStatus::Open => v1::TournamentStatus::Open,
        TournamentStatus::Running => v1::TournamentStatus::Running,
        TournamentStatus::Finished => v1::TournamentStatus::Finished,
    }
}

pub fn tournament_to_wire(
    t: &theboss_ladder::tournament::TournamentRecord,
    sets: (u32, u32),
) -> v1::Tournament {
    use theboss_ladder::tournament::Format;
    v1::Tournament {
        tournament_id: t.id.clone(),
        name: t.name.clone(),
        creator_id: t.creator_id.clone(),
        format: match t.format {
            Format::RoundRobin => v1::TournamentFormat::RoundRobin,
            Format::Gauntlet => v1::TournamentFormat::Gauntlet,
        } as i32,
        players: u32::from(t.players),
        sets_per_pair: u32::from(t.sets_per_pair),
        hero_id: t.hero_id.clone().unwrap_or_default(),
        max_entrants: u32::from(t.max_entrants),
        rated: t.rated,
        status: tournament_status_to_wire(t.status) as i32,
        entrants: t
            .entrants
            .iter()
            .map(|e| v1::TournamentEntrant {
                player_id: e.player.id.clone(),
                display_name: e.player.display_name.clone(),
                is_bot: e.player.is_bot,
                description: e.description.clone(),
            })
            .collect(),
        created_at: Some(timestamp(t.created_at)),
        started_at: t.started_at.map(timestamp),
        finished_at: t.finished_at.map(timestamp),
        sets_finished: sets.0,
        sets_running: sets.1,
    }
}

pub fn tournament_report_to_wire(
    report: crate::ladder::tournament_rounds::TournamentReport,
) -> v1::GetTournamentResponse {
    let name_of = |id: &str| {
        report
            .tournament
            .entrants
            .iter()
            .find(|e| e.player.id == id)
            .map(|e| e.player.display_name.clone())
            .unwrap_or_default()
    };
    v1::GetTournamentResponse {
        tournament: Some(tournament_to_wire(
            &report.tournament,
            (report.sets_finished, report.sets_running),
        )),
        standings: report
            .standings
            .iter()
            .enumerate()
            .map(|(i, s)| v1::TournamentStanding {
                rank: u32::try_from(i + 1).unwrap_or(u32::MAX),
                display_name: name_of(&s.player),
                player_id: s.player.clone(),
                sets: s.sets,
                points: s.points,
                mean_money_diff: s.mean_diff,
            })
            .collect(),
        crosstable: report
            .crosstable
            .iter()
            .map(|c| v1::CrosstableCell {
                player_id: c.player.clone(),
                opponent_id: c.opponent.clone(),
                sets: c.sets,
                points: c.points,
                mean_money_diff: c.mean_diff,
                interval: c.interval.map(|(low, high)| v1::Interval { low, high }),
            })
            .collect(),
        games: report
            .games
            .into_iter()
            .map(
                |(game_id, player_ids, series_id, index)| v1::TournamentGame {
                    game_id,
                    player_ids,
                    series_id: series_id.unwrap_or_default(),
                    series_game: u32::from(index),
                },
            )
            .collect(),
    }
}

/// A seat in an arranged game, as the `Offers` stream tells it.
pub fn arranged_seat_to_wire(seat: crate::store::LadderSeat) -> v1::LadderMatch {
    ladder_match_to_wire(LadderMatch {
        game_id: seat.game_id,
        seat: seat.seat,
        players: seat.players,
        already_seated: false,
        series: seat.series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::fixtures;

    /// The views an action's updates carry are encoded in parts, shared between viewers; the
    /// bytes every stream and answer sends must decode to exactly the messages built whole.
    #[tokio::test]
    async fn encoded_updates_are_the_updates_built_whole_for_every_viewer() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) = fixtures::clocked_two_player_game(store).await;
        fixtures::play_to_end(&game, &players).await;
        let batches = game.watch(Some(0)).await.unwrap().backlog.build();
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
                    let whole = batch_updates(batch, viewer, views);
                    let encoded = encoded_updates(batch, viewer, views);
                    let decoded: Vec<v1::GameUpdate> = encoded
                        .iter()
                        .map(|(seq, bytes)| {
                            let update = v1::GameUpdate::decode(bytes.clone()).unwrap();
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
