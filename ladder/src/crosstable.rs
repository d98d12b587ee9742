//! A tournament's results, pure: from its duplicate sets' tables to the comparisons they
//! made (two players who held the same cards at the two tables of a set), then standings
//! and a crosstable with each pair's mean money difference and its 95% interval.

use std::collections::{BTreeMap, HashMap};

use crate::{SetTable, TableStatus};

/// Two players who held the same cards, and the money each made with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub money_a: u32,
    pub money_b: u32,
}

/// The comparisons of a set whose two tables both finished (a set with a table aborted,
/// or still being played, compares nobody).
pub fn comparisons(tables: &[SetTable]) -> Vec<Comparison> {
    let [first, second] = tables else {
        return Vec::new();
    };
    let finished = |t: &SetTable| {
        t.status == TableStatus::Finished
            && t.money.len() == t.players.len()
            && !t.players.is_empty()
    };
    if !finished(first) || !finished(second) || first.players.len() != second.players.len() {
        return Vec::new();
    }
    (0..first.players.len())
        .map(|seat| Comparison {
            a: first.players[seat].clone(),
            b: second.players[seat].clone(),
            money_a: first.money[seat],
            money_b: second.money[seat],
        })
        .collect()
}

/// `player` against `opponent`, from `player`'s side.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub player: String,
    pub opponent: String,
    pub sets: u32,
    /// 1 per comparison won, ½ per tie.
    pub points: f64,
    pub mean_diff: f64,
    /// 95% interval of the mean difference; None with fewer than two comparisons.
    pub interval: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub player: String,
    pub sets: u32,
    pub points: f64,
    pub mean_diff: f64,
}

/// Standings (best first: points per comparison, then mean difference, then id) and the
/// crosstable (both orders of every pair compared, sorted by player then opponent).
pub fn crosstable(comparisons: &[Comparison]) -> (Vec<Standing>, Vec<Cell>) {
    let mut pairs: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
    for c in comparisons {
        let diff = i64::from(c.money_a) - i64::from(c.money_b);
        pairs
            .entry((c.a.clone(), c.b.clone()))
            .or_default()
            .push(diff);
        pairs
            .entry((c.b.clone(), c.a.clone()))
            .or_default()
            .push(-diff);
    }
    let mut cells = Vec::with_capacity(pairs.len());
    let mut totals: HashMap<String, (u32, f64, i64)> = HashMap::new();
    for ((player, opponent), diffs) in pairs {
        let points: f64 = diffs.iter().map(|d| point(*d)).sum();
        let total = totals.entry(player.clone()).or_default();
        total.0 += diffs.len() as u32;
        total.1 += points;
        total.2 += diffs.iter().sum::<i64>();
        let (mean_diff, interval) = mean_interval(&diffs);
        cells.push(Cell {
            player,
            opponent,
            sets: diffs.len() as u32,
            points,
            mean_diff,
            interval,
        });
    }
    let mut standings: Vec<Standing> = totals
        .into_iter()
        .map(|(player, (sets, points, sum))| Standing {
            player,
            sets,
            points,
            mean_diff: sum as f64 / f64::from(sets.max(1)),
        })
        .collect();
    standings.sort_by(|x, y| {
        let share = |s: &Standing| s.points / f64::from(s.sets.max(1));
        share(y)
            .total_cmp(&share(x))
            .then(y.mean_diff.total_cmp(&x.mean_diff))
            .then(x.player.cmp(&y.player))
    });
    (standings, cells)
}

fn point(diff: i64) -> f64 {
    match diff.signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    }
}

/// The mean and, from two values on, its 95% interval (normal approximation with the
/// sample's standard deviation).
fn mean_interval(values: &[i64]) -> (f64, Option<(f64, f64)>) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<i64>() as f64 / n.max(1.0);
    if values.len() < 2 {
        return (mean, None);
    }
    let var = values
        .iter()
        .map(|v| (*v as f64 - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    let half = 1.96 * (var / n).sqrt();
    (mean, Some((mean - half, mean + half)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(players: &[&str], money: &[u32], status: TableStatus) -> SetTable {
        SetTable {
            game_id: "g".into(),
            status,
            players: players.iter().map(|p| p.to_string()).collect(),
            money: money.to_vec(),
            acted: vec![true; players.len()],
        }
    }

    fn compare(a: &str, b: &str, money_a: u32, money_b: u32) -> Comparison {
        Comparison {
            a: a.into(),
            b: b.into(),
            money_a,
            money_b,
        }
    }

    #[test]
    fn a_set_compares_the_holders_of_each_seat_once_both_tables_finished() {
        let t0 = table(&["a", "c"], &[10, 4], TableStatus::Finished);
        let t1 = table(&["b", "d"], &[7, 9], TableStatus::Finished);
        assert_eq!(
            comparisons(&[t0.clone(), t1.clone()]),
            [compare("a", "b", 10, 7), compare("c", "d", 4, 9)]
        );
        let running = table(&["b", "d"], &[], TableStatus::Playing);
        assert!(comparisons(&[t0.clone(), running]).is_empty());
        let aborted = table(&["b", "d"], &[], TableStatus::Aborted);
        assert!(comparisons(&[t0.clone(), aborted]).is_empty());
        assert!(comparisons(&[t0]).is_empty(), "a set missing a table");
    }

    #[test]
    fn the_crosstable_scores_both_sides_and_bounds_the_mean() {
        let comps = [
            compare("a", "b", 10, 7),
            compare("b", "a", 5, 5),
            compare("a", "b", 12, 4),
            compare("c", "d", 4, 9),
        ];
        let (standings, cells) = crosstable(&comps);
        let ab = cells
            .iter()
            .find(|c| c.player == "a" && c.opponent == "b")
            .unwrap();
        assert_eq!(ab.sets, 3);
        assert_eq!(ab.points, 2.5);
        // Differences 3, 0, 8: mean 11/3, interval from their sample deviation.
        let mean = 11.0 / 3.0;
        let var = ((3.0 - mean) * (3.0 - mean) + mean * mean + (8.0 - mean) * (8.0 - mean)) / 2.0;
        let half = 1.96 * (var / 3.0_f64).sqrt();
        assert!((ab.mean_diff - mean).abs() < 1e-9);
        let (low, high) = ab.interval.unwrap();
        assert!((low - (mean - half)).abs() < 1e-9 && (high - (mean + half)).abs() < 1e-9);
        let ba = cells
            .iter()
            .find(|c| c.player == "b" && c.opponent == "a")
            .unwrap();
        assert_eq!(ba.points, 0.5);
        assert!(
            (ba.mean_diff + mean).abs() < 1e-9,
            "the other side's mirror"
        );
        let cd = cells.iter().find(|c| c.player == "c").unwrap();
        assert_eq!(cd.interval, None, "one comparison has no interval");
        let order: Vec<&str> = standings.iter().map(|s| s.player.as_str()).collect();
        assert_eq!(order, ["d", "a", "b", "c"], "by points per comparison");
        assert_eq!(cells.len(), 4);
    }
}
