//! A `WatchGame` stream: the snapshot or the missed updates, then each live update as this
//! viewer may see it, and a keep-alive whenever the game is quiet. The stream ends after the
//! game ends.
//!
//! The stream is polled by the response that sends it, on its connection's task (a
//! connection's calls are polled by the task that serves it: `net::serve`): no task and no
//! channel of its own between the game's broadcast and the connection, so an action's update
//! reaches the socket in one hop per stream. A stream whose client is gone is dropped with
//! its response, releasing its permit.
//!
//! A game's watchers cost its table no more than one encoding per kind of viewer a step,
//! whatever their number: each batch's updates are encoded once per kind of viewer (each
//! seat, and spectators), by the game's actor while the action is written if the step before
//! was asked for them (`wire::encode_ahead`), else by the first stream that needs them, and
//! every stream of that viewer sends the same bytes (`wire::encoded_updates`). What a
//! watcher missed is rebuilt on the watcher's side, never on the game's: a seated watcher
//! that falls behind re-reads what it missed; a spectator that falls behind is ended with
//! UNAVAILABLE and resumes with `after_seq`, so a slow or numerous audience lags, never the
//! table.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::stream::{self, BoxStream, Stream, StreamExt};
use theboss::encoded::WatchGameResponse;
use theboss::v1::{self, watch_game_response::Message};
use theboss_engine::Viewer;
use tokio::sync::broadcast;
use tokio::sync::watch as signal;
use tokio::time::Interval;
use tonic::Status;

use crate::actor::{Batch, GameHandle, Subscription};
use crate::domain::now_micros;
use crate::limits::WatchPermit;
use crate::wire::{self, ViewsOn};

pub type WatchItem = Result<WatchGameResponse, Status>;

/// What a `WatchGame` response sends.
pub type WatchStream = BoxStream<'static, WatchItem>;

/// How a stream follows its game.
pub struct WatchOptions {
    pub after_seq: Option<u64>,
    pub views: ViewsOn,
    pub keep_alive: Duration,
}

/// Streams a game to one player (seat view if seated, spectator otherwise: re-decided per
/// batch, so a watcher who joins starts seeing its hand). The permit counts the stream
/// against its limits until it is dropped.
pub fn stream(
    game: GameHandle,
    player_id: String,
    subscription: Subscription,
    options: WatchOptions,
    permit: WatchPermit,
    stopping: signal::Receiver<bool>,
) -> WatchStream {
    // A debug span: at the default level a stream holds none (a span's record and its
    // formatted fields were about a sixth of a held stream's heap); with `--log debug` every
    // event of the stream names its game and player.
    let span = tracing::debug_span!(
        "watch",
        game = %subscription.latest.record.id,
        player = %player_id,
        after_seq = ?options.after_seq
    );
    tracing::debug!(parent: &span, "watching");
    crate::metrics::watch_streams(1.0);
    let mut ticker = tokio::time::interval(options.keep_alive);
    ticker.reset();
    let watcher = Watcher {
        game,
        player_id,
        last_seq: 0,
        views: options.views,
        phase: Phase::Starting {
            subscription: Box::new(subscription),
            after_seq: options.after_seq,
        },
        pending: VecDeque::new(),
        ending: None,
        ticker,
        stopping,
        span: span.clone(),
        finished: false,
        _permit: permit,
    };
    let items = stream::unfold(watcher, |mut watcher| async move {
        let item = watcher.next().await?;
        Some((item, watcher))
    });
    Box::pin(InSpan {
        span,
        items: items.boxed(),
    })
}

/// A stream whose work runs in its span, entered at each poll: one span for the stream's
/// life, where instrumenting each item's future would clone and close it per item (about 1%
/// of the server's CPU under load in a profile).
struct InSpan {
    span: tracing::Span,
    items: WatchStream,
}

impl Stream for InSpan {
    type Item = WatchItem;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<WatchItem>> {
        let this = &mut *self;
        let _entered = this.span.enter();
        this.items.poll_next_unpin(cx)
    }
}

/// Where a stream is.
enum Phase {
    /// Nothing sent yet. (Boxed: a held stream keeps its phase's room for life.)
    Starting {
        subscription: Box<Subscription>,
        after_seq: Option<u64>,
    },
    /// Following the game's live batches.
    Live(broadcast::Receiver<Arc<Batch>>),
    /// Nothing more to send once `pending` is empty.
    Ended,
}

struct Watcher {
    game: GameHandle,
    player_id: String,
    /// The last sequence number this watcher has accounted for.
    last_seq: u64,
    views: ViewsOn,
    phase: Phase,
    /// Messages ready to be sent, in order. Errors wait apart in `ending`: a stream keeps
    /// this queue's capacity for its life, and a status is ten times a message's size.
    pending: VecDeque<WatchGameResponse>,
    /// The status the stream ends with, once `pending` is sent.
    ending: Option<Status>,
    ticker: Interval,
    stopping: signal::Receiver<bool>,
    span: tracing::Span,
    /// The stream reached its end (as opposed to being dropped by a client that went away;
    /// `phase` cannot tell, as it reads `Ended` while the watcher waits).
    finished: bool,
    _permit: WatchPermit,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _entered = self.span.enter();
        if self.finished {
            tracing::debug!(seq = self.last_seq, "stream ended");
        } else {
            tracing::debug!(seq = self.last_seq, "watcher went away");
        }
        crate::metrics::watch_streams(-1.0);
    }
}

impl Watcher {
    /// The next item to send, or None once the stream is over.
    async fn next(&mut self) -> Option<WatchItem> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(Ok(item));
            }
            if let Some(status) = self.ending.take() {
                return Some(Err(status));
            }
            match std::mem::replace(&mut self.phase, Phase::Ended) {
                Phase::Ended => {
                    self.finished = true;
                    return None;
                }
                Phase::Starting {
                    subscription,
                    after_seq,
                } => self.start(*subscription, after_seq),
                Phase::Live(live) => self.follow(live).await,
            }
        }
    }

    fn send(&mut self, item: WatchGameResponse) {
        self.pending.push_back(item);
    }

    fn send_message(&mut self, message: Message) {
        self.send(WatchGameResponse::from(v1::WatchGameResponse {
            message: Some(message),
        }));
    }

    /// Ends the stream with UNAVAILABLE, telling the client how to resume.
    fn end(&mut self, why: &str) {
        let status = crate::error::stream_ended(&format!("{why}; reconnect with after_seq"));
        self.ending = Some(status);
        self.phase = Phase::Ended;
    }

    fn viewer(&self, batch: &Batch) -> Viewer {
        wire::viewer_of(&batch.state, &self.player_id)
    }

    /// Queues a batch's updates past `last_seq`. Returns whether the game is over.
    fn forward(&mut self, batch: &Batch) -> bool {
        if batch.seq_after() > self.last_seq {
            let updates = wire::encoded_updates(batch.step(), self.viewer(batch), self.views);
            for (seq, bytes) in updates.iter() {
                if *seq > self.last_seq {
                    self.send(WatchGameResponse::Update(bytes.clone()));
                }
            }
            self.last_seq = batch.seq_after();
        }
        batch.state.status.is_over()
    }

    /// Queues the batches of a backlog. Returns whether the game is over.
    fn catch_up(&mut self, backlog: &[Arc<Batch>]) -> bool {
        let mut over = false;
        for batch in backlog {
            over = self.forward(batch);
        }
        over
    }

    /// Queues the snapshot, or what was missed after `after_seq`; then follows live.
    fn start(&mut self, subscription: Subscription, after_seq: Option<u64>) {
        let Subscription {
            backlog,
            latest,
            live,
        } = subscription;
        let over = match (after_seq, backlog) {
            (Some(after), Some(backlog)) => {
                self.last_seq = after;
                self.catch_up(&backlog.build()) || latest.state.status.is_over()
            }
            // A snapshot: asked for, or in place of a backlog the subscription lacks (the
            // whole view leaves nothing out).
            _ => {
                let snapshot = wire::view_after(latest.step(), self.viewer(&latest));
                self.send_message(Message::Snapshot(snapshot));
                self.last_seq = latest.seq_after();
                latest.state.status.is_over()
            }
        };
        self.phase = if over {
            Phase::Ended
        } else {
            Phase::Live(live)
        };
    }

    /// Waits for the next thing to send: a batch, a keep-alive, a stop.
    async fn follow(&mut self, mut live: broadcast::Receiver<Arc<Batch>>) {
        tokio::select! {
            () = async {
                // An error means the server is gone, which is also a stop.
                let _ = self.stopping.wait_for(|stopping| *stopping).await;
            } => {
                self.end("the server is shutting down");
                return;
            }
            received = live.recv() => match received {
                Ok(batch) => {
                    self.ticker.reset();
                    if self.forward(&batch) {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    crate::metrics::watch_lagged();
                    // Boxed: rare, and its futures would otherwise take room in every
                    // held stream.
                    match Box::pin(self.rejoin()).await {
                        Some(again) => live = again,
                        None => return,
                    }
                }
                Err(broadcast::error::RecvError::Closed) => {
                    self.end("the game was unloaded");
                    return;
                }
            },
            _ = self.ticker.tick() => {
                let seq = self.last_seq;
                self.send_message(Message::KeepAlive(v1::KeepAlive {
                    seq,
                    server_time: Some(wire::timestamp(now_micros())),
                }));
            }
        }
        self.phase = Phase::Live(live);
    }

    /// After falling behind: a seated watcher re-reads what it missed and follows on (the
    /// new subscription, or None once the stream ends); a spectator is ended, as the
    /// audience never holds the table up: it comes back later.
    async fn rejoin(&mut self) -> Option<broadcast::Receiver<Arc<Batch>>> {
        if !live_seat(&self.game, &self.player_id).await {
            self.end("this spectator fell behind the game");
            return None;
        }
        match self.game.watch(Some(self.last_seq)).await {
            Ok(Subscription {
                backlog: Some(backlog),
                live,
                ..
            }) => (!self.catch_up(&backlog.build())).then_some(live),
            // No backlog to catch up from: the client resumes itself.
            Ok(_) => {
                self.end("this watcher fell behind the game");
                None
            }
            Err(error) => {
                self.ending = Some(error.into());
                None
            }
        }
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
    fn watching(
        game: &GameHandle,
        player: &str,
        subscription: Subscription,
        spectator: bool,
    ) -> (WatchStream, signal::Sender<bool>) {
        let counts = StreamCounts::new(&Limits::default());
        let permit = counts.open(Some(player), "g", spectator).unwrap();
        let (stop, stopping) = signal::channel(false);
        let rx = stream(
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
        let (mut rx, _stop) = watching(&game, "p0", subscription, false);
        actor::fixtures::play_to_end(&game, &players).await;
        let mut seqs = Vec::new();
        while let Some(item) = rx.next().await {
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
        let (mut rx, _stop) = watching(&game, "fan", subscription, true);
        actor::fixtures::play_to_end(&game, &players).await;
        let mut last_seq = 0;
        let mut ended = None;
        while let Some(item) = rx.next().await {
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
        let rest = again.backlog.unwrap().build();
        assert_eq!(
            rest.last().unwrap().seq_after(),
            game.latest().await.unwrap().seq_after()
        );
    }
}
