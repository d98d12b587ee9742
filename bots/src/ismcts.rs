//! Single-observer information-set Monte-Carlo tree search (SO-ISMCTS, Cowling, Powley and
//! Whitehouse 2012).
//!
//! Every iteration samples a whole game consistent with the seat's view
//! (`Game::determinize_into`, into the game the last iteration played: other hands,
//! face-down cards and the police deck drawn from what the seat cannot see), walks the one shared tree with UCB restricted to the moves legal in
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
    Face, Game, GameRng, LegalTurns, MAX_PLAYERS, Placement, PlacementOption, Sanction, Seat, Turn,
    View, Viewer, rules,
};

use super::Strategy;
use super::heuristic::{self, Heuristic};

/// Moves of the heuristic's ranking searched at the root (by default).
pub const ROOT_WIDTH: usize = 10;
/// Worth of an Expert kept in play, and of an unused Occasional, when scoring a round.
const EXPERT_WORTH: f64 = 2.0;
const OCCASIONAL_WORTH: f64 = 1.0;

/// How the search explores and what it counts as a good round. [`Params::default`] is the
/// bot's setting; [`Params::V1`] the first published one, kept to measure against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// UCB exploration, in M$ (rewards are money-like).
    pub exploration: f64,
    /// Moves of the heuristic's ranking searched at the root.
    pub root_width: usize,
    /// Worth of winning the game when the search reaches its end, in M$.
    pub win_worth: f64,
    /// Against whom a seat's gain is measured: 0 the others' mean gain, 1 the best of them.
    pub against_best: f64,
    /// How much the opponents' placements weigh on the hidden cards sampled (0: not at all,
    /// every deal consistent with the view equally likely): see [`plausibility`].
    pub inference: f64,
    /// Deals drawn per iteration to choose one from by plausibility (with `inference`).
    pub samples: usize,
    /// The chance that a turn of a rollout is the heuristic bot's choice from that seat's
    /// view rather than the fast random policy's: a model of how the others play, at ~5 µs
    /// a turn (building the seat's view included) instead of a fraction of one.
    pub rollout_heuristic: f64,
}

impl Params {
    pub const V1: Params = Params {
        exploration: 2.5,
        root_width: ROOT_WIDTH,
        win_worth: 20.0,
        against_best: 0.0,
        inference: 0.0,
        samples: 1,
        rollout_heuristic: 0.0,
    };
}

impl Default for Params {
    /// The first search, with the round played out by the heuristic bot: a model of how
    /// players play turned the 41% it won against three heuristic bots (25 ms a turn, 400
    /// duplicate games) into 82%; no other parameter moved it beyond the noise.
    fn default() -> Params {
        Params {
            rollout_heuristic: 1.0,
            ..Params::V1
        }
    }
}

impl std::str::FromStr for Params {
    type Err = String;

    /// `name=value` pairs, comma-separated, over the defaults: `exploration=1.5,root_width=6`.
    fn from_str(s: &str) -> Result<Params, String> {
        let mut params = Params::default();
        for pair in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("{pair:?}: expected name=value"))?;
            let number: f64 = value
                .parse()
                .map_err(|_| format!("{pair:?}: {value:?} is not a number"))?;
            match name {
                "exploration" => params.exploration = number,
                "root_width" if number >= 1.0 => params.root_width = number as usize,
                "win_worth" => params.win_worth = number,
                "against_best" => params.against_best = number,
                "inference" => params.inference = number,
                "samples" if number >= 1.0 => params.samples = number as usize,
                "rollout_heuristic" if (0.0..=1.0).contains(&number) => {
                    params.rollout_heuristic = number
                }
                _ => return Err(format!("{pair:?}: unknown or out of range")),
            }
        }
        Ok(params)
    }
}

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
    params: Params,
    /// Iterations of the last search.
    iterations: u64,
}

impl Ismcts {
    pub fn new(seed: u64, budget: Budget) -> Ismcts {
        Ismcts::with_params(seed, budget, Params::default())
    }

    pub fn with_params(seed: u64, budget: Budget, params: Params) -> Ismcts {
        Ismcts {
            rng: GameRng::from_seed(seed),
            budget,
            params,
            iterations: 0,
        }
    }
}

/// What an iteration writes and forgets, kept from one iteration to the next (with the
/// sampled worlds) so that the search allocates little beyond the tree it grows.
#[derive(Default)]
struct Buffers {
    /// The nodes walked this iteration, root first.
    path: Vec<usize>,
    /// The moves considered at a node below the root.
    moves: Vec<Turn>,
    legal: LegalTurns,
    /// A seat's view, for the heuristic playing a turn of the playout.
    view: View,
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

    fn iterations(&self) -> u64 {
        self.iterations
    }

    fn choose(&mut self, view: &View, time: Option<Duration>) -> Turn {
        let ranked = heuristic::scored_turns(view);
        self.iterations = 0;
        if ranked.len() == 1 {
            return ranked[0].0;
        }
        let root_moves: Vec<Turn> = ranked
            .iter()
            .take(self.params.root_width)
            .map(|(t, _)| *t)
            .collect();
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
        // The sampled worlds (one, or `samples` with inference); each iteration plays one out.
        let mut deals = Vec::new();
        let mut buffers = Buffers::default();
        let mut iterations = 0;
        while iterations < max_iterations && stop.is_none_or(|s| Instant::now() < s) {
            let Some(world) = self.determinize(view, me, &mut deals) else {
                break;
            };
            self.iterate(&mut deals[world], &mut tree, &root_moves, &mut buffers);
            iterations += 1;
        }
        self.iterations = u64::from(iterations);
        tree[0]
            .children
            .iter()
            .max_by_key(|&&c| tree[c].visits)
            .map_or_else(|| Heuristic::new().choose(view, None), |&c| tree[c].turn)
    }
}

impl Ismcts {
    /// A whole game consistent with the view, drawn into `deals` (whose games are reused)
    /// and named by its index there: one deal drawn uniformly, or, with inference, the one
    /// of several drawn that best explains the opponents' placements, chosen with
    /// probability in proportion to its plausibility.
    fn determinize(&mut self, view: &View, me: Seat, deals: &mut Vec<Game>) -> Option<usize> {
        let samples = if self.params.inference == 0.0 || self.params.samples < 2 {
            1
        } else {
            self.params.samples
        };
        for i in 0..samples {
            match deals.get_mut(i) {
                Some(deal) => Game::determinize_into(view, &mut self.rng, deal).ok()?,
                None => deals.push(Game::determinize(view, &mut self.rng).ok()?),
            }
        }
        if samples == 1 {
            return Some(0);
        }
        let deals = &deals[..samples];
        let weights: Vec<f64> = deals
            .iter()
            .map(|g| plausibility(g, view, me, self.params.inference))
            .collect();
        let total: f64 = weights.iter().sum();
        let mut pick = f64::from(self.rng.below(1 << 20)) / f64::from(1u32 << 20) * total;
        let mut chosen = deals.len() - 1;
        for (i, w) in weights.iter().enumerate() {
            if pick < *w {
                chosen = i;
                break;
            }
            pick -= w;
        }
        Some(chosen)
    }

    fn iterate(
        &mut self,
        game: &mut Game,
        tree: &mut Vec<Node>,
        root_moves: &[Turn],
        buffers: &mut Buffers,
    ) {
        let Buffers {
            path,
            moves: compact,
            legal,
            view,
        } = buffers;
        let round = game.round();
        let before = worths(game, self.params.win_worth);
        let mut node = 0;
        path.clear();
        path.push(0);
        while let Some(seat) = game.to_move() {
            if game.round() != round {
                break;
            }
            let moves: &[Turn] = if node == 0 {
                root_moves
            } else {
                compact_moves(game, seat, &mut self.rng, legal, compact);
                compact
            };
            for i in 0..tree[node].children.len() {
                let child = tree[node].children[i];
                if moves.contains(&tree[child].turn) {
                    tree[child].available += 1;
                }
            }
            let is_untried = |m: &&Turn| !tree[node].children.iter().any(|&c| tree[c].turn == **m);
            let untried = moves.iter().filter(is_untried).count();
            if untried > 0 {
                let pick = self.rng.below(untried as u32) as usize;
                let turn = *moves
                    .iter()
                    .filter(is_untried)
                    .nth(pick)
                    .expect("pick is below the count");
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
                game.apply_quiet(seat, &turn)
                    .expect("moves come from the legal set");
                path.push(child);
                break;
            }
            let child = tree[node]
                .children
                .iter()
                .copied()
                .filter(|&c| moves.contains(&tree[c].turn))
                .max_by(|&a, &b| {
                    ucb(&tree[a], self.params.exploration)
                        .total_cmp(&ucb(&tree[b], self.params.exploration))
                })
                .expect("every move has a child");
            game.apply_quiet(seat, &tree[child].turn)
                .expect("moves come from the legal set");
            node = child;
            path.push(child);
        }
        let heuristic = self.params.rollout_heuristic;
        rollout(game, round, &mut self.rng, heuristic, legal, view);
        let after = worths(game, self.params.win_worth);
        let mut gains = [0.0; MAX_PLAYERS as usize];
        for (gain, (a, b)) in gains.iter_mut().zip(after.iter().zip(&before)) {
            *gain = a - b;
        }
        let gains = &gains[..usize::from(game.players())];
        let n = gains.len() as f64;
        let total: f64 = gains.iter().sum();
        let w = self.params.against_best;
        for &i in path.iter() {
            let node = &mut tree[i];
            node.visits += 1;
            let seat = usize::from(node.mover);
            let mine = gains[seat];
            // What the others gain counts against us (money is relative): their mean, or
            // the best of them, as the parameters mix them.
            let best_other = gains
                .iter()
                .enumerate()
                .filter(|(s, _)| *s != seat)
                .map(|(_, g)| *g)
                .fold(f64::NEG_INFINITY, f64::max);
            let against = (1.0 - w) * (total - mine) / (n - 1.0) + w * best_other;
            node.reward += mine - against;
        }
    }
}

fn ucb(node: &Node, exploration: f64) -> f64 {
    if node.visits == 0 {
        return f64::INFINITY;
    }
    let visits = f64::from(node.visits);
    node.reward / visits + exploration * (f64::from(node.available.max(1)).ln() / visits).sqrt()
}

/// What each seat holds that a round can change, in M$, by seat (0 past the players).
fn worths(game: &Game, win_worth: f64) -> [f64; MAX_PLAYERS as usize] {
    let last_round = game.is_last_round() || game.contenders().is_some() || game.is_over();
    let winners = game.outcome().map(|o| &o.winners);
    let mut worths = [0.0; MAX_PLAYERS as usize];
    for (seat, worth) in (0..game.players()).zip(&mut worths) {
        *worth = {
            let p = game.player(seat);
            let supply = &p.supply;
            let mut worth = f64::from(p.money);
            if !last_round {
                let experts = f64::from(rules::EXPERTS_PER_PLAYER - supply.killed)
                    - 0.5 * f64::from(supply.experts_in_prison())
                    - 0.25 * f64::from(supply.experts_in_hospital());
                worth += EXPERT_WORTH * experts + OCCASIONAL_WORTH * f64::from(supply.occasionals);
            }
            if let Some(winners) = winners.filter(|w| w.contains(&seat)) {
                worth += win_worth / winners.len() as f64;
            }
            worth
        };
    }
    worths
}

/// How well a deal explains what the opponents did this round, up to a factor: an opponent
/// with gangsters on a city expects its face-down card to pay, and knows it is none of the
/// city's cards in its own hand or played this round. The mean worth of what is left to it,
/// times its gangsters there, is its evidence: a deal in which that opponent holds the
/// city's bad cards (so the face-down card is likely money) explains the placement better.
fn plausibility(game: &Game, view: &View, me: Seat, strength: f64) -> f64 {
    let mut evidence = 0.0;
    for location in &view.locations {
        let Some(city) = location.location.city() else {
            continue;
        };
        if !location.face_down {
            continue;
        }
        for (seat, g) in (0..).zip(&location.gangsters) {
            let placed = g.experts + g.occasionals;
            if seat == me || placed == 0 {
                continue;
            }
            let hand = game.hand(seat);
            let (mut sum, mut count) = (0.0, 0.0);
            for card in city.cards() {
                if hand.contains(&card) || location.played.contains(&card) {
                    continue;
                }
                sum += worth_to_leader(card);
                count += 1.0;
            }
            if count > 0.0 {
                evidence += f64::from(placed.min(3)) * sum / count;
            }
        }
    }
    (strength * evidence).exp()
}

/// What a city's face-down card is worth to its leader, roughly, in M$.
fn worth_to_leader(card: theboss_engine::Card) -> f64 {
    match card.face {
        Face::Money(m) => f64::from(m),
        Face::Sanction(Sanction::Revolver) => -4.0,
        Face::Sanction(Sanction::Prison) => -3.0,
        Face::Sanction(Sanction::Hospital) => -2.0,
        Face::Sanction(Sanction::Banished) => -1.0,
    }
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

/// Below the root: every card alone, and a minimal lead at each location with a random
/// card; written into `moves`, with `legal` as the seat's legal turns.
fn compact_moves(
    game: &Game,
    seat: Seat,
    rng: &mut GameRng,
    legal: &mut LegalTurns,
    moves: &mut Vec<Turn>,
) {
    assert!(
        game.legal_turns_into(seat, legal),
        "the seat to move has turns"
    );
    moves.clear();
    moves.extend(legal.cards.iter().map(|&c| Turn::play(c)));
    for option in &legal.placements {
        if let Some(p) = minimal_lead(option) {
            moves.push(Turn::place_and_play(p, random_card(legal, rng)));
        }
    }
}

fn random_card(legal: &LegalTurns, rng: &mut GameRng) -> theboss_engine::Card {
    legal.cards[rng.below(legal.cards.len() as u32) as usize]
}

/// Plays the round out: a card always, and often the fewest gangsters that lead somewhere;
/// or, with probability `heuristic` a turn, what the heuristic bot would play there.
fn rollout(
    game: &mut Game,
    round: u8,
    rng: &mut GameRng,
    heuristic: f64,
    legal: &mut LegalTurns,
    view: &mut View,
) {
    while let Some(seat) = game.to_move() {
        if game.round() != round {
            return;
        }
        if heuristic > 0.0 && f64::from(rng.below(1 << 16)) < heuristic * f64::from(1u32 << 16) {
            game.view_into(Viewer::Seat(seat), view);
            let turn = heuristic::best_turn(view);
            game.apply_quiet(seat, &turn)
                .expect("the heuristic plays legal turns");
            continue;
        }
        assert!(
            game.legal_turns_into(seat, legal),
            "the seat to move has turns"
        );
        let card = random_card(legal, rng);
        let placement = if !legal.placements.is_empty() && rng.below(10) < 7 {
            minimal_lead(&legal.placements[rng.below(legal.placements.len() as u32) as usize])
        } else {
            None
        };
        game.apply_quiet(seat, &Turn { placement, card })
            .expect("rollout moves are legal");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_read_as_pairs_over_the_defaults() {
        assert_eq!("".parse::<Params>(), Ok(Params::default()));
        assert_ne!(Params::default(), Params::V1);
        let p: Params = "exploration=1.5, root_width=6".parse().unwrap();
        assert_eq!(p.exploration, 1.5);
        assert_eq!(p.root_width, 6);
        assert_eq!(p.win_worth, Params::default().win_worth);
        for bad in ["exploration", "exploration=fast", "depth=3", "root_width=0"] {
            assert!(bad.parse::<Params>().is_err(), "{bad}");
        }
    }
}
