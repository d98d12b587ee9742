//! One task per `WatchGame` stream: it sends the snapshot or the missed updates, then each
//! live update as this viewer may see it, and a keep-alive whenever the game is quiet. The
//! stream ends after the game ends.
//!
//! A game's watchers never cost its table: each batch's updates are encoded once per kind of
//! viewer (each seat, and spectators) and every stream of that viewer sends the same bytes
//! (`Batch::encoded`); what a watcher missed is rebuilt on the watcher's own task, never
//! on the game's. A seated watcher that falls behind re-reads what it missed; a spectator
//! that falls behind is dropped with UNAVAILABLE and resumes with `after_seq`, so a slow or
//! numerous audience lags, never the table.

use std::sync::Arc;
use std::time::Duration;

use theboss::encoded::WatchGameResponse;
use theboss::v1::{self, watch_game_response::Message};
use theboss_engine::Viewer;
use tokio::sync::watch as signal;
use tokio::sync::{broadcast, mpsc};
use tonic::Status;
use tracing::Instrument;

use crate::actor::{Batch, ENCODED_SLOTS, Encoded, GameHandle, Subscription};
use crate::domain::now_micros;
use crate::limits::WatchPermit;
use crate::wire::{self, ViewsOn};

pub type WatchItem = Result<WatchGameResponse, Status>;

/// Kinds of viewer: four seats and spectators.
const VIEWERS: usize = 5;
const _: () = assert!(
    2 * VIEWERS == ENCODED_SLOTS,
    "a slot per viewer and choice of views"
);

/// The updates of `batch` a viewer may see, each with its seq, encoded once per kind of viewer
/// and choice of views, and shared by every stream that asks for the same.
fn encoded_updates(batch: &Batch, viewer: Viewer, views: ViewsOn) -> Encoded {
    let kind = match viewer {
        Viewer::Seat(seat) => usize::from(seat).min(VIEWERS - 2),
        Viewer::Spectator => VIEWERS - 1,
    };
    let slot = match views {
        ViewsOn::EveryUpdate => kind,
        ViewsOn::LastUpdate => VIEWERS + kind,
    };
    batch.encoded.get_or_init(slot, || {
        wire::batch_updates(batch, viewer, 0, views)
            .into_iter()
            .map(|update| {
                let seq = update.seq;
                let message = v1::WatchGameResponse {
                    message: Some(Message::Update(update)),
                };
                match WatchGameResponse::encode_once(&message) {
                    WatchGameResponse::Encoded(bytes) => (seq, bytes),
                    WatchGameResponse::Message(_) => unreachable!("encoded once"),
                }
            })
            .collect()
    })
}

/// How a stream follows its game.
pub struct WatchOptions {
    pub after_seq: Option<u64>,
    pub views: ViewsOn,
    pub keep_alive: Duration,
}

/// Streams a game to one player (seat view if seated, spectator otherwise: re-decided per
/// batch, so a watcher who joins starts seeing its hand). The permit counts the stream
/// against its limits until it ends.
pub fn spawn(
    game: GameHandle,
    player_id: String,
    subscription: Subscription,
    options: WatchOptions,
    permit: WatchPermit,
    stopping: signal::Receiver<bool>,
) -> mpsc::Receiver<WatchItem> {
    let (tx, rx) = mpsc::channel(32);
    let span = tracing::info_span!(
        "watch",
        game = %subscription.latest.record.id,
        player = %player_id,
        after_seq = ?options.after_seq
    );
    tokio::spawn(
        async move {
            let _permit = permit;
            let mut watcher = Watcher {
                tx,
                player_id,
                last_seq: 0,
                views: options.views,
            };
            tracing::debug!("watching");
            crate::metrics::watch_streams(1.0);
            match watcher.run(game, subscription, options, stopping).await {
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
    async fn send(&self, item: WatchGameResponse) -> Result<(), Closed> {
        self.tx.send(Ok(item)).await.map_err(|_| Closed)
    }

    async fn send_message(&self, message: Message) -> Result<(), Closed> {
        self.send(WatchGameResponse::from(v1::WatchGameResponse {
            message: Some(message),
        }))
        .await
    }

    fn viewer(&self, batch: &Batch) -> Viewer {
        wire::viewer_of(&batch.state, &self.player_id)
    }

    /// Sends a batch's updates past `last_seq`. Returns whether the game is over.
    async fn forward(&mut self, batch: &Batch) -> Result<bool, Closed> {
        if batch.seq_after() > self.last_seq {
            let updates = encoded_updates(batch, self.viewer(batch), self.views);
            for (seq, bytes) in updates.iter() {
                if *seq > self.last_seq {
                    self.send(WatchGameResponse::Encoded(bytes.clone())).await?;
                }
            }
            self.last_seq = batch.seq_after();
        }
        Ok(batch.state.status.is_over())
    }

    async fn run(
        &mut self,
        game: GameHandle,
        subscription: Subscription,
        options: WatchOptions,
        mut stopping: signal::Receiver<bool>,
    ) -> Result<(), Closed> {
        let Subscription {
            backlog,
            latest,
            mut live,
        } = subscription;
        match options.after_seq {
            None => {
                self.send_message(Message::Snapshot(wire::batch_view(
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
                if self.catch_up(&backlog.build()).await? || latest.state.status.is_over() {
                    return Ok(());
                }
            }
        }
        let mut ticker = tokio::time::interval(options.keep_alive);
        ticker.reset();
        loop {
            tokio::select! {
                () = self.tx.closed() => return Err(Closed),
                () = async {
                    // An error means the server is gone, which is also a stop.
                    let _ = stopping.wait_for(|stopping| *stopping).await;
                } => {
                    self.end("the server is shutting down").await;
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
                        let seated = live_seat(&game, &self.player_id).await;
                        if !seated {
                            // The audience never holds the table up: it comes back later.
                            self.end("this spectator fell behind the game").await;
                            return Ok(());
                        }
                        match game.watch(Some(self.last_seq)).await {
                            Ok(again) => {
                                live = again.live;
                                if self.catch_up(&again.backlog.build()).await? {
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
                        self.end("the game was unloaded").await;
                        return Ok(());
                    }
                },
                _ = ticker.tick() => {
                    self.send_message(Message::KeepAlive(v1::KeepAlive {
                        seq: self.last_seq,
                        server_time: Some(wire::timestamp(now_micros())),
                    }))
                    .await?;
                }
            }
        }
    }

    /// Ends the stream with UNAVAILABLE, telling the client how to resume.
    async fn end(&self, why: &str) {
        let status = crate::error::stream_ended(&format!("{why}; reconnect with after_seq"));
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

/// Whether a player sits at the game now.
async fn live_seat(game: &GameHandle, player_id: &str) -> bool {
    match game.latest().await {
        Ok(latest) => latest.state.seat_of(player_id).is_some(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::{self, ActorOptions};
    use crate::limits::{Limits, StreamCounts};

    /// A stream of the game to `player` from its start; the sender stops the server.
    fn stream(
        game: &GameHandle,
        player: &str,
        subscription: Subscription,
        spectator: bool,
    ) -> (mpsc::Receiver<WatchItem>, signal::Sender<bool>) {
        let counts = StreamCounts::new(&Limits::default());
        let permit = counts.open(player, "g", spectator).unwrap();
        let (stop, stopping) = signal::channel(false);
        let rx = spawn(
            game.clone(),
            player.into(),
            subscription,
            WatchOptions {
                after_seq: Some(0),
                views: ViewsOn::EveryUpdate,
                keep_alive: Duration::from_secs(3600),
            },
            permit,
            stopping,
        );
        (rx, stop)
    }

    #[tokio::test]
    async fn a_lagging_seat_re_reads_what_it_missed() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let options = ActorOptions {
            watch_buffer: 1,
            ..ActorOptions::default()
        };
        let (game, players) = actor::fixtures::two_player_game(store, options).await;
        // p0 joins first, so its stream is a seat's from the first batch on.
        game.join(players[0].clone(), Some(0)).await.unwrap();
        let subscription = game.watch(Some(0)).await.unwrap();
        let (mut rx, _stop) = stream(&game, "p0", subscription, false);
        actor::fixtures::play_to_end(&game, &players).await;
        let mut seqs = Vec::new();
        while let Some(item) = rx.recv().await {
            let message = item.expect("a seat is never dropped").message().unwrap();
            if let Some(Message::Update(update)) = message.message {
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
        assert_eq!(seqs, expected, "every update, in order, none twice");
    }

    #[tokio::test]
    async fn a_lagging_spectator_is_dropped_to_resume_and_never_holds_the_table_up() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let options = ActorOptions {
            watch_buffer: 1,
            ..ActorOptions::default()
        };
        let (game, players) = actor::fixtures::two_player_game(store, options).await;
        let subscription = game.watch(Some(0)).await.unwrap();
        let (mut rx, _stop) = stream(&game, "fan", subscription, true);
        actor::fixtures::play_to_end(&game, &players).await;
        let mut last_seq = 0;
        let mut ended = None;
        while let Some(item) = rx.recv().await {
            match item {
                Ok(response) => {
                    if let Some(Message::Update(update)) = response.message().unwrap().message {
                        assert!(update.seq > last_seq, "in order");
                        last_seq = update.seq;
                    }
                }
                Err(status) => ended = Some(status),
            }
        }
        let status = ended.expect("the spectator fell behind and was told to resume");
        assert_eq!(status.code(), tonic::Code::Unavailable);
        assert!(
            status.message().contains("after_seq"),
            "{}",
            status.message()
        );
        // It resumes where it was and gets the rest.
        let again = game.watch(Some(last_seq)).await.unwrap();
        let rest = again.backlog.build();
        assert_eq!(
            rest.last().unwrap().seq_after(),
            game.latest().await.unwrap().seq_after()
        );
    }
}
