//! Following one game through `WatchGame`, the only way a client needs to learn what
//! happens: a [`GameFeed`] ([`Session::follow`]) reopens a dropped or silent stream with
//! `after_seq` set to the last sequence number it delivered, so nothing is missed or
//! delivered twice.

use std::time::Duration;

use theboss::v1::{self, watch_game_response::Message};
use tonic::Streaming;

use crate::error::ClientError;
use crate::session::Session;

#[derive(Debug, Clone)]
pub struct FeedOptions {
    /// Reopen a stream that sent nothing, not even a keep-alive, for this long (the server
    /// sends keep-alives every 15 s by default).
    pub silence: Duration,
    /// Failed attempts in a row before giving up with [`ClientError::StreamLost`], once the
    /// first of them is [`crate::RIDE_THROUGH`] ago.
    pub reconnects: u32,
    /// Which updates carry the view. The default, only the last update of each action
    /// (`action_complete`), is all a client acting on views needs, and sends each view once.
    pub update_views: v1::UpdateViews,
}

impl Default for FeedOptions {
    fn default() -> FeedOptions {
        FeedOptions {
            silence: Duration::from_secs(45),
            reconnects: 20,
            update_views: v1::UpdateViews::ActionComplete,
        }
    }
}

/// What a feed delivers.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedItem {
    /// The whole current view: the first message of a feed that started from a snapshot,
    /// or a fresh read after the stream was reopened (the missed updates follow it, so
    /// they may be older than this view).
    View(v1::GameView),
    /// An event; its view is there on every update or only on the action's last one
    /// (`action_complete`), as [`FeedOptions::update_views`] asked.
    Update(v1::GameUpdate),
}

/// One game's updates for one player, across reconnections.
pub struct GameFeed {
    session: Session,
    game_id: String,
    /// The last sequence number delivered, to resume after.
    last_seq: Option<u64>,
    stream: Option<Streaming<v1::WatchGameResponse>>,
    options: FeedOptions,
    /// Attempts that failed in a row, and since when.
    outage: crate::error::Outage,
    /// The stream was reopened at least once.
    reopened: bool,
    done: bool,
}

impl GameFeed {
    pub(crate) fn new(
        session: Session,
        game_id: &str,
        after_seq: Option<u64>,
        options: FeedOptions,
    ) -> GameFeed {
        GameFeed {
            session,
            game_id: game_id.to_string(),
            last_seq: after_seq,
            stream: None,
            options,
            outage: crate::error::Outage::default(),
            reopened: false,
            done: false,
        }
    }

    pub fn game_id(&self) -> &str {
        &self.game_id
    }

    /// The last sequence number delivered.
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }

    /// The next update, or `None` once the game is over and its last update delivered.
    pub async fn next(&mut self) -> Result<Option<FeedItem>, ClientError> {
        loop {
            if self.done {
                return Ok(None);
            }
            let Some(stream) = self.stream.as_mut() else {
                if let Some(item) = self.open().await? {
                    return Ok(Some(item));
                }
                continue;
            };
            match tokio::time::timeout(self.options.silence, stream.message()).await {
                Ok(Ok(Some(message))) => {
                    self.outage.over();
                    match message.message {
                        Some(Message::Snapshot(view)) => {
                            self.last_seq = Some(self.last_seq.unwrap_or(0).max(view.seq));
                            return Ok(Some(FeedItem::View(view)));
                        }
                        Some(Message::Update(update)) => {
                            self.last_seq = Some(update.seq);
                            return Ok(Some(FeedItem::Update(update)));
                        }
                        Some(Message::KeepAlive(_)) | None => {}
                    }
                }
                // The server ends a stream after the game's last update.
                Ok(Ok(None)) => self.done = true,
                Ok(Err(status)) => {
                    let error = ClientError::Rpc {
                        call: "WatchGame",
                        status,
                    };
                    if !error.is_transient() {
                        return Err(error);
                    }
                    tracing::debug!(game = %self.game_id, %error, "stream dropped; resuming");
                    self.reopen_later().await?;
                }
                Err(_) => {
                    tracing::warn!(game = %self.game_id, "stream silent; reopening");
                    self.reopen_later().await?;
                }
            }
        }
    }

    /// Opens the stream; after a reconnection, also reads the current view, which it returns.
    async fn open(&mut self) -> Result<Option<FeedItem>, ClientError> {
        let request = v1::WatchGameRequest {
            game_id: self.game_id.clone(),
            after_seq: self.last_seq,
            update_views: self.options.update_views as i32,
        };
        match self.session.watch(request).await {
            Ok(stream) => self.stream = Some(stream),
            Err(e) if e.is_transient() => {
                self.back_off().await?;
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
        if !self.reopened {
            return Ok(None);
        }
        // The missed updates may be none at all (the last one was what we waited for and
        // it never came): the current view tells where the game is.
        match self.session.view(&self.game_id).await {
            Ok(view) => Ok(Some(FeedItem::View(view))),
            Err(e) if e.is_transient() => {
                self.reopen_later().await?;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    async fn reopen_later(&mut self) -> Result<(), ClientError> {
        self.stream = None;
        self.reopened = true;
        self.back_off().await
    }

    async fn back_off(&mut self) -> Result<(), ClientError> {
        if !self.outage.retry(self.options.reconnects).await {
            return Err(ClientError::StreamLost(self.game_id.clone()));
        }
        Ok(())
    }
}

impl Session {
    /// Follows a game from now (a snapshot first), resuming after dropped streams.
    pub fn follow(&self, game_id: &str, options: FeedOptions) -> GameFeed {
        GameFeed::new(self.clone(), game_id, None, options)
    }

    /// Follows a game from after `after_seq` (0: every event this player may see).
    pub fn follow_after(&self, game_id: &str, after_seq: u64, options: FeedOptions) -> GameFeed {
        GameFeed::new(self.clone(), game_id, Some(after_seq), options)
    }
}
