//! The floor of a turn: what any server of this contract pays for one, measured in turns with
//! the game server's own. A bare server (`theboss-bench floor`, a child process) serves
//! `GameService`'s `WatchGame` and `SubmitAction` over the game server's own connection
//! handling (`theboss_server::net`) and nothing else: a submission commits one row (the bare
//! commit's, on the same database), and then each of four streams sends its update and the
//! caller its answer, the very bytes of a turn the game server sent to the seats of a real
//! game. No authentication, quota, tracing, game or actor: what the game server's turn takes
//! beyond this one is the service's own work, and what this one takes beyond echo + commit is
//! the contract's (four seats' updates to send and decode instead of one answer) and the
//! machine's.
//!
//! Under load ([`under_load`]) the floor commits nothing (one connection could not keep up
//! with the game's group commits) and plays as many tables as the game's load had games, at
//! the game's actions/s: its CPU per turn is the transport's share of an action's, as the
//! game's load pays it.

use std::collections::HashMap;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bytes::Bytes;
use prost::Message;
use theboss::encoded;
use theboss::v1;
use theboss::v1::game_service_client::GameServiceClient;
use theboss::v1::game_service_server::{GameService, GameServiceServer};
use theboss_bot::strategy::{Strategy, random::Random};
use theboss_client::Session;
use theboss_server::net;
use theboss_server::store::probe::Committer;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;
use tokio_stream::Stream;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use crate::{child, seating};

/// The seats of the games the floor stands in for.
const SEATS: usize = 4;

/// The turn of a game whose messages the floor sends: well into the first round, the views
/// as large as they are in play.
pub const RECORDED_TURN: usize = 10;

/// What the game server sent for one turn: each seat's update (`GameUpdate`) and the
/// submitter's answer's updates.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub updates: Vec<Bytes>,
    pub answer: Vec<Bytes>,
}

impl Turn {
    /// Plays the first `turns` actions of a game of the four `seats` on the game server and
    /// keeps what its last one sent.
    pub async fn record(seats: &[Session], seed: u64, turns: usize) -> anyhow::Result<Turn> {
        if seats.len() != SEATS {
            bail!("the floor stands in for games of {SEATS} seats");
        }
        let game_id = seating::seated_game(seats, seed).await?;
        let mut streams = Vec::new();
        for s in seats {
            streams.push(s.watch(seating::watch_request(&game_id)).await?);
        }
        // Each seat's view, from its snapshot and then from its updates.
        let mut views = Vec::new();
        for stream in &mut streams {
            match stream.message().await? {
                Some(v1::WatchGameResponse {
                    message: Some(v1::watch_game_response::Message::Snapshot(view)),
                }) => views.push(view),
                other => bail!("a stream began with {other:?}, not a snapshot"),
            }
        }
        let mut latest: Vec<Option<v1::GameUpdate>> = vec![None; SEATS];
        let mut random = Random::new(seed);
        let mut answer = v1::SubmitActionResponse::default();
        for _ in 0..turns {
            let to_move = views[0]
                .to_move
                .context("the game ended within its first turns")?
                as usize;
            let view = views.get(to_move).context("a seat out of the game")?;
            let turn = random.choose(&theboss::convert::view_from_wire(view)?, None);
            answer = seats[to_move]
                .submit(&game_id, view.seq, theboss::convert::turn_to_wire(&turn))
                .await?;
            for (seat, stream) in streams.iter_mut().enumerate() {
                // The action's updates, up to the one that completes it.
                loop {
                    let message = stream.message().await?.context("a stream ended mid-game")?;
                    if let Some(v1::watch_game_response::Message::Update(update)) = message.message
                        && update.action_complete
                    {
                        views[seat] = update.view.clone().context("an update without its view")?;
                        latest[seat] = Some(update);
                        break;
                    }
                }
            }
        }
        Ok(Turn {
            updates: latest
                .into_iter()
                .map(|u| Bytes::from(u.unwrap_or_default().encode_to_vec()))
                .collect(),
            answer: answer
                .updates
                .iter()
                .map(|u| Bytes::from(u.encode_to_vec()))
                .collect(),
        })
    }

    /// Writes the turn to `path`: the seats' updates, then the answer's, each as its length
    /// and its bytes.
    fn save(&self, path: &Path) -> anyhow::Result<()> {
        let mut file = Vec::new();
        for bytes in self.updates.iter().chain(&self.answer) {
            prost::encoding::encode_varint(bytes.len() as u64, &mut file);
            file.extend_from_slice(bytes);
        }
        std::fs::write(path, file).context("write the floor's turn")
    }

    /// Reads what [`Turn::save`] wrote.
    fn load(path: &Path) -> anyhow::Result<Turn> {
        let mut file = Bytes::from(std::fs::read(path).context("read the floor's turn")?);
        let mut updates = Vec::new();
        while !file.is_empty() {
            let len = usize::try_from(prost::encoding::decode_varint(&mut file)?)?;
            anyhow::ensure!(len <= file.len(), "the floor's turn is cut short");
            updates.push(file.split_to(len));
        }
        anyhow::ensure!(updates.len() > SEATS, "the floor's turn lacks its answer");
        let answer = updates.split_off(SEATS);
        Ok(Turn { updates, answer })
    }
}

/// The floor's service: `WatchGame` of a seat of a table (`game_id` "<table>/<seat>", the
/// seat 0 to 3) and `SubmitAction` at a table (`game_id` "<table>"); every other method is
/// UNIMPLEMENTED.
struct Floor {
    /// Each seat's update of the turn, as the game server keeps one (encoded once, framed
    /// for its streams).
    updates: Vec<encoded::EncodedUpdate>,
    /// The answer's updates.
    answer: Vec<encoded::EncodedUpdate>,
    /// None: the turns commit nothing (the floor under load is the transport's).
    committer: Option<Committer>,
    tables: Mutex<HashMap<String, broadcast::Sender<()>>>,
    seq: AtomicU64,
}

impl Floor {
    fn table(&self, name: &str) -> broadcast::Sender<()> {
        self.tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(name.to_string())
            .or_insert_with(|| broadcast::channel(16).0)
            .clone()
    }
}

type Updates = Pin<Box<dyn Stream<Item = Result<encoded::WatchGameResponse, Status>> + Send>>;

fn not_here<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented(
        "the floor serves WatchGame and SubmitAction only",
    ))
}

#[tonic::async_trait]
impl GameService for Floor {
    async fn register(
        &self,
        _: Request<v1::RegisterRequest>,
    ) -> Result<Response<v1::RegisterResponse>, Status> {
        not_here()
    }

    async fn create_game(
        &self,
        _: Request<v1::CreateGameRequest>,
    ) -> Result<Response<v1::CreateGameResponse>, Status> {
        not_here()
    }

    async fn join_game(
        &self,
        _: Request<v1::JoinGameRequest>,
    ) -> Result<Response<v1::JoinGameResponse>, Status> {
        not_here()
    }

    async fn leave_game(
        &self,
        _: Request<v1::LeaveGameRequest>,
    ) -> Result<Response<v1::LeaveGameResponse>, Status> {
        not_here()
    }

    async fn list_games(
        &self,
        _: Request<v1::ListGamesRequest>,
    ) -> Result<Response<v1::ListGamesResponse>, Status> {
        not_here()
    }

    async fn get_view(
        &self,
        _: Request<v1::GetViewRequest>,
    ) -> Result<Response<encoded::GetViewResponse>, Status> {
        not_here()
    }

    async fn get_catalogue(
        &self,
        _: Request<v1::GetCatalogueRequest>,
    ) -> Result<Response<v1::GetCatalogueResponse>, Status> {
        not_here()
    }

    type WatchGameStream = Updates;

    async fn watch_game(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> Result<Response<Updates>, Status> {
        let (table, seat) = request
            .get_ref()
            .game_id
            .rsplit_once('/')
            .and_then(|(table, seat)| Some((table, seat.parse::<usize>().ok()?)))
            .filter(|(_, seat)| *seat < SEATS)
            .ok_or_else(|| Status::invalid_argument("game_id: <table>/<seat 0 to 3>"))?;
        let update = self.updates[seat].clone();
        let updates = seat_updates(self.table(table).subscribe(), update);
        Ok(Response::new(updates))
    }

    async fn submit_action(
        &self,
        request: Request<v1::SubmitActionRequest>,
    ) -> Result<Response<encoded::SubmitActionResponse>, Status> {
        if let Some(committer) = &self.committer {
            committer
                .commit()
                .await
                .map_err(|error| Status::unavailable(error.to_string()))?;
        }
        let _ = self.table(&request.get_ref().game_id).send(());
        Ok(Response::new(encoded::SubmitActionResponse::Updates {
            updates: self.answer.clone(),
            seq: self.seq.fetch_add(1, Ordering::Relaxed) + 1,
        }))
    }

    async fn get_history(
        &self,
        _: Request<v1::GetHistoryRequest>,
    ) -> Result<Response<v1::GetHistoryResponse>, Status> {
        not_here()
    }

    async fn get_odds(
        &self,
        _: Request<v1::GetOddsRequest>,
    ) -> Result<Response<v1::GetOddsResponse>, Status> {
        not_here()
    }

    async fn update_profile(
        &self,
        _: Request<v1::UpdateProfileRequest>,
    ) -> Result<Response<v1::UpdateProfileResponse>, Status> {
        not_here()
    }

    type ExportGamesStream =
        Pin<Box<dyn Stream<Item = Result<v1::ExportGamesResponse, Status>> + Send>>;

    async fn export_games(
        &self,
        _: Request<v1::ExportGamesRequest>,
    ) -> Result<Response<Self::ExportGamesStream>, Status> {
        not_here()
    }
}

/// A seat's stream: `update` once per turn broadcast, until the server stops.
fn seat_updates(turns: broadcast::Receiver<()>, update: encoded::EncodedUpdate) -> Updates {
    Box::pin(tokio_stream::StreamExt::filter_map(
        tokio_stream::wrappers::BroadcastStream::new(turns),
        move |turn| {
            turn.ok()
                .map(|()| Ok(encoded::WatchGameResponse::Update(update.clone())))
        },
    ))
}

/// Serves the floor on `listen` with the turn saved at `turn`, committing a row a turn to
/// the database at `database_url` if given, until SIGTERM or SIGINT; then drops its table.
/// Logs `addr=` like the game server.
pub async fn serve(
    listen: std::net::SocketAddr,
    database_url: Option<&str>,
    turn: &Path,
) -> anyhow::Result<()> {
    let committer = match database_url {
        Some(url) => Some(Committer::connect(url).await?),
        None => None,
    };
    let turn = Turn::load(turn)?;
    let encoded = |updates: &[Bytes]| {
        updates
            .iter()
            .map(|u| encoded::EncodedUpdate::new(u))
            .collect()
    };
    let floor = Floor {
        updates: encoded(&turn.updates),
        answer: encoded(&turn.answer),
        committer,
        tables: Mutex::default(),
        seq: AtomicU64::new(0),
    };
    let floor = Arc::new(floor);
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    // The watchdog counts requests through the game server's connection layer, which the
    // floor does without: it would take the floor's connection for one that sent nothing.
    let forever = Duration::from_secs(24 * 3600);
    let limits = theboss_server::Limits {
        handshake_timeout: forever,
        request_timeout: forever,
        idle_timeout: forever,
        ..theboss_server::Limits::default()
    };
    let routes = tonic::service::Routes::new(GameServiceServer::from_arc(floor.clone())).prepare();
    let settings = net::serve::Settings {
        max_concurrent_streams: None,
        keep_alive_interval: limits.keep_alive,
        keep_alive_timeout: limits.keep_alive / 3,
    };
    tracing::info!(%addr, "serving");
    net::serve::serve(
        net::accept(
            listener,
            &limits,
            &net::address::AddressPolicy::default(),
            Arc::default(),
        ),
        tower::util::BoxCloneSyncService::new(routes),
        settings,
        {
            let floor = floor.clone();
            async move {
                theboss_server::shutdown::signal().await;
                // Streams never end by themselves: their senders go, so that draining ends.
                floor
                    .tables
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clear();
            }
        },
    )
    .await;
    match Arc::try_unwrap(floor) {
        Ok(Floor {
            committer: Some(committer),
            ..
        }) => committer.close().await?,
        Ok(_) => {}
        Err(_) => tracing::warn!("the floor's table is left to its schema"),
    }
    tracing::info!("stopped");
    Ok(())
}

/// The floor in a child process, and one connection to it that every table shares, as the
/// seats of the game server's measures share theirs.
pub struct FloorServer {
    server: child::Child,
    client: GameServiceClient<Channel>,
    _turn: tempfile::TempPath,
}

impl FloorServer {
    /// Starts the floor with `turn`, committing a row a turn to `database_url` if given.
    pub async fn start(database_url: Option<&str>, turn: &Turn) -> anyhow::Result<FloorServer> {
        let file = tempfile::NamedTempFile::new()?.into_temp_path();
        turn.save(&file)?;
        let mut args = vec![
            "floor".to_string(),
            "--turn".to_string(),
            file.to_str()
                .context("a temporary path in UTF-8")?
                .to_string(),
        ];
        if let Some(url) = database_url {
            args.extend(["--database-url".to_string(), url.to_string()]);
        }
        let server = child::spawn(&args, Duration::from_secs(30)).await?;
        let channel = tonic::transport::Endpoint::from_shared(server.url.clone())?
            .tcp_nodelay(true)
            .connect()
            .await?;
        Ok(FloorServer {
            server,
            client: GameServiceClient::new(channel),
            _turn: file,
        })
    }

    /// A table's four seats' streams, and warms it up.
    pub async fn table(&self, name: &str) -> anyhow::Result<FloorTable> {
        let mut client = self.client.clone();
        let (tx, arrivals) = mpsc::unbounded_channel();
        let mut watchers = JoinSet::new();
        for seat in 0..SEATS {
            let request = v1::WatchGameRequest {
                game_id: format!("{name}/{seat}"),
                ..Default::default()
            };
            let mut stream = client.watch_game(request).await?.into_inner();
            let tx = tx.clone();
            // As the game's measure does: each seat's update decoded, and the time it came.
            watchers.spawn(async move {
                while let Ok(Some(message)) = stream.message().await {
                    if message.into_view().is_some() && tx.send(Instant::now()).is_err() {
                        return;
                    }
                }
            });
        }
        let mut table = FloorTable {
            name: name.to_string(),
            client,
            arrivals,
            watchers,
        };
        for _ in 0..50 {
            table.call().await?;
        }
        Ok(table)
    }

    /// The CPU time the floor's process has used so far.
    pub fn cpu(&self) -> Option<Duration> {
        self.server.cpu()
    }

    pub async fn stop(self) {
        self.server.stop().await;
    }
}

/// Four seats' streams of one table of the floor, and its caller.
pub struct FloorTable {
    name: String,
    client: GameServiceClient<Channel>,
    arrivals: mpsc::UnboundedReceiver<Instant>,
    watchers: JoinSet<()>,
}

impl FloorTable {
    /// One turn: `SubmitAction` sent → every seat's stream has delivered its update.
    pub async fn call(&mut self) -> anyhow::Result<Duration> {
        let t = Instant::now();
        self.client
            .submit_action(v1::SubmitActionRequest {
                game_id: self.name.clone(),
                ..Default::default()
            })
            .await?;
        let mut last = t;
        for _ in 0..SEATS {
            last = self
                .arrivals
                .recv()
                .await
                .context("a seat's stream of the floor ended")?;
        }
        Ok(last - t)
    }

    pub async fn close(mut self) {
        self.watchers.shutdown().await;
    }
}

/// The floor under load: `tables` tables on one connection, each playing its turns one after
/// the other at a rate, with no database.
pub struct FloorLoad {
    pub tables: usize,
    /// The floor's CPU time per turn, over `duration` after every table warmed up.
    pub cpu_per_turn: Duration,
    pub turns_per_sec: f64,
}

/// Runs [`FloorLoad`] for `duration` with the messages of `turn`, at `per_second` turns in
/// all: the game server's rate in the load just measured, since what a turn costs depends on
/// how many share each write and each wake-up.
pub async fn under_load(
    turn: &Turn,
    tables: usize,
    per_second: f64,
    duration: Duration,
) -> anyhow::Result<FloorLoad> {
    let floor = FloorServer::start(None, turn).await?;
    let turns = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut players = JoinSet::new();
    for t in 0..tables {
        let mut table = floor.table(&format!("t{t}")).await?;
        let (turns, stop) = (turns.clone(), stop.clone());
        // Each table's turns a fixed interval apart, the tables' spread over it.
        let every = Duration::from_secs_f64(tables as f64 / per_second.max(1.0));
        let first = tokio::time::Instant::now() + every.mul_f64(t as f64 / tables as f64);
        players.spawn(async move {
            let mut ticks = tokio::time::interval_at(first, every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            while !stop.load(Ordering::Relaxed) {
                ticks.tick().await;
                table.call().await?;
                turns.fetch_add(1, Ordering::Relaxed);
            }
            Ok::<_, anyhow::Error>(table)
        });
    }
    // A second of load before counting: every table's connection state and buffers grown.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (cpu0, turns0, t0) = (floor.cpu(), turns.load(Ordering::Relaxed), Instant::now());
    tokio::time::sleep(duration).await;
    let (cpu1, turns1, elapsed) = (floor.cpu(), turns.load(Ordering::Relaxed), t0.elapsed());
    stop.store(true, Ordering::Relaxed);
    // Every table's streams stay open until the last call is over: a stream closed while
    // the others still play was seen to end the connection under them.
    let mut played = Vec::new();
    while let Some(table) = players.join_next().await {
        played.push(table??);
    }
    for table in played {
        table.close().await;
    }
    floor.stop().await;
    let counted = turns1 - turns0;
    let cpu = cpu1
        .zip(cpu0)
        .map(|(after, before)| after.saturating_sub(before))
        .context("the floor's CPU time")?;
    Ok(FloorLoad {
        tables,
        cpu_per_turn: cpu / u32::try_from(counted.max(1)).unwrap_or(u32::MAX),
        turns_per_sec: counted as f64 / elapsed.as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(seq: u64, seat: u32) -> Bytes {
        Bytes::from(
            v1::GameUpdate {
                seq,
                view: Some(v1::GameView {
                    seq,
                    viewer_seat: Some(seat),
                    ..Default::default()
                }),
                action_complete: true,
                ..Default::default()
            }
            .encode_to_vec(),
        )
    }

    /// What the benchmark saves for the floor's process is what that process loads: each
    /// seat's update in its place, and the answer.
    #[test]
    fn a_turn_saved_loads_the_same() {
        let turn = Turn {
            updates: (0..SEATS as u32).map(|seat| update(7, seat)).collect(),
            answer: vec![update(7, 2)],
        };
        let file = tempfile::NamedTempFile::new().unwrap().into_temp_path();
        turn.save(&file).unwrap();
        assert_eq!(Turn::load(&file).unwrap(), turn);
    }
}
