//! Helpers for tests that need a real server: an in-process server on `127.0.0.1:0` over a
//! fresh SQLite file or a fresh PostgreSQL schema. Used by this crate's tests and by the
//! clients' end-to-end tests, which talk to it through `theboss-client`.
//!
//! PostgreSQL comes from `DATABASE_URL_TEST` (default
//! `postgres://postgres@127.0.0.1:5432/test`). If it cannot be reached, tests fail loudly:
//! they are never skipped.
//!
//! [`ha`]: a highly available PostgreSQL (a Patroni cluster, `deploy/ha/`) for the failover
//! test and benchmark.

pub mod ha;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::transport::Channel;

use theboss_engine::{City, Turn};

use crate::domain::{GameInfo, GameStatus, PlayerInfo, Settings, Visibility};
use crate::store::coordination::{Notification, Replica};
use crate::store::{Effects, NewPlayer, PostgresStore, SqliteStore, Store, StoredAction, Traced};
use crate::table::Action;
use crate::{ClusterOptions, Options, ServerError, Storage, run};

const DEFAULT_TEST_DATABASE: &str = "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA_PREFIX: &str = "theboss_test_";

/// The PostgreSQL URL tests run against.
pub fn postgres_base_url() -> String {
    std::env::var("DATABASE_URL_TEST").unwrap_or_else(|_| DEFAULT_TEST_DATABASE.to_string())
}

/// A URL to a new, empty schema of the test database (see
/// [`PostgresStore::fresh_schema`]). Panics, with what to do, if PostgreSQL is unreachable.
pub async fn fresh_postgres_url() -> String {
    let base = postgres_base_url();
    PostgresStore::fresh_schema(&base, SCHEMA_PREFIX)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "PostgreSQL tests need a server at {base} (set DATABASE_URL_TEST; .ci/run starts one): {e}"
            )
        })
}

/// A store on a new schema of the test database, traced as the server's are.
pub async fn postgres_store() -> Arc<dyn Store> {
    let url = fresh_postgres_url().await;
    Arc::new(Traced::new(
        PostgresStore::connect(&url)
            .await
            .expect("connect to the test schema"),
    ))
}

/// A replica of a test's service, at a URL nobody answers.
pub fn replica(id: &str) -> Replica {
    Replica {
        id: id.to_string(),
        url: format!("http://{id}.invalid:1"),
    }
}

/// The first action of a game: `player` takes seat 0.
pub fn a_join(player: &PlayerInfo) -> StoredAction {
    StoredAction {
        seq: 1,
        action: Action::Join {
            seat: 0,
            player: player.clone(),
        },
        player_id: Some(player.id.clone()),
        idempotency_key: None,
        at: 1,
    }
}

/// Action number `seq`: seat 0 plays a card (the store does not check the rules).
pub fn a_turn(seq: u64) -> StoredAction {
    StoredAction {
        seq,
        action: Action::Turn {
            seat: 0,
            turn: Turn::play(City::Boston.cards().next().expect("Boston has cards")),
            by_timeout: false,
        },
        player_id: None,
        idempotency_key: None,
        at: 1,
    }
}

/// The notification of [`a_turn`]`(seq)` in game `game_id`, as a replica hears it.
pub fn a_turn_heard(game_id: &str, seq: u64) -> Notification {
    Notification::Action {
        game_id: game_id.to_string(),
        seq,
        action: Some(Box::new(a_turn(seq))),
    }
}

/// What an action leaves a running game with, as far as the store keeps it.
pub fn running() -> Effects {
    Effects {
        status: GameStatus::Running,
        ..Effects::default()
    }
}

/// What the last player's leave leaves a game with: aborted. Such an action takes a
/// transaction of its own in the store (not the group's statement, see `store::group`).
pub fn aborted() -> Effects {
    Effects {
        status: GameStatus::Aborted,
        ..Effects::default()
    }
}

/// Whether notification `wanted` arrives on `rx` within `time` (others before it are
/// skipped: notifications are the database's, and other tests' replicas send them too).
pub async fn heard_within(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Notification>,
    wanted: Notification,
    time: Duration,
) -> bool {
    tokio::time::timeout(time, async {
        while let Some(n) = rx.recv().await {
            if n == wanted {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false)
}

/// A new two-seat public game `player_id` creates, with a fresh id.
pub fn a_game_by(player_id: &str) -> GameInfo {
    GameInfo {
        id: uuid::Uuid::new_v4().to_string(),
        settings: Settings::new(2, vec![], 0, Visibility::Public).expect("valid settings"),
        seed: 1,
        created_by: player_id.to_string(),
        created_at: 0,
        ladder: false,
        series: None,
        seed_salt: None,
        seeded: false,
    }
}

/// A new player, and a two-seat game `store` creates for them (a replica's store runs it).
/// Fresh ids: notifications are the database's, and other tests' replicas send them too.
pub async fn player_and_game(store: &dyn Store) -> (PlayerInfo, String) {
    let player = PlayerInfo {
        id: uuid::Uuid::new_v4().to_string(),
        display_name: "P".into(),
        is_bot: true,
    };
    store
        .create_player(&NewPlayer {
            player: player.clone(),
            description: String::new(),
            token_hash: uuid::Uuid::new_v4().to_string(),
            created_at: 0,
        })
        .await
        .expect("create a player");
    let record = a_game_by(&player.id);
    store
        .create_game(&record, &[], None)
        .await
        .expect("create a game")
        .expect("no cap was asked for");
    (player, record.id)
}

/// Rated 2-player ladder results among `players` (registered already), each pair playing
/// `games_per_pair` games that the first of the pair (in the order given) wins: what a field
/// of established players looks like to the store, without playing the games. Returns how
/// many results were rated.
pub async fn rated_round_robin(
    store: &dyn Store,
    players: &[PlayerInfo],
    games_per_pair: u32,
) -> u32 {
    use crate::store::RatingJob;
    use theboss_ladder::rating::{Contest, Rated};
    let mut rated = 0;
    for (i, a) in players.iter().enumerate() {
        for b in &players[i + 1..] {
            for _ in 0..games_per_pair {
                let record = GameInfo {
                    id: uuid::Uuid::new_v4().to_string(),
                    settings: Settings::new(2, vec![], 30, Visibility::Public)
                        .expect("valid settings"),
                    seed: 1,
                    created_by: a.id.clone(),
                    created_at: 0,
                    ladder: true,
                    series: None,
                    seed_salt: None,
                    seeded: false,
                };
                let joins: Vec<StoredAction> = [a, b]
                    .iter()
                    .enumerate()
                    .map(|(seat, p)| StoredAction {
                        seq: seat as u64 + 1,
                        action: Action::Join {
                            seat: seat as u8,
                            player: (*p).clone(),
                        },
                        player_id: Some(p.id.clone()),
                        idempotency_key: None,
                        at: 1,
                    })
                    .collect();
                store
                    .create_game(&record, &joins, None)
                    .await
                    .expect("create a game")
                    .expect("no cap was asked for");
                let end = StoredAction {
                    seq: 3,
                    action: Action::Abort {
                        reason: "rated by the test's harness".into(),
                    },
                    player_id: None,
                    idempotency_key: None,
                    at: 2,
                };
                let effects = Effects {
                    status: GameStatus::Finished,
                    winners: vec![0],
                    money: vec![9, 3],
                    acted: vec![true, true],
                    row_unchanged: false,
                    rating: Some(RatingJob::Game(Rated {
                        players_per_game: 2,
                        contests: vec![Contest {
                            players: vec![a.id.clone(), b.id.clone()],
                            places: vec![1, 2],
                            games: vec![record.id.clone(); 2],
                        }],
                    })),
                    caps: None,
                };
                store
                    .append_action(&record.id, &end, &effects)
                    .await
                    .expect("rate a result");
                rated += 1;
            }
        }
    }
    rated
}

/// A store on a new SQLite file, traced as the server's are, and the directory that holds
/// it (deleted on drop).
pub async fn sqlite_store() -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("theboss.db").display());
    let store = SqliteStore::connect(&url).await.expect("open SQLite");
    (Arc::new(Traced::new(store)), dir)
}

/// Log lines, kept in memory: a `MakeWriter` for a test's own subscriber.
#[derive(Clone, Default)]
pub struct LogLines(Arc<std::sync::Mutex<Vec<u8>>>);

impl LogLines {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("not poisoned")).into_owned()
    }
}

impl std::io::Write for LogLines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogLines {
    type Writer = LogLines;

    fn make_writer(&'a self) -> LogLines {
        self.clone()
    }
}

/// A server running in this process until [`TestServer::stop`] or drop.
pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServerError>>>,
    _dir: Option<tempfile::TempDir>,
}

impl TestServer {
    pub async fn start(store: Arc<dyn Store>, options: Options) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        TestServer::start_on(listener, store, options)
    }

    /// One replica of a service on the PostgreSQL database at `url` (e.g. a fresh schema's
    /// URL, shared by the test's replicas), with a one-second lease.
    pub async fn replica(url: &str, options: Options) -> TestServer {
        let (store, shared) = crate::store::open_shared(url)
            .await
            .expect("open the replicas' database");
        let storage = Storage {
            store,
            cluster: Some((
                shared.expect("PostgreSQL is shared"),
                ClusterOptions {
                    replica_id: uuid::Uuid::new_v4().to_string(),
                    url: String::new(),
                    lease: Duration::from_secs(1),
                },
            )),
        };
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        TestServer::start_on(listener, storage, options)
    }

    /// Serves on a given listener, e.g. one bound to the address of a server that was
    /// stopped, to test clients that reconnect.
    pub fn start_on(
        listener: TcpListener,
        storage: impl Into<Storage>,
        options: Options,
    ) -> TestServer {
        let addr = listener.local_addr().expect("bound");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(run(listener, storage.into(), options, async {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            stop: Some(stop),
            task: Some(task),
            _dir: None,
        }
    }

    pub async fn sqlite() -> TestServer {
        TestServer::sqlite_with(Options::default()).await
    }

    pub async fn sqlite_with(options: Options) -> TestServer {
        let (store, dir) = sqlite_store().await;
        let mut server = TestServer::start(store, options).await;
        server._dir = Some(dir);
        server
    }

    pub async fn postgres() -> TestServer {
        TestServer::start(postgres_store().await, Options::default()).await
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(self.url())
            .expect("a valid URL")
            .connect()
            .await
            .expect("connect to the test server")
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("server task").expect("server run");
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
