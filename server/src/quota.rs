//! Rate limits, so that one client cannot flood the service: every authenticated call counts
//! against its player's quota; registrations, and calls whose token is missing or unknown,
//! count against their peer address's. A call over its quota changes nothing and is answered
//! RESOURCE_EXHAUSTED with `google.rpc.RetryInfo` (when to try again) and
//! `google.rpc.QuotaFailure` (which quota). Token buckets (GCRA) via `governor`.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

/// The limits; 0 turns one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaOptions {
    /// Calls a second each player may make, sustained.
    pub calls_per_sec: u32,
    /// Calls a player may make at once before the sustained rate applies.
    pub call_burst: u32,
    /// Registrations (and calls with a missing or unknown token) a minute from one address.
    pub registrations_per_min: u32,
    /// Registrations one address may make at once.
    pub registration_burst: u32,
}

impl Default for QuotaOptions {
    /// A bot plays a turn with two or three calls and a person far fewer: 50 a second is
    /// ten times what the fastest ladder bot needs. One address may register 100 players at
    /// once (a bot farm starting up), then one a second.
    fn default() -> QuotaOptions {
        QuotaOptions {
            calls_per_sec: 50,
            call_burst: 200,
            registrations_per_min: 60,
            registration_burst: 100,
        }
    }
}

impl QuotaOptions {
    /// No limits at all.
    pub fn unlimited() -> QuotaOptions {
        QuotaOptions {
            calls_per_sec: 0,
            call_burst: 0,
            registrations_per_min: 0,
            registration_burst: 0,
        }
    }
}

/// Checks between two sweeps of the limiters' idle keys.
const SWEEP_EVERY: u64 = 100_000;

pub struct Quotas {
    players: Option<DefaultKeyedRateLimiter<String>>,
    peers: Option<DefaultKeyedRateLimiter<IpAddr>>,
    checks: AtomicU64,
}

fn quota(per: Quota, burst: u32) -> Quota {
    per.allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN))
}

impl Quotas {
    pub fn new(options: QuotaOptions) -> Quotas {
        Quotas {
            players: NonZeroU32::new(options.calls_per_sec)
                .map(|rate| RateLimiter::keyed(quota(Quota::per_second(rate), options.call_burst))),
            peers: NonZeroU32::new(options.registrations_per_min).map(|rate| {
                RateLimiter::keyed(quota(Quota::per_minute(rate), options.registration_burst))
            }),
            checks: AtomicU64::new(0),
        }
    }

    /// One call of a player.
    pub fn player_call(&self, player_id: &str) -> Result<(), ApiError> {
        let Some(limiter) = &self.players else {
            return Ok(());
        };
        self.sweep();
        limiter
            .check_key(&player_id.to_string())
            .map_err(|not_until| ApiError::Throttled {
                subject: format!("player:{player_id}"),
                quota: "calls per player",
                retry_after: not_until.wait_time_from(DefaultClock::default().now()),
            })
    }

    /// One registration, or one call without a valid token, from `peer` (unknown behind
    /// some transports: then not limited).
    pub fn peer_call(&self, peer: Option<IpAddr>) -> Result<(), ApiError> {
        let (Some(limiter), Some(peer)) = (&self.peers, peer) else {
            return Ok(());
        };
        self.sweep();
        limiter
            .check_key(&peer)
            .map_err(|not_until| ApiError::Throttled {
                subject: format!("peer:{peer}"),
                quota: "registrations per address",
                retry_after: not_until.wait_time_from(DefaultClock::default().now()),
            })
    }

    /// Forgets keys whose buckets are full again, now and then, so that every player and
    /// address ever seen does not stay in memory.
    fn sweep(&self) {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            for limiter in self.players.iter() {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
            for limiter in self.peers.iter() {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        }
    }
}

/// How long a throttled caller should wait, at least a millisecond.
pub fn retry_delay(wait: Duration) -> Duration {
    wait.max(Duration::from_millis(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_over_its_burst_waits_and_others_do_not() {
        let quotas = Quotas::new(QuotaOptions {
            calls_per_sec: 1,
            call_burst: 3,
            ..QuotaOptions::unlimited()
        });
        for _ in 0..3 {
            quotas.player_call("flood").unwrap();
        }
        let Err(ApiError::Throttled {
            subject,
            retry_after,
            ..
        }) = quotas.player_call("flood")
        else {
            panic!("the fourth call at once is throttled");
        };
        assert_eq!(subject, "player:flood");
        assert!(retry_after > Duration::ZERO && retry_after <= Duration::from_secs(1));
        quotas.player_call("calm").unwrap();
        // Unlimited registrations.
        for _ in 0..1000 {
            quotas.peer_call(Some([127, 0, 0, 1].into())).unwrap();
        }
    }

    #[test]
    fn registrations_are_limited_per_address() {
        let quotas = Quotas::new(QuotaOptions {
            registrations_per_min: 1,
            registration_burst: 2,
            ..QuotaOptions::unlimited()
        });
        let (a, b): (IpAddr, IpAddr) = ([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
        quotas.peer_call(Some(a)).unwrap();
        quotas.peer_call(Some(a)).unwrap();
        assert!(matches!(
            quotas.peer_call(Some(a)),
            Err(ApiError::Throttled { .. })
        ));
        quotas.peer_call(Some(b)).unwrap();
        quotas.peer_call(None).unwrap();
        quotas.player_call("anyone").unwrap();
    }
}
