//! Many open `WatchGame` streams on one server: its memory, and whether keep-alives still
//! arrive on time when ten thousand streams wait for them.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use theboss::v1::{self, watch_game_response::Message};
use theboss_client::Connection;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::child::Child;
use crate::stats::Sample;

pub struct StreamSoak {
    pub streams: usize,
    pub rss_before: u64,
    pub rss_open: u64,
    pub rss_end: u64,
    /// How late each keep-alive was, after the first of its stream.
    pub lateness: Sample,
    /// Keep-alives that never came: a gap of two periods or more between two of one stream
    /// (or a stream with none at all during the hold).
    pub missed: usize,
    pub opened_in: Duration,
}

/// Opens `streams` spectator streams on `games` games over `connections` connections, then
/// waits `hold` and reads the keep-alives. The server must send them every `period`.
pub async fn soak(
    server: &Child,
    streams: usize,
    connections: usize,
    period: Duration,
    hold: Duration,
) -> anyhow::Result<StreamSoak> {
    let rss_before = server.rss().unwrap_or(0);
    let first = Connection::connect(&server.url).await?;
    let spectator = first.register("Spectator", true).await?;
    let games = (streams / 100).max(1);
    let mut game_ids = Vec::with_capacity(games);
    for _ in 0..games {
        let settings = v1::GameSettings {
            players: 4,
            ..Default::default()
        };
        game_ids.push(spectator.create_game(settings, None).await?);
    }
    let mut sessions = Vec::with_capacity(connections);
    for _ in 0..connections.max(1) {
        let connection = Connection::connect(&server.url).await?;
        sessions.push(connection.session(spectator.credentials.clone()));
    }
    // Each stream's keep-alive arrival times.
    let slots: Arc<Vec<Mutex<Vec<Instant>>>> =
        Arc::new((0..streams).map(|_| Mutex::new(Vec::new())).collect());
    let started = Instant::now();
    let mut tasks = JoinSet::new();
    let (opened_tx, mut opened) = mpsc::unbounded_channel::<()>();
    let stop = Instant::now() + hold + Duration::from_secs(600);
    for i in 0..streams {
        let session = sessions[i % sessions.len()].clone();
        let request = v1::WatchGameRequest {
            game_id: game_ids[i % game_ids.len()].clone(),
            after_seq: None,
            update_views: v1::UpdateViews::ActionComplete as i32,
        };
        let (slots, opened_tx) = (slots.clone(), opened_tx.clone());
        tasks.spawn(async move {
            let mut stream = session.watch(request).await?;
            while let Ok(Ok(Some(message))) =
                tokio::time::timeout_at(stop.into(), stream.message()).await
            {
                match message.message {
                    Some(Message::Snapshot(_)) => {
                        let _ = opened_tx.send(());
                    }
                    Some(Message::KeepAlive(_)) => {
                        slots[i].lock().expect("not poisoned").push(Instant::now());
                    }
                    _ => {}
                }
            }
            Ok::<_, theboss_client::ClientError>(())
        });
    }
    drop(opened_tx);
    for _ in 0..streams {
        opened
            .recv()
            .await
            .ok_or_else(|| anyhow::anyhow!("a stream failed to open"))?;
    }
    let opened_in = started.elapsed();
    let rss_open = server.rss().unwrap_or(0);
    #[cfg(feature = "dhat-heap")]
    heap_profile_now(server).await?;
    let window_start = Instant::now();
    tokio::time::sleep(hold).await;
    let window_end = Instant::now();
    let rss_end = server.rss().unwrap_or(0);
    tasks.abort_all();
    let mut lateness = Vec::new();
    let mut missed = 0;
    for slot in slots.iter() {
        let alives = slot.lock().expect("not poisoned");
        let inside: Vec<Instant> = alives
            .iter()
            .copied()
            .filter(|t| *t >= window_start && *t <= window_end)
            .collect();
        if inside.is_empty() {
            missed += ((window_end - window_start).as_secs_f64() / period.as_secs_f64()) as usize;
            continue;
        }
        for pair in inside.windows(2) {
            let gap = pair[1] - pair[0];
            lateness.push(gap.saturating_sub(period));
            // A keep-alive that never came leaves a gap of two periods or more.
            missed += (gap.as_secs_f64() / period.as_secs_f64()).round() as usize - 1;
        }
    }
    Ok(StreamSoak {
        streams,
        rss_before,
        rss_open,
        rss_end,
        lateness: Sample::new(lateness),
        missed,
        opened_in,
    })
}

/// Has the server under dhat write its heap profile now, every stream open and no call of
/// theirs in flight, and waits until it is written (`THEBOSS_BENCH_DHAT`).
#[cfg(feature = "dhat-heap")]
async fn heap_profile_now(server: &Child) -> anyhow::Result<()> {
    let path = std::env::var_os("THEBOSS_BENCH_DHAT").unwrap_or_else(|| "dhat-heap.json".into());
    let _ = std::fs::remove_file(&path);
    let pid = server
        .pid()
        .ok_or_else(|| anyhow::anyhow!("the server has exited"))?;
    tokio::process::Command::new("kill")
        .args(["-USR1", &pid.to_string()])
        .status()
        .await?;
    // Written in one go: once its size holds still, it is whole.
    let mut last = None;
    for _ in 0..600 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let size = std::fs::metadata(&path).map(|m| m.len()).ok();
        if size.is_some_and(|n| n > 0) && size == last {
            return Ok(());
        }
        last = size;
    }
    anyhow::bail!("no heap profile written at {}", path.to_string_lossy())
}
