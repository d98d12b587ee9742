//! `ExportGames`: the caller's finished games as game records (`theboss::record`, documented
//! by `docs/game-record.schema.json`), newest first, a page per call.
//!
//! The page's games are found in one index (`seats_finished_by_player`) and each is rebuilt
//! from its log as `GetHistory` would show it to the caller once the game is over, then
//! written as one JSON line. Records are made one at a time as the stream is read, so a call
//! holds at most a few of them in memory whatever the page size; and each record after the
//! first is charged to the caller's call quota as a call would be (`Quotas::pace`), so an
//! export costs the server no more than the `GetHistory` calls it replaces.

use std::time::{Duration, UNIX_EPOCH};

use theboss::record::GameRecord as Record;
use theboss::v1::{self, export_games_response::Message};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Status};

use super::{GameService, caller};
use crate::actor::steps::StepLog;
use crate::auth::Authenticator;
use crate::error::ApiError;
use crate::game_error::GameError;
use crate::games::sets::set_over;
use crate::limits::fixed::{EXPORT_PAGE, EXPORT_PAGE_DEFAULT};
use crate::store::{GameListing, Store, StoredGame};
use crate::wire;

/// The longest page token the service makes: micros, a dot, a UUID.
const MAX_PAGE_TOKEN: usize = 64;
/// Records made ahead of the client's reading.
const AHEAD: usize = 2;

pub type ExportStream = ReceiverStream<Result<v1::ExportGamesResponse, Status>>;

fn micros(time: &prost_types::Timestamp, field: &str) -> Result<i64, ApiError> {
    let invalid = || ApiError::invalid(field, "not a valid time");
    let since = std::time::SystemTime::try_from(*time).map_err(|_| invalid())?;
    let since = since.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    i64::try_from(since.as_micros()).map_err(|_| invalid())
}

/// A page token: where the previous page stopped (its last game's end and id).
fn cursor(token: &str) -> Result<Option<(i64, String)>, ApiError> {
    if token.is_empty() {
        return Ok(None);
    }
    let invalid = || ApiError::invalid("page_token", "not a token from ExportGames");
    if token.len() > MAX_PAGE_TOKEN {
        return Err(invalid());
    }
    let (at, id) = token.split_once('.').ok_or_else(invalid)?;
    let at = at.parse::<i64>().map_err(|_| invalid())?;
    uuid::Uuid::try_parse(id).map_err(|_| invalid())?;
    Ok(Some((at, id.to_string())))
}

/// A finished game's record as its player `player_id` exports it.
pub fn record_of(stored: StoredGame, player_id: &str) -> Result<Record, GameError> {
    let mut log = StepLog::new(stored.record);
    log.replay(stored.actions, |_, _| None).whole()?;
    let history = log.history();
    let latest = &history.latest;
    let state = &latest.state;
    let listing = GameListing {
        record: (*latest.record).clone(),
        status: state.status,
        seats: state
            .seats
            .iter()
            .enumerate()
            .filter_map(|(seat, p)| Some((seat as u8, p.clone()?)))
            .collect(),
        winners: state
            .game
            .as_ref()
            .and_then(|g| g.outcome())
            .map(|o| o.winners.clone())
            .unwrap_or_default(),
    };
    let summary = wire::listing_to_wire(&listing);
    let revealed = wire::history_response(&history.log, history.latest.step(), player_id, true);
    Record::from_wire(&summary, &revealed, &latest.seed_commitment).map_err(|e| {
        GameError::Store(crate::store::StoreError::Corrupt(format!(
            "game {}: {e}",
            listing.record.id
        )))
    })
}

/// Streams the records of `games` (this page's), then `next` if there is one.
async fn stream_page(
    store: std::sync::Arc<dyn Store>,
    auth: Authenticator,
    player_id: String,
    games: Vec<String>,
    next: Option<String>,
    out: mpsc::Sender<Result<v1::ExportGamesResponse, Status>>,
) {
    for (n, game_id) in games.into_iter().enumerate() {
        // The call paid for the first record.
        if n > 0 {
            auth.pace(&player_id).await;
        }
        let made = async {
            let stored = store
                .load_game(&game_id)
                .await?
                .ok_or_else(|| GameError::GameNotFound(game_id.clone()))?;
            // A table of a duplicate set still played: its deal is secret.
            if !set_over(&*store, &stored.record).await? {
                return Ok(None);
            }
            record_of(stored, &player_id).map(Some)
        };
        let message = match made.await {
            Ok(None) => continue,
            Ok(Some(record)) => Ok(v1::ExportGamesResponse {
                message: Some(Message::Record(record.to_json())),
            }),
            Err(error) => {
                tracing::warn!(game = %game_id, %error, "a finished game could not be exported");
                Err(Status::from(ApiError::from(error)))
            }
        };
        let failed = message.is_err();
        // A client that went away ends the page.
        if out.send(message).await.is_err() || failed {
            return;
        }
    }
    if let Some(token) = next {
        let _ = out
            .send(Ok(v1::ExportGamesResponse {
                message: Some(Message::NextPageToken(token)),
            }))
            .await;
    }
}

impl GameService {
    pub(super) async fn export(
        &self,
        request: Request<v1::ExportGamesRequest>,
    ) -> Result<ExportStream, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let request = request.into_inner();
        let page_size = match request.page_size {
            0 => EXPORT_PAGE_DEFAULT,
            n if n <= EXPORT_PAGE => n,
            _ => {
                return Err(ApiError::invalid(
                    "page_size",
                    format!("1 to {EXPORT_PAGE} (0 means {EXPORT_PAGE_DEFAULT})"),
                ));
            }
        };
        let after = request
            .finished_after
            .as_ref()
            .map(|t| micros(t, "finished_after"))
            .transpose()?
            .unwrap_or(i64::MIN);
        let before = request
            .finished_before
            .as_ref()
            .map(|t| micros(t, "finished_before"))
            .transpose()?
            .unwrap_or(i64::MAX);
        if after >= before {
            return Err(ApiError::invalid(
                "finished_before",
                "must be later than finished_after",
            ));
        }
        let cursor = cursor(&request.page_token)?;
        let mut found = self
            .store
            .finished_games_of(&player.id, (after, before), cursor, page_size + 1)
            .await?;
        let more = found.len() > page_size as usize;
        found.truncate(page_size as usize);
        let next = more
            .then(|| found.last().map(|(id, at)| format!("{at}.{id}")))
            .flatten();
        tracing::debug!(games = found.len(), more, "exporting");
        let (tx, rx) = mpsc::channel(AHEAD);
        tokio::spawn(stream_page(
            self.store.clone(),
            self.auth.clone(),
            player.id,
            found.into_iter().map(|(id, _)| id).collect(),
            next,
            tx,
        ));
        Ok(ReceiverStream::new(rx))
    }
}
