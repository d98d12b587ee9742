//! The service unloaded: one game alone, one action at a time, and unary calls on an idle
//! connection. These are the per-call costs that load figures hide.
//!
//! The figures are measured in turns with their limits, a bare call and a bare commit
//! ([`unloaded_in_turns`]): on a shared machine these drift by tens of percent from one
//! minute to the next, so limits measured in another minute than the figure moved its ratio
//! by as much as the changes it was there to judge.

use std::time::{Duration, Instant};

use theboss::convert::{turn_to_wire, view_from_wire};
use theboss::v1;
use theboss_bot::strategy::{Strategy, random::Random};
use theboss_client::{Connection, Session};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::floor::{FloorServer, Turn};
use crate::limits::EchoServer;
use crate::seating;
use crate::stats::Sample;

pub struct GameLatency {
    /// `SubmitAction` sent → its response.
    pub ack: Sample,
    /// `SubmitAction` sent → every seat's stream has delivered the action.
    pub streams: Sample,
}

/// Plays 4-player games alone, one action at a time, until `actions` were measured.
pub async fn one_game_at_a_time(url: &str, actions: usize) -> anyhow::Result<GameLatency> {
    let seats = seats(url, "Alone", 4).await?;
    play_measured(&seats, actions, None).await
}

/// The service unloaded and its limits, measured in turns: a game alone, then as many idle
/// `GetView`s as it had actions, each beside a bare call, and bare commits, again and again.
pub struct Unloaded {
    /// `GetView` on an idle connection.
    pub get_view: Sample,
    pub game: GameLatency,
    /// A bare tonic unary call.
    pub echo: Sample,
    /// A bare single-row commit on the server's database.
    pub commit: Sample,
    /// The floor of a turn ([`crate::floor`]): a bare server's commit and four streams'
    /// updates, the bytes of one of the game's turns.
    pub floor: Sample,
}

/// How long the bare commits between two games last: at 0.3–0.4 ms a commit on the
/// developers' machines, about a hundred, as many as a game has actions or more.
const COMMITS_BETWEEN_GAMES: Duration = Duration::from_millis(40);

/// [`one_game_at_a_time`] and [`idle_unary`] in turns with their limits: after each game,
/// as many `GetView`s as it had actions, each followed by a bare call (to a bare server, in
/// a child process), then bare commits on `database_url` for [`COMMITS_BETWEEN_GAMES`],
/// then as many turns of the floor (in another child process).
pub async fn unloaded_in_turns(
    url: &str,
    database_url: &str,
    actions: usize,
) -> anyhow::Result<Unloaded> {
    let seats = seats(url, "Alone", 4).await?;
    let reader = IdleReader::start(url).await?;
    let mut echo = EchoServer::start().await?;
    let turn = Turn::record(&seats, 0, crate::floor::RECORDED_TURN).await?;
    let floor = FloorServer::start(Some(database_url), &turn).await?;
    let mut floor_table = floor.table("alone").await?;
    let (mut ack, mut streams) = (Vec::new(), Vec::new());
    let (mut views, mut echoes, mut commits) = (Vec::new(), Vec::new(), Vec::new());
    let mut floors = Vec::new();
    let mut seed = 0;
    while ack.len() < actions {
        seed += 1;
        let before = ack.len();
        play_one(&seats, seed, &mut ack, &mut streams, None, None).await?;
        for _ in before..ack.len() {
            views.push(reader.call().await?);
            echoes.push(echo.call().await?);
        }
        let probe =
            theboss_server::store::probe::bare_commits(database_url, 1, COMMITS_BETWEEN_GAMES)
                .await?;
        commits.extend(probe.latencies);
        // Last, so that what a floor's turn leaves to do after its last update (the
        // connection's flow control, its streams' tasks) falls on the next game's set-up,
        // not on a measured call.
        for _ in before..ack.len() {
            floors.push(floor_table.call().await?);
        }
    }
    echo.stop().await;
    floor_table.close().await;
    floor.stop().await;
    Ok(Unloaded {
        get_view: Sample::new(views),
        game: GameLatency {
            ack: Sample::new(ack),
            streams: Sample::new(streams),
        },
        echo: Sample::new(echoes),
        commit: Sample::new(commits),
        floor: Sample::new(floors),
    })
}

/// Registers the players of a game.
pub async fn seats(url: &str, name: &str, players: usize) -> anyhow::Result<Vec<Session>> {
    let connection = Connection::connect(url).await?;
    let mut seats = Vec::new();
    for i in 0..players {
        seats.push(connection.register(&format!("{name} {i}"), true).await?);
    }
    Ok(seats)
}

/// Plays games of `seats`, one action at a time, until `actions` were measured; each game's
/// id goes to `current` as it starts.
pub async fn play_measured(
    seats: &[Session],
    actions: usize,
    current: Option<&tokio::sync::watch::Sender<String>>,
) -> anyhow::Result<GameLatency> {
    let (mut ack, mut streams) = (Vec::new(), Vec::new());
    let mut seed = 0;
    while ack.len() < actions {
        seed += 1;
        play_one(seats, seed, &mut ack, &mut streams, current, None).await?;
    }
    Ok(GameLatency {
        ack: Sample::new(ack),
        streams: Sample::new(streams),
    })
}

/// Plays one game of `seats` to its end, one action at a time (one every `pace` at most, if
/// given: an offered load), timing each action's answer and its arrival on every stream.
pub async fn play_one(
    seats: &[Session],
    seed: u64,
    ack: &mut Vec<Duration>,
    streams: &mut Vec<Duration>,
    current: Option<&tokio::sync::watch::Sender<String>>,
    pace: Option<Duration>,
) -> anyhow::Result<()> {
    let game_id = seating::seated_game(seats, seed).await?;
    if let Some(current) = current {
        current.send_replace(game_id.clone());
    }
    // Every seat's stream reports each view it receives, with when.
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, v1::GameView, Instant)>();
    let mut watchers = JoinSet::new();
    for (i, s) in seats.iter().enumerate() {
        let mut stream = s.watch(seating::watch_request(&game_id)).await?;
        let tx = tx.clone();
        watchers.spawn(async move {
            while let Ok(Some(message)) = stream.message().await {
                let Some(view) = message.into_view() else {
                    continue;
                };
                if tx.send((i, view, Instant::now())).is_err() {
                    return;
                }
            }
        });
    }
    drop(tx);
    let mut latest: Vec<Option<v1::GameView>> = vec![None; seats.len()];
    let mut random = Random::new(seed);
    let mut target = 0;
    let mut sent: Option<Instant> = None;
    let mut sent_at: Option<Instant> = None;
    loop {
        let mut last_arrival = None;
        while latest
            .iter()
            .any(|v| v.as_ref().is_none_or(|v| v.seq < target))
        {
            let (seat, view, at) = rx.recv().await.ok_or_else(|| {
                anyhow::anyhow!("a stream of game {game_id} ended before the game did")
            })?;
            latest[seat] = Some(view);
            last_arrival = Some(at);
        }
        if let (Some(sent), Some(at)) = (sent.take(), last_arrival) {
            streams.push(at - sent);
        }
        let Some(to_move) = latest[0].as_ref().and_then(|v| v.to_move) else {
            break;
        };
        let view = latest[to_move as usize]
            .as_ref()
            .expect("every seat has a view");
        let turn = random.choose(&view_from_wire(view)?, None);
        if let (Some(pace), Some(last)) = (pace, sent_at) {
            tokio::time::sleep_until((last + pace).into()).await;
        }
        let t = Instant::now();
        sent_at = Some(t);
        let response = seats[to_move as usize]
            .submit(&game_id, view.seq, turn_to_wire(&turn))
            .await?;
        ack.push(t.elapsed());
        sent = Some(t);
        target = response.seq;
    }
    watchers.shutdown().await;
    Ok(())
}

/// A reader on an idle connection: a player and a game of its own, not started.
pub struct IdleReader {
    session: Session,
    game_id: String,
}

impl IdleReader {
    /// Registers the player, creates the game and warms the connection up.
    pub async fn start(url: &str) -> anyhow::Result<IdleReader> {
        let connection = Connection::connect(url).await?;
        let session = connection.register("Idle", true).await?;
        let settings = v1::GameSettings {
            players: 2,
            ..Default::default()
        };
        let game_id = session.create_game(settings, None).await?;
        let reader = IdleReader { session, game_id };
        for _ in 0..50 {
            reader.call().await?;
        }
        Ok(reader)
    }

    /// One `GetView`; returns how long it took.
    pub async fn call(&self) -> anyhow::Result<Duration> {
        let t = Instant::now();
        self.session.view(&self.game_id).await?;
        Ok(t.elapsed())
    }
}

/// `GetView` on an idle connection, one call after the other.
pub async fn idle_unary(url: &str, calls: usize) -> anyhow::Result<Sample> {
    let reader = IdleReader::start(url).await?;
    let mut latencies = Vec::with_capacity(calls);
    for _ in 0..calls {
        latencies.push(reader.call().await?);
    }
    Ok(Sample::new(latencies))
}
