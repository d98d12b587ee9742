//! The service under attack: a victim plays 4-player games one action at a time from
//! 127.0.0.1 while hostile clients, from other loopback addresses (as they would come from
//! other machines), run each attack against the same server with its production limits and
//! quotas (registrations aside: the attackers register their accounts from few addresses).
//! The victim's `SubmitAction` → every seat's stream latency is measured idle; beside a
//! spinning thread per core at the idle CPU policy, nobody attacking (the floor of any
//! attack that keeps every core busy, however little the server does for it); under each
//! attack; and idle again. Each attack reports what the server answered it. Under the flood
//! of house-bot tables, the victim's own house bot's reply time is measured too, beside its
//! idle figure (SECURITY.md lists what bounds each attack).
//!
//! The attackers run on a runtime of their own whose threads have the idle CPU policy
//! (`SCHED_IDLE`): on this one machine they stand for other machines, so their own work
//! (encoding a 40,000-status request, say) takes only the CPU the server and the victim
//! leave, and what the row measures is what the server does for them. On two cores, with
//! the attackers beside the victim at the same priority, a row measured the attacker's
//! client starving the victim's. The other side of it: where the server's work for an
//! attack fills the cores, the attackers slow down with it, so such a row is a lower bound
//! of that attack's strength (what the server answered says how much it got through).

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use theboss::v1::{
    self, game_service_client::GameServiceClient, ladder_service_client::LadderServiceClient,
};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request};

use crate::latency::{self, GameLatency};
use crate::stats::Sample;

/// What the server answered an attack, by outcome.
#[derive(Debug, Default, Clone)]
pub struct Answers(BTreeMap<String, u64>);

impl Answers {
    fn add(&mut self, outcome: impl Into<String>) {
        *self.0.entry(outcome.into()).or_default() += 1;
    }
}

impl std::fmt::Display for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(k, n)| format!("{n} {k}")).collect();
        f.write_str(&parts.join(", "))
    }
}

type Shared = Arc<Mutex<Answers>>;

fn tally(answers: &Shared, outcome: impl Into<String>) {
    answers.lock().expect("not poisoned").add(outcome);
}

fn code_name(code: Code) -> String {
    format!("{code:?}")
}

/// One phase: the victim's latency while an attack ran, and what the attack got.
pub struct Phase {
    pub attack: &'static str,
    pub victim: GameLatency,
    /// Under the flood of house-bot tables: the victim's own house bot's replies.
    pub house: Option<Sample>,
    pub answers: Answers,
}

pub struct UnderAttack {
    pub idle: GameLatency,
    /// The victim beside a spinning thread per core at the idle CPU policy, nobody attacking:
    /// the floor of any attack that keeps every core busy, however little the server does.
    pub busy_cores: GameLatency,
    /// The victim's house bot's replies, before any attack.
    pub house_idle: Sample,
    pub phases: Vec<Phase>,
    pub idle_after: GameLatency,
}

/// A client channel from a given local address.
async fn connect_from(server: SocketAddr, from: IpAddr) -> anyhow::Result<Channel> {
    Ok(Endpoint::from_shared(format!("http://{server}"))?
        .local_address(Some(from))
        .tcp_nodelay(true)
        .connect()
        .await?)
}

fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    request
}

async fn register(channel: &Channel, name: &str) -> anyhow::Result<(String, String)> {
    let response = GameServiceClient::new(channel.clone())
        .register(v1::RegisterRequest {
            display_name: name.into(),
            is_bot: true,
            description: String::new(),
        })
        .await?
        .into_inner();
    Ok((response.player_id, response.api_token))
}

fn loopback(last: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, last])
}

/// The connections over the server's cap per address that each address of the
/// idle-connections attack opens again at every sweep (the server closes them as they come).
const IDLE_OVER_CAP: usize = 32;

/// How often the idle-connections attack opens again what the server closed: with
/// [`IDLE_OVER_CAP`], 320 connections a second per address, 2,560 in all.
const IDLE_SWEEP: Duration = Duration::from_millis(100);

/// Opens the `n`th idle connection from `from`: silent, with the HTTP/2 preface alone, or
/// with half an HTTP/1.1 request.
async fn idle_connection(server: SocketAddr, from: IpAddr, n: u64) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from, 0))?;
    let mut stream = socket.connect(server).await?;
    match n % 3 {
        0 => {}
        1 => {
            stream
                .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
                .await?
        }
        _ => {
            stream
                .write_all(
                    b"POST /theboss.v1.GameService/ListGames HTTP/1.1\r\n\
                      Host: x\r\nContent-Type: application/grpc-web+proto\r\n\
                      Content-Length: 100\r\n\r\n\0\0",
                )
                .await?
        }
    }
    Ok(stream)
}

/// Whether the server still holds `stream` open (what it sent meanwhile is read and dropped).
fn still_open(stream: &TcpStream) -> bool {
    let mut sink = [0u8; 4096];
    loop {
        match stream.try_read(&mut sink) {
            Ok(0) => return false,
            Ok(_) => continue,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return true,
            Err(_) => return false,
        }
    }
}

/// Each attack, started; it runs until `stop` turns true.
async fn start(
    attack: &'static str,
    server: SocketAddr,
    victim_game: watch::Receiver<String>,
    stop: watch::Receiver<bool>,
    answers: Shared,
) -> anyhow::Result<JoinSet<()>> {
    let mut tasks = JoinSet::new();
    match attack {
        "enqueue flood" => {
            // Six accounts opening Enqueue streams without end (row 3, row 7).
            let channel = connect_from(server, loopback(2)).await?;
            for i in 0..6 {
                let (_, token) = register(&channel, &format!("Queuer {i}")).await?;
                let (channel, answers, stop) = (channel.clone(), answers.clone(), stop.clone());
                tasks.spawn(async move {
                    let mut held = Vec::new();
                    while !*stop.borrow() {
                        let request = authed(
                            v1::EnqueueRequest {
                                players: 4,
                                duplicate: false,
                                parallel: 0,
                            },
                            &token,
                        );
                        match LadderServiceClient::new(channel.clone())
                            .enqueue(request)
                            .await
                        {
                            Ok(stream) => {
                                tally(&answers, "queued");
                                held.push(stream);
                            }
                            Err(status) => tally(&answers, code_name(status.code())),
                        }
                        tokio::task::yield_now().await;
                    }
                });
            }
        }
        "idle connections" => {
            // Connections that send nothing, only the HTTP/2 preface, or half a request,
            // from eight addresses: each holds as many as the server keeps from one address
            // and some over, and every sweep opens again those the server closed (the ones
            // over its cap at once, the silent ones after its handshake timeout) (row 4).
            // A fixed number and a fixed pace, so that the row measures the same attack at
            // every run: opening as fast as the attacker could made it depend on how much
            // CPU the attacker got, from about a thousand connections a run to fifteen thousand.
            for a in 0..8u8 {
                let (answers, stop) = (answers.clone(), stop.clone());
                let keep = theboss_server::Limits::default().connections_per_address as usize
                    + IDLE_OVER_CAP;
                tasks.spawn(async move {
                    let mut held: Vec<TcpStream> = Vec::new();
                    let mut n = 0u64;
                    let mut sweep = tokio::time::interval(IDLE_SWEEP);
                    while !*stop.borrow() {
                        sweep.tick().await;
                        held.retain(still_open);
                        while held.len() < keep && !*stop.borrow() {
                            match idle_connection(server, loopback(10 + a), n).await {
                                Ok(stream) => {
                                    n += 1;
                                    tally(&answers, "opened");
                                    held.push(stream);
                                }
                                Err(_) => {
                                    tally(&answers, "connect failed");
                                    break;
                                }
                            }
                        }
                    }
                });
            }
        }
        "watch flood" => {
            // Eighty accounts each opening 200 WatchGame streams, on the victim's game and on
            // games of their own, every stream read to its end (the costliest for the
            // server); health watches by the thousand (row 5).
            let registrar = connect_from(server, loopback(3)).await?;
            for i in 0..80 {
                let (_, token) = register(&registrar, &format!("Watcher {i}")).await?;
                let channel = connect_from(server, loopback(3)).await?;
                let (answers, stop) = (answers.clone(), stop.clone());
                let mut victim_game = victim_game.clone();
                tasks.spawn(async move {
                    let mut client = GameServiceClient::new(channel.clone());
                    let own = client
                        .create_game(authed(
                            v1::CreateGameRequest {
                                settings: Some(v1::GameSettings {
                                    players: 4,
                                    ..Default::default()
                                }),
                                seed: None,
                                house_bots: vec![],
                            },
                            &token,
                        ))
                        .await
                        .map(|r| r.into_inner().game_id)
                        .unwrap_or_default();
                    let mut readers = JoinSet::new();
                    let mut opened = 0;
                    while !*stop.borrow() {
                        if opened >= 200 {
                            // Open again as the victim's games change and streams end.
                            let _ = tokio::time::timeout(
                                Duration::from_millis(200),
                                victim_game.changed(),
                            )
                            .await;
                            opened = readers.len();
                            continue;
                        }
                        let game = if opened % 2 == 0 {
                            victim_game.borrow_and_update().clone()
                        } else {
                            own.clone()
                        };
                        let request = authed(
                            v1::WatchGameRequest {
                                game_id: game,
                                ..Default::default()
                            },
                            &token,
                        );
                        opened += 1;
                        match client.watch_game(request).await {
                            Ok(stream) => {
                                tally(&answers, "watching");
                                let mut stream = stream.into_inner();
                                readers.spawn(async move {
                                    while let Ok(Some(_)) = stream.message().await {}
                                });
                            }
                            Err(status) => {
                                tally(&answers, code_name(status.code()));
                                tokio::time::sleep(Duration::from_millis(20)).await;
                            }
                        }
                    }
                });
            }
            for a in 0..8u8 {
                let (answers, stop) = (answers.clone(), stop.clone());
                tasks.spawn(async move {
                    let Ok(channel) = connect_from(server, loopback(20 + a)).await else {
                        return;
                    };
                    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
                    let mut readers = JoinSet::new();
                    for _ in 0..2000 {
                        if *stop.borrow() {
                            break;
                        }
                        let request = tonic_health::pb::HealthCheckRequest {
                            service: String::new(),
                        };
                        match health.watch(request).await {
                            Ok(stream) => {
                                tally(&answers, "health watching");
                                let mut stream = stream.into_inner();
                                readers.spawn(async move {
                                    while let Ok(Some(_)) = stream.message().await {}
                                });
                            }
                            Err(status) => {
                                tally(&answers, format!("health {}", code_name(status.code())))
                            }
                        }
                    }
                    let mut stop = stop.clone();
                    let _ = stop.wait_for(|s| *s).await;
                });
            }
        }
        "token flood" => {
            // Random tokens as fast as four callers can send them (row 10).
            for t in 0..4u64 {
                let channel = connect_from(server, loopback(4)).await?;
                let (answers, stop) = (answers.clone(), stop.clone());
                tasks.spawn(async move {
                    let mut client = GameServiceClient::new(channel);
                    let mut i = t << 48;
                    while !*stop.borrow() {
                        i += 1;
                        let request =
                            authed(v1::ListGamesRequest::default(), &format!("tb_{i:064x}"));
                        match client.list_games(request).await {
                            Ok(_) => tally(&answers, "OK"),
                            Err(status) => tally(&answers, code_name(status.code())),
                        }
                    }
                });
            }
        }
        "table spam" => {
            // Forty accounts creating games nobody joins, without end (row 8).
            let channel = connect_from(server, loopback(5)).await?;
            for i in 0..40 {
                let (_, token) = register(&channel, &format!("Spammer {i}")).await?;
                let (channel, answers, stop) = (channel.clone(), answers.clone(), stop.clone());
                tasks.spawn(async move {
                    let mut client = GameServiceClient::new(channel);
                    while !*stop.borrow() {
                        let request = authed(
                            v1::CreateGameRequest {
                                settings: Some(v1::GameSettings {
                                    players: 4,
                                    ..Default::default()
                                }),
                                seed: None,
                                house_bots: vec![],
                            },
                            &token,
                        );
                        match client.create_game(request).await {
                            Ok(_) => tally(&answers, "created"),
                            Err(status) => tally(&answers, code_name(status.code())),
                        }
                    }
                });
            }
        }
        "huge requests" => {
            // ListGames with 40,000 statuses, CreateGame with 100,000 cities (rows 9, 11).
            let channel = connect_from(server, loopback(6)).await?;
            let (_, token) = register(&channel, "Huge").await?;
            for t in 0..4 {
                let (channel, answers, stop, token) = (
                    channel.clone(),
                    answers.clone(),
                    stop.clone(),
                    token.clone(),
                );
                tasks.spawn(async move {
                    let mut client = GameServiceClient::new(channel);
                    while !*stop.borrow() {
                        let answer = if t % 2 == 0 {
                            let request = v1::ListGamesRequest {
                                statuses: vec![1; 40_000],
                                ..Default::default()
                            };
                            client.list_games(authed(request, &token)).await.map(|_| ())
                        } else {
                            let request = v1::CreateGameRequest {
                                settings: Some(v1::GameSettings {
                                    players: 2,
                                    cities: vec![2; 100_000],
                                    ..Default::default()
                                }),
                                seed: None,
                                house_bots: vec![],
                            };
                            client
                                .create_game(authed(request, &token))
                                .await
                                .map(|_| ())
                        };
                        match answer {
                            Ok(()) => tally(&answers, "OK"),
                            Err(status) => tally(&answers, code_name(status.code())),
                        }
                    }
                });
            }
        }
        "challenge flood" => {
            // Forty bot accounts of one person, each holding four Offers streams, making and
            // withdrawing casual 4-player duplicate challenges that name seven of the others,
            // as fast as their quotas let them.
            let channel = connect_from(server, loopback(7)).await?;
            let mut accounts = Vec::new();
            for i in 0..40 {
                accounts.push(register(&channel, &format!("Challenger {i}")).await?);
            }
            let ids: Vec<String> = accounts.iter().map(|(id, _)| id.clone()).collect();
            for (i, (_, token)) in accounts.into_iter().enumerate() {
                let opponents: Vec<String> =
                    (1..=7).map(|k| ids[(i + k) % ids.len()].clone()).collect();
                let (channel, answers, stop) = (channel.clone(), answers.clone(), stop.clone());
                tasks.spawn(async move {
                    let mut ladder = LadderServiceClient::new(channel);
                    let mut streams = Vec::new();
                    for _ in 0..4 {
                        if let Ok(stream) =
                            ladder.offers(authed(v1::OffersRequest {}, &token)).await
                        {
                            let mut stream = stream.into_inner();
                            streams.push(tokio::spawn(async move {
                                while let Ok(Some(_)) = stream.message().await {}
                            }));
                        }
                    }
                    while !*stop.borrow() {
                        let request = v1::ChallengeRequest {
                            opponents: opponents.clone(),
                            players: 4,
                            duplicate: true,
                            rated: false,
                            expires_in_secs: 3600,
                        };
                        match ladder.challenge(authed(request, &token)).await {
                            Ok(made) => {
                                tally(&answers, "challenged");
                                let id = made.into_inner().challenge.map(|c| c.challenge_id);
                                let answer = v1::AnswerChallengeRequest {
                                    challenge_id: id.unwrap_or_default(),
                                    accept: false,
                                };
                                let _ = ladder.answer_challenge(authed(answer, &token)).await;
                            }
                            Err(status) => tally(&answers, code_name(status.code())),
                        }
                    }
                    for stream in streams {
                        stream.abort();
                    }
                });
            }
        }
        "house bot flood" => {
            // Forty accounts of one address, each with three tables of three search house
            // bots, each account playing its own seats at once with random turns.
            let channel = connect_from(server, loopback(8)).await?;
            for i in 0..40 {
                let (_, token) = register(&channel, &format!("Host {i}")).await?;
                for t in 0..3 {
                    let (channel, answers, stop, token) = (
                        channel.clone(),
                        answers.clone(),
                        stop.clone(),
                        token.clone(),
                    );
                    tasks.spawn(async move {
                        let mut client = GameServiceClient::new(channel);
                        let mut seed = (i * 3 + t) as u64;
                        while !*stop.borrow() {
                            let request = v1::CreateGameRequest {
                                settings: Some(v1::GameSettings {
                                    players: 4,
                                    ..Default::default()
                                }),
                                seed: None,
                                house_bots: vec![v1::BotStrategy::Ismcts as i32; 3],
                            };
                            let game = match client.create_game(authed(request, &token)).await {
                                Ok(made) => {
                                    tally(&answers, "table created");
                                    made.into_inner().game_id
                                }
                                Err(status) => {
                                    tally(&answers, format!("create {}", code_name(status.code())));
                                    tokio::time::sleep(Duration::from_millis(500)).await;
                                    continue;
                                }
                            };
                            let join = v1::JoinGameRequest {
                                game_id: game.clone(),
                                seat: None,
                            };
                            if client.join_game(authed(join, &token)).await.is_err() {
                                continue;
                            }
                            seed += 1000;
                            play_own_seat(&mut client, &game, &token, seed, &stop, &answers).await;
                        }
                    });
                }
            }
        }
        other => anyhow::bail!("no attack {other:?}"),
    }
    Ok(tasks)
}

/// The attacks, in the order they are run.
pub const ATTACKS: [&str; 8] = [
    "enqueue flood",
    "idle connections",
    "watch flood",
    "token flood",
    "table spam",
    "huge requests",
    "challenge flood",
    "house bot flood",
];

/// Plays one seat of a table with house bots, a random legal turn as soon as it is the
/// seat's, until the game ends or `stop`.
async fn play_own_seat(
    client: &mut GameServiceClient<Channel>,
    game: &str,
    token: &str,
    seed: u64,
    stop: &watch::Receiver<bool>,
    answers: &Shared,
) {
    use theboss_bot::strategy::{Strategy, random::Random};
    let mut strategy = Random::new(seed);
    while !*stop.borrow() {
        let request = v1::GetViewRequest {
            game_id: game.to_string(),
        };
        let view = match client.get_view(authed(request, token)).await {
            Ok(view) => view,
            // Throttled: a persistent attacker waits and goes on, its table still held.
            Err(status) if status.code() == Code::ResourceExhausted => {
                tally(answers, "view ResourceExhausted");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
            Err(_) => return,
        };
        let Some(view) = view.into_inner().view else {
            return;
        };
        if view.status != v1::GameStatus::Running as i32 {
            return;
        }
        if view.to_move != view.viewer_seat {
            // An account's three tables poll within its quota (50 calls a second, its turns
            // among them): the bots think 100 ms a turn, so the attack loses little to it.
            tokio::time::sleep(Duration::from_millis(75)).await;
            continue;
        }
        let Ok(seen) = theboss::convert::view_from_wire(&view) else {
            return;
        };
        let turn = strategy.choose(&seen, None);
        let submit = v1::SubmitActionRequest {
            game_id: game.to_string(),
            expected_seq: view.seq,
            idempotency_key: format!("{game}-{}", view.seq),
            action: Some(theboss::convert::turn_to_wire(&turn)),
            update_views: 0,
        };
        match client.submit_action(authed(submit, token)).await {
            Ok(_) => tally(answers, "house turn played"),
            Err(status) => tally(answers, format!("turn {}", code_name(status.code()))),
        }
    }
}

/// A victim's table of one random house bot: each sample, its turn acknowledged → the house
/// bot's reply seen on its stream (its turn again).
pub async fn house_replies(url: &str, turns: usize) -> anyhow::Result<Sample> {
    use theboss_bot::strategy::{Strategy, random::Random};
    let connection = theboss_client::Connection::connect(url).await?;
    let me = connection.register("House victim", false).await?;
    let mut strategy = Random::new(7);
    let mut replies = Vec::new();
    while replies.len() < turns {
        let game = me
            .create_game_with(v1::CreateGameRequest {
                settings: Some(v1::GameSettings {
                    players: 2,
                    ..Default::default()
                }),
                seed: None,
                house_bots: vec![v1::BotStrategy::Random as i32],
            })
            .await?;
        me.join(&game, None).await?;
        let mut feed = me.follow(&game, theboss_client::FeedOptions::default());
        let mut asked: Option<std::time::Instant> = None;
        while let Some(item) = feed.next().await? {
            let view = match item {
                theboss_client::FeedItem::View(view) => view,
                theboss_client::FeedItem::Update(update) => match update.view {
                    Some(view) if update.action_complete => view,
                    _ => continue,
                },
            };
            if view.status != v1::GameStatus::Running as i32 {
                break;
            }
            if view.to_move != view.viewer_seat {
                continue;
            }
            if let Some(at) = asked.take() {
                replies.push(at.elapsed());
            }
            let seen = theboss::convert::view_from_wire(&view)?;
            let turn = strategy.choose(&seen, None);
            let key = format!("{game}-{}", view.seq);
            asked = Some(std::time::Instant::now());
            me.submit_with_key(&game, view.seq, &key, theboss::convert::turn_to_wire(&turn))
                .await?;
            if replies.len() >= turns {
                break;
            }
        }
    }
    Ok(Sample::new(replies))
}

/// The attackers' runtime: every task an attack spawns, its channels' connections among
/// them, runs on its two threads, at the idle CPU policy. Shut down in the background when
/// dropped: a runtime dropped whole inside another's task panics, which would hide the error
/// that ended the measurement.
struct Attackers(Option<tokio::runtime::Runtime>);

impl Attackers {
    fn new() -> anyhow::Result<Attackers> {
        Ok(Attackers(Some(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("attacker")
                .on_thread_start(idle_cpu_policy)
                .enable_all()
                .build()?,
        )))
    }

    fn spawn<F>(&self, attack: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0
            .as_ref()
            .expect("running until dropped")
            .spawn(attack)
    }
}

impl Drop for Attackers {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// Threads spinning at the idle CPU policy, one per core, until dropped.
struct Spinners {
    stop: Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Spinners {
    fn start() -> Spinners {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let threads = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    idle_cpu_policy();
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        Spinners { stop, threads }
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Elsewhere than on Linux a policy is the whole process's: the attackers keep theirs.
#[cfg(not(target_os = "linux"))]
fn idle_cpu_policy() {
    tracing::warn!("no idle CPU policy on this OS: the attackers compete with the victim");
}

/// Puts the calling thread (only it: on Linux a policy is a thread's) under `SCHED_IDLE`.
#[cfg(target_os = "linux")]
fn idle_cpu_policy() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid `sched_param` that outlives the call; pid 0 is the
    // calling thread, so no other thread's scheduling changes.
    let failed = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0;
    if failed {
        tracing::warn!(
            error = %std::io::Error::last_os_error(),
            "an attacker thread keeps the normal CPU policy"
        );
    }
}

/// Measures the victim idle, beside busy cores, under each attack of `attacks` (all if
/// empty), and idle again.
pub async fn under_attack(
    url: &str,
    actions: usize,
    attacks: &[String],
) -> anyhow::Result<UnderAttack> {
    let server: SocketAddr = url.trim_start_matches("http://").parse()?;
    let seats = latency::seats(url, "Victim", 4).await?;
    let (current, victim_game) = watch::channel(String::new());
    let idle = latency::play_measured(&seats, actions, Some(&current)).await?;
    let house_idle = house_replies(url, actions / 4).await?;
    let busy_cores = {
        let _spinners = Spinners::start();
        latency::play_measured(&seats, actions, Some(&current)).await?
    };
    let attackers = Attackers::new()?;
    let mut phases = Vec::new();
    for attack in ATTACKS {
        if !attacks.is_empty() && !attacks.iter().any(|a| a == attack) {
            continue;
        }
        eprintln!("under attack: {attack}…");
        let (stop, stopping) = watch::channel(false);
        let answers: Shared = Arc::default();
        let mut tasks = attackers
            .spawn(start(
                attack,
                server,
                victim_game.clone(),
                stopping,
                answers.clone(),
            ))
            .await??;
        // The attack reaches its full strength first.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let victim = latency::play_measured(&seats, actions, Some(&current)).await?;
        let house = if attack == "house bot flood" {
            Some(house_replies(url, actions / 4).await?)
        } else {
            None
        };
        stop.send_replace(true);
        tasks.shutdown().await;
        let answers = answers.lock().expect("not poisoned").clone();
        phases.push(Phase {
            attack,
            victim,
            house,
            answers,
        });
        // What the attack left behind is let go before the next.
        tokio::time::sleep(Duration::from_secs(6)).await;
    }
    drop(attackers);
    let idle_after = latency::play_measured(&seats, actions, Some(&current)).await?;
    Ok(UnderAttack {
        idle,
        busy_cores,
        house_idle,
        phases,
        idle_after,
    })
}
