//! The threads house bots think on: one of its own per worker of the scheduler, at a lower
//! CPU priority than the rest of the server (nice [`LOWER_BY`] more).
//!
//! A search bot thinks for a set time, not a set number of iterations, so on a busy machine
//! it searches less deeply and answers as soon, while every game's traffic takes the CPU
//! first. Without this, a flood of house-bot tables (within their admission bounds) held
//! every core, and other players' turns waited behind the bots' searches: on two cores, the
//! victim's turns reached six times their idle p99. Each thinking thread weighs a tenth of a
//! server thread, so the protection holds while the thinking threads are few beside the
//! server's (`--house-bot-threads`, 2 by default). Not the idle policy (`SCHED_IDLE`): a nice
//! thread still gets its share of a saturated machine, so tables of house bots slow down
//! under load rather than stop. On other systems than Linux the threads keep the server's
//! priority (elsewhere a nice value is the whole process's).

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::time::Duration;

use theboss_bots::StrategyKind;
use theboss_bots::ismcts::{Budget, Ismcts};
use theboss_engine::{Turn, View};
use tokio::sync::oneshot;

/// How much nicer a thinking thread is than the server: each weighs a tenth of one of the
/// server's other threads when both want the CPU.
pub const LOWER_BY: i32 = 10;

/// The nicest value there is.
#[cfg(target_os = "linux")]
const NICEST: i32 = 19;

/// Lowers the calling thread's priority by [`LOWER_BY`] (to 19 at most). Linux only: there a
/// nice value is a thread's, where POSIX makes it the whole process's.
#[cfg(target_os = "linux")]
fn lower_priority() {
    let lowered = (nice() + LOWER_BY).min(NICEST);
    // SAFETY: plain integers; on Linux, `who` 0 is the calling thread.
    let failed = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, lowered) } != 0;
    if failed {
        tracing::warn!(
            error = %std::io::Error::last_os_error(),
            "a house-bot thread keeps the server's priority"
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {
    tracing::debug!("house-bot threads keep the server's priority on this OS");
}

/// The calling thread's nice value.
#[cfg(target_os = "linux")]
fn nice() -> i32 {
    // SAFETY: plain integers; on Linux, `who` 0 is the calling thread.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

#[cfg(not(target_os = "linux"))]
fn nice() -> i32 {
    0
}

/// One turn to think, and where its answer goes.
struct Thought {
    kind: StrategyKind,
    view: View,
    seed: u64,
    think: Duration,
    reply: oneshot::Sender<Option<Turn>>,
}

/// A thinking thread. It ends when its `Thinker` is dropped (its worker ends when the
/// scheduler's `Thinkers` is dropped).
pub(super) struct Thinker {
    thoughts: mpsc::Sender<Thought>,
    /// The thread's nice value, as it read it once lowered.
    #[cfg(test)]
    nice: i32,
}

impl Thinker {
    /// Starts the thread, and returns once it runs at its priority.
    pub(super) fn start() -> Thinker {
        let (thoughts, queue) = mpsc::channel::<Thought>();
        let (started, niced) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("house-bot".into())
            .spawn(move || {
                lower_priority();
                let _ = started.send(nice());
                for thought in queue {
                    let _ = thought.reply.send(think_one(
                        thought.kind,
                        thought.view,
                        thought.seed,
                        thought.think,
                    ));
                }
            })
            // As tokio's own blocking pool does: a process that cannot start a thread at
            // start-up cannot serve.
            .expect("the OS starts a house-bot thread");
        let nice = niced.recv().unwrap_or(0);
        tracing::debug!(nice, "a house-bot thread started");
        Thinker {
            thoughts,
            #[cfg(test)]
            nice,
        }
    }

    /// The turn a bot of `kind` plays from `view`, thought on this thread; None if the
    /// strategy failed (it panicked).
    pub(super) async fn think(
        &self,
        kind: StrategyKind,
        view: View,
        seed: u64,
        think: Duration,
    ) -> Option<Turn> {
        let (reply, answer) = oneshot::channel();
        let thought = Thought {
            kind,
            view,
            seed,
            think,
            reply,
        };
        if self.thoughts.send(thought).is_err() {
            // Only an abort ends the thread (a strategy's panic is caught): say so, once a
            // turn, rather than play default turns in silence.
            tracing::error!(kind = kind.name(), "a house-bot thread is gone");
            return None;
        }
        answer.await.ok().flatten()
    }
}

fn think_one(kind: StrategyKind, view: View, seed: u64, think: Duration) -> Option<Turn> {
    let thought = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut strategy = match kind {
            StrategyKind::Ismcts => Box::new(Ismcts::new(seed, Budget::time(think))),
            other => other.build(seed),
        };
        // The budget is the whole think time: no answer travels a network from here.
        strategy.choose(&view, None)
    }));
    match thought {
        Ok(turn) => Some(turn),
        Err(panic) => {
            let error = crate::logs::panic_message(&*panic);
            tracing::error!(error, kind = kind.name(), "a house bot's strategy failed");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::{Game, GameConfig, Viewer};

    #[tokio::test]
    async fn a_thinker_answers_from_a_thread_of_lower_priority() {
        let game = Game::new(&GameConfig::new(4, 3)).unwrap();
        let view = game.view(Viewer::Seat(game.to_move().unwrap()));
        let before = nice();
        let thinker = Thinker::start();
        // Started from this thread, whose nice value it inherits, then lowered.
        #[cfg(target_os = "linux")]
        assert_eq!(thinker.nice, (before + LOWER_BY).min(NICEST));
        for kind in [StrategyKind::Random, StrategyKind::Ismcts] {
            let turn = thinker
                .think(kind, view.clone(), 1, Duration::from_millis(5))
                .await;
            let legal = view.legal.as_ref().expect("the seat to move has turns");
            assert!(turn.is_some_and(|turn| legal.allows(&turn)), "{kind:?}");
        }
        assert_eq!(nice(), before, "the caller's priority is its own");
    }
}
