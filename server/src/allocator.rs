//! How the server's allocator returns memory to the operating system. The binaries install
//! mimalloc as the global allocator (`src/main.rs`); [`tune`] sets, once at start, what the
//! server needs from it that its defaults do not give.
//!
//! mimalloc hands memory that stayed free for a second back to the kernel (`purge_delay`,
//! 1000 ms). Under steady load the server frees and allocates the same pages all the time
//! (every action's views, frames and statement arguments), so pages were given back and
//! faulted in again, as transparent huge pages, each cleared by the kernel: about 2,000
//! faults in 6 s of the load benchmark, the kernel clearing pages for 4% of the server's
//! samples under `perf`, and the server's CPU per action 18% higher than with the delay
//! below (medians of four runs each, alternated). Ten seconds keeps what a steady load
//! reuses, and still gives back what a burst left (a flood of streams closed, a restart's
//! catch-up) soon after.

use std::ffi::{OsStr, c_long};

/// How long memory stays free before mimalloc gives it back, in milliseconds.
pub const PURGE_DELAY_MS: c_long = 10_000;

/// `mi_option_purge_delay` in mimalloc's `mi_option_e`, which `libmimalloc-sys` does not
/// name: the option just before `mi_option_use_numa_nodes` (a test holds them together).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The environment variable with which an operator sets mimalloc's purge delay himself.
const PURGE_DELAY_VAR: &str = "MIMALLOC_PURGE_DELAY";

/// Sets mimalloc's purge delay to [`PURGE_DELAY_MS`], unless the operator set it in the
/// environment (mimalloc reads `MIMALLOC_*` itself).
pub fn tune() {
    if let Some(delay) = purge_delay(std::env::var_os(PURGE_DELAY_VAR).as_deref()) {
        // SAFETY: `mi_option_set` only stores an integer in mimalloc's option table, which
        // mimalloc reads each time it decides whether to purge; any value is valid.
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, delay);
        }
    }
}

/// The purge delay to set, given the environment's setting, if any: none if the operator
/// chose one.
fn purge_delay(from_environment: Option<&OsStr>) -> Option<c_long> {
    from_environment.is_none().then_some(PURGE_DELAY_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mimalloc's purge delay as it stands, in milliseconds.
    fn current_purge_delay() -> c_long {
        // SAFETY: reads an integer from mimalloc's option table.
        unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) }
    }

    #[test]
    fn the_operators_setting_is_kept_and_otherwise_ours_is_set() {
        assert_eq!(purge_delay(Some(OsStr::new("250"))), None);
        assert_eq!(purge_delay(None), Some(PURGE_DELAY_MS));
    }

    #[test]
    fn the_purge_delay_is_the_option_mimalloc_numbers_so() {
        assert_eq!(
            MI_OPTION_PURGE_DELAY + 1,
            libmimalloc_sys::mi_option_use_numa_nodes
        );
    }

    #[test]
    fn tuning_sets_the_delay_mimalloc_reads() {
        if std::env::var_os(PURGE_DELAY_VAR).is_none() {
            tune();
            assert_eq!(current_purge_delay(), PURGE_DELAY_MS);
        } else {
            let before = current_purge_delay();
            tune();
            assert_eq!(current_purge_delay(), before);
        }
    }
}
