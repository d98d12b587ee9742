//! One task per `WatchGame` stream: it sends the snapshot or the missed updates, then each
//! live update as this viewer may see it, and a keep-alive whenever the game is quiet. A
//! watcher that falls behind re-reads what it missed from the actor instead of failing.
//! The stream ends after the game ends.

use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, watch_game_response::Message};
use theboss_engine::Viewer;
use tokio::sync::watch as signal;
use tokio::sync::{broadcast, mpsc};
use tonic::Status;

use tracing::Instrument;

use crate::actor::{Batch, GameHandle, Subscription};
use crate::domain::now_micros;
use crate::wire::{self, ViewsOn};

pub type WatchItem = Result<v1::WatchGameResponse, Status>;

/// Streams a game to one player (seat view if seated, spectator otherwise: re-decided per
/// batch, so a watcher who joins starts seeing its hand).
pub fn spawn(
    game: GameHandle,
    player_id: String,
    subscription: Subscription,
    after_seq: Option<u64>,
    views: ViewsOn,
    keep_alive: Duration,
    stopping: signal::Receiver<bool>,
) -> mpsc::Receiver<WatchItem> {
    let (tx, rx) = mpsc::channel(32);
    let span = tracing::info_span!(
        "watch",
        game = %subscription.latest.record.id,
        player = %player_id,
        after_seq = ?after_seq
    );
    tokio::spawn(
        async move {
            let mut watcher = Watcher {
                tx,
                player_id,
                last_seq: 0,
                views,
            };
            tracing::debug!("watching");
            crate::metrics::watch_streams(1.0);
            match watcher
                .run(game, subscription, after_seq, keep_alive, stopping)
                .await
            {
                Ok(()) => tracing::debug!(seq = watcher.last_seq, "stream ended"),
                Err(Closed) => tracing::debug!(seq = watcher.last_seq, "watcher went away"),
            }
            crate::metrics::watch_streams(-1.0);
        }
        .instrument(span),
    );
    rx
}

/// The client stopped listening.
struct Closed;

struct Watcher {
    tx: mpsc::Sender<WatchItem>,
    player_id: String,
    /// The last sequence number this watcher has accounted for.
    last_seq: u64,
    views: ViewsOn,
}

impl Watcher {
    async fn send(&self, message: Message) -> Result<(), Closed> {
        self.tx
            .send(Ok(v1::WatchGameResponse {
                message: Some(message),
            }))
            .await
            .map_err(|_| Closed)
    }

    fn viewer(&self, batch: &Batch) -> Viewer {
        wire::viewer_of(&batch.state, &self.player_id)
    }

    /// Sends a batch's updates past `last_seq`. Returns whether the game is over.
    async fn forward(&mut self, batch: &Batch) -> Result<bool, Closed> {
        if batch.seq_after() > self.last_seq {
            let viewer = self.viewer(batch);
            for update in wire::batch_updates(batch, viewer, self.last_seq, self.views) {
                self.send(Message::Update(update)).await?;
            }
            self.last_seq = batch.seq_after();
        }
        Ok(batch.state.status.is_over())
    }

    async fn run(
        &mut self,
        game: GameHandle,
        subscription: Subscription,
        after_seq: Option<u64>,
        keep_alive: Duration,
        mut stopping: signal::Receiver<bool>,
    ) -> Result<(), Closed> {
        let Subscription {
            backlog,
            latest,
            mut live,
        } = subscription;
        match after_seq {
            None => {
                self.send(Message::Snapshot(wire::batch_view(
                    &latest,
                    self.viewer(&latest),
                )))
                .await?;
                self.last_seq = latest.seq_after();
                if latest.state.status.is_over() {
                    return Ok(());
                }
            }
            Some(after) => {
                self.last_seq = after;
                if self.catch_up(&backlog).await? || latest.state.status.is_over() {
                    return Ok(());
                }
            }
        }
        let mut ticker = tokio::time::interval(keep_alive);
        ticker.reset();
        loop {
            tokio::select! {
                () = self.tx.closed() => return Err(Closed),
                () = async {
                    // An error means the server is gone, which is also a stop.
                    let _ = stopping.wait_for(|stopping| *stopping).await;
                } => {
                    self.end_unavailable("the server is shutting down").await;
                    return Ok(());
                }
                received = live.recv() => match received {
                    Ok(batch) => {
                        ticker.reset();
                        if self.forward(&batch).await? {
                            return Ok(());
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        crate::metrics::watch_lagged();
                        match game.watch(Some(self.last_seq)).await {
                            Ok(again) => {
                                live = again.live;
                                if self.catch_up(&again.backlog).await? {
                                    return Ok(());
                                }
                            }
                            Err(error) => {
                                let _ = self.tx.send(Err(error.into())).await;
                                return Ok(());
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        self.end_unavailable("the game was unloaded").await;
                        return Ok(());
                    }
                },
                _ = ticker.tick() => {
                    self.send(Message::KeepAlive(v1::KeepAlive {
                        seq: self.last_seq,
                        server_time: Some(wire::timestamp(now_micros())),
                    }))
                    .await?;
                }
            }
        }
    }

    /// Ends the stream with UNAVAILABLE, telling the client how to resume.
    async fn end_unavailable(&self, why: &str) {
        let status = Status::unavailable(format!("{why}; reconnect with after_seq"));
        // The client may be gone already: then there is nobody to tell.
        let _ = self.tx.send(Err(status)).await;
    }

    async fn catch_up(&mut self, backlog: &[Arc<Batch>]) -> Result<bool, Closed> {
        let mut over = false;
        for batch in backlog {
            over = self.forward(batch).await?;
        }
        Ok(over)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::{self, ActorOptions, Submit};

    #[tokio::test]
    async fn a_lagging_watcher_re_reads_what_it_missed() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let options = ActorOptions {
            watch_buffer: 1,
            ..ActorOptions::default()
        };
        let (game, players) = actor::fixtures::two_player_game(store, options).await;
        let subscription = game.watch(Some(0)).await.unwrap();
        let (_stop, stopping) = signal::channel(false);
        // Nobody reads `rx` until the game is over, so the watcher stalls and lags.
        let mut rx = spawn(
            game.clone(),
            "p0".into(),
            subscription,
            Some(0),
            ViewsOn::EveryUpdate,
            Duration::from_secs(3600),
            stopping,
        );
        for p in &players {
            game.join(p.clone(), None).await.unwrap();
        }
        loop {
            let latest = game.latest().await.unwrap();
            let Some(seat) = latest.state.to_move() else {
                break;
            };
            let turn = latest.state.default_turn(seat).unwrap();
            game.submit(Submit {
                player_id: players[usize::from(seat)].id.clone(),
                expected_seq: latest.seq_after(),
                idempotency_key: String::new(),
                turn,
            })
            .await
            .unwrap();
        }
        let mut seqs = Vec::new();
        while let Some(item) = rx.recv().await {
            if let Some(Message::Update(update)) = item.unwrap().message {
                seqs.push(update.seq);
            }
        }
        let expected: Vec<u64> = game
            .history()
            .await
            .unwrap()
            .log
            .iter()
            .flat_map(|b| {
                b.visible_events(Viewer::Seat(0), false)
                    .map(|(seq, _)| seq)
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(expected.len() > 40, "{} events", expected.len());
        assert_eq!(seqs, expected);
    }
}
