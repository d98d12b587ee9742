//! Rate limits, so that one client cannot flood the service: every authenticated call counts
//! against its player's quota; registrations count against their peer address's; calls
//! whose token is missing, malformed or unknown count against another quota of their
//! address, checked before the store is asked about the token (an address over it gets no
//! lookup at all until it may try again). A call over its quota changes nothing and is
//! answered RESOURCE_EXHAUSTED (see `error`), after a short pause (`auth`), so that a
//! client that calls again at once slows itself down. Token buckets (GCRA) via `governor`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::{StateInformationMiddleware, StateSnapshot};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// A keyed limiter that tells what is left after each call.
type Limiter<K> = DefaultKeyedRateLimiter<K, StateInformationMiddleware>;

/// What a caller has left of a quota after a call: what a client reads to pace itself
/// (the server sends it as `ratelimit-*` metadata, `net::budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The quota's name, as the README lists it.
    pub quota: &'static str,
    /// Calls it may still make at once.
    pub remaining: u32,
    /// Calls it may make at once when the bucket is full.
    pub limit: u32,
    /// How long until the bucket is full again.
    pub full_in: Duration,
    /// One more call is allowed every `interval` (the sustained rate).
    pub interval: Duration,
}

impl Budget {
    fn of(snapshot: &StateSnapshot, name: &'static str) -> Budget {
        let quota = snapshot.quota();
        let limit = quota.burst_size().get();
        let remaining = snapshot.remaining_burst_capacity().min(limit);
        Budget {
            quota: name,
            remaining,
            limit,
            full_in: quota.replenish_interval() * (limit - remaining),
            interval: quota.replenish_interval(),
        }
    }
}

/// A call over its quota: whose quota, which, and how long to wait.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("too many calls ({quota}, {subject}): retry in {} ms", retry_after.as_millis().max(1))]
pub struct Throttled {
    /// `player:<id>` or `peer:<ip>`.
    pub subject: String,
    /// The quota's name, as the README lists it.
    pub quota: &'static str,
    pub retry_after: Duration,
    /// The quota's burst and sustained rate, for the caller's budget.
    pub limit: u32,
    pub interval: Duration,
}

impl Throttled {
    /// A call `limiter` refused (`not_until`), retried after the wait its own clock tells.
    /// (A clock made for the purpose, `DefaultClock::default()`, first asks the CPU,
    /// instruction by instruction, whether its time stamp counter can be trusted: a virtual
    /// machine traps each of those questions, and every refused call paid for them, the
    /// floods' calls most of all.)
    fn refused<K>(
        limiter: &Limiter<K>,
        not_until: &governor::NotUntil<<DefaultClock as Clock>::Instant>,
        subject: String,
        name: &'static str,
    ) -> Throttled
    where
        K: std::hash::Hash + Eq + Clone,
    {
        let retry_after = not_until.wait_time_from(limiter.clock().now());
        Throttled::new(subject, name, retry_after, &not_until.quota())
    }

    fn new(subject: String, name: &'static str, retry_after: Duration, quota: &Quota) -> Throttled {
        Throttled {
            subject,
            quota: name,
            retry_after,
            limit: quota.burst_size().get(),
            interval: quota.replenish_interval(),
        }
    }

    /// What the caller has left: nothing until `retry_after`, then one call every
    /// `interval` until the bucket is full.
    pub fn budget(&self) -> Budget {
        Budget {
            quota: self.quota,
            remaining: 0,
            limit: self.limit,
            full_in: self.retry_after + self.interval * self.limit.saturating_sub(1),
            interval: self.interval,
        }
    }
}

/// The limits; 0 turns one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaOptions {
    /// Calls a second each player may make, sustained.
    pub calls_per_sec: u32,
    /// Calls a player may make at once before the sustained rate applies.
    pub call_burst: u32,
    /// Registrations a minute from one address.
    pub registrations_per_min: u32,
    /// Registrations one address may make at once.
    pub registration_burst: u32,
    /// Calls with a missing, malformed or unknown token a minute from one address.
    pub unknown_tokens_per_min: u32,
    /// Such calls one address may make at once.
    pub unknown_token_burst: u32,
    /// Calls a second from one address without a token (anonymous spectators).
    pub anonymous_calls_per_sec: u32,
    /// Such calls one address may make at once.
    pub anonymous_call_burst: u32,
    /// Challenges a minute each player may make.
    pub challenges_per_min: u32,
    /// Challenges a player may make at once.
    pub challenge_burst: u32,
}

impl Default for QuotaOptions {
    /// A bot plays a turn with two or three calls and a person far fewer: 50 a second is
    /// ten times what the fastest ladder bot needs. One address may register 100 players at
    /// once (a bot farm starting up), then one a second; as many calls with a bad token.
    fn default() -> QuotaOptions {
        QuotaOptions {
            calls_per_sec: 50,
            call_burst: 200,
            registrations_per_min: 60,
            registration_burst: 100,
            unknown_tokens_per_min: 60,
            unknown_token_burst: 100,
            anonymous_calls_per_sec: 10,
            anonymous_call_burst: 50,
            challenges_per_min: 20,
            challenge_burst: 5,
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
            unknown_tokens_per_min: 0,
            unknown_token_burst: 0,
            anonymous_calls_per_sec: 0,
            anonymous_call_burst: 0,
            challenges_per_min: 0,
            challenge_burst: 0,
        }
    }
}

/// Checks between two sweeps of the limiters' idle keys.
const SWEEP_EVERY: u64 = 100_000;

/// Names of the quotas, as the README and the QuotaFailure details give them.
pub const CALLS_PER_PLAYER: &str = "calls per player";
pub const REGISTRATIONS_PER_ADDRESS: &str = "registrations per address";
pub const UNKNOWN_TOKENS_PER_ADDRESS: &str = "calls with an unknown token per address";
pub const CHALLENGES_PER_PLAYER: &str = "challenges per player";
pub const ANONYMOUS_CALLS_PER_ADDRESS: &str = "anonymous calls per address";

pub struct Quotas {
    players: Option<Limiter<String>>,
    /// The unknown-token quota, for the budget of an address refused before it is charged.
    unknown_token_quota: Option<Quota>,
    registrations: Option<Limiter<IpAddr>>,
    unknown_tokens: Option<Limiter<IpAddr>>,
    anonymous: Option<Limiter<IpAddr>>,
    challenges: Option<Limiter<String>>,
    /// Addresses over their unknown-token quota, and until when: they get no token lookup.
    blocked: Mutex<HashMap<IpAddr, Instant>>,
    checks: AtomicU64,
}

fn quota(per: Quota, burst: u32) -> Quota {
    per.allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN))
}

fn limiter<K: std::hash::Hash + Eq + Clone>(quota: Quota) -> Limiter<K> {
    RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>()
}

fn per_minute(rate: u32, burst: u32) -> Option<Quota> {
    NonZeroU32::new(rate).map(|rate| quota(Quota::per_minute(rate), burst))
}

impl Quotas {
    pub fn new(options: QuotaOptions) -> Quotas {
        Quotas {
            players: NonZeroU32::new(options.calls_per_sec)
                .map(|rate| limiter(quota(Quota::per_second(rate), options.call_burst))),
            unknown_token_quota: per_minute(
                options.unknown_tokens_per_min,
                options.unknown_token_burst,
            ),
            registrations: per_minute(options.registrations_per_min, options.registration_burst)
                .map(limiter),
            unknown_tokens: per_minute(options.unknown_tokens_per_min, options.unknown_token_burst)
                .map(limiter),
            anonymous: NonZeroU32::new(options.anonymous_calls_per_sec)
                .map(|rate| limiter(quota(Quota::per_second(rate), options.anonymous_call_burst))),
            challenges: per_minute(options.challenges_per_min, options.challenge_burst)
                .map(limiter),
            blocked: Mutex::default(),
            checks: AtomicU64::new(0),
        }
    }

    /// One call of a player; what it has left (None: no quota).
    pub fn player_call(&self, player_id: &str) -> Result<Option<Budget>, Throttled> {
        let Some(limiter) = &self.players else {
            return Ok(None);
        };
        self.sweep();
        limiter
            .check_key(&player_id.to_string())
            .map(|snapshot| Some(Budget::of(&snapshot, CALLS_PER_PLAYER)))
            .map_err(|not_until| {
                Throttled::refused(
                    limiter,
                    &not_until,
                    format!("player:{player_id}"),
                    CALLS_PER_PLAYER,
                )
            })
    }

    /// One more unit of a player's work charged to its call quota, waiting until the quota
    /// allows it: so a long answer (a page of exported games, one record a unit) is paced
    /// like the calls it stands for, and costs the server no more than they would.
    pub async fn pace(&self, player_id: &str) {
        while let Err(throttled) = self.player_call(player_id) {
            tokio::time::sleep(throttled.retry_after.max(Duration::from_millis(1))).await;
        }
    }

    /// One challenge of a player (beside the call that makes it).
    pub fn challenge(&self, player_id: &str) -> Result<(), Throttled> {
        let Some(limiter) = &self.challenges else {
            return Ok(());
        };
        self.sweep();
        limiter
            .check_key(&player_id.to_string())
            .map(|_| ())
            .map_err(|not_until| {
                Throttled::refused(
                    limiter,
                    &not_until,
                    format!("player:{player_id}"),
                    CHALLENGES_PER_PLAYER,
                )
            })
    }

    /// One registration from `peer` (unknown behind some transports: then not limited).
    pub fn registration(&self, peer: Option<IpAddr>) -> Result<Option<Budget>, Throttled> {
        self.sweep();
        charge(self.registrations.as_ref(), peer, REGISTRATIONS_PER_ADDRESS)
    }

    /// One call from `peer` without a token (an anonymous spectator's).
    pub fn anonymous_call(&self, peer: Option<IpAddr>) -> Result<Option<Budget>, Throttled> {
        self.sweep();
        charge(self.anonymous.as_ref(), peer, ANONYMOUS_CALLS_PER_ADDRESS)
    }

    /// Before the store is asked about a token from `peer`: refused while the address is over
    /// its unknown-token quota.
    pub fn may_look_up(&self, peer: Option<IpAddr>) -> Result<(), Throttled> {
        let (Some(peer), Some(quota)) = (peer, self.unknown_token_quota.as_ref()) else {
            return Ok(());
        };
        let blocked = self.blocked.lock().expect("not poisoned");
        match blocked.get(&peer) {
            Some(until) if *until > Instant::now() => Err(Throttled::new(
                format!("peer:{peer}"),
                UNKNOWN_TOKENS_PER_ADDRESS,
                until.saturating_duration_since(Instant::now()),
                quota,
            )),
            _ => Ok(()),
        }
    }

    /// One call from `peer` with a missing, malformed or unknown token. Once the quota is
    /// spent, the address gets no lookup until it may try again.
    pub fn unknown_token(&self, peer: Option<IpAddr>) -> Result<Option<Budget>, Throttled> {
        self.sweep();
        let charged = charge(
            self.unknown_tokens.as_ref(),
            peer,
            UNKNOWN_TOKENS_PER_ADDRESS,
        );
        let blocked_for = match &charged {
            Err(throttled) => Some(throttled.retry_after),
            // The last place is taken: no lookup before the next one.
            Ok(Some(budget)) if budget.remaining == 0 => Some(budget.full_in / budget.limit.max(1)),
            Ok(_) => None,
        };
        if let (Some(wait), Some(peer)) = (blocked_for, peer) {
            let mut blocked = self.blocked.lock().expect("not poisoned");
            blocked.insert(peer, Instant::now() + wait);
        }
        charged
    }

    /// Forgets keys whose buckets are full again, now and then, so that every player and
    /// address ever seen does not stay in memory.
    fn sweep(&self) {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            for limiter in self.players.iter() {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
            for limiter in self
                .registrations
                .iter()
                .chain(self.unknown_tokens.iter())
                .chain(self.anonymous.iter())
            {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
            let now = Instant::now();
            let mut blocked = self.blocked.lock().expect("not poisoned");
            blocked.retain(|_, until| *until > now);
            blocked.shrink_to_fit();
        }
    }
}

fn charge(
    limiter: Option<&Limiter<IpAddr>>,
    peer: Option<IpAddr>,
    name: &'static str,
) -> Result<Option<Budget>, Throttled> {
    let (Some(limiter), Some(peer)) = (limiter, peer) else {
        return Ok(None);
    };
    limiter
        .check_key(&peer)
        .map(|snapshot| Some(Budget::of(&snapshot, name)))
        .map_err(|not_until| Throttled::refused(limiter, &not_until, format!("peer:{peer}"), name))
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
        let Err(throttled) = quotas.player_call("flood") else {
            panic!("the fourth call at once is throttled");
        };
        assert_eq!(throttled.subject, "player:flood");
        assert!(
            throttled.retry_after > Duration::ZERO
                && throttled.retry_after <= Duration::from_secs(1)
        );
        quotas.player_call("calm").unwrap();
        // Unlimited registrations.
        for _ in 0..1000 {
            quotas.registration(Some([127, 0, 0, 1].into())).unwrap();
        }
    }

    #[test]
    fn a_call_tells_what_is_left_of_its_quota() {
        let quotas = Quotas::new(QuotaOptions {
            calls_per_sec: 10,
            call_burst: 4,
            ..QuotaOptions::unlimited()
        });
        let budget = quotas.player_call("p").unwrap().unwrap();
        assert_eq!((budget.remaining, budget.limit), (3, 4));
        assert!(budget.full_in > Duration::ZERO && budget.full_in <= Duration::from_millis(100));
        for left in [2, 1, 0] {
            assert_eq!(quotas.player_call("p").unwrap().unwrap().remaining, left);
        }
        assert!(quotas.player_call("p").is_err());
        assert_eq!(
            Quotas::new(QuotaOptions::unlimited()).player_call("p"),
            Ok(None)
        );
    }

    #[tokio::test]
    async fn paced_work_waits_for_the_quota_instead_of_failing() {
        let quotas = Quotas::new(QuotaOptions {
            calls_per_sec: 20,
            call_burst: 2,
            ..QuotaOptions::unlimited()
        });
        let started = Instant::now();
        for _ in 0..6 {
            quotas.pace("p").await;
        }
        // Two at once, then one every 50 ms.
        assert!(
            started.elapsed() >= Duration::from_millis(190),
            "{:?}",
            started.elapsed()
        );
        assert!(quotas.player_call("p").is_err(), "the work was charged");
        // Without a quota, nothing waits.
        let free = Quotas::new(QuotaOptions::unlimited());
        let started = Instant::now();
        for _ in 0..1000 {
            free.pace("p").await;
        }
        assert!(started.elapsed() < Duration::from_millis(100));
    }

    #[test]
    fn registrations_are_limited_per_address() {
        let quotas = Quotas::new(QuotaOptions {
            registrations_per_min: 1,
            registration_burst: 2,
            ..QuotaOptions::unlimited()
        });
        let (a, b): (IpAddr, IpAddr) = ([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
        quotas.registration(Some(a)).unwrap();
        quotas.registration(Some(a)).unwrap();
        let refused = quotas.registration(Some(a)).unwrap_err();
        assert_eq!(refused.quota, REGISTRATIONS_PER_ADDRESS);
        quotas.registration(Some(b)).unwrap();
        quotas.registration(None).unwrap();
        quotas.player_call("anyone").unwrap();
    }

    #[test]
    fn an_address_over_its_unknown_token_quota_gets_no_lookup_until_it_may_retry() {
        let quotas = Quotas::new(QuotaOptions {
            unknown_tokens_per_min: 1,
            unknown_token_burst: 2,
            ..QuotaOptions::unlimited()
        });
        let (a, b): (IpAddr, IpAddr) = ([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
        for _ in 0..2 {
            quotas.may_look_up(Some(a)).unwrap();
            quotas.unknown_token(Some(a)).unwrap();
        }
        // The burst is spent: no lookup, before anything is refused.
        let blocked = quotas.may_look_up(Some(a)).unwrap_err();
        assert!(blocked.retry_after > Duration::from_secs(50), "{blocked:?}");
        assert_eq!(blocked.quota, UNKNOWN_TOKENS_PER_ADDRESS);
        let refused = quotas.unknown_token(Some(a)).unwrap_err();
        assert!(refused.to_string().contains("unknown token"), "{refused}");
        quotas.may_look_up(Some(b)).unwrap();
        // Registrations are another quota.
        quotas.registration(Some(a)).unwrap();
    }
}
