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
//! Thinking costs CPU: [`scheduler`] shares the replica's thinking fairly between the
//! addresses (and the players behind each) whose tables wait for it, bounds what one address
//! holds, and admits a new table only while there is room for it; [`thinker`] runs the
//! thinking on threads of its own at a lower priority, so the games' traffic comes first.

pub mod scheduler;
pub mod thinker;

use std::collections::HashMap;
use std::time::Duration;

use theboss_bots::StrategyKind;
use theboss_engine::{Game, Seat, View, Viewer};

use crate::domain::{HOUSE_BOT_ID_PREFIX, PlayerInfo};
pub use scheduler::{Busy, Principal, Thinkers};

/// House bots of one strategy that one table can seat (a table has at most 4 seats, one of
/// them a person's).
pub const PER_KIND: u8 = 3;

/// How house bots think on this replica.
#[derive(Debug, Clone)]
pub struct HouseOptions {
    /// The search bot's time a turn (the others answer in microseconds).
    pub think: Duration,
    /// Turns thought at once, at most (each on a thread of its own, at a lower priority
    /// than the games: it takes a core while the games leave one).
    pub threads: usize,
    /// Turns of one client address waiting or being thought at once; past it a turn is the
    /// seat's default turn.
    pub thinks_per_address: usize,
    /// Active tables (see `active_for`) each thread is taken to serve: new tables past
    /// `threads × tables_per_thread` are refused until some stop (0: no admission control).
    pub tables_per_thread: usize,
    /// Active tables of one client address (0: no limit).
    pub tables_per_address: usize,
    /// A table is active while its bots thought within this long.
    pub active_for: Duration,
}

impl Default for HouseOptions {
    /// A table a person plays against three search bots takes about 0.3 s of a core each
    /// time the person moves, seconds apart: a core serves a dozen such tables with room to
    /// spare, and one whose person is a script takes a core's fair share, no more.
    fn default() -> HouseOptions {
        HouseOptions {
            think: Duration::from_millis(100),
            threads: 2,
            thinks_per_address: 6,
            tables_per_thread: 16,
            tables_per_address: 6,
            active_for: Duration::from_secs(120),
        }
    }
}

/// The strategy a request's `BOT_STRATEGY_UNSPECIFIED` stands for: the strongest (in the arena,
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

    /// The re-deal test: whatever the cards a seat cannot see, a house bot is given the same
    /// view and plays the same turn. Every house turn of whole games is checked against
    /// several re-deals of what that seat does not know.
    #[tokio::test]
    async fn a_house_bot_plays_the_same_whatever_it_cannot_see() {
        let thinkers = Thinkers::new(HouseOptions::default());
        let me = Principal {
            address: None,
            player: "c".into(),
        };
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
                let turn = thinkers
                    .think("g", &me, kind, view.clone(), seed)
                    .await
                    .unwrap();
                for _ in 0..3 {
                    let other = game.redeal_hidden(Viewer::Seat(seat), &mut rng);
                    if (0..players).any(|s| s != seat && other.hand(s) != game.hand(s)) {
                        changed += 1;
                    }
                    let other_view = view_of(&other, seat);
                    assert_eq!(other_view, view, "game {g}, seq {seq}: the view changed");
                    let again = thinkers
                        .think("g", &me, kind, other_view, seed)
                        .await
                        .unwrap();
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
}
