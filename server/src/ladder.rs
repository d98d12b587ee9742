//! The bot ladder: the matchmaker (one task: a queue of waiting requests that forms ladder
//! games as soon as enough compatible players wait), duplicate series (the same seed once
//! per seat rotation, one game after the other), and the rating changes a finished ladder
//! game or series causes.
//!
//! The queue is in memory: requests live as long as their `Enqueue` stream. Everything a
//! restart must not lose (ladder games, series, ratings) is in the store; series that were
//! between two games when the server stopped get their next game at start-up.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use theboss_engine::Seat;
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use crate::domain::now_micros;
use crate::domain::{GameRecord, PlayerInfo, SeriesRef, Settings, Status, Visibility};
use crate::error::ApiError;
use crate::games::Games;
use crate::store::{SeriesRecord, Store, StoreError};

/// What a waiting request hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Queued {
        waiting: usize,
    },
    Matched(Match),
    /// The player already sits in these unfinished ladder games: play them first. Nothing
    /// follows.
    Seated(Vec<Match>),
}

/// A seat in a ladder game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub game_id: String,
    pub seat: Seat,
    pub players: u8,
    pub already_seated: bool,
    pub series: Option<SeriesRef>,
}

/// A request in the queue.
struct Waiting {
    since: Instant,
    player: PlayerInfo,
    /// None: any player count.
    players: Option<u8>,
    duplicate: bool,
    notices: mpsc::Sender<Notice>,
}

enum Command {
    Enqueue(Waiting),
    Cancel {
        player_id: String,
        reply: oneshot::Sender<bool>,
    },
}

/// The matchmaker's address.
#[derive(Clone)]
pub struct Ladder {
    tx: mpsc::Sender<Command>,
}

impl Ladder {
    /// Starts the matchmaker. `game_over` hears of every ladder game that ends.
    pub fn start(
        games: Arc<Games>,
        game_over: mpsc::UnboundedReceiver<String>,
        turn_secs: u32,
        rematch_grace: Duration,
    ) -> Ladder {
        let (tx, rx) = mpsc::channel(256);
        let matchmaker = Matchmaker {
            store: games.store().clone(),
            games,
            queue: Vec::new(),
            turn_secs,
            last_opponents: HashMap::new(),
            rematch_grace,
        };
        tokio::spawn(
            matchmaker
                .run(rx, game_over)
                .instrument(tracing::info_span!("matchmaker")),
        );
        Ladder { tx }
    }

    /// Queues a request; notices arrive on the returned receiver until it is matched.
    pub async fn enqueue(
        &self,
        player: PlayerInfo,
        players: Option<u8>,
        duplicate: bool,
    ) -> Result<mpsc::Receiver<Notice>, ApiError> {
        let (notices, rx) = mpsc::channel(8);
        self.tx
            .send(Command::Enqueue(Waiting {
                since: Instant::now(),
                player,
                players,
                duplicate,
                notices,
            }))
            .await
            .map_err(|_| ApiError::Unavailable)?;
        Ok(rx)
    }

    /// Removes every request of a player; returns whether there was one.
    pub async fn cancel(&self, player_id: String) -> Result<bool, ApiError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Command::Cancel { player_id, reply })
            .await
            .map_err(|_| ApiError::Unavailable)?;
        rx.await.map_err(|_| ApiError::Unavailable)
    }
}

/// Which queued requests form a game: the oldest request that can be served, with the
/// oldest compatible others (same duplicate choice, a compatible player count, distinct
/// players, and no two that `apart` keeps apart). A request for any count gets the largest
/// game that can be formed now.
fn find_group(
    queue: &[(String, Option<u8>, bool)],
    apart: &dyn Fn(&str, &str) -> bool,
) -> Option<(u8, Vec<usize>)> {
    for (first, (_, wants, duplicate)) in queue.iter().enumerate() {
        let counts: Vec<u8> = match wants {
            Some(n) => vec![*n],
            None => vec![4, 3, 2],
        };
        for n in counts {
            let mut picked = vec![first];
            let mut seen: HashSet<&str> = HashSet::from([queue[first].0.as_str()]);
            for (i, (id, w, d)) in queue.iter().enumerate().skip(first + 1) {
                if picked.len() == usize::from(n) {
                    break;
                }
                let compatible = d == duplicate && w.is_none_or(|w| w == n);
                let welcome = !picked.iter().any(|&p| apart(&queue[p].0, id));
                if compatible && welcome && seen.insert(id.as_str()) {
                    picked.push(i);
                }
            }
            if picked.len() == usize::from(n) {
                return Some((n, picked));
            }
        }
    }
    None
}

struct Matchmaker {
    games: Arc<Games>,
    store: Arc<dyn Store>,
    queue: Vec<Waiting>,
    turn_secs: u32,
    /// Each player's opponents in its last ladder game: they meet again only if nobody else
    /// turned up within `rematch_grace`, so that a small ladder does not pair the same
    /// players forever (the two players of a game finish together and re-queue together).
    last_opponents: HashMap<String, HashSet<String>>,
    rematch_grace: Duration,
}

impl Matchmaker {
    async fn run(
        mut self,
        mut rx: mpsc::Receiver<Command>,
        mut game_over: mpsc::UnboundedReceiver<String>,
    ) {
        if let Err(error) = self.resume_series().await {
            tracing::error!(%error, "cannot resume duplicate series");
        }
        // Held-back rematches become possible as time passes.
        let mut recheck = tokio::time::interval(Duration::from_millis(100));
        loop {
            tokio::select! {
                _ = recheck.tick(), if !self.queue.is_empty() => self.match_all().await,
                command = rx.recv() => match command {
                    Some(Command::Enqueue(waiting)) => {
                        // Asked here, in turn with the games this task forms, so that a game
                        // being formed for the player is either seen here or forms with the
                        // request already queued.
                        match self.store.ladder_games_of(&waiting.player.id).await {
                            Ok(seats) if !seats.is_empty() => {
                                let matches = seats
                                    .into_iter()
                                    .map(|seat| Match {
                                        game_id: seat.game_id,
                                        seat: seat.seat,
                                        players: seat.players,
                                        already_seated: true,
                                        series: seat.series,
                                    })
                                    .collect();
                                let _ = waiting.notices.try_send(Notice::Seated(matches));
                                continue;
                            }
                            Ok(_) => {}
                            Err(error) => {
                                tracing::error!(%error, "cannot look up a player's ladder games");
                                continue;
                            }
                        }
                        self.queue.push(waiting);
                        self.match_all().await;
                        let waiting = self.queue.len();
                        for w in &self.queue {
                            let _ = w.notices.try_send(Notice::Queued { waiting });
                        }
                    }
                    Some(Command::Cancel { player_id, reply }) => {
                        let before = self.queue.len();
                        self.queue.retain(|w| w.player.id != player_id);
                        let _ = reply.send(self.queue.len() < before);
                    }
                    None => return,
                },
                Some(game_id) = game_over.recv() => {
                    if let Err(error) = self.next_in_series(&game_id).await {
                        tracing::error!(game = %game_id, %error, "cannot continue a duplicate series");
                    }
                }
            }
        }
    }

    async fn match_all(&mut self) {
        loop {
            // Requests whose stream closed have left.
            self.queue.retain(|w| !w.notices.is_closed());
            let keys: Vec<(String, Option<u8>, bool)> = self
                .queue
                .iter()
                .map(|w| (w.player.id.clone(), w.players, w.duplicate))
                .collect();
            let apart = |a: &str, b: &str| {
                self.last_opponents
                    .get(a)
                    .is_some_and(|opponents| opponents.contains(b))
            };
            let fresh = find_group(&keys, &apart);
            // A rematch once its oldest request has waited long enough for someone else.
            let rematch = || {
                find_group(&keys, &|_, _| false).filter(|(_, picked)| {
                    self.queue[picked[0]].since.elapsed() >= self.rematch_grace
                })
            };
            let Some((n, picked)) = fresh.or_else(rematch) else {
                return;
            };
            let duplicate = self.queue[picked[0]].duplicate;
            let mut group = Vec::with_capacity(picked.len());
            for i in picked.into_iter().rev() {
                group.push(self.queue.remove(i));
            }
            group.reverse();
            if let Err(error) = self.form(n, duplicate, &group).await {
                tracing::error!(%error, "cannot form a ladder game");
                // Put them back at the front: they keep their place.
                for (i, w) in group.into_iter().enumerate() {
                    self.queue.insert(i, w);
                }
                return;
            }
        }
    }

    async fn form(&mut self, n: u8, duplicate: bool, group: &[Waiting]) -> Result<(), ApiError> {
        let mut seed_bytes = [0u8; 8];
        getrandom::fill(&mut seed_bytes).expect("the OS random source works");
        let seed = u64::from_le_bytes(seed_bytes);
        let players: Vec<PlayerInfo> = group.iter().map(|w| w.player.clone()).collect();
        let series = if duplicate {
            let record = SeriesRecord {
                id: uuid::Uuid::new_v4().to_string(),
                players: players.iter().map(|p| p.id.clone()).collect(),
                seed,
                created_at: now_micros(),
            };
            self.store.create_series(&record).await?;
            Some(SeriesRef {
                id: record.id,
                index: 0,
            })
        } else {
            None
        };
        let game_id = self.create_game(n, seed, series.clone(), &players).await?;
        tracing::info!(game = %game_id, players = n, duplicate, "ladder game formed");
        for p in &players {
            let others = players
                .iter()
                .filter(|o| o.id != p.id)
                .map(|o| o.id.clone());
            self.last_opponents.insert(p.id.clone(), others.collect());
        }
        for (seat, w) in group.iter().enumerate() {
            let _ = w.notices.try_send(Notice::Matched(Match {
                game_id: game_id.clone(),
                seat: seat as Seat,
                players: n,
                already_seated: false,
                series: series.clone(),
            }));
        }
        Ok(())
    }

    async fn create_game(
        &self,
        n: u8,
        seed: u64,
        series: Option<SeriesRef>,
        seated: &[PlayerInfo],
    ) -> Result<String, ApiError> {
        let record = GameRecord {
            id: uuid::Uuid::new_v4().to_string(),
            settings: Settings::new(n, vec![], self.turn_secs, Visibility::Public)
                .expect("2 to 4 players with the default cities"),
            seed,
            created_by: seated[0].id.clone(),
            created_at: now_micros(),
            ladder: true,
            series,
        };
        let game_id = record.id.clone();
        let handle = self.games.create(record).await?;
        for (seat, player) in seated.iter().enumerate() {
            handle.join(player.clone(), Some(seat as Seat)).await?;
        }
        Ok(game_id)
    }

    /// After game `index` of a series ends, the next one: same seed, seats rotated by one.
    async fn next_in_series(&mut self, game_id: &str) -> Result<(), ApiError> {
        let Some(stored) = self.store.load_game(game_id).await? else {
            return Ok(());
        };
        let Some(series) = stored.record.series else {
            return Ok(());
        };
        self.continue_series(&series.id).await
    }

    async fn continue_series(&mut self, series_id: &str) -> Result<(), ApiError> {
        let Some(record) = self.store.series(series_id).await? else {
            return Ok(());
        };
        let games = self.store.series_games(series_id).await?;
        let n = record.players.len() as u8;
        let Some(last) = games.last() else {
            return Ok(());
        };
        let index = last.index + 1;
        // A series goes on while its games finish; an aborted one ends it.
        if last.status != Status::Finished || index >= n {
            return Ok(());
        }
        let mut seated = Vec::with_capacity(usize::from(n));
        for seat in 0..n {
            let id = &record.players[usize::from((seat + index) % n)];
            let player = self
                .store
                .player_ratings(id)
                .await?
                .ok_or_else(|| StoreError::Corrupt(format!("series player {id} vanished")))?
                .player;
            seated.push(player);
        }
        let series = SeriesRef {
            id: series_id.to_string(),
            index,
        };
        let game_id = self
            .create_game(n, record.seed, Some(series.clone()), &seated)
            .await?;
        tracing::info!(game = %game_id, series = series_id, index, "next game of a series");
        // Its players may be waiting for a new game meanwhile: this is it.
        let ids: HashMap<&str, Seat> = seated
            .iter()
            .enumerate()
            .map(|(s, p)| (p.id.as_str(), s as Seat))
            .collect();
        let mut kept = Vec::with_capacity(self.queue.len());
        for w in self.queue.drain(..) {
            match ids.get(w.player.id.as_str()) {
                Some(&seat) => {
                    let _ = w.notices.try_send(Notice::Matched(Match {
                        game_id: game_id.clone(),
                        seat,
                        players: n,
                        already_seated: true,
                        series: Some(series.clone()),
                    }));
                }
                None => kept.push(w),
            }
        }
        self.queue = kept;
        Ok(())
    }

    async fn resume_series(&mut self) -> Result<(), ApiError> {
        for id in self.store.open_series().await? {
            self.continue_series(&id).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_group_free(queue: &[(String, Option<u8>, bool)]) -> Option<(u8, Vec<usize>)> {
        find_group(queue, &|_, _| false)
    }

    #[test]
    fn players_kept_apart_are_not_grouped() {
        let queue = q(&[
            ("a", Some(2), false),
            ("b", Some(2), false),
            ("c", Some(2), false),
        ]);
        let apart = |x: &str, y: &str| matches!((x, y), ("a", "b") | ("b", "a"));
        assert_eq!(find_group(&queue, &apart), Some((2, vec![0, 2])));
        assert_eq!(find_group(&queue[..2], &apart), None);
    }

    fn q(entries: &[(&str, Option<u8>, bool)]) -> Vec<(String, Option<u8>, bool)> {
        entries
            .iter()
            .map(|(id, n, d)| (id.to_string(), *n, *d))
            .collect()
    }

    #[test]
    fn a_game_forms_as_soon_as_enough_compatible_players_wait() {
        assert_eq!(find_group_free(&q(&[("a", Some(2), false)])), None);
        assert_eq!(
            find_group_free(&q(&[("a", Some(2), false), ("b", None, false)])),
            Some((2, vec![0, 1]))
        );
        // Different duplicate choices do not mix; different counts wait.
        assert_eq!(
            find_group_free(&q(&[
                ("a", Some(2), false),
                ("b", Some(2), true),
                ("c", Some(3), false)
            ])),
            None
        );
    }

    #[test]
    fn nobody_is_seated_twice_in_one_game() {
        assert_eq!(
            find_group_free(&q(&[("a", Some(2), false), ("a", Some(2), false)])),
            None
        );
        assert_eq!(
            find_group_free(&q(&[
                ("a", Some(2), false),
                ("a", Some(2), false),
                ("b", Some(2), false)
            ])),
            Some((2, vec![0, 2]))
        );
    }

    #[test]
    fn any_count_takes_the_largest_game_available_and_the_oldest_goes_first() {
        let four_any = q(&[
            ("a", None, false),
            ("b", None, false),
            ("c", None, false),
            ("d", None, false),
        ]);
        assert_eq!(find_group_free(&four_any), Some((4, vec![0, 1, 2, 3])));
        let three = q(&[
            ("a", Some(3), false),
            ("b", None, false),
            ("c", Some(2), false),
            ("d", None, false),
        ]);
        assert_eq!(find_group_free(&three), Some((3, vec![0, 1, 3])));
    }
}
