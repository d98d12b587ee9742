//! A Patroni cluster for the failover test and benchmark, brought up by `deploy/ha/up.sh`
//! under a directory of its own, on free ports (so that it never meets a developer's own
//! cluster), and taken down when dropped, a failed run included.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How a failover is caused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    /// The primary's PostgreSQL is SIGKILLed; its Patroni stays and hands over at once.
    Postgres,
    /// The primary's machine is lost: its Patroni and its PostgreSQL are SIGKILLed, and the
    /// standby takes over once the leader key expires.
    Node,
}

/// A running cluster; `url` reaches its primary through HAProxy, whichever node that is.
pub struct HaCluster {
    base: tempfile::TempDir,
    pub url: String,
    /// Where `restore` starts the restored copy.
    restore_port: u16,
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy/ha")
        .join(name)
}

/// Ports free when asked for, each different from the others: every one stays bound until
/// all are chosen (released one by one, a port could come back at the next ask, and the
/// cluster's script then found one of its own ports taken).
fn free_ports(n: usize) -> std::io::Result<Vec<u16>> {
    let held = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()?;
    held.iter()
        .map(|listener| Ok(listener.local_addr()?.port()))
        .collect()
}

/// What went wrong with a cluster's scripts, with what they printed.
#[derive(Debug, thiserror::Error)]
#[error(
    "deploy/ha/{script} failed (Patroni, etcd, HAProxy and pgBackRest come from .ci/install-ha): {output}"
)]
pub struct HaError {
    script: &'static str,
    output: String,
}

fn run(script_name: &'static str, command: &mut Command) -> Result<(), HaError> {
    let failed = |output: String| HaError {
        script: script_name,
        output,
    };
    let output = command.output().map_err(|e| failed(e.to_string()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(failed(format!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

impl HaCluster {
    /// Brings up `nodes` (2 or 3) PostgreSQL nodes under Patroni, etcd and HAProxy, and
    /// returns once the primary has a synchronous standby.
    pub fn up(nodes: usize) -> Result<HaCluster, HaError> {
        let io = |e: std::io::Error| HaError {
            script: "up.sh",
            output: e.to_string(),
        };
        let base = tempfile::Builder::new()
            .prefix("theboss-ha-")
            .tempdir_in("/tmp")
            .map_err(io)?;
        let ports = free_ports(2 * nodes + 6).map_err(io)?;
        let list = |from: usize, n: usize| {
            ports[from..from + n]
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let singles = 2 * nodes;
        let (ha_port, restore_port) = (ports[singles], ports[singles + 1]);
        let mut command = Command::new(script("up.sh"));
        command
            .arg(base.path())
            .env("HA_PG_PORTS", list(0, nodes))
            .env("HA_REST_PORTS", list(nodes, nodes))
            .env("HA_PORT", ha_port.to_string())
            .env("HA_RESTORE_PORT", restore_port.to_string())
            .env("HA_ETCD_CLIENT_PORT", list(singles + 2, 1))
            .env("HA_ETCD_PEER_PORT", list(singles + 3, 1))
            .env("HA_REPLICA_PORT", list(singles + 4, 1))
            .env("HA_STATS_PORT", list(singles + 5, 1));
        // Taken down by `Drop` from here on, even if it never came up whole.
        let cluster = HaCluster {
            base,
            url: format!("postgres://postgres@127.0.0.1:{ha_port}/postgres"),
            restore_port,
        };
        run("up.sh", &mut command)?;
        Ok(cluster)
    }

    /// Causes a failover: SIGKILLs the primary's PostgreSQL, or its whole node.
    pub fn lose_the_primary(&self, loss: Loss) -> Result<(), HaError> {
        let mode = match loss {
            Loss::Postgres => "postgres",
            Loss::Node => "node",
        };
        run(
            "kill-primary.sh",
            Command::new(script("kill-primary.sh"))
                .arg(self.base.path())
                .arg(mode),
        )
    }
}

impl HaCluster {
    /// A full pgBackRest backup, taken from the primary.
    pub fn back_up(&self) -> Result<(), HaError> {
        run(
            "backup.sh",
            Command::new(script("backup.sh"))
                .arg(self.base.path())
                .arg("full"),
        )
    }

    /// The primary's clock now, as PostgreSQL writes a timestamp (what a point-in-time
    /// restore's target is given in).
    pub fn now(&self) -> Result<String, HaError> {
        let output = Command::new("psql")
            .args([self.url.as_str(), "-X", "-At", "-c", "select now()"])
            .output()
            .map_err(|e| HaError {
                script: "psql",
                output: e.to_string(),
            })?;
        let now = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if output.status.success() && !now.is_empty() {
            Ok(now)
        } else {
            Err(HaError {
                script: "psql",
                output: String::from_utf8_lossy(&output.stderr).into_owned(),
            })
        }
    }

    /// Restores the latest backup and the archived WAL after it, up to `until` (a timestamp
    /// from [`HaCluster::now`]) or to the end, into a new directory, and starts it as a
    /// standalone PostgreSQL (stopped with the cluster); returns its URL.
    pub fn restore(&self, until: Option<&str>) -> Result<String, HaError> {
        let target = self.base.path().join("restored");
        let mut command = Command::new(script("restore.sh"));
        command
            .arg(self.base.path())
            .arg(&target)
            .env("HA_RESTORE_KEEP", "1");
        if let Some(until) = until {
            command
                .arg("--type=time")
                .arg(format!("--target={until}"))
                .arg("--target-action=promote");
        }
        run("restore.sh", &mut command)?;
        Ok(format!(
            "postgres://postgres@127.0.0.1:{}/postgres",
            self.restore_port
        ))
    }
}

impl Drop for HaCluster {
    fn drop(&mut self) {
        let _ = Command::new(script("down.sh"))
            .arg(self.base.path())
            .stdout(Stdio::null())
            .status();
    }
}
