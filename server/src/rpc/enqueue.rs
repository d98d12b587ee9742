//! `Enqueue`: a ladder request's stream. A player at its limit of games gets the games it
//! sits in and the stream ends; a queued request gets `queued` whenever the count changes,
//! keep-alives while it waits, then its match, and the stream ends. Closing the stream
//! withdraws the request; the server stopping ends it with UNAVAILABLE.

use theboss::v1::{self, enqueue_response::Message};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Status};

use super::{LadderService, caller};
use crate::domain::{LadderMatch, now_micros};
use crate::error::ApiError;
use crate::ladder::{Notice, Request as Enqueued, Ticket};
use crate::limits::fixed::LADDER_PARALLEL as MAX_PARALLEL;
use crate::wire::timestamp;

pub(super) type EnqueueItem = Result<v1::EnqueueResponse, Status>;

fn item(message: Message) -> EnqueueItem {
    Ok(v1::EnqueueResponse {
        message: Some(message),
    })
}

fn matched(m: LadderMatch) -> EnqueueItem {
    item(Message::Matched(crate::wire::ladder_match_to_wire(m)))
}

/// A player count of a request: one the rules allow, or 0 for any.
pub(super) fn category(players: u32, field: &str) -> Result<u8, ApiError> {
    match players {
        0 => Ok(0),
        n => Ok(super::checks::player_count(field, n)?),
    }
}

impl LadderService {
    pub(super) async fn enqueue(
        &self,
        request: Request<v1::EnqueueRequest>,
    ) -> Result<ReceiverStream<EnqueueItem>, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let request = request.into_inner();
        let players = category(request.players, "players")?;
        let parallel = match request.parallel {
            0 => 1,
            n if n <= u32::from(MAX_PARALLEL) => n as u8,
            n => {
                return Err(ApiError::invalid(
                    "parallel",
                    format!("1 to {MAX_PARALLEL} (0 means 1), not {n}"),
                ));
            }
        };
        let (tx, rx) = mpsc::channel(8);
        match self
            .ladder
            .enqueue(
                player,
                (players > 0).then_some(players),
                request.duplicate,
                parallel,
            )
            .await?
        {
            Enqueued::Seated(matches) => {
                // The games to finish first, and nothing else: the stream ends.
                for m in matches {
                    // The channel holds a player's at most eight games; a client gone away
                    // has nobody to tell.
                    let _ = tx.try_send(matched(m));
                }
            }
            Enqueued::Waiting(ticket) => {
                let (keep_alive, stopping) = (self.keep_alive, self.stopping.clone());
                tokio::spawn(wait(ticket, tx, keep_alive, stopping));
            }
        }
        Ok(ReceiverStream::new(rx))
    }
}

/// Forwards a queued request's notices to its stream until its answer.
async fn wait(
    mut ticket: Ticket,
    tx: mpsc::Sender<EnqueueItem>,
    keep_alive: std::time::Duration,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    let mut ticker = tokio::time::interval(keep_alive);
    ticker.reset();
    loop {
        let message = tokio::select! {
            () = tx.closed() => return,
            () = async {
                let _ = stopping.wait_for(|s| *s).await;
            } => {
                let _ = tx
                    .send(Err(crate::error::stream_ended(
                        "the server is shutting down; enqueue again",
                    )))
                    .await;
                return;
            }
            notice = ticket.notices.recv() => match notice {
                Some(Notice::Queued { waiting }) => Message::Queued(v1::Queued { waiting }),
                // Its game: send it, and end the stream.
                Some(Notice::Answered(matches)) => {
                    for m in matches {
                        if tx.send(matched(m)).await.is_err() {
                            return;
                        }
                    }
                    return;
                }
                // Withdrawn (cancelled): the stream ends.
                None => return,
            },
            _ = ticker.tick() => Message::KeepAlive(v1::KeepAlive {
                seq: 0,
                server_time: Some(timestamp(now_micros())),
            }),
        };
        if tx.send(item(message)).await.is_err() {
            return;
        }
    }
}
