//! House bots: seats the server plays itself, so that one person can play at once
//! (`CreateGameRequest.house_bots`).
//!
//! A house bot is an ordinary player row with a fixed id (migration `0011_house_bots`; nobody
//! can sign in as one), seated like anyone else. The game's actor, on the replica that runs the
//! game, asks this module for the bot's turn when the bot's seat is to move. The strategy gets
//! the engine's [`View`] of that seat and nothing else — exactly what a remote bot receives —
//! so a house bot cannot use hidden information even by mistake; its turn is then committed
//! through the same rules as anyone's, and its clock runs as anyone's does.
//!
//! Thinking costs CPU, so it is bounded twice: at most [`HouseOptions::threads`] turns are
//! thought at once on a replica, and the house bots of one creator's games think one at a
//! time, so a player who opens many such tables cannot hold the others' bots up.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use theboss_bots::StrategyKind;
use theboss_bots::ismcts::{Budget, Ismcts};
use theboss_engine::{Game, Seat, Turn, View, Viewer};
use tokio::sync::Semaphore;

use crate::domain::{HOUSE_BOT_ID_PREFIX, PlayerInfo};

/// House bots of one strategy that one table can seat (a table has at most 4 seats, one of
/// them a person's).
pub const PER_KIND: u8 = 3;

/// How house bots think on this replica.
#[derive(Debug, Clone)]
pub struct HouseOptions {
    /// The search bot's time a turn (the others answer in microseconds).
    pub think: Duration,
    /// Turns thought at once, at most.
    pub threads: usize,
}

impl Default for HouseOptions {
    fn default() -> HouseOptions {
        HouseOptions {
            think: Duration::from_millis(100),
            threads: 2,
        }
    }
}

/// The strategy a request's `BOT_STRATEGY_UNSPECIFIED` stands for: the strongest (issue 25:
/// the search wins most games against three heuristic bots); a table asks for heuristic or
/// random bots by name for a casual game.
pub const DEFAULT_KIND: StrategyKind = StrategyKind::Ismcts;

fn kind_digit(kind: StrategyKind) -> u8 {
    match kind {
        StrategyKind::Random => 1,
        StrategyKind::Heuristic => 2,
        StrategyKind::Ismcts => 3,
    }
}

/// The house bot `index` (1..=[`PER_KIND`]) of a strategy, as the migration stored it.
pub fn player(kind: StrategyKind, index: u8) -> PlayerInfo {
    PlayerInfo {
        id: format!("{HOUSE_BOT_ID_PREFIX}{}{index}", kind_digit(kind)),
        display_name: format!("House {} {index}", kind.name()),
        is_bot: true,
    }
}

/// The strategy a player plays if it is a house bot.
pub fn kind_of(player_id: &str) -> Option<StrategyKind> {
    let suffix = player_id.strip_prefix(HOUSE_BOT_ID_PREFIX)?;
    let (kind, index) = suffix.split_at_checked(1)?;
    let index: u8 = index.parse().ok()?;
    if !(1..=PER_KIND).contains(&index) {
        return None;
    }
    StrategyKind::ALL
        .into_iter()
        .find(|k| kind.parse::<u8>().ok() == Some(kind_digit(*k)))
}

/// The house bots to seat for `kinds`, one per entry, each kind's numbered from 1; None when
/// a kind is asked for more often than there are bots of it.
pub fn seat_players(kinds: &[StrategyKind]) -> Option<Vec<PlayerInfo>> {
    let mut used: HashMap<StrategyKind, u8> = HashMap::new();
    kinds
        .iter()
        .map(|kind| {
            let n = used.entry(*kind).or_default();
            *n += 1;
            (*n <= PER_KIND).then(|| player(*kind, *n))
        })
        .collect()
}

/// All a house bot at `seat` is given to choose from: its seat's view, as a remote bot
/// receives it (hands of others face down, face-down cards unknown, no seed).
pub fn view_of(game: &Game, seat: Seat) -> View {
    game.view(Viewer::Seat(seat))
}

/// A seed for a house bot's own random choices: from what is public (the game and the turn's
/// number), never from the game's seed, which would tell the deal.
pub fn seed_of(game_id: &str, seq: u64) -> u64 {
    // FNV-1a: stable, and nothing here needs more.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in game_id.bytes().chain(seq.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The thinking of every house bot on this replica.
pub struct Thinkers {
    options: HouseOptions,
    threads: Semaphore,
    /// One lock per creator with a house bot thinking or waiting to; dropped when unused.
    creators: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl Thinkers {
    pub fn new(options: HouseOptions) -> Thinkers {
        Thinkers {
            threads: Semaphore::new(options.threads.max(1)),
            options,
            creators: Mutex::default(),
        }
    }

    /// The turn a house bot of `kind` plays from `view` (its seat's, with its legal turns),
    /// once it is this creator's turn to think and a thread is free. None if the strategy
    /// failed (it panicked): the caller plays the seat's default turn.
    pub async fn think(
        &self,
        creator: &str,
        kind: StrategyKind,
        view: View,
        seed: u64,
    ) -> Option<Turn> {
        let started = std::time::Instant::now();
        let creator_lock = {
            let mut creators = self.creators.lock().expect("not poisoned");
            creators.entry(creator.to_string()).or_default().clone()
        };
        let turn = {
            let _creator = creator_lock.lock().await;
            let _thread = self.threads.acquire().await.ok()?;
            let think = self.options.think;
            let turn = tokio::task::spawn_blocking(move || {
                let mut strategy = match kind {
                    StrategyKind::Ismcts => Box::new(Ismcts::new(seed, Budget::time(think))),
                    other => other.build(seed),
                };
                // The budget is the whole think time: no answer travels a network from here.
                strategy.choose(&view, None)
            })
            .await;
            crate::metrics::house_bot_thought(kind.name(), started.elapsed());
            turn
        };
        drop(creator_lock);
        {
            let mut creators = self.creators.lock().expect("not poisoned");
            // The map's own reference is the last: nobody of this creator waits.
            if creators
                .get(creator)
                .is_some_and(|l| Arc::strong_count(l) == 1)
            {
                creators.remove(creator);
            }
        }
        match turn {
            Ok(turn) => Some(turn),
            Err(error) => {
                tracing::error!(%error, kind = kind.name(), "a house bot's strategy failed");
                None
            }
        }
    }

    /// Creators with a house bot thinking or waiting to (for tests).
    #[cfg(test)]
    fn creators(&self) -> usize {
        self.creators.lock().expect("not poisoned").len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use theboss_engine::{GameConfig, GameRng};

    #[test]
    fn house_bots_are_known_by_their_ids_only() {
        for kind in StrategyKind::ALL {
            for i in 1..=PER_KIND {
                let p = player(kind, i);
                assert!(uuid::Uuid::try_parse(&p.id).is_ok(), "{}", p.id);
                assert_eq!(kind_of(&p.id), Some(kind));
                assert!(p.is_bot);
            }
        }
        assert_eq!(kind_of("b0550000-0000-4000-8000-000000000014"), None);
        assert_eq!(kind_of("b0550000-0000-4000-8000-000000000041"), None);
        assert_eq!(kind_of(&uuid::Uuid::new_v4().to_string()), None);
    }

    #[test]
    fn a_table_gets_distinct_bots_and_never_a_fourth_of_a_kind() {
        let three = seat_players(&[StrategyKind::Heuristic; 3]).unwrap();
        let ids: std::collections::HashSet<_> = three.iter().map(|p| p.id.clone()).collect();
        assert_eq!(ids.len(), 3);
        assert!(seat_players(&[StrategyKind::Random; 4]).is_none());
        let mixed = seat_players(&[StrategyKind::Random, StrategyKind::Ismcts]).unwrap();
        assert_eq!(mixed[0].display_name, "House random 1");
        assert_eq!(mixed[1].display_name, "House ismcts 1");
    }

    #[tokio::test]
    async fn a_house_bot_plays_a_legal_turn_and_leaves_nothing_behind() {
        let thinkers = Thinkers::new(HouseOptions {
            think: Duration::from_millis(20),
            threads: 1,
        });
        let game = Game::new(&GameConfig::new(3, 7)).unwrap();
        let seat = game.to_move().unwrap();
        for kind in StrategyKind::ALL {
            let view = game.view(Viewer::Seat(seat));
            let turn = thinkers.think("creator", kind, view, 1).await.unwrap();
            assert!(game.is_legal(seat, &turn), "{kind}: {turn:?}");
        }
        assert_eq!(thinkers.creators(), 0);
    }

    /// The re-deal test: whatever the cards a seat cannot see, a house bot is given the same
    /// view and plays the same turn. Every house turn of whole games is checked against
    /// several re-deals of what that seat does not know.
    #[tokio::test]
    async fn a_house_bot_plays_the_same_whatever_it_cannot_see() {
        let thinkers = Thinkers::new(HouseOptions::default());
        let mut changed = 0;
        for g in 0..6u64 {
            let players = 2 + (g % 3) as u8;
            let mut game = Game::new(&GameConfig::new(players, 100 + g)).unwrap();
            let mut rng = GameRng::from_seed(g);
            let mut seq = 0;
            while let Some(seat) = game.to_move() {
                seq += 1;
                let kind = [StrategyKind::Heuristic, StrategyKind::Random][usize::from(seat) % 2];
                let seed = seed_of("game", seq);
                let view = view_of(&game, seat);
                let turn = thinkers.think("c", kind, view.clone(), seed).await.unwrap();
                for _ in 0..3 {
                    let other = game.redeal_hidden(Viewer::Seat(seat), &mut rng);
                    if (0..players).any(|s| s != seat && other.hand(s) != game.hand(s)) {
                        changed += 1;
                    }
                    let other_view = view_of(&other, seat);
                    assert_eq!(other_view, view, "game {g}, seq {seq}: the view changed");
                    let again = thinkers.think("c", kind, other_view, seed).await.unwrap();
                    assert_eq!(again, turn, "game {g}, seq {seq}: {kind} played otherwise");
                }
                game.apply(seat, &turn).unwrap();
            }
        }
        assert!(
            changed > 100,
            "the re-deals changed hidden cards only {changed} times"
        );
    }

    /// However many games one creator has, its house bots think one at a time: three turns
    /// asked at once of a 40 ms search take at least 120 ms, with threads to spare.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_bots_of_one_creator_think_one_at_a_time() {
        let thinkers = Arc::new(Thinkers::new(HouseOptions {
            think: Duration::from_millis(40),
            threads: 4,
        }));
        let game = Game::new(&GameConfig::new(4, 3)).unwrap();
        let view = view_of(&game, game.to_move().unwrap());
        let started = std::time::Instant::now();
        let thinks = (0..3).map(|i| {
            let thinkers = thinkers.clone();
            let view = view.clone();
            tokio::spawn(async move {
                thinkers
                    .think("one creator", StrategyKind::Ismcts, view, i)
                    .await
            })
        });
        for think in thinks.collect::<Vec<_>>() {
            assert!(think.await.unwrap().is_some());
        }
        assert!(
            started.elapsed() >= Duration::from_millis(120),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(thinkers.creators(), 0);
    }
}
