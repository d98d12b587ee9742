//! Which waiting requests form a game, pure: the oldest request that can be served, with the
//! oldest compatible others. A duplicate set needs a full table at each of its tables, all
//! different players.

use std::collections::HashSet;

/// What a waiting request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wants {
    pub player: String,
    /// None: any player count.
    pub players: Option<u8>,
    pub duplicate: bool,
}

/// The group to form from `queue` (oldest first): its player count and the requests' places
/// in the queue, table by table. Requests go together when they make the same duplicate
/// choice, accept the count, belong to different players and are not kept `apart`. A
/// request for any count gets the largest game that can be formed now. A duplicate set has
/// `tables` tables of the count.
pub fn find_group(
    queue: &[Wants],
    apart: &dyn Fn(&str, &str) -> bool,
    tables: usize,
) -> Option<(u8, Vec<usize>)> {
    for (first, wants) in queue.iter().enumerate() {
        let counts: Vec<u8> = match wants.players {
            Some(n) => vec![n],
            // The largest game that can be formed now.
            None => theboss_engine::PLAYER_COUNTS.rev().collect(),
        };
        let per_game = if wants.duplicate { tables.max(1) } else { 1 };
        for n in counts {
            let size = usize::from(n) * per_game;
            let mut picked = vec![first];
            let mut seen: HashSet<&str> = HashSet::from([wants.player.as_str()]);
            for (i, other) in queue.iter().enumerate().skip(first + 1) {
                if picked.len() == size {
                    break;
                }
                let compatible =
                    other.duplicate == wants.duplicate && other.players.is_none_or(|w| w == n);
                let welcome = !picked
                    .iter()
                    .any(|&p| apart(&queue[p].player, &other.player));
                if compatible && welcome && seen.insert(other.player.as_str()) {
                    picked.push(i);
                }
            }
            if picked.len() == size {
                return Some((n, picked));
            }
        }
    }
    None
}

/// The oldest `count` requests (their places in `queue`) that can fill the free seats of an
/// arranged game of `n` players: the same duplicate choice, accepting `n`, different
/// players, none of them `taken` already.
pub fn fill(
    queue: &[Wants],
    n: u8,
    duplicate: bool,
    taken: &HashSet<&str>,
    count: usize,
) -> Option<Vec<usize>> {
    let mut picked = Vec::with_capacity(count);
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, wants) in queue.iter().enumerate() {
        if picked.len() == count {
            break;
        }
        let fits = wants.duplicate == duplicate && wants.players.is_none_or(|w| w == n);
        if fits && !taken.contains(wants.player.as_str()) && seen.insert(wants.player.as_str()) {
            picked.push(i);
        }
    }
    (picked.len() == count).then_some(picked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_seats_are_filled_by_the_oldest_fitting_requests_of_other_players() {
        let w = |player: &str, players: Option<u8>, duplicate: bool| Wants {
            player: player.into(),
            players,
            duplicate,
        };
        let queue = [
            w("a", Some(2), false),
            w("x", Some(3), false),
            w("b", None, true),
            w("c", None, false),
            w("c", Some(3), false),
            w("d", Some(3), false),
        ];
        let taken = HashSet::from(["a"]);
        assert_eq!(fill(&queue, 3, false, &taken, 2), Some(vec![1, 3]));
        assert_eq!(fill(&queue, 3, false, &taken, 3), Some(vec![1, 3, 5]));
        assert_eq!(fill(&queue, 3, false, &taken, 4), None, "c counts once");
        assert_eq!(fill(&queue, 2, true, &taken, 1), Some(vec![2]));
        assert_eq!(fill(&queue, 2, false, &HashSet::new(), 0), Some(vec![]));
    }

    fn q(entries: &[(&str, Option<u8>, bool)]) -> Vec<Wants> {
        entries
            .iter()
            .map(|(player, players, duplicate)| Wants {
                player: player.to_string(),
                players: *players,
                duplicate: *duplicate,
            })
            .collect()
    }

    fn free(queue: &[Wants]) -> Option<(u8, Vec<usize>)> {
        find_group(queue, &|_, _| false, 2)
    }

    #[test]
    fn players_kept_apart_are_not_grouped() {
        let queue = q(&[
            ("a", Some(2), false),
            ("b", Some(2), false),
            ("c", Some(2), false),
        ]);
        let apart = |x: &str, y: &str| matches!((x, y), ("a", "b") | ("b", "a"));
        assert_eq!(find_group(&queue, &apart, 2), Some((2, vec![0, 2])));
        assert_eq!(find_group(&queue[..2], &apart, 2), None);
    }

    #[test]
    fn a_game_forms_as_soon_as_enough_compatible_players_wait() {
        assert_eq!(free(&q(&[("a", Some(2), false)])), None);
        assert_eq!(
            free(&q(&[("a", Some(2), false), ("b", None, false)])),
            Some((2, vec![0, 1]))
        );
        // Different duplicate choices do not mix; different counts wait.
        assert_eq!(
            free(&q(&[
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
            free(&q(&[("a", Some(2), false), ("a", Some(2), false)])),
            None
        );
        assert_eq!(
            free(&q(&[
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
        assert_eq!(free(&four_any), Some((4, vec![0, 1, 2, 3])));
        let three = q(&[
            ("a", Some(3), false),
            ("b", None, false),
            ("c", Some(2), false),
            ("d", None, false),
        ]);
        assert_eq!(free(&three), Some((3, vec![0, 1, 3])));
    }

    #[test]
    fn a_duplicate_set_waits_for_a_full_table_at_every_table_all_different_players() {
        let three = q(&[
            ("a", Some(2), true),
            ("b", Some(2), true),
            ("c", Some(2), true),
        ]);
        assert_eq!(free(&three), None, "two tables of two need four players");
        let mut four = three.clone();
        four.push(Wants {
            player: "a".into(),
            players: Some(2),
            duplicate: true,
        });
        assert_eq!(
            free(&four),
            None,
            "a player at two tables would see its deal twice"
        );
        four.push(Wants {
            player: "d".into(),
            players: None,
            duplicate: true,
        });
        assert_eq!(free(&four), Some((2, vec![0, 1, 2, 4])));
        assert_eq!(
            find_group(&four, &|_, _| false, 3),
            None,
            "three tables: six players"
        );
    }
}
