//! `theboss.v1.LadderService`: thin RPC methods over the matchmaker ([`crate::ladder`]) and
//! the store's ratings.

use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, enqueue_response::Message, ladder_service_server::LadderService};
use tokio::sync::{mpsc, watch as signal};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::auth::Authenticator;
use crate::domain::LadderMatch;
use crate::domain::now_micros;
use crate::error::ApiError;
use crate::ladder::{Ladder, Notice};
use crate::rating::Rating;
use crate::store::Store;
use crate::wire::timestamp;

pub struct Service {
    store: Arc<dyn Store>,
    ladder: Ladder,
    auth: Authenticator,
    keep_alive: Duration,
    stopping: signal::Receiver<bool>,
}

impl Service {
    pub fn new(
        store: Arc<dyn Store>,
        auth: Authenticator,
        ladder: Ladder,
        keep_alive: Duration,
        stopping: signal::Receiver<bool>,
    ) -> Service {
        Service {
            auth,
            store,
            ladder,
            keep_alive,
            stopping,
        }
    }
}

fn rating_to_wire(players: u8, r: &Rating) -> v1::Rating {
    v1::Rating {
        players: u32::from(players),
        mu: r.mu,
        sigma: r.sigma,
        score: r.score(),
        games: r.games,
    }
}

fn match_to_wire(m: LadderMatch) -> v1::LadderMatch {
    v1::LadderMatch {
        game_id: m.game_id,
        seat: u32::from(m.seat),
        players: u32::from(m.players),
        already_seated: m.already_seated,
        series_game: m.series.as_ref().map_or(0, |s| u32::from(s.index)),
        series_games: if m.series.is_some() {
            u32::from(m.players)
        } else {
            0
        },
        series_id: m.series.map(|s| s.id).unwrap_or_default(),
    }
}

fn category(players: u32, field: &str) -> Result<u8, ApiError> {
    match players {
        0 | 2..=4 => Ok(players as u8),
        n => Err(ApiError::invalid(
            field,
            format!("2, 3, 4 or 0 (any), not {n}"),
        )),
    }
}

type Item = Result<v1::EnqueueResponse, Status>;

fn item(message: Message) -> Item {
    Ok(v1::EnqueueResponse {
        message: Some(message),
    })
}

#[tonic::async_trait]
impl LadderService for Service {
    type EnqueueStream = ReceiverStream<Item>;

    async fn enqueue(
        &self,
        request: Request<v1::EnqueueRequest>,
    ) -> Result<Response<Self::EnqueueStream>, Status> {
        let player = self.auth.caller(&request).await?;
        let request = request.into_inner();
        let players = category(request.players, "players")?;
        let (tx, rx) = mpsc::channel(8);
        let mut notices = self
            .ladder
            .enqueue(player, (players > 0).then_some(players), request.duplicate)
            .await?;
        let (keep_alive, mut stopping) = (self.keep_alive, self.stopping.clone());
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(keep_alive);
            ticker.reset();
            loop {
                let message = tokio::select! {
                    () = tx.closed() => return,
                    () = async {
                        let _ = stopping.wait_for(|s| *s).await;
                    } => {
                        let _ = tx.send(Err(Status::unavailable("the server is shutting down; enqueue again"))).await;
                        return;
                    }
                    notice = notices.recv() => match notice {
                        Some(Notice::Queued { waiting }) => Message::Queued(v1::Queued {
                            waiting: u32::try_from(waiting).unwrap_or(u32::MAX),
                        }),
                        // Its game, or the games to finish first: send them, and end the stream.
                        Some(Notice::Answered(matches)) => {
                            for m in matches {
                                if tx.send(item(Message::Matched(match_to_wire(m)))).await.is_err() {
                                    return;
                                }
                            }
                            return;
                        }
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
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn cancel(
        &self,
        request: Request<v1::CancelRequest>,
    ) -> Result<Response<v1::CancelResponse>, Status> {
        let player = self.auth.caller(&request).await?;
        let was_queued = self.ladder.cancel(player.id).await?;
        Ok(Response::new(v1::CancelResponse { was_queued }))
    }

    async fn leaderboard(
        &self,
        request: Request<v1::LeaderboardRequest>,
    ) -> Result<Response<v1::LeaderboardResponse>, Status> {
        self.auth.caller(&request).await?;
        let request = request.into_inner();
        let players = category(request.players, "players")?;
        let limit = crate::wire::page_size(request.page_size)?;
        let offset = match request.page_token.as_str() {
            "" => 0,
            token => token
                .parse::<u64>()
                .map_err(|_| ApiError::invalid("page_token", "not a token from Leaderboard"))?,
        };
        let mut rows = self
            .store
            .leaderboard(players, limit + 1, offset)
            .await
            .map_err(ApiError::from)?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let entries = rows
            .iter()
            .enumerate()
            .map(|(i, (p, r))| v1::LeaderboardEntry {
                rank: u32::try_from(offset + i as u64 + 1).unwrap_or(u32::MAX),
                player_id: p.id.clone(),
                display_name: p.display_name.clone(),
                is_bot: p.is_bot,
                rating: Some(rating_to_wire(players, r)),
            })
            .collect();
        Ok(Response::new(v1::LeaderboardResponse {
            entries,
            next_page_token: if more {
                (offset + u64::from(limit)).to_string()
            } else {
                String::new()
            },
        }))
    }

    async fn get_player(
        &self,
        request: Request<v1::GetPlayerRequest>,
    ) -> Result<Response<v1::GetPlayerResponse>, Status> {
        self.auth.caller(&request).await?;
        let player_id = request.into_inner().player_id;
        let found = self
            .store
            .player_ratings(&player_id)
            .await
            .map_err(ApiError::from)?
            .ok_or_else(|| Status::not_found(format!("no player {player_id}")))?;
        Ok(Response::new(v1::GetPlayerResponse {
            player_id: found.player.id,
            display_name: found.player.display_name,
            is_bot: found.player.is_bot,
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
        }))
    }
}
