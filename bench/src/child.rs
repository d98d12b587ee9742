//! Servers under test run as child processes of the benchmark (this same binary, with a
//! hidden subcommand), so that the figures are those of a separate process talking over
//! loopback, and its memory can be read apart from the benchmark's own.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

/// Server flags for the soak: the load generator registers every seat of every game from
/// one address, far past the registration quota a real address gets; players' call quotas
/// stay as in production.
pub const UNLIMITED_REGISTRATIONS: [&str; 2] = ["--quota-registrations-per-min", "0"];

/// Server flags for the measurements of capacity: no quotas and no limits on what one client
/// holds (the stream soak opens 10,000 streams as one spectator, from one address; the load
/// multiplexes 400 players' streams on one connection, and registers and first calls them
/// all at once there: past the 32 calls of callers not known yet a connection may hold, the
/// rest were refused and retried later, and on SQLite a table's first game could end after
/// another's last, leaving the load no steady part).
pub const UNLIMITED_QUOTAS: [&str; 22] = [
    "--quota-registrations-per-min",
    "0",
    "--quota-calls-per-sec",
    "0",
    "--max-connections",
    "0",
    "--max-connections-per-address",
    "0",
    "--max-streams-per-connection",
    "0",
    "--max-watch-streams-per-player",
    "0",
    "--max-spectators-per-game",
    "0",
    "--max-open-games-per-player",
    "0",
    "--max-unfinished-games-per-player",
    "0",
    "--max-unauthenticated-calls-per-connection",
    "0",
    "--max-unauthenticated-calls-per-address",
    "0",
];

/// Starts a game server (`theboss-bench serve`, the same code as `theboss-server`) on a
/// free port of 127.0.0.1 over the database at `url`, with `flags`.
pub async fn server(url: &str, flags: &[&str], wait: Duration) -> anyhow::Result<Child> {
    spawn(&server_args(url, flags), wait).await
}

/// The arguments of `theboss-bench` that serve a game server (see [`server`]).
pub fn server_args(url: &str, flags: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["serve", "--listen", "127.0.0.1:0", "--database-url", url]
        .map(String::from)
        .to_vec();
    args.extend(flags.iter().map(|s| s.to_string()));
    args
}

/// A free address on 127.0.0.1, for a child's metrics endpoint.
pub fn free_addr() -> std::io::Result<std::net::SocketAddr> {
    std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()
}

pub struct Child {
    process: tokio::process::Child,
    pub url: String,
    /// When the process was started.
    pub started: Instant,
}

/// Starts `theboss-bench <args>` and waits until it logs the address it serves on.
pub async fn spawn(args: &[String], wait: Duration) -> anyhow::Result<Child> {
    spawn_under(&[], args, wait).await
}

/// Starts `theboss-bench <args>` under the program `wrapper` names with its arguments (a
/// profiler: `valgrind --tool=callgrind …`), or directly if it is empty, and waits until it
/// logs the address it serves on.
pub async fn spawn_under(
    wrapper: &[String],
    args: &[String],
    wait: Duration,
) -> anyhow::Result<Child> {
    let exe = std::env::current_exe().context("the benchmark's own path")?;
    let started = Instant::now();
    let mut command = match wrapper.split_first() {
        Some((program, wrapper_args)) => {
            let mut command = Command::new(program);
            command.args(wrapper_args).arg(exe);
            command
        }
        None => Command::new(exe),
    };
    let mut process = command
        .args(args)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("start a child process")?;
    let stderr = process.stderr.take().context("the child's stderr")?;
    let (tx, mut lines) = mpsc::unbounded_channel::<String>();
    // THEBOSS_BENCH_CHILD_LOG=path keeps the children's logs, to look into a run.
    let mut kept = match std::env::var_os("THEBOSS_BENCH_CHILD_LOG") {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .context("THEBOSS_BENCH_CHILD_LOG")?,
        ),
        None => None,
    };
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr).lines();
        // Read to the end even when nobody listens any more, so the child never blocks on
        // a full pipe.
        while let Ok(Some(line)) = reader.next_line().await {
            if let Some(file) = kept.as_mut() {
                use std::io::Write as _;
                let _ = writeln!(file, "{line}");
            }
            let _ = tx.send(line);
        }
    });
    let found = tokio::time::timeout(wait, async {
        while let Some(line) = lines.recv().await {
            if let Some(rest) = line.split("addr=").nth(1) {
                let addr = rest.split_whitespace().next().unwrap_or_default();
                return Some(addr.to_string());
            }
        }
        None
    })
    .await;
    match found {
        Ok(Some(addr)) => Ok(Child {
            process,
            url: format!("http://{addr}"),
            started,
        }),
        Ok(None) => bail!("the child process exited before serving"),
        Err(_) => bail!("the child process did not serve within {wait:?}"),
    }
}

impl Child {
    /// The resident memory of the process, in bytes.
    pub fn rss(&self) -> Option<u64> {
        let pid = self.process.id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    }

    /// The CPU time the process has used so far (user and system).
    pub fn cpu(&self) -> Option<Duration> {
        cpu_of(&self.process.id()?.to_string())
    }

    /// Starts reading the process's CPU time every 10 ms, until [`CpuTrace::finish`].
    pub fn trace_cpu(&self) -> CpuTrace {
        let pid = self.process.id().map(|p| p.to_string()).unwrap_or_default();
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let readings = tokio::spawn(async move {
            let mut readings = Vec::new();
            let mut every = tokio::time::interval(Duration::from_millis(10));
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    _ = every.tick() => {}
                }
                if let Some(cpu) = cpu_of(&pid) {
                    readings.push((Instant::now(), cpu));
                }
            }
            readings
        });
        CpuTrace { stop, readings }
    }

    /// The process's id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.id()
    }

    /// SIGKILL, and wait for the process to be gone.
    pub async fn kill(mut self) {
        let _ = self.process.kill().await;
    }

    /// SIGTERM, then SIGKILL if it has not exited within ten seconds.
    pub async fn stop(mut self) {
        if let Some(pid) = self.process.id() {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status()
                .await;
        }
        if tokio::time::timeout(Duration::from_secs(10), self.process.wait())
            .await
            .is_err()
        {
            let _ = self.process.kill().await;
        }
    }
}

/// A process's CPU time read every 10 ms, so that a figure can cover part of a run.
pub struct CpuTrace {
    stop: tokio::sync::oneshot::Sender<()>,
    readings: tokio::task::JoinHandle<Vec<(Instant, Duration)>>,
}

impl CpuTrace {
    pub async fn finish(self) -> CpuReadings {
        let _ = self.stop.send(());
        CpuReadings(self.readings.await.unwrap_or_default())
    }
}

/// When each reading was taken, and the CPU time then.
pub struct CpuReadings(Vec<(Instant, Duration)>);

impl CpuReadings {
    /// The CPU time used from `from` to `to`, from the readings nearest each (the kernel
    /// counts in 10 ms ticks anyway).
    pub fn between(&self, from: Instant, to: Instant) -> Duration {
        let at = |t: Instant| {
            self.0
                .iter()
                .min_by_key(|(when, _)| if *when > t { *when - t } else { t - *when })
                .map_or(Duration::ZERO, |(_, cpu)| *cpu)
        };
        at(to).saturating_sub(at(from))
    }
}

/// The CPU time a process (`/proc/<pid>`, or `self`) has used so far, user and system.
pub fn cpu_of(pid: &str) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command may hold spaces; the fields after its closing parenthesis do not.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // Linux reports CPU time in clock ticks of 1/100 s.
    Some(Duration::from_millis(ticks * 10))
}

/// The CPU time every PostgreSQL process of this machine has used so far (backends come and
/// go: a period's figure is the difference of two readings, give or take one that ended).
pub fn postgres_cpu() -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|pid| pid.bytes().all(|b| b.is_ascii_digit()))
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == "postgres")
        })
        .filter_map(|pid| cpu_of(&pid))
        .sum()
}
