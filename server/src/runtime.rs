//! The async runtime the server runs on: how many threads serve calls.
//!
//! tokio's default is a worker per core. A server of this game shares its machine with what
//! it needs besides calls (its database, PostgreSQL's processes or SQLite's threads, and its
//! house bots, which think on threads of their own), and on a small machine a worker per
//! core costs the idle server latency: when a task wakes another while the other worker is
//! parked, the runtime wakes that worker (a system call, and on a virtual machine an
//! interrupt to another virtual CPU), which mostly finds nothing to do and parks again. A
//! turn wakes several tasks (its seats' connections), so at idle every turn paid for that
//! back and forth. So the server leaves a core to the rest: a worker per core but one, and
//! at least one ([`default_workers`]). `--worker-threads` sets it otherwise.

use std::num::NonZeroUsize;

/// Worker threads for a machine of `cores` cores: all but one, at least one.
pub fn default_workers(cores: NonZeroUsize) -> NonZeroUsize {
    NonZeroUsize::new(cores.get() - 1).unwrap_or(NonZeroUsize::MIN)
}

/// The cores this process may run on, as the standard library sees them (cgroup quotas and
/// affinity included); one if it cannot tell.
fn cores() -> NonZeroUsize {
    std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// The runtime to serve on: `workers` worker threads, or [`default_workers`] for this
/// machine, with IO and timers.
pub fn build(workers: Option<NonZeroUsize>) -> std::io::Result<tokio::runtime::Runtime> {
    let workers = workers.unwrap_or_else(|| default_workers(cores()));
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.get())
        .enable_all()
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn a_core_is_left_to_the_rest_but_one_worker_always_serves() {
        assert_eq!(default_workers(n(1)), n(1));
        assert_eq!(default_workers(n(2)), n(1));
        assert_eq!(default_workers(n(8)), n(7));
    }

    #[test]
    fn the_runtime_has_the_workers_asked_for_else_the_default() {
        let asked = build(Some(n(3))).unwrap();
        assert_eq!(asked.metrics().num_workers(), 3);
        let default = build(None).unwrap();
        assert_eq!(
            default.metrics().num_workers(),
            default_workers(cores()).get()
        );
        // It serves: IO and timers are enabled.
        default.block_on(async {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            assert!(listener.local_addr().is_ok());
        });
    }
}
