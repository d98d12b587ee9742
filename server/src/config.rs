//! Command-line and environment configuration of the server.

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

use clap::Parser;

/// A database URL that never prints its password: `Debug` and `Display` mask it, and only
/// [`DatabaseUrl::expose`] gives the real thing, to connect with.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl(String);

impl DatabaseUrl {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl FromStr for DatabaseUrl {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<DatabaseUrl, Self::Err> {
        Ok(DatabaseUrl(s.to_string()))
    }
}

impl From<&str> for DatabaseUrl {
    fn from(url: &str) -> DatabaseUrl {
        DatabaseUrl(url.to_string())
    }
}

impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::store::redact_url(&self.0))
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", crate::store::redact_url(&self.0))
    }
}

#[derive(Debug, Clone, Parser)]
#[command(
    name = "theboss-server",
    version,
    about = "The Boss game service (gRPC)"
)]
pub struct Config {
    /// What to do; without a command, serve.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Address to listen on (port 0 picks a free port; the log says which).
    #[arg(long, env = "THEBOSS_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// Where games are stored: `postgres://user@host/db`, or `sqlite://path` (created if
    /// missing).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://theboss.db")]
    pub database_url: DatabaseUrl,
    /// Seconds a seat has per turn in ladder games (then the server plays for it).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=86400))]
    pub ladder_turn_secs: u32,
    /// Seconds between keep-alive messages on a quiet `WatchGame` stream.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub keep_alive_secs: u64,
    /// With replicas (a PostgreSQL store): where the other replicas reach this one. Default:
    /// `http://` + the address it listens on (give it when listening on 0.0.0.0).
    #[arg(long, env = "THEBOSS_ADVERTISE_URL")]
    pub advertise_url: Option<String>,
    /// With replicas: this replica's id. Default: a new one at every start; a replica that
    /// restarts with its id takes its games back at once instead of when its lease ends.
    #[arg(long, env = "THEBOSS_REPLICA_ID")]
    pub replica_id: Option<String>,
    /// With replicas: seconds a replica that stopped renewing its lease (it died) keeps its
    /// games before the others take them over.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub lease_secs: u64,
    /// Calls a second each player may make (0: no limit); over it, RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().calls_per_sec)]
    pub quota_calls_per_sec: u32,
    /// Calls a player may make at once before the per-second rate applies.
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().call_burst)]
    pub quota_call_burst: u32,
    /// Registrations (and calls with a missing or unknown token) a minute from one address
    /// (0: no limit).
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().registrations_per_min)]
    pub quota_registrations_per_min: u32,
    /// Registrations one address may make at once before the per-minute rate applies.
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().registration_burst)]
    pub quota_registration_burst: u32,
    /// Calls with a missing, malformed or unknown token a minute from one address (0: no
    /// limit); over it, such calls get no token lookup at all until they may try again.
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().unknown_tokens_per_min)]
    pub quota_unknown_tokens_per_min: u32,
    /// Calls with a bad token one address may make at once.
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().unknown_token_burst)]
    pub quota_unknown_token_burst: u32,
    /// Calls a second one address may make without a token, as an anonymous spectator (0: no
    /// limit).
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().anonymous_calls_per_sec)]
    pub quota_anonymous_calls_per_sec: u32,
    /// Anonymous calls one address may make at once before the per-second rate applies.
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().anonymous_call_burst)]
    pub quota_anonymous_call_burst: u32,
    /// Challenges a minute each player may make (0: no limit).
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().challenges_per_min)]
    pub quota_challenges_per_min: u32,
    /// Challenges a player may make at once before the per-minute rate applies.
    #[arg(long, default_value_t = crate::quota::QuotaOptions::default().challenge_burst)]
    pub quota_challenge_burst: u32,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Milliseconds a house bot of the search strategy (ismcts) thinks a turn.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub house_bot_think_ms: u64,
    /// House bots' turns thought at once on this server, at most (each on a thread of its
    /// own, ten nice values below the games': it takes a core while the games leave one);
    /// more wait their turn.
    #[arg(long, default_value_t = crate::house::HouseOptions::default().threads as u64, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub house_bot_threads: u64,
    /// Tables with house bots whose bots thought in the last two minutes that each house-bot
    /// thread is taken to serve: a new table past `threads × this` is refused (with how long
    /// to wait) rather than every table slowed. 0: no admission control.
    #[arg(long, default_value_t = crate::house::HouseOptions::default().tables_per_thread as u64)]
    pub house_bot_tables_per_thread: u64,
    /// Origins (e.g. `https://play.example.com`) whose pages may call the service with
    /// gRPC-Web, comma-separated; unset: any origin (tokens are sent as headers, never as
    /// cookies, so another origin's page cannot act for a player without its token).
    #[arg(long, env = "THEBOSS_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,
    /// The built web front end (`npm run build` in `web/`), served at `/` on the same port;
    /// when it is missing, `/` says how to build it.
    #[arg(long, env = "THEBOSS_WEB_DIR", default_value = "web/dist")]
    pub web_dir: std::path::PathBuf,
    /// Networks (CIDRs, comma-separated, e.g. `10.0.0.0/8,::1/128`) of reverse proxies in
    /// front of the server: a connection from one of them is keyed, for quotas and caps, by
    /// the client its `Forwarded` or `X-Forwarded-For` header names. Unset: headers are
    /// ignored and every connection is keyed by its own address.
    #[arg(long, env = "THEBOSS_TRUSTED_PROXY", value_delimiter = ',')]
    pub trusted_proxy: Vec<ipnet::IpNet>,
    /// IPv6 clients are keyed, for quotas and caps, by this many leading bits of their
    /// address (a subscriber usually holds a whole /64).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u8).range(1..=128))]
    pub ipv6_prefix: u8,
    /// Serve Prometheus metrics at `http://ADDR/metrics` (off unless given).
    #[arg(long, env = "THEBOSS_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// Log filter, in `tracing_subscriber::EnvFilter` syntax (e.g. `info,theboss_server=debug`).
    #[arg(long, env = "RUST_LOG", default_value = "info")]
    pub log: String,
    /// Threads that serve calls; by default one per core but one, at least one (see
    /// `runtime`: the database and the house bots have the core left).
    #[arg(long, env = "THEBOSS_WORKER_THREADS")]
    pub worker_threads: Option<std::num::NonZeroUsize>,
}

/// The server's commands besides serving.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Copy the SQLite store (`--database-url`) into a new file, consistently, while a
    /// server may be serving it (restore: stop the server, put the copy in the database's
    /// place, remove the old file's `-wal` and `-shm`). A PostgreSQL store is backed up with
    /// PostgreSQL's tools (docs/operations.md).
    Backup {
        /// The new file (it must not exist).
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

impl Config {
    /// How this replica joins its service, if the store is shared.
    pub fn cluster_options(&self) -> crate::ClusterOptions {
        crate::ClusterOptions {
            replica_id: self
                .replica_id
                .clone()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            url: self.advertise_url.clone().unwrap_or_default(),
            lease: Duration::from_secs(self.lease_secs),
        }
    }

    pub fn options(&self) -> crate::Options {
        let defaults = crate::Options::default();
        let l = &self.limits;
        crate::Options {
            keep_alive: Duration::from_secs(self.keep_alive_secs),
            ladder: crate::LadderOptions {
                turn_secs: self.ladder_turn_secs,
                ..defaults.ladder
            },
            actor: crate::ActorOptions {
                open_ttl: Duration::from_secs(l.open_game_ttl_secs),
                house: crate::house::HouseOptions {
                    think: Duration::from_millis(self.house_bot_think_ms),
                    threads: usize::try_from(self.house_bot_threads).unwrap_or(1),
                    tables_per_thread: usize::try_from(self.house_bot_tables_per_thread)
                        .unwrap_or(usize::MAX),
                    tables_per_address: usize::try_from(l.max_house_tables_per_address)
                        .unwrap_or(usize::MAX),
                    ..crate::house::HouseOptions::default()
                },
                ..defaults.actor
            },
            cors_origins: self.cors_origins.clone(),
            addresses: crate::net::address::AddressPolicy {
                ipv6_prefix: self.ipv6_prefix,
                trusted_proxies: self.trusted_proxy.clone(),
            },
            web_dir: Some(self.web_dir.clone()),
            quotas: crate::quota::QuotaOptions {
                calls_per_sec: self.quota_calls_per_sec,
                call_burst: self.quota_call_burst,
                registrations_per_min: self.quota_registrations_per_min,
                registration_burst: self.quota_registration_burst,
                unknown_tokens_per_min: self.quota_unknown_tokens_per_min,
                unknown_token_burst: self.quota_unknown_token_burst,
                anonymous_calls_per_sec: self.quota_anonymous_calls_per_sec,
                anonymous_call_burst: self.quota_anonymous_call_burst,
                challenges_per_min: self.quota_challenges_per_min,
                challenge_burst: self.quota_challenge_burst,
            },
            limits: crate::Limits {
                handshake_timeout: Duration::from_secs(l.handshake_timeout_secs),
                request_timeout: Duration::from_secs(l.request_timeout_secs),
                idle_timeout: Duration::from_secs(l.idle_timeout_secs),
                keep_alive: Duration::from_secs(l.http2_keepalive_secs),
                connections: l.max_connections,
                connections_per_address: l.max_connections_per_address,
                streams_per_connection: l.max_streams_per_connection,
                watch_streams_per_player: l.max_watch_streams_per_player,
                spectators_per_game: l.max_spectators_per_game,
                unauthenticated_calls_per_connection: l.max_unauthenticated_calls_per_connection,
                unauthenticated_calls_per_address: l.max_unauthenticated_calls_per_address,
                unauthenticated_calls: l.max_unauthenticated_calls,
                open_games_per_player: l.max_open_games_per_player,
                house_games_per_player: l.max_house_games_per_player,
                unfinished_games_per_player: l.max_unfinished_games_per_player,
            },
        }
    }
}

/// What one client may hold (the contract's "Limits"); 0 turns a count limit off.
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Seconds a new connection has to send its first request before it is closed.
    #[arg(long, default_value_t = crate::Limits::default().handshake_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub handshake_timeout_secs: u64,
    /// Seconds a request's message has to arrive whole (or the call fails and its
    /// connection is closed).
    #[arg(long, default_value_t = crate::Limits::default().request_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout_secs: u64,
    /// Seconds a connection may stay without a call in flight before it is closed.
    #[arg(long, default_value_t = crate::Limits::default().idle_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub idle_timeout_secs: u64,
    /// Seconds between HTTP/2 pings of quiet connections (one that does not answer within a
    /// third of it is closed).
    #[arg(long, default_value_t = crate::Limits::default().keep_alive.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub http2_keepalive_secs: u64,
    /// Open connections in all.
    #[arg(long, default_value_t = crate::Limits::default().connections)]
    pub max_connections: u32,
    /// Open connections from one address.
    #[arg(long, default_value_t = crate::Limits::default().connections_per_address)]
    pub max_connections_per_address: u32,
    /// Concurrent streams on one HTTP/2 connection.
    #[arg(long, default_value_t = crate::Limits::default().streams_per_connection)]
    pub max_streams_per_connection: u32,
    /// Open WatchGame streams of one player.
    #[arg(long, default_value_t = crate::Limits::default().watch_streams_per_player)]
    pub max_watch_streams_per_player: u32,
    /// Spectators' WatchGame streams of one game.
    #[arg(long, default_value_t = crate::Limits::default().spectators_per_game)]
    pub max_spectators_per_game: u32,
    /// Calls of callers not known yet (no token, or one not checked yet) held open at once on
    /// one connection: health watches, reflection, anonymous streams, requests whose message
    /// has not arrived.
    #[arg(long, default_value_t = crate::Limits::default().unauthenticated_calls_per_connection)]
    pub max_unauthenticated_calls_per_connection: u32,
    /// Such calls held open at once from one client address (an IPv6 client by its prefix).
    #[arg(long, alias = "max-health-watches-per-address", default_value_t = crate::Limits::default().unauthenticated_calls_per_address)]
    pub max_unauthenticated_calls_per_address: u32,
    /// Such calls held open at once in all.
    #[arg(long, alias = "max-health-watches", default_value_t = crate::Limits::default().unauthenticated_calls)]
    pub max_unauthenticated_calls: u32,
    /// Games one player created that have not started.
    #[arg(long, default_value_t = crate::Limits::default().open_games_per_player)]
    pub max_open_games_per_player: u32,
    /// Unfinished games with house bots one player may sit at (at most 100).
    #[arg(long, default_value_t = crate::Limits::default().house_games_per_player, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub max_house_games_per_player: u32,
    /// Tables with house bots created from one client address whose bots thought in the
    /// last two minutes (0: no limit): a new one past it is refused, with how long to wait.
    #[arg(long, default_value_t = crate::house::HouseOptions::default().tables_per_address as u32)]
    pub max_house_tables_per_address: u32,
    /// Unfinished games (open or running) one player may have created or sit at, checked
    /// when it creates or joins one.
    #[arg(long, default_value_t = crate::Limits::default().unfinished_games_per_player)]
    pub max_unfinished_games_per_player: u32,
    /// Seconds a table may wait to be filled, from its creation; then it expires.
    #[arg(long, default_value_t = crate::ActorOptions::default().open_ttl.as_secs(), value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub open_game_ttl_secs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_never_shows_the_database_password() {
        let config = Config::try_parse_from([
            "theboss-server",
            "--database-url",
            "postgres://boss:s3cret@db/games",
        ])
        .unwrap();
        assert_eq!(
            config.database_url.expose(),
            "postgres://boss:s3cret@db/games"
        );
        let shown = format!("{config:?} {}", config.database_url);
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("postgres://boss:****@db/games"), "{shown}");
    }
}
