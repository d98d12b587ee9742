//! What a caller the service does not know yet may hold: every call is counted from its
//! first bytes (headers) until its caller is known, per connection, per client address and in
//! all, whatever its path. One mechanism for every such call, so that a surface added later
//! is bounded the day it lands: health watches, reflection streams, anonymous spectators'
//! streams, requests whose message has not arrived (the token is checked once the message
//! is decoded), pages of the front end.
//!
//! A call whose token the service already knows is never counted (see `auth`'s cache); a
//! call whose token is looked up is counted until the lookup says who it is ([`Release`]). So
//! a flood of unknown callers cannot crowd out the players, and a player's calls never wait
//! for a place here.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use crate::limits::Limits;

/// The caps, 0 meaning none.
#[derive(Debug, Default)]
pub struct Unauthenticated {
    per_connection: u32,
    per_address: u32,
    total_cap: u32,
    open: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    total: u32,
    by_address: HashMap<IpAddr, u32>,
}

/// Which cap refused a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Connection(u32),
    Address(u32),
    Total(u32),
}

impl Refusal {
    /// The cap reached, and whose it is, as `QuotaFailure` names subjects.
    pub fn subject(self, address: Option<IpAddr>) -> (String, u32) {
        match self {
            Refusal::Connection(cap) => ("connection".to_string(), cap),
            Refusal::Address(cap) => (
                address.map_or_else(|| "peer:unknown".into(), |a| format!("peer:{a}")),
                cap,
            ),
            Refusal::Total(cap) => ("server".to_string(), cap),
        }
    }
}

/// One counted call, until it is dropped or released.
#[derive(Debug)]
pub struct Permit {
    pool: Arc<Unauthenticated>,
    address: Option<IpAddr>,
    connection: Arc<AtomicU32>,
}

impl Unauthenticated {
    pub fn new(limits: &Limits) -> Arc<Unauthenticated> {
        Arc::new(Unauthenticated {
            per_connection: limits.unauthenticated_calls_per_connection,
            per_address: limits.unauthenticated_calls_per_address,
            total_cap: limits.unauthenticated_calls,
            open: Mutex::default(),
        })
    }

    /// Counts a call from `address` on a connection whose count is `connection`, if every
    /// cap allows it.
    pub fn admit(
        self: &Arc<Self>,
        address: Option<IpAddr>,
        connection: &Arc<AtomicU32>,
    ) -> Result<Permit, Refusal> {
        let mut open = self.open.lock().expect("not poisoned");
        let held = address.map_or(0, |a| open.by_address.get(&a).copied().unwrap_or(0));
        let on_connection = connection.load(Ordering::Relaxed);
        if self.per_connection > 0 && on_connection >= self.per_connection {
            return Err(Refusal::Connection(self.per_connection));
        }
        if self.per_address > 0 && held >= self.per_address {
            return Err(Refusal::Address(self.per_address));
        }
        if self.total_cap > 0 && open.total >= self.total_cap {
            return Err(Refusal::Total(self.total_cap));
        }
        open.total += 1;
        if let Some(address) = address {
            open.by_address.insert(address, held + 1);
        }
        connection.fetch_add(1, Ordering::Relaxed);
        Ok(Permit {
            pool: self.clone(),
            address,
            connection: connection.clone(),
        })
    }

    /// Calls counted now, in all and from one address (for tests and metrics).
    pub fn held(&self, address: Option<IpAddr>) -> (u32, u32) {
        let open = self.open.lock().expect("not poisoned");
        let by = address.map_or(0, |a| open.by_address.get(&a).copied().unwrap_or(0));
        (open.total, by)
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.connection.fetch_sub(1, Ordering::Relaxed);
        let mut open = self.pool.open.lock().expect("not poisoned");
        open.total -= 1;
        if let Some(address) = self.address
            && let Some(n) = open.by_address.get_mut(&address)
        {
            *n -= 1;
            if *n == 0 {
                open.by_address.remove(&address);
            }
        }
    }
}

/// A call's place among the unauthenticated, in its request's extensions: whoever learns
/// who the caller is (`auth`) releases it, and the call then holds nothing here; otherwise
/// the place is held until the response is sent whole or dropped.
#[derive(Debug, Clone, Default)]
pub struct Release(Arc<Mutex<Option<Permit>>>);

impl Release {
    pub fn holding(permit: Permit) -> Release {
        Release(Arc::new(Mutex::new(Some(permit))))
    }

    /// Frees the place of the request these extensions belong to, if it holds one.
    pub fn release(extensions: &http::Extensions) {
        if let Some(slot) = extensions.get::<Release>() {
            slot.0.lock().expect("not poisoned").take();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(per_connection: u32, per_address: u32, total: u32) -> Arc<Unauthenticated> {
        Unauthenticated::new(&Limits {
            unauthenticated_calls_per_connection: per_connection,
            unauthenticated_calls_per_address: per_address,
            unauthenticated_calls: total,
            ..Limits::default()
        })
    }

    #[test]
    fn calls_are_capped_per_connection_per_address_and_in_all() {
        let pool = pool(2, 3, 4);
        let (a, b, c): (IpAddr, IpAddr, IpAddr) = (
            [10, 0, 0, 1].into(),
            [10, 0, 0, 2].into(),
            [10, 0, 0, 3].into(),
        );
        let (one, two) = (Arc::default(), Arc::default());
        let first = pool.admit(Some(a), &one).unwrap();
        let _second = pool.admit(Some(a), &one).unwrap();
        assert_eq!(
            pool.admit(Some(a), &one).unwrap_err(),
            Refusal::Connection(2)
        );
        let _third = pool.admit(Some(a), &two).unwrap();
        assert_eq!(pool.admit(Some(a), &two).unwrap_err(), Refusal::Address(3));
        let _fourth = pool.admit(Some(b), &Arc::default()).unwrap();
        assert_eq!(
            pool.admit(Some(c), &Arc::default()).unwrap_err(),
            Refusal::Total(4)
        );
        drop(first);
        assert_eq!(pool.held(Some(a)), (3, 2));
        assert!(pool.admit(Some(c), &Arc::default()).is_ok());
    }

    #[test]
    fn a_released_call_frees_its_place_and_a_dropped_release_too() {
        let pool = pool(0, 1, 0);
        let address: IpAddr = [10, 0, 0, 1].into();
        let connection = Arc::default();
        let release = Release::holding(pool.admit(Some(address), &connection).unwrap());
        let mut extensions = http::Extensions::new();
        extensions.insert(release.clone());
        assert!(pool.admit(Some(address), &connection).is_err());
        Release::release(&extensions);
        assert_eq!(pool.held(Some(address)), (0, 0));
        assert_eq!(connection.load(Ordering::Relaxed), 0);
        let again = Release::holding(pool.admit(Some(address), &connection).unwrap());
        drop(again);
        assert_eq!(pool.held(None), (0, 0), "forgotten at 0");
        assert!(pool.open.lock().unwrap().by_address.is_empty());
    }
}
