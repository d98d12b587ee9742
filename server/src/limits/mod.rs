//! The limits on what one client may hold (the contract's "Limits"): their values
//! ([`Limits`], one flag each), and the counters of open `WatchGame` streams, per player and,
//! for spectators, per game. A stream holds a [`WatchPermit`] while it is open; the limits of
//! connections and of unauthenticated calls are the transport's (`net`), the ladder's and the open
//! games' are checked where those are made. Counts are per server: each replica of a service
//! enforces them for the streams it serves.
//!
//! The limits that are not flags are in [`fixed`], which also holds the one table of every
//! limit, flags and fixed, that the README shows.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::game_error::{GameError, LimitKind};

pub mod fixed;

/// Every limit, 0 meaning none for the counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// A connection that sends no request this long after it opened is closed.
    pub handshake_timeout: Duration,
    /// A request whose message has not arrived whole this long after it began is refused.
    pub request_timeout: Duration,
    /// A connection with no call in flight for this long is closed.
    pub idle_timeout: Duration,
    /// Quiet HTTP/2 connections are pinged this often, and closed if they do not answer.
    pub keep_alive: Duration,
    /// Open connections, in all and from one address.
    pub connections: u32,
    pub connections_per_address: u32,
    /// Concurrent streams on one HTTP/2 connection.
    pub streams_per_connection: u32,
    /// Open `WatchGame` streams of one player.
    pub watch_streams_per_player: u32,
    /// Spectators' `WatchGame` streams of one game.
    pub spectators_per_game: u32,
    /// Calls from callers the service does not know yet held open at once (health watches,
    /// reflection, anonymous spectators' streams, requests whose message has not arrived):
    /// on one connection, from one client address, and in all (`net::unauthenticated`).
    pub unauthenticated_calls_per_connection: u32,
    pub unauthenticated_calls_per_address: u32,
    pub unauthenticated_calls: u32,
    /// Games a player created that have not started (how long they may wait is the
    /// actor's `open_ttl`).
    pub open_games_per_player: u32,
    /// Unfinished games with house bots a player created or sits at: they start as soon as
    /// their creator joins, so `open_games_per_player` does not bound them.
    pub house_games_per_player: u32,
    /// Unfinished games (open or running) a player created or sits at, checked when it
    /// creates or joins one (the ladder's and tournaments' seats count, and are bounded by
    /// their own rules).
    pub unfinished_games_per_player: u32,
}

impl Default for Limits {
    /// Generous for any honest client (a bot farm multiplexes hundreds of games on one
    /// connection; a person opens a handful of streams) and small enough that one client
    /// cannot hold a meaningful share of the server.
    fn default() -> Limits {
        Limits {
            handshake_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            keep_alive: Duration::from_secs(30),
            connections: 10_000,
            connections_per_address: 256,
            streams_per_connection: 1024,
            watch_streams_per_player: 64,
            spectators_per_game: 256,
            unauthenticated_calls_per_connection: 32,
            unauthenticated_calls_per_address: 128,
            unauthenticated_calls: 4096,
            open_games_per_player: 10,
            house_games_per_player: 3,
            unfinished_games_per_player: 32,
        }
    }
}

impl Limits {
    /// No count limits at all (capacity tests and benchmarks); timeouts as by default.
    pub fn unlimited() -> Limits {
        Limits {
            connections: 0,
            connections_per_address: 0,
            streams_per_connection: 0,
            watch_streams_per_player: 0,
            spectators_per_game: 0,
            unauthenticated_calls_per_connection: 0,
            unauthenticated_calls_per_address: 0,
            unauthenticated_calls: 0,
            open_games_per_player: 0,
            house_games_per_player: 0,
            unfinished_games_per_player: 0,
            ..Limits::default()
        }
    }
}

/// Open `WatchGame` streams, counted per player and, for spectators, per game.
#[derive(Debug, Default)]
pub struct StreamCounts {
    per_player: u32,
    per_game: u32,
    players: Mutex<HashMap<String, u32>>,
    spectators: Mutex<HashMap<String, u32>>,
}

/// One open stream, counted until it is dropped.
#[derive(Debug)]
pub struct WatchPermit {
    counts: Arc<StreamCounts>,
    player: Option<String>,
    /// The game, for a spectator's stream.
    spectating: Option<String>,
}

impl StreamCounts {
    pub fn new(limits: &Limits) -> Arc<StreamCounts> {
        Arc::new(StreamCounts {
            per_player: limits.watch_streams_per_player,
            per_game: limits.spectators_per_game,
            ..StreamCounts::default()
        })
    }

    /// Counts a new stream of `player` (None: an anonymous spectator, whom the transport
    /// bounds) on `game` (as a spectator, or seated), if the limits allow it.
    pub fn open(
        self: &Arc<Self>,
        player: Option<&str>,
        game: &str,
        spectator: bool,
    ) -> Result<WatchPermit, GameError> {
        let mut players = self.players.lock().expect("not poisoned");
        let held = player.map_or(0, |p| players.get(p).copied().unwrap_or(0));
        if let Some(player) = player
            && self.per_player > 0
            && held >= self.per_player
        {
            return Err(GameError::Limit {
                kind: LimitKind::WatchStreams,
                subject: format!("player:{player}"),
                limit: self.per_player,
            });
        }
        if spectator {
            let mut spectators = self.spectators.lock().expect("not poisoned");
            let watching = spectators.get(game).copied().unwrap_or(0);
            if self.per_game > 0 && watching >= self.per_game {
                return Err(GameError::Limit {
                    kind: LimitKind::Spectators,
                    subject: format!("game:{game}"),
                    limit: self.per_game,
                });
            }
            spectators.insert(game.to_string(), watching + 1);
        }
        if let Some(player) = player {
            players.insert(player.to_string(), held + 1);
        }
        Ok(WatchPermit {
            counts: self.clone(),
            player: player.map(str::to_string),
            spectating: spectator.then(|| game.to_string()),
        })
    }

    /// Open streams of a player.
    pub fn of_player(&self, player: &str) -> u32 {
        let players = self.players.lock().expect("not poisoned");
        players.get(player).copied().unwrap_or(0)
    }
}

fn release(counts: &Mutex<HashMap<String, u32>>, key: &str) {
    let mut counts = counts.lock().expect("not poisoned");
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

impl Drop for WatchPermit {
    fn drop(&mut self) {
        if let Some(player) = &self.player {
            release(&self.counts.players, player);
        }
        if let Some(game) = &self.spectating {
            release(&self.counts.spectators, game);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_counted_per_player_and_spectators_per_game_until_dropped() {
        let counts = StreamCounts::new(&Limits {
            watch_streams_per_player: 2,
            spectators_per_game: 1,
            ..Limits::default()
        });
        let seated = counts.open(Some("p"), "g", false).unwrap();
        let watching = counts.open(Some("p"), "h", true).unwrap();
        let Err(GameError::Limit { kind, subject, .. }) = counts.open(Some("p"), "k", false) else {
            panic!("a third stream of one player");
        };
        assert_eq!(
            (kind, subject.as_str()),
            (LimitKind::WatchStreams, "player:p")
        );
        let Err(GameError::Limit { kind, .. }) = counts.open(Some("q"), "h", true) else {
            panic!("a second spectator of one game");
        };
        assert_eq!(kind, LimitKind::Spectators);
        // Seats are not spectators: a game's players always get their streams.
        let _player = counts.open(Some("q"), "h", false).unwrap();
        drop(watching);
        let _spectator = counts.open(Some("q"), "h", true).unwrap();
        drop(seated);
        assert_eq!(counts.of_player("p"), 0);
        assert!(
            counts.players.lock().unwrap().get("p").is_none(),
            "forgotten at 0"
        );
    }

    #[test]
    fn zero_means_no_limit() {
        let counts = StreamCounts::new(&Limits::unlimited());
        let permits: Vec<_> = (0..1000)
            .map(|_| counts.open(Some("p"), "g", true).unwrap())
            .collect();
        assert_eq!(counts.of_player("p"), 1000);
        drop(permits);
    }
}
