//! Single-observer information-set Monte-Carlo tree search (SO-ISMCTS, Cowling, Powley and
//! Whitehouse 2012).
//!
//! Every iteration samples a whole game consistent with the seat's view
//! (`Game::determinize`: other hands, face-down cards and the police deck drawn from what
//! the seat cannot see), walks the one shared tree with UCB restricted to the moves legal in
//! that sample (counting each child's availability), expands one move, plays the round out
//! with a fast random-but-sensible policy, and backs up each seat's gain. The root's moves
//! are the heuristic's best few, so the search spends its budget where it matters; deeper
//! nodes use a compact move set (each card alone, or with a minimal lead at any location).
//!
//! Search stops at the end of the current round: what a round is worth (money won, Experts
//! lost, Occasionals spent, the game itself in its last round) is scored directly, which is
//! far less noisy than playing whole games out at random.

use std::time::{Duration, Instant};

use theboss_engine::{
    Game, GameRng, LegalTurns, Placement, PlacementOption, Seat, Turn, View, rules,
};

use super::Strategy;
use super::heuristic::{self, Heuristic};

/// Moves of the heuristic's ranking searched at the root.
pub const ROOT_WIDTH: usize = 10;
/// UCB exploration, in M$ (rewards are money-like).
const EXPLORATION: f64 = 2.5;
/// Worth of an Expert kept in play, and of an unused Occasional, when scoring a round.
const EXPERT_WORTH: f64 = 2.0;
const OCCASIONAL_WORTH: f64 = 1.0;
/// Worth of winning the game when the search reaches its end.
const WIN_WORTH: f64 = 20.0;

/// How long or how far to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub time: Option<Duration>,
    pub iterations: Option<u32>,
}

impl Budget {
    pub fn time(time: Duration) -> Budget {
        Budget {
            time: Some(time),
            iterations: None,
        }
    }

    pub fn iterations(n: u32) -> Budget {
        Budget {
            time: None,
            iterations: Some(n),
        }
    }
}

impl Default for Budget {
    /// 150 ms a turn: under the 200 ms target on a slow core.
    fn default() -> Budget {
        Budget::time(Duration::from_millis(150))
    }
}

pub struct Ismcts {
    rng: GameRng,
    budget: Budget,
}

impl Ismcts {
    pub fn new(seed: u64, budget: Budget) -> Ismcts {
        Ismcts {
            rng: GameRng::from_seed(seed),
            budget,
        }
    }
}

struct Node {
    turn: Turn,
    /// The seat that played `turn`: rewards are stored from its point of view.
    mover: Seat,
    visits: u32,
    available: u32,
    reward: f64,
    children: Vec<usize>,
}

impl Strategy for Ismcts {
    fn name(&self) -> &'static str {
        "ismcts"
    }

    fn choose(&mut self, view: &View, time: Option<Duration>) -> Turn {
        let ranked = heuristic::scored_turns(view);
        if ranked.len() == 1 {
            return ranked[0].0;
        }
        let root_moves: Vec<Turn> = ranked.iter().take(ROOT_WIDTH).map(|(t, _)| *t).collect();
        let me = view.legal.as_ref().expect("the seat's turn").seat;
        // Leave room for the answer to travel when a deadline is given.
        let time = match (self.budget.time, time) {
            (Some(own), Some(limit)) => Some(own.min(limit.mul_f64(0.5))),
            (own, limit) => own.or(limit.map(|l| l.mul_f64(0.5))),
        };
        let stop = time.map(|t| Instant::now() + t);
        let max_iterations = self.budget.iterations.unwrap_or(u32::MAX);

        let mut tree = vec![Node {
            turn: root_moves[0],
            mover: me,
            visits: 0,
            available: 0,
            reward: 0.0,
            children: Vec::new(),
        }];
        let mut iterations = 0;
        while iterations < max_iterations && stop.is_none_or(|s| Instant::now() < s) {
            let Ok(game) = Game::determinize(view, &mut self.rng) else {
                break;
            };
            self.iterate(game, &mut tree, &root_moves);
            iterations += 1;
        }
        tree[0]
            .children
            .iter()
            .max_by_key(|&&c| tree[c].visits)
            .map_or_else(|| Heuristic::new().choose(view, None), |&c| tree[c].turn)
    }
}

impl Ismcts {
    fn iterate(&mut self, mut game: Game, tree: &mut Vec<Node>, root_moves: &[Turn]) {
        let round = game.round();
        let before = worths(&game);
        let mut node = 0;
        let mut path = vec![0];
        while let Some(seat) = game.to_move() {
            if game.round() != round {
                break;
            }
            let moves = if node == 0 {
                root_moves.to_vec()
            } else {
                compact_moves(&game, seat, &mut self.rng)
            };
            for i in 0..tree[node].children.len() {
                let child = tree[node].children[i];
                if moves.contains(&tree[child].turn) {
                    tree[child].available += 1;
                }
            }
            let untried: Vec<Turn> = moves
                .iter()
                .copied()
                .filter(|m| !tree[node].children.iter().any(|&c| tree[c].turn == *m))
                .collect();
            if !untried.is_empty() {
                let turn = untried[self.rng.below(untried.len() as u32) as usize];
                tree.push(Node {
                    turn,
                    mover: seat,
                    visits: 0,
                    available: 1,
                    reward: 0.0,
                    children: Vec::new(),
                });
                let child = tree.len() - 1;
                tree[node].children.push(child);
                game.apply(seat, &turn)
                    .expect("moves come from the legal set");
                path.push(child);
                break;
            }
            let child = tree[node]
                .children
                .iter()
                .copied()
                .filter(|&c| moves.contains(&tree[c].turn))
                .max_by(|&a, &b| ucb(&tree[a]).total_cmp(&ucb(&tree[b])))
                .expect("every move has a child");
            game.apply(seat, &tree[child].turn)
                .expect("moves come from the legal set");
            node = child;
            path.push(child);
        }
        rollout(&mut game, round, &mut self.rng);
        let after = worths(&game);
        let gains: Vec<f64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
        let n = gains.len() as f64;
        let total: f64 = gains.iter().sum();
        for &i in &path {
            let node = &mut tree[i];
            node.visits += 1;
            let mine = gains[usize::from(node.mover)];
            // Half of what the others gain counts against us: money is relative.
            node.reward += mine - 1.0 * (total - mine) / (n - 1.0);
        }
    }
}

fn ucb(node: &Node) -> f64 {
    if node.visits == 0 {
        return f64::INFINITY;
    }
    let visits = f64::from(node.visits);
    node.reward / visits + EXPLORATION * (f64::from(node.available.max(1)).ln() / visits).sqrt()
}

/// What each seat holds that a round can change, in M$.
fn worths(game: &Game) -> Vec<f64> {
    let last_round = game.is_last_round() || game.contenders().is_some() || game.is_over();
    let winners = game.outcome().map(|o| o.winners.clone());
    (0..game.players())
        .map(|seat| {
            let p = game.player(seat);
            let supply = &p.supply;
            let mut worth = f64::from(p.money);
            if !last_round {
                let experts = f64::from(rules::EXPERTS_PER_PLAYER - supply.killed)
                    - 0.5 * f64::from(supply.experts_in_prison())
                    - 0.25 * f64::from(supply.experts_in_hospital());
                worth += EXPERT_WORTH * experts + OCCASIONAL_WORTH * f64::from(supply.occasionals);
            }
            if let Some(winners) = winners.as_ref().filter(|w| w.contains(&seat)) {
                worth += WIN_WORTH / winners.len() as f64;
            }
            worth
        })
        .collect()
}

/// The fewest gangsters that take the lead at an option, Experts first.
fn minimal_lead(option: &PlacementOption) -> Option<Placement> {
    let need = option.min_gangsters.max(1);
    if option.allows(need, 0) {
        return Some(Placement::new(option.location, need, 0));
    }
    let experts = option.max_experts.min(need);
    option
        .allows(experts, need - experts)
        .then(|| Placement::new(option.location, experts, need - experts))
}

/// Below the root: every card alone, and a minimal lead at each location with a random card.
fn compact_moves(game: &Game, seat: Seat, rng: &mut GameRng) -> Vec<Turn> {
    let legal = game.legal_turns(seat).expect("the seat to move has turns");
    let mut moves: Vec<Turn> = legal.cards.iter().map(|&c| Turn::play(c)).collect();
    for option in &legal.placements {
        if let Some(p) = minimal_lead(option) {
            moves.push(Turn::place_and_play(p, random_card(&legal, rng)));
        }
    }
    moves
}

fn random_card(legal: &LegalTurns, rng: &mut GameRng) -> theboss_engine::Card {
    legal.cards[rng.below(legal.cards.len() as u32) as usize]
}

/// Plays the round out: a card always, and often the fewest gangsters that lead somewhere.
fn rollout(game: &mut Game, round: u8, rng: &mut GameRng) {
    while let Some(seat) = game.to_move() {
        if game.round() != round {
            return;
        }
        let legal = game.legal_turns(seat).expect("the seat to move has turns");
        let card = random_card(&legal, rng);
        let placement = if !legal.placements.is_empty() && rng.below(10) < 7 {
            minimal_lead(&legal.placements[rng.below(legal.placements.len() as u32) as usize])
        } else {
            None
        };
        game.apply(seat, &Turn { placement, card })
            .expect("rollout moves are legal");
    }
}
