//! Instructions, not seconds. The game server and the bare tonic server run under callgrind
//! (valgrind), which counts the instructions a process executes in user space, whatever else
//! the machine does: where CPU times vary by a fifth from one run to the next on a shared
//! machine, these counts vary by well under one percent, so that one change's gain can be
//! seen on its own. They leave out the kernel (system calls, loopback delivery) and the
//! processes run some 50 times slower, so that fewer messages share a system call or a
//! commit than in a real run: they compare builds; the CPU figures are the ones the targets
//! are set in.
//!
//! Only what follows a process's warm-up counts (`callgrind_control` zeroes its counters,
//! then dumps them after the measured calls). With `THEBOSS_BENCH_CALLGRIND_DIR=dir` the
//! dumps are kept there (`echo.1`, the bare calls; per store, `postgres-server.1`, the
//! health checks through the game server's layers, `postgres-server.2`, the actions, and
//! `postgres-server.3`, the views), to read with `callgrind_annotate --inclusive=yes
//! dir/postgres-server.2`: where each instruction went.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use tempfile::TempDir;
use theboss::v1;
use theboss_bot::load::{self, LoadConfig, SlotPlayers};
use theboss_client::{Connection, Session};
use tokio::process::Command;
use tonic::transport::Endpoint;

use crate::child::{self, Child};
use crate::limits::{Until, health_checks};

/// Health checks counted, `CALLERS` at a time, on the bare server and through the game
/// server's layers.
const CHECKS: usize = 64 * 60;
const CALLERS: usize = 64;
/// `GetView`s counted, `VIEWERS` at a time, all of one seat's view of a game under way.
const VIEWS: usize = CHECKS;
const VIEWERS: usize = 16;

/// What a bare tonic unary call (a health check, [`CALLERS`] at a time) costs: the limit.
/// Counted once a run, for every store's figures.
#[derive(Debug, Clone, Copy)]
pub struct Bare {
    pub per_call: f64,
    pub calls: usize,
    pub callers: usize,
}

/// What the measured calls cost on one store, in instructions.
pub struct Counted {
    pub bare: Bare,
    /// The same health check through the game server's own layers (the transport's guards,
    /// gRPC-Web and the pages, metrics, tracing): what any call costs there before its work.
    pub server_check_per_call: f64,
    /// A persisted action of the load's games (their tables' setup included).
    pub per_action: f64,
    pub actions: usize,
    pub games: usize,
    /// A `GetView` of a game under way, by one of its seats.
    pub per_view: f64,
    pub views: usize,
    pub viewers: usize,
}

/// Where the dumps go: `THEBOSS_BENCH_CALLGRIND_DIR`, or a temporary directory the caller
/// holds until it has read them.
fn dumps_dir() -> anyhow::Result<(Option<TempDir>, PathBuf)> {
    let (temporary, dir) = match std::env::var_os("THEBOSS_BENCH_CALLGRIND_DIR") {
        Some(dir) => (None, PathBuf::from(dir)),
        None => {
            let temporary = tempfile::tempdir()?;
            let dir = temporary.path().to_path_buf();
            (Some(temporary), dir)
        }
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("{}", dir.display()))?;
    Ok((temporary, dir))
}

/// Counts a bare call's instructions on the bare tonic server.
pub async fn count_bare() -> anyhow::Result<Bare> {
    let (_temporary, dir) = dumps_dir()?;
    let mut echo = UnderCallgrind::start(&dir, "echo", &["echo".to_string()]).await?;
    let channel = Endpoint::from_shared(echo.child.url.clone())?
        .tcp_nodelay(true)
        .connect()
        .await?;
    let channels = [channel];
    health_checks(&channels, CALLERS, Until::Calls(200)).await?;
    echo.zero().await?;
    health_checks(&channels, CALLERS, Until::Calls(CHECKS)).await?;
    let per_call = echo.dump().await? / CHECKS as f64;
    echo.child.stop().await;
    Ok(Bare {
        per_call,
        calls: CHECKS,
        callers: CALLERS,
    })
}

/// Counts a health check's instructions through the game server, a persisted action's and a
/// seat's `GetView`'s, the game server on the database at `url`; `store` names the dumps.
pub async fn count(
    store: &str,
    url: &str,
    games: usize,
    rounds: usize,
    bare: Bare,
) -> anyhow::Result<Counted> {
    let (_temporary, dir) = dumps_dir()?;
    let mut server = UnderCallgrind::start(
        &dir,
        &format!("{store}-server"),
        &child::server_args(url, &child::UNLIMITED_QUOTAS),
    )
    .await?;
    let url = server.child.url.clone();
    let config = |games, rounds| LoadConfig {
        servers: vec![url.clone()],
        games,
        players: 4,
        rounds,
        record_acks: false,
        players_of_slot: SlotPlayers::Kept,
    };
    let warm = load::run(&config(4, 1)).await?;
    anyhow::ensure!(warm.errors == 0, "{} warm-up games failed", warm.errors);
    let server_check_per_call = {
        // The server holds at most 32 calls open on a connection whose caller is not yet
        // known: the same 64 callers, on two connections.
        let endpoint = Endpoint::from_shared(url.clone())?.tcp_nodelay(true);
        let channels = [endpoint.connect().await?, endpoint.connect().await?];
        health_checks(&channels, CALLERS, Until::Calls(200)).await?;
        server.zero().await?;
        health_checks(&channels, CALLERS, Until::Calls(CHECKS)).await?;
        server.dump().await? / CHECKS as f64
    };
    server.zero().await?;
    let measured = load::run(&config(games, rounds)).await?;
    anyhow::ensure!(measured.errors == 0, "{} games failed", measured.errors);
    let per_action = server.dump().await? / measured.actions.max(1) as f64;
    let per_view = {
        let (seat, game_id) = game_under_way(&url).await?;
        views(&seat, &game_id, 200).await?;
        server.zero().await?;
        views(&seat, &game_id, VIEWS).await?;
        server.dump().await? / VIEWS as f64
    };
    server.child.stop().await;
    Ok(Counted {
        bare,
        server_check_per_call,
        per_action,
        actions: measured.actions,
        games: measured.games,
        per_view,
        views: VIEWS,
        viewers: VIEWERS,
    })
}

/// A two-player game dealt and under way, and the session of its first seat.
async fn game_under_way(url: &str) -> anyhow::Result<(Session, String)> {
    let connection = Connection::connect(url).await?;
    let seats = [
        connection.register("Viewer", true).await?,
        connection.register("Other", true).await?,
    ];
    let settings = v1::GameSettings {
        players: 2,
        visibility: v1::Visibility::Unlisted as i32,
        ..Default::default()
    };
    let game_id = seats[0].create_game(settings, Some(7)).await?;
    for (i, seat) in seats.iter().enumerate() {
        seat.join(&game_id, Some(i as u32)).await?;
    }
    let view = seats[0].view(&game_id).await?;
    anyhow::ensure!(!view.hand.is_empty(), "the game was not dealt: {view:?}");
    let [first, _] = seats;
    Ok((first, game_id))
}

/// `calls` views of `game_id` by `seat`, [`VIEWERS`] at a time.
async fn views(seat: &Session, game_id: &str, calls: usize) -> anyhow::Result<()> {
    let mut viewers = tokio::task::JoinSet::new();
    for i in 0..VIEWERS {
        let (seat, game_id) = (seat.clone(), game_id.to_string());
        let n = calls / VIEWERS + usize::from(i < calls % VIEWERS);
        viewers.spawn(async move {
            for _ in 0..n {
                seat.view(&game_id).await?;
            }
            anyhow::Ok(())
        });
    }
    while let Some(done) = viewers.join_next().await {
        done??;
    }
    Ok(())
}

/// A child process under callgrind.
struct UnderCallgrind {
    child: Child,
    /// Where callgrind writes its dumps: `<out>.<n>`, n from 1 (and `<out>` at exit).
    out: PathBuf,
    /// Dumps asked for so far.
    dumps: u32,
}

/// How long a `callgrind_control` request may take: it waits for the process to see it.
const CONTROL_WAIT: Duration = Duration::from_secs(120);

impl UnderCallgrind {
    /// Starts `theboss-bench <args>` under callgrind, instrumented from then on; only what
    /// follows [`Self::zero`] is reported.
    async fn start(dir: &Path, name: &str, args: &[String]) -> anyhow::Result<UnderCallgrind> {
        let out = dir.join(name);
        // A dump left by an earlier run under the same name is not this run's.
        for n in 1..=3 {
            let _ = std::fs::remove_file(format!("{}.{n}", out.display()));
        }
        let wrapper = [
            "valgrind".to_string(),
            // Quiet: valgrind's banner repeats the command line, the database's URL with it.
            "-q".to_string(),
            "--tool=callgrind".to_string(),
            "--instr-atstart=no".to_string(),
            format!("--callgrind-out-file={}", out.display()),
        ];
        // Migrations and start-up run uninstrumented, yet some ten times slower than alone.
        let child = child::spawn_under(&wrapper, args, Duration::from_secs(600))
            .await
            .context("start a child under valgrind (Debian's package valgrind)")?;
        let counted = UnderCallgrind {
            child,
            out,
            dumps: 0,
        };
        counted.control("--instr=on").await?;
        Ok(counted)
    }

    /// Sends a request to the process. `callgrind_control` exits with success whether or not
    /// it reached one: what it prints says.
    async fn control(&self, what: &str) -> anyhow::Result<()> {
        let pid = self
            .child
            .pid()
            .context("the child under callgrind has ended")?;
        let output = tokio::time::timeout(
            CONTROL_WAIT,
            Command::new("callgrind_control")
                .arg(what)
                .arg(pid.to_string())
                .output(),
        )
        .await
        .with_context(|| format!("callgrind_control {what} {pid}: no answer"))?
        .context("callgrind_control (Debian's package valgrind)")?;
        let said = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || !said.contains("OK") || said.contains("Error") {
            bail!("callgrind_control {what} {pid}: {}", said.trim());
        }
        Ok(())
    }

    /// Counts from now on.
    async fn zero(&self) -> anyhow::Result<()> {
        self.control("--zero").await
    }

    /// The instructions executed since [`Self::zero`].
    async fn dump(&mut self) -> anyhow::Result<f64> {
        self.dumps += 1;
        let path = PathBuf::from(format!("{}.{}", self.out.display(), self.dumps));
        let _ = std::fs::remove_file(&path);
        self.control("--dump").await?;
        // The dump is written by the process once it has seen the request; its last line is
        // the total.
        let mut total = None;
        for _ in 0..100 {
            let text = tokio::fs::read_to_string(&path).await.unwrap_or_default();
            total = text
                .lines()
                .find_map(|l| l.strip_prefix("totals:"))
                .filter(|_| text.ends_with('\n'))
                .and_then(|n| n.split_whitespace().next()?.parse::<f64>().ok());
            if total.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let total = total.with_context(|| format!("no total in {}", path.display()))?;
        anyhow::ensure!(total > 0.0, "{}: no instruction counted", path.display());
        Ok(total)
    }
}
