//! The table the benchmark prints: each figure of the service beside its limit from the same
//! run, and their ratio.

use std::fmt;
use std::time::Duration;

use clap::ValueEnum;
use theboss_bot::load::LoadReport;

use crate::attack::UnderAttack;
use crate::history::{HistoryScale, ROUNDS};
use crate::latency::Unloaded;
use crate::limits::{Commits, Echo};
use crate::replicas::{Failover, Scale};
use crate::restart::Restart;
use crate::stats::{Ms, P50P99, Sample, ratio};
use crate::streams::StreamSoak;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        })
    }
}

#[derive(Default)]
pub struct BackendReport {
    pub commits: Option<Commits>,
    /// Idle `GetView` and one game alone, in turns with their limits.
    pub unloaded: Option<Unloaded>,
    pub load: Option<LoadReport>,
    /// The server's CPU time per persisted action during `load`'s steady part.
    pub load_cpu_per_action: Option<Duration>,
    /// The same over the whole of `load`, its cold start and tail included.
    pub load_cpu_whole_run: Option<Duration>,
    /// The floor of a turn under as many tables as `load` has games, right after it.
    pub floor_load: Option<crate::floor::FloorLoad>,
    /// The server's resident memory before `load` and at its end (bytes).
    pub load_rss: Option<(u64, u64)>,
    pub restart: Option<Restart>,
    pub history: Option<HistoryScale>,
    /// Instructions counted under callgrind.
    pub instructions: Option<crate::instructions::Counted>,
}

#[derive(Default)]
pub struct Report {
    pub echo: Option<Echo>,
    pub backends: Vec<(Backend, BackendReport)>,
    pub streams: Option<StreamSoak>,
    pub stream_period: Duration,
    pub scales: Vec<Scale>,
    pub failover: Option<Failover>,
    pub attack: Option<(Backend, UnderAttack)>,
}

impl Report {
    pub fn backend(&mut self, backend: Backend) -> &mut BackendReport {
        if let Some(i) = self.backends.iter().position(|(b, _)| *b == backend) {
            return &mut self.backends[i].1;
        }
        self.backends.push((backend, BackendReport::default()));
        &mut self.backends.last_mut().expect("just pushed").1
    }
}

/// What an open `WatchGame` stream may cost the server at most, in bytes of its RSS.
const STREAM_TARGET: f64 = 10.0 * 1024.0;

/// The server's RSS an open stream accounts for: what opening them all added, each.
fn per_stream(s: &crate::streams::StreamSoak) -> f64 {
    s.rss_open.saturating_sub(s.rss_before) as f64 / s.streams.max(1) as f64
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "\n| measure | store | figure | limit in this run | ratio |"
        )?;
        writeln!(f, "|---|---|---|---|---|")?;
        if let Some(echo) = &self.echo {
            writeln!(
                f,
                "| bare tonic unary call (limit), p50 / p99 | – | {} | – | – |",
                P50P99(&echo.rtt)
            )?;
            writeln!(
                f,
                "| bare tonic unary calls/s, {} callers (limit) | – | {:.0} | – | – |",
                echo.callers, echo.per_second
            )?;
        }
        for (backend, r) in &self.backends {
            if let Some(c) = &r.commits {
                writeln!(
                    f,
                    "| bare single-row commit (limit), p50 / p99 | {backend} | {} | – | – |",
                    P50P99(&c.alone)
                )?;
                writeln!(
                    f,
                    "| bare commits/s, {} connections (limit) | {backend} | {:.0} | – | – |",
                    c.clients, c.per_second
                )?;
            }
            if let Some(u) = &r.unloaded {
                let (echo, bound) = (u.echo.p50(), u.echo.p50() + u.commit.p50());
                writeln!(
                    f,
                    "| idle unary call (`GetView`), p50 / p99 | {backend} | {} | echo in turns with it {}, target ≤ 1.3× | {} |",
                    P50P99(&u.get_view),
                    Ms(echo),
                    ratio(u.get_view.p50().as_secs_f64(), echo.as_secs_f64())
                )?;
                writeln!(
                    f,
                    "| one game alone: `SubmitAction` → ack, p50 / p99 | {backend} | {} | echo + commit in turns with it {}, target ≤ 1.3× | {} |",
                    P50P99(&u.game.ack),
                    Ms(bound),
                    ratio(u.game.ack.p50().as_secs_f64(), bound.as_secs_f64())
                )?;
                writeln!(
                    f,
                    "| one game alone: `SubmitAction` → every seat's stream, p50 / p99 | {backend} | {} | echo + commit in turns with it {}, target ≤ 1.3× | {} |",
                    P50P99(&u.game.streams),
                    Ms(bound),
                    ratio(u.game.streams.p50().as_secs_f64(), bound.as_secs_f64())
                )?;
                writeln!(
                    f,
                    "| the floor of a turn: a bare server's commit, four streams' updates and the answer (the bytes of one of the game's turns), p50 / p99 | {backend} | {} | echo + commit in turns with it {} | {} |",
                    P50P99(&u.floor),
                    Ms(bound),
                    ratio(u.floor.p50().as_secs_f64(), bound.as_secs_f64())
                )?;
                writeln!(
                    f,
                    "| one game alone: `SubmitAction` → every seat's stream, beside the floor, p50 | {backend} | {} | the floor in turns with it {} | {} |",
                    Ms(u.game.streams.p50()),
                    Ms(u.floor.p50()),
                    ratio(
                        u.game.streams.p50().as_secs_f64(),
                        u.floor.p50().as_secs_f64()
                    )
                )?;
                writeln!(
                    f,
                    "| the unloaded figures' limits, in turns with them: bare call / bare commit, p50 | {backend} | {} / {} | – | – |",
                    Ms(echo),
                    Ms(u.commit.p50())
                )?;
            }
            if let Some(load) = &r.load {
                let commits = r.commits.as_ref().map_or(0.0, |c| c.per_second);
                let calls = self.echo.as_ref().map_or(0.0, |e| e.per_second);
                let limit = if commits > 0.0 && calls > 0.0 {
                    commits.min(calls)
                } else {
                    commits.max(calls)
                };
                let limit_name = if commits <= calls {
                    "bare commits/s"
                } else {
                    "bare unary calls/s"
                };
                let call = self
                    .echo
                    .as_ref()
                    .map_or(Duration::ZERO, |e| e.cpu_per_call);
                let cpu_row = |f: &mut fmt::Formatter<'_>, part: &str, cpu: Duration| {
                    writeln!(
                        f,
                        "| {} concurrent games{part}: server CPU per persisted action | {backend} | {:.0} µs | a bare unary call {:.0} µs, target ≤ 4× ({:.0} µs) | {} |",
                        load.concurrent,
                        cpu.as_secs_f64() * 1e6,
                        call.as_secs_f64() * 1e6,
                        call.as_secs_f64() * 4e6,
                        ratio(cpu.as_secs_f64(), call.as_secs_f64())
                    )
                };
                if let Some(steady) = &load.steady {
                    let per_second = steady.per_second();
                    writeln!(
                        f,
                        "| {} concurrent {}-player games, steady (the {:.1} s after every table's first game): persisted actions/s | {backend} | {per_second:.0} | {limit:.0} ({limit_name}) | {} |",
                        load.concurrent,
                        load.players,
                        steady.duration().as_secs_f64(),
                        ratio(per_second, limit)
                    )?;
                }
                if let Some(cpu) = r.load_cpu_per_action {
                    cpu_row(f, ", steady", cpu)?;
                }
                if let Some(floor) = &r.floor_load {
                    let turn = floor.cpu_per_turn;
                    writeln!(
                        f,
                        "| the floor under load ({} tables on one connection, {:.0} turns/s, the game's rate): a bare server's CPU per turn (four streams' updates and the answer, no database) | – | {:.0} µs | a bare unary call {:.0} µs | {} |",
                        floor.tables,
                        floor.turns_per_sec,
                        turn.as_secs_f64() * 1e6,
                        call.as_secs_f64() * 1e6,
                        ratio(turn.as_secs_f64(), call.as_secs_f64())
                    )?;
                    if let Some(cpu) = r.load_cpu_per_action {
                        writeln!(
                            f,
                            "| {} concurrent games, steady: server CPU per persisted action, beside the floor | {backend} | {:.0} µs | the floor's CPU per turn {:.0} µs | {} |",
                            load.concurrent,
                            cpu.as_secs_f64() * 1e6,
                            turn.as_secs_f64() * 1e6,
                            ratio(cpu.as_secs_f64(), turn.as_secs_f64())
                        )?;
                    }
                }
                let per_second = load.per_second();
                writeln!(
                    f,
                    "| {} concurrent games, whole run ({} games, cold start and tail included): persisted actions/s | {backend} | {per_second:.0} | {limit:.0} ({limit_name}) | {} |",
                    load.concurrent,
                    load.games,
                    ratio(per_second, limit)
                )?;
                if let Some(cpu) = r.load_cpu_whole_run {
                    cpu_row(f, ", whole run", cpu)?;
                }
                let sample = Sample::new(load.latencies.clone());
                writeln!(
                    f,
                    "| {} concurrent games: `SubmitAction` → every seat's stream, p50 / p99 | {backend} | {} | – | – |",
                    load.concurrent,
                    P50P99(&sample)
                )?;
                if let Some((before, after)) = r.load_rss {
                    writeln!(
                        f,
                        "| {} concurrent games: server RSS before / at the end of the whole run | {backend} | {} / {} | – | – |",
                        load.concurrent,
                        mib(before),
                        mib(after)
                    )?;
                }
            }
            if let Some(i) = &r.instructions {
                writeln!(
                    f,
                    "| instructions per persisted action (callgrind, user space; {} games, {} actions, tables set up included) | {backend} | {:.0} | a bare unary call {:.0} ({} calls, {} callers); 4× is {:.0} | {} |",
                    i.games,
                    i.actions,
                    i.per_action,
                    i.bare.per_call,
                    i.bare.calls,
                    i.bare.callers,
                    4.0 * i.bare.per_call,
                    ratio(i.per_action, i.bare.per_call)
                )?;
                writeln!(
                    f,
                    "| instructions per health check through the game server's layers (callgrind; {} calls, {} callers) | {backend} | {:.0} | a bare unary call {:.0} | {} |",
                    i.bare.calls,
                    i.bare.callers,
                    i.server_check_per_call,
                    i.bare.per_call,
                    ratio(i.server_check_per_call, i.bare.per_call)
                )?;
                writeln!(
                    f,
                    "| instructions per `GetView` of a game under way, by a seat (callgrind; {} calls, {} callers) | {backend} | {:.0} | a bare unary call {:.0} | {} |",
                    i.views,
                    i.viewers,
                    i.per_view,
                    i.bare.per_call,
                    ratio(i.per_view, i.bare.per_call)
                )?;
            }
            if let Some(h) = &r.history {
                let label = format!("{:.1}M finished games", h.games as f64 / 1e6);
                writeln!(
                    f,
                    "| history: bulk load of {label} (checkpoint included) | {backend} | {} | – | – |",
                    secs(h.fill)
                )?;
                let (empty, full) = (h.empty.idle, h.full.idle);
                writeln!(
                    f,
                    "| history: idle `GetView` p50, {label} / empty store, median of {ROUNDS} rounds each | {backend} | {} | {} | {} |",
                    Ms(full),
                    Ms(empty),
                    ratio(full.as_secs_f64(), empty.as_secs_f64())
                )?;
                let (empty, full) = (h.empty.game, h.full.game);
                writeln!(
                    f,
                    "| history: one game alone, `SubmitAction` → every stream p50, {label} / empty, median of {ROUNDS} rounds each | {backend} | {} | {} | {} |",
                    Ms(full),
                    Ms(empty),
                    ratio(full.as_secs_f64(), empty.as_secs_f64())
                )?;
                let (empty, full) = (h.empty.actions_per_second, h.full.actions_per_second);
                writeln!(
                    f,
                    "| history: {} concurrent games, actions/s, {label} / empty, median of {ROUNDS} rounds each | {backend} | {full:.0} | {empty:.0} | {} |",
                    h.full.concurrent,
                    ratio(full, empty)
                )?;
            }
            if let Some(restart) = &r.restart {
                writeln!(
                    f,
                    "| restart with {} unfinished games: first answer / {} sampled games answered / all live | {backend} | {} / {} / {} | target 5 s | {} |",
                    restart.games,
                    restart.sampled,
                    secs(restart.first_answer),
                    secs(restart.sample_answered),
                    secs(restart.all_live),
                    ratio(restart.all_live.as_secs_f64(), 5.0)
                )?;
                writeln!(
                    f,
                    "| server RSS with {} games live | {backend} | {} | – | – |",
                    restart.games,
                    mib(restart.rss)
                )?;
            }
        }
        let alone = self.scales.first().map(|s| s.cpu_per_action);
        for scale in &self.scales {
            let load = &scale.load;
            let per_second = load.per_second();
            let sample = Sample::new(load.latencies.clone());
            writeln!(
                f,
                "| {} replicas, {} concurrent 4-player games: actions/s; stream p50 / p99 | PostgreSQL | {per_second:.0}; {} | – | – |",
                scale.replicas,
                load.concurrent,
                P50P99(&sample)
            )?;
            writeln!(
                f,
                "| {} replicas: servers' CPU per action | PostgreSQL | {:.0} µs | 1 replica: {:.0} µs | {} |",
                scale.replicas,
                scale.cpu_per_action.as_secs_f64() * 1e6,
                alone.unwrap_or_default().as_secs_f64() * 1e6,
                ratio(
                    scale.cpu_per_action.as_secs_f64(),
                    alone.unwrap_or_default().as_secs_f64()
                )
            )?;
        }
        if let Some(failover) = &self.failover {
            writeln!(
                f,
                "| failover: SIGKILL → the game's next accepted action, min / p50 / max of {} games | PostgreSQL | {} / {} / {} | lease {} | {} |",
                10,
                secs(failover.times.quantile(0.0)),
                secs(failover.times.p50()),
                secs(failover.times.max()),
                secs(failover.lease),
                ratio(
                    failover.times.p50().as_secs_f64(),
                    failover.lease.as_secs_f64()
                )
            )?;
        }
        if let Some((backend, attack)) = &self.attack {
            let idle = &attack.idle.streams;
            writeln!(
                f,
                "| victim alone, before the attacks: `SubmitAction` → every seat's stream, p50 / p99 | {backend} | {} | – | – |",
                P50P99(idle)
            )?;
            let floor = &attack.busy_cores.streams;
            writeln!(
                f,
                "| victim beside a spinning thread per core at the idle CPU policy, nobody attacking (the floor of an attack that keeps the cores busy), p50 / p99 | {backend} | {} | idle p99 {} | {} |",
                P50P99(floor),
                Ms(idle.p99()),
                ratio(floor.p99().as_secs_f64(), idle.p99().as_secs_f64())
            )?;
            for phase in &attack.phases {
                let under = &phase.victim.streams;
                writeln!(
                    f,
                    "| victim under \"{}\" (server answered: {}), p50 / p99 | {backend} | {} | idle p99 {}, target ≤ 3×; the cores busy: {} | {} |",
                    phase.attack,
                    phase.answers,
                    P50P99(under),
                    Ms(idle.p99()),
                    Ms(floor.p99()),
                    ratio(under.p99().as_secs_f64(), idle.p99().as_secs_f64())
                )?;
                if let Some(house) = &phase.house {
                    let before = &attack.house_idle;
                    let bound = before.p99() * 3 + std::time::Duration::from_millis(250);
                    writeln!(
                        f,
                        "| the victim's random house bot's reply under \"{}\", p50 / p99 | {backend} | {} | idle {} (p50 / p99), target ≤ 3× idle p99 + 250 ms = {} | {} |",
                        phase.attack,
                        P50P99(house),
                        P50P99(before),
                        Ms(bound),
                        ratio(house.p99().as_secs_f64(), bound.as_secs_f64())
                    )?;
                }
            }
            writeln!(
                f,
                "| victim alone, after the attacks, p50 / p99 | {backend} | {} | idle p99 {} | {} |",
                P50P99(&attack.idle_after.streams),
                Ms(idle.p99()),
                ratio(
                    attack.idle_after.streams.p99().as_secs_f64(),
                    idle.p99().as_secs_f64()
                )
            )?;
        }
        if let Some(s) = &self.streams {
            writeln!(
                f,
                "| {} open `WatchGame` streams: server RSS before / open / after the hold (a stream's share while open) | – | {} / {} / {} ({:.1} KiB) | target {:.0} KiB a stream | {} |",
                s.streams,
                mib(s.rss_before),
                mib(s.rss_open),
                mib(s.rss_end),
                per_stream(s) / 1024.0,
                STREAM_TARGET / 1024.0,
                ratio(per_stream(s), STREAM_TARGET)
            )?;
            writeln!(
                f,
                "| {} streams: keep-alive lateness p50 / p99 / max (every {}), missed | – | {} / {} / {}, {} missed | – | – |",
                s.streams,
                secs(self.stream_period),
                Ms(s.lateness.p50()),
                Ms(s.lateness.p99()),
                Ms(s.lateness.max()),
                s.missed
            )?;
            writeln!(
                f,
                "| {} streams opened in | – | {} | – | – |",
                s.streams,
                secs(s.opened_in)
            )?;
        }
        Ok(())
    }
}
