//! [`Options`]: what a running server is tuned by (keep-alives, the actors', the ladder's
//! and the house bots' options, quotas, limits, client addresses, CORS, the front end's
//! directory), with defaults for one server and for capacity tests.

use std::time::Duration;

use crate::actor::ActorOptions;
use crate::ladder::LadderOptions;
use crate::limits::Limits;
use crate::net::address::AddressPolicy;
use crate::quota::QuotaOptions;

/// Tunables of a running server.
#[derive(Debug, Clone)]
pub struct Options {
    /// Quiet time after which a `WatchGame` or `Enqueue` stream gets a keep-alive.
    pub keep_alive: Duration,
    pub actor: ActorOptions,
    pub ladder: LadderOptions,
    pub quotas: QuotaOptions,
    /// What one client may hold: connections, streams, tables waiting.
    pub limits: Limits,
    /// Origins whose pages may call the service with gRPC-Web; empty: any origin.
    pub cors_origins: Vec<String>,
    /// How client addresses are keyed (IPv6 prefixes, trusted proxies).
    pub addresses: AddressPolicy,
    /// The built web front end (`web/dist`) served at `/`, if any.
    pub web_dir: Option<std::path::PathBuf>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            keep_alive: Duration::from_secs(15),
            actor: ActorOptions::default(),
            ladder: LadderOptions::default(),
            quotas: QuotaOptions::default(),
            limits: Limits::default(),
            cors_origins: Vec::new(),
            addresses: AddressPolicy::default(),
            web_dir: None,
        }
    }
}

impl Options {
    /// No quotas and no count limits: for capacity tests and benchmarks, which play many
    /// games from one address.
    pub fn unlimited() -> Options {
        Options {
            quotas: QuotaOptions::unlimited(),
            limits: Limits::unlimited(),
            ..Options::default()
        }
    }
}
