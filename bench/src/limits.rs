//! The limits the service's figures are compared with, measured in the same run on the
//! same machine: a bare tonic unary call (the gRPC health check of a server that serves
//! nothing else, with tonic's default socket options), and a bare single-row commit on the
//! same database the server uses. The health checks' callers ([`health_checks`]) also
//! call the game server, to count what its layers add to a call.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use theboss_server::store::probe::{self, CommitProbe};
use tokio::task::JoinSet;
use tonic::transport::{Channel, Endpoint, Server, server::TcpIncoming};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

use crate::child;
use crate::stats::Sample;

/// The bare gRPC server: health checks only. Logs `addr=` like the game server.
pub async fn serve_echo(listen: SocketAddr) -> anyhow::Result<()> {
    // `TcpIncoming::bind` + nodelay is what `Server::serve(addr)` does by default.
    let incoming = TcpIncoming::bind(listen)?.with_nodelay(Some(true));
    let addr = incoming.local_addr()?;
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter
        .set_service_status("", tonic_health::ServingStatus::Serving)
        .await;
    tracing::info!(%addr, "serving");
    Server::builder()
        .add_service(health)
        .serve_with_incoming_shutdown(incoming, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

pub struct Echo {
    /// One caller, one call after the other.
    pub rtt: Sample,
    /// Calls per second with many callers.
    pub per_second: f64,
    pub callers: usize,
    /// The server's CPU time per call under that load: the least a unary RPC costs.
    pub cpu_per_call: Duration,
}

/// A bare tonic server in a child process, and one idle connection to it.
pub struct EchoServer {
    server: child::Child,
    client: HealthClient<Channel>,
}

impl EchoServer {
    /// Starts the server and warms its connection up.
    pub async fn start() -> anyhow::Result<EchoServer> {
        let server = child::spawn(&["echo".to_string()], Duration::from_secs(30)).await?;
        let client = HealthClient::new(connect(&server.url).await?);
        let mut echo = EchoServer { server, client };
        for _ in 0..100 {
            echo.call().await?;
        }
        Ok(echo)
    }

    /// One call on the idle connection; returns how long it took.
    pub async fn call(&mut self) -> anyhow::Result<Duration> {
        let t = Instant::now();
        self.client
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await?;
        Ok(t.elapsed())
    }

    pub async fn stop(self) {
        self.server.stop().await;
    }
}

async fn connect(url: &str) -> Result<Channel, tonic::transport::Error> {
    Endpoint::from_shared(url.to_string())?
        .tcp_nodelay(true)
        .connect()
        .await
}

/// Unary calls against a bare tonic server in a child process.
pub async fn echo(idle_calls: usize, load: Duration, callers: usize) -> anyhow::Result<Echo> {
    let mut echo = EchoServer::start().await?;
    let mut rtt = Vec::with_capacity(idle_calls);
    for _ in 0..idle_calls {
        rtt.push(echo.call().await?);
    }
    let server = &echo.server;
    // Several connections, as the load generator uses: one per few callers.
    let mut channels = Vec::new();
    for _ in 0..4 {
        channels.push(connect(&server.url).await?);
    }
    let started = Instant::now();
    let cpu_before = server.cpu().unwrap_or_default();
    let calls = health_checks(&channels, callers, Until::Deadline(started + load)).await?;
    let per_second = calls as f64 / started.elapsed().as_secs_f64();
    let cpu = server.cpu().unwrap_or_default().saturating_sub(cpu_before);
    echo.stop().await;
    Ok(Echo {
        rtt: Sample::new(rtt),
        per_second,
        callers,
        cpu_per_call: cpu / u32::try_from(calls.max(1)).unwrap_or(u32::MAX),
    })
}

/// How long each caller of [`health_checks`] keeps calling.
#[derive(Debug, Clone, Copy)]
pub enum Until {
    Deadline(Instant),
    /// This many calls in all, shared between the callers.
    Calls(usize),
}

/// Health checks from `callers` tasks at once, one call after the other each, spread over
/// `channels` (one connection per few callers, as the load generator uses). Returns how many
/// calls were made.
pub async fn health_checks(
    channels: &[Channel],
    callers: usize,
    until: Until,
) -> anyhow::Result<u64> {
    anyhow::ensure!(!channels.is_empty(), "no channel to call on");
    let mut tasks = JoinSet::new();
    for i in 0..callers {
        let mut client = HealthClient::new(channels[i % channels.len()].clone());
        tasks.spawn(async move {
            let mut calls = 0u64;
            loop {
                let more = match until {
                    Until::Deadline(deadline) => Instant::now() < deadline,
                    Until::Calls(n) => calls < (n / callers + usize::from(i < n % callers)) as u64,
                };
                if !more {
                    break;
                }
                client
                    .check(HealthCheckRequest {
                        service: String::new(),
                    })
                    .await?;
                calls += 1;
            }
            Ok::<_, tonic::Status>(calls)
        });
    }
    let mut calls = 0;
    while let Some(done) = tasks.join_next().await {
        calls += done??;
    }
    Ok(calls)
}

pub struct Commits {
    /// One connection, one commit after the other.
    pub alone: Sample,
    pub clients: usize,
    /// Commits per second from `clients` connections.
    pub per_second: f64,
}

/// Bare single-row commits on the database at `url`.
pub async fn commits(url: &str, clients: usize) -> anyhow::Result<Commits> {
    let alone: CommitProbe = probe::bare_commits(url, 1, Duration::from_secs(2)).await?;
    let many = probe::bare_commits(url, clients, Duration::from_secs(3)).await?;
    Ok(Commits {
        alone: Sample::new(alone.latencies),
        clients,
        per_second: many.per_second(),
    })
}
