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
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use futures::stream::{BoxStream, Stream, StreamExt};
use theboss::encoded::WatchGameResponse;
use theboss::v1::{self, watch_game_response::Message};
use theboss_engine::Viewer;
use tokio::sync::broadcast;
use tokio::sync::watch as signal;
use tokio::time::{Instant, Sleep};
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tonic::Status;

use crate::actor::{Batch, GameHandle, Subscription};
use crate::domain::{PlayerInfo, now_micros};
use crate::limits::WatchPermit;
use crate::shutdown::Stop;
use crate::wire::{self, ViewsOn};

pub type WatchItem = Result<WatchGameResponse, Status>;

/// What the generated server's `WatchGame` is answered with: an empty stream, as the
/// watcher sends the response itself (`rpc::framed`).
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
) -> Watcher {
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
    let heard = Instant::now();
    Watcher {
        game,
        player_id,
        last_seq: 0,
        views: options.views,
        seated: None,
        phase: Phase::Starting {
            subscription: Box::new(subscription),
            after_seq: options.after_seq,
        },
        pending: VecDeque::new(),
        ending: None,
        keep_alive: options.keep_alive,
        heard,
        quiet: Box::pin(tokio::time::sleep_until(heard + options.keep_alive)),
        stop: Stop::new(stopping),
        span,
        finished: false,
        _permit: permit,
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
    Live(BroadcastStream<Arc<Batch>>),
    /// Fell behind: re-reading what it missed.
    Rejoining(Pin<Box<dyn Future<Output = Rejoined> + Send>>),
    /// Nothing more to send once `pending` is empty.
    Ended,
}

/// How a watcher that fell behind comes back.
enum Rejoined {
    /// What it missed, and the game's batches from there on.
    Again(Vec<Arc<Batch>>, broadcast::Receiver<Arc<Batch>>),
    /// The stream ends with UNAVAILABLE, for the client to resume.
    End(&'static str),
    /// The stream ends with this status.
    Failed(Status),
}

/// A stream's state, polled by its response's body (`rpc::framed`). Each wait it needs (the
/// next batch, the server's stop, the keep-alive's deadline) is registered once and stays
/// registered across items: an update costs the stream one poll of its receiver, not a set
/// of waits made and dropped again.
pub struct Watcher {
    game: GameHandle,
    player_id: String,
    /// The last sequence number this watcher has accounted for.
    last_seq: u64,
    views: ViewsOn,
    /// The seats this watcher was last placed by, and what it is at them. (Held, not just
    /// their address: while a clone is held, a join's `Arc::make_mut` copies them, so they
    /// never change in place, and no other seats can be made at their address.)
    seated: Option<(Arc<Vec<Option<PlayerInfo>>>, Viewer)>,
    phase: Phase,
    /// Messages ready to be sent, in order. Errors wait apart in `ending`: a stream keeps
    /// this queue's capacity for its life, and a status is ten times a message's size.
    pending: VecDeque<WatchGameResponse>,
    /// The status the stream ends with, once `pending` is sent.
    ending: Option<Status>,
    keep_alive: Duration,
    /// When the stream last heard from its game (or its last keep-alive was due): the next
    /// keep-alive is due `keep_alive` after it.
    heard: Instant,
    /// Wakes the stream when a keep-alive may be due. A batch only moves `heard`: the timer
    /// is set again once per quiet period, when it fires early, never per update.
    quiet: Pin<Box<Sleep>>,
    /// Ready once the server stops.
    stop: Stop,
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

impl Stream for Watcher {
    type Item = WatchItem;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<WatchItem>> {
        let this = &mut *self;
        // At the default level the span is disabled (see `stream`): nothing to enter, and
        // every update's poll would otherwise swap and drop spans for nothing.
        if this.span.is_disabled() {
            return this.poll_items(cx);
        }
        // The stream's work runs in its span, entered at each poll (taken out meanwhile, as
        // the watcher is borrowed whole).
        let span = std::mem::replace(&mut this.span, tracing::Span::none());
        let polled = span.in_scope(|| this.poll_items(cx));
        this.span = span;
        polled
    }
}

impl Watcher {
    /// The next item, or why there is none yet; `poll_next` within the stream's span.
    fn poll_items(&mut self, cx: &mut Context<'_>) -> Poll<Option<WatchItem>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Poll::Ready(Some(Ok(item)));
            }
            if let Some(status) = self.ending.take() {
                return Poll::Ready(Some(Err(status)));
            }
            match std::mem::replace(&mut self.phase, Phase::Ended) {
                Phase::Ended => {
                    self.finished = true;
                    return Poll::Ready(None);
                }
                Phase::Starting {
                    subscription,
                    after_seq,
                } => self.start(*subscription, after_seq),
                Phase::Rejoining(mut rejoining) => match rejoining.as_mut().poll(cx) {
                    Poll::Ready(rejoined) => self.rejoined(rejoined),
                    Poll::Pending => {
                        self.phase = Phase::Rejoining(rejoining);
                        return Poll::Pending;
                    }
                },
                Phase::Live(live) => {
                    self.phase = Phase::Live(live);
                    ready!(self.follow(cx));
                }
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

    /// Who this watcher is at `batch`'s table: found again only when the table's seats
    /// changed (a join or a leave makes them anew; every other step shares them), not by
    /// comparing the player's id with each seat's at every update.
    fn viewer(&mut self, batch: &Batch) -> Viewer {
        if let Some((seats, viewer)) = &self.seated
            && Arc::ptr_eq(seats, &batch.state.seats)
        {
            return *viewer;
        }
        let viewer = wire::viewer_of(&batch.state, &self.player_id);
        self.seated = Some((batch.state.seats.clone(), viewer));
        viewer
    }

    /// Queues a batch's updates past `last_seq`. Returns whether the game is over.
    fn forward(&mut self, batch: &Batch) -> bool {
        if batch.seq_after() > self.last_seq {
            let viewer = self.viewer(batch);
            let updates = wire::encoded_updates(batch.step(), viewer, self.views);
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

    /// Follows the game live from `live`, unless the game is over.
    fn follow_from(&mut self, over: bool, live: broadcast::Receiver<Arc<Batch>>) {
        self.phase = if over {
            Phase::Ended
        } else {
            Phase::Live(BroadcastStream::new(live))
        };
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
                let viewer = self.viewer(&latest);
                let snapshot = wire::view_after(latest.step(), viewer);
                self.send_message(Message::Snapshot(snapshot));
                self.last_seq = latest.seq_after();
                latest.state.status.is_over()
            }
        };
        self.follow_from(over, live);
    }

    /// Waits, in `Live`, for the next thing to send: a stop, a batch, a keep-alive. Ready
    /// once something is queued or the phase changed.
    fn follow(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.stop.poll(cx).is_ready() {
            self.end("the server is shutting down");
            return Poll::Ready(());
        }
        let Phase::Live(live) = &mut self.phase else {
            return Poll::Ready(());
        };
        match live.poll_next_unpin(cx) {
            Poll::Ready(Some(Ok(batch))) => {
                self.heard = Instant::now();
                if self.forward(&batch) {
                    self.phase = Phase::Ended;
                }
                return Poll::Ready(());
            }
            Poll::Ready(Some(Err(BroadcastStreamRecvError::Lagged(_)))) => {
                crate::metrics::watch_lagged();
                let rejoining = rejoin(self.game.clone(), self.player_id.clone(), self.last_seq);
                self.phase = Phase::Rejoining(Box::pin(rejoining));
                return Poll::Ready(());
            }
            Poll::Ready(None) => {
                self.end("the game was unloaded");
                return Poll::Ready(());
            }
            Poll::Pending => {}
        }
        loop {
            ready!(self.quiet.as_mut().poll(cx));
            let due = self.heard + self.keep_alive;
            let now = Instant::now();
            if now < due {
                // Heard from the game since the timer was set: wait the rest.
                self.quiet.as_mut().reset(due);
                continue;
            }
            // The next one is due a period after this one was due, not after it was sent,
            // so the cadence does not drift by each wake's lateness (as an `Interval`'s does
            // not); one more than a period late starts the cadence again from now.
            self.heard = if now.saturating_duration_since(due) < self.keep_alive {
                due
            } else {
                now
            };
            self.quiet.as_mut().reset(self.heard + self.keep_alive);
            let seq = self.last_seq;
            self.send_message(Message::KeepAlive(v1::KeepAlive {
                seq,
                server_time: Some(wire::timestamp(now_micros())),
            }));
            return Poll::Ready(());
        }
    }

    /// Takes up the stream again after [`rejoin`].
    fn rejoined(&mut self, rejoined: Rejoined) {
        match rejoined {
            Rejoined::Again(backlog, live) => {
                let over = self.catch_up(&backlog);
                self.follow_from(over, live);
            }
            Rejoined::End(why) => self.end(why),
            Rejoined::Failed(status) => {
                self.ending = Some(status);
                self.phase = Phase::Ended;
            }
        }
    }
}

/// After falling behind: a seated watcher re-reads what it missed after `last_seq` and
/// follows on; a spectator is ended, as the audience never holds the table up: it comes
/// back later.
async fn rejoin(game: GameHandle, player_id: String, last_seq: u64) -> Rejoined {
    if !live_seat(&game, &player_id).await {
        return Rejoined::End("this spectator fell behind the game");
    }
    match game.watch(Some(last_seq)).await {
        Ok(Subscription {
            backlog: Some(backlog),
            live,
            ..
        }) => Rejoined::Again(backlog.build(), live),
        // No backlog to catch up from: the client resumes itself.
        Ok(_) => Rejoined::End("this watcher fell behind the game"),
        Err(error) => Rejoined::Failed(error.into()),
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

    /// A stream of the game to `player`, as `options` ask; the sender stops the server.
    fn opened(
        game: &GameHandle,
        player: &str,
        subscription: Subscription,
        spectator: bool,
        options: WatchOptions,
    ) -> (Watcher, signal::Sender<bool>) {
        let counts = StreamCounts::new(&Limits::default());
        let permit = counts.open(Some(player), "g", spectator).unwrap();
        let (stop, stopping) = signal::channel(false);
        let rx = stream(
            game.clone(),
            player.into(),
            subscription,
            options,
            permit,
            stopping,
        );
        (rx, stop)
    }

    /// A stream of the game to `player` from its start; the sender stops the server.
    fn watching(
        game: &GameHandle,
        player: &str,
        subscription: Subscription,
        spectator: bool,
    ) -> (Watcher, signal::Sender<bool>) {
        let options = WatchOptions {
            after_seq: Some(0),
            views: ViewsOn::EveryUpdate,
            keep_alive: Duration::from_secs(3600),
        };
        opened(game, player, subscription, spectator, options)
    }

    /// A snapshot and then live updates, keep-alives every `keep_alive`.
    fn snapshot_then_live(keep_alive: Duration) -> WatchOptions {
        WatchOptions {
            after_seq: None,
            views: ViewsOn::EveryUpdate,
            keep_alive,
        }
    }

    /// Polls the stream once, as its response would after a wake.
    fn polled(rx: &mut Watcher) -> Option<Message> {
        use futures::FutureExt;
        match rx.next().now_or_never() {
            Some(Some(item)) => item.expect("no error").message().unwrap().message,
            Some(None) => panic!("the stream ended"),
            None => None,
        }
    }

    #[tokio::test]
    async fn a_keep_alive_is_sent_after_a_quiet_period_and_batches_put_it_off() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, _players) =
            actor::fixtures::two_player_game(store, ActorOptions::default()).await;
        let latest = game.watch(None).await.unwrap().latest;
        // The batches come from here: the test sends them itself, at the times it chooses.
        let (batches, live) = broadcast::channel(16);
        let subscription = Subscription {
            backlog: None,
            latest: latest.clone(),
            live,
        };
        // No store is touched from here on, so the clock can stand still between steps.
        tokio::time::pause();
        let keep_alive = Duration::from_secs(10);
        let (mut rx, _stop) = opened(
            &game,
            "p0",
            subscription,
            false,
            snapshot_then_live(keep_alive),
        );
        assert!(matches!(polled(&mut rx), Some(Message::Snapshot(_))));
        assert_eq!(polled(&mut rx), None, "nothing more yet");
        // A batch every 6 s for a minute: never 10 s of quiet, so never a keep-alive.
        for _ in 0..10 {
            tokio::time::advance(Duration::from_secs(6)).await;
            batches.send(latest.clone()).unwrap();
            // (The same batch again: nothing new to send, but the game was heard.)
            assert_eq!(polled(&mut rx), None, "no keep-alive while the game speaks");
        }
        // Then quiet: a keep-alive 10 s after the last batch, not before. (Timers fire on the
        // millisecond after their deadline, hence the margins.)
        tokio::time::advance(Duration::from_millis(9_900)).await;
        assert_eq!(polled(&mut rx), None, "too early");
        // Polled 100 ms late, as a busy server might.
        tokio::time::advance(Duration::from_millis(200)).await;
        let seq = latest.seq_after();
        assert!(matches!(polled(&mut rx), Some(Message::KeepAlive(k)) if k.seq == seq));
        assert_eq!(polled(&mut rx), None, "one at a time");
        // The next is due 10 s after that one was due, not after it was sent: the cadence
        // does not drift by each one's lateness.
        tokio::time::advance(keep_alive - Duration::from_millis(150)).await;
        assert_eq!(polled(&mut rx), None, "too early");
        tokio::time::advance(Duration::from_millis(100)).await;
        assert!(matches!(polled(&mut rx), Some(Message::KeepAlive(k)) if k.seq == seq));
    }

    /// The seat each view in the stream's next messages is of, in order (None: a
    /// spectator's), until nothing more is ready.
    fn seats_seen(rx: &mut Watcher) -> Vec<Option<u32>> {
        let mut seen = Vec::new();
        while let Some(message) = polled(rx) {
            match message {
                Message::Snapshot(view) => seen.push(view.viewer_seat),
                Message::Update(update) => seen.push(update.view.unwrap().viewer_seat),
                other => panic!("a view, not {other:?}"),
            }
        }
        seen
    }

    #[tokio::test]
    async fn a_watcher_sees_as_what_it_is_at_the_table_as_it_joins_and_leaves() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, players) =
            actor::fixtures::two_player_game(store, ActorOptions::default()).await;
        let player = players[0].id.clone();
        let subscription = game.watch(None).await.unwrap();
        let options = snapshot_then_live(Duration::from_secs(3600));
        let (mut rx, _stop) = opened(&game, &player, subscription, true, options);
        assert_eq!(seats_seen(&mut rx), [None]);
        // Each join and leave seats it anew; the steps between keep its seat.
        game.join(players[1].clone(), None).await.unwrap();
        assert_eq!(seats_seen(&mut rx), [None], "another's join");
        game.leave(players[1].id.clone()).await.unwrap();
        game.join(players[0].clone(), None).await.unwrap();
        assert_eq!(seats_seen(&mut rx), [None, Some(0)]);
        game.leave(player.clone()).await.unwrap();
        assert_eq!(seats_seen(&mut rx), [None]);
        game.join(players[0].clone(), None).await.unwrap();
        game.join(players[1].clone(), None).await.unwrap();
        // The game starts: every update of its start is the seat's.
        let seen = seats_seen(&mut rx);
        assert!(seen.len() > 2, "{seen:?}");
        assert!(seen.iter().all(|s| *s == Some(0)), "{seen:?}");
    }

    /// A waker that counts its wakes.
    #[derive(Default)]
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl futures::task::ArcWake for Wakes {
        fn wake_by_ref(this: &Arc<Self>) {
            this.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    impl Wakes {
        fn count(&self) -> usize {
            self.0.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    #[tokio::test]
    async fn the_servers_stop_wakes_and_ends_a_quiet_stream_whichever_task_polled_it_last() {
        let (store, _dir) = crate::testing::sqlite_store().await;
        let (game, _players) =
            actor::fixtures::two_player_game(store, ActorOptions::default()).await;
        let subscription = game.watch(None).await.unwrap();
        let options = snapshot_then_live(Duration::from_secs(3600));
        let (mut rx, stop) = opened(&game, "p0", subscription, false, options);
        let (first, second) = (Arc::new(Wakes::default()), Arc::new(Wakes::default()));
        let poll_with = |rx: &mut Watcher, wakes: &Arc<Wakes>| {
            let waker = futures::task::waker(wakes.clone());
            rx.poll_next_unpin(&mut Context::from_waker(&waker))
        };
        assert!(matches!(
            poll_with(&mut rx, &first),
            Poll::Ready(Some(Ok(_)))
        ));
        assert!(poll_with(&mut rx, &first).is_pending());
        assert!(
            poll_with(&mut rx, &first).is_pending(),
            "polled again by the same task"
        );
        // Another task takes the stream over: the stop must wake that one.
        assert!(poll_with(&mut rx, &second).is_pending());
        stop.send(true).unwrap();
        assert_eq!(second.count(), 1, "the task that polled last is woken");
        match poll_with(&mut rx, &second) {
            Poll::Ready(Some(Err(status))) => {
                assert_eq!(status.code(), tonic::Code::Unavailable);
                assert!(
                    status.message().contains("shutting down"),
                    "{}",
                    status.message()
                );
            }
            other => panic!(
                "the stream ends on the stop, not {:?}",
                other.map(|i| i.map(|r| r.is_ok()))
            ),
        }
        assert!(matches!(poll_with(&mut rx, &second), Poll::Ready(None)));
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
