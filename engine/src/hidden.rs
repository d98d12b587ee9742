//! Re-dealing what a viewer cannot see: other hands' faces (keeping their backs), the
//! face-down cards, the police deck's order and the future shuffles.
//!
//! The result is a game the viewer cannot tell apart from the real one. Tests use
//! [`Game::redeal_hidden`] to prove that views leak nothing; search-based bots use
//! [`Game::determinize`] to sample, from a view alone, worlds consistent with what they know.

use crate::Seat;
use crate::action::Location;
use crate::board::Board;
use crate::cards::{CITY_COUNT, Card, POLICE_DECK};
use crate::config::Setup;
use crate::error::DeterminizeError;
use crate::game::Game;
use crate::player::PlayerState;
use crate::rng::GameRng;
use crate::rules::{
    EXPERTS_PER_PLAYER, HAND_SIZE, LAST_TURN, OCCASIONALS_PER_PLAYER, TURNS_PER_ROUND,
};
use crate::view::{View, Viewer};

impl Game {
    /// A copy of the game with everything hidden from `viewer` dealt again at random,
    /// consistently with what the viewer knows.
    pub fn redeal_hidden(&self, viewer: Viewer, rng: &mut GameRng) -> Game {
        let mut game = self.clone();
        if self.is_over() {
            return game;
        }
        let hidden_seat =
            |seat: usize| !matches!(viewer, Viewer::Seat(v) if usize::from(v) == seat);
        let mut pools: [Vec<Card>; CITY_COUNT] = Default::default();
        for (seat, hand) in game.hands.iter().enumerate() {
            if hidden_seat(seat) {
                for &card in hand {
                    pools[card.city.index()].push(card);
                }
            }
        }
        for card in game.face_down.iter().flatten() {
            pools[card.city.index()].push(*card);
        }
        for pool in &mut pools {
            rng.shuffle(pool);
        }
        for (seat, hand) in game.hands.iter_mut().enumerate() {
            if hidden_seat(seat) {
                for card in hand.iter_mut() {
                    *card = pools[card.city.index()]
                        .pop()
                        .expect("pool holds this back");
                }
                hand.sort();
            }
        }
        for card in game.face_down.iter_mut().flatten() {
            *card = pools[card.city.index()]
                .pop()
                .expect("pool holds this card");
        }
        rng.shuffle(&mut game.police_deck);
        game.rng = GameRng::from_seed(rng.next_u64());
        game.setup.seed = rng.next_u64();
        game
    }
}

/// Checks what the rules make impossible in a real view: gangsters that do not add up,
/// a board that disagrees with the supplies, a turn order or hands the turn cannot have.
fn check_supplies_and_turns(view: &View) -> Result<(), DeterminizeError> {
    use DeterminizeError::Inconsistent;
    let n = usize::from(view.players);
    for (seat, s) in view.seats.iter().enumerate() {
        let supply = &s.supply;
        let experts = u32::from(supply.experts_free)
            + u32::from(supply.experts_placed)
            + supply.hospital.iter().map(|&h| u32::from(h)).sum::<u32>()
            + supply.prison.iter().map(|&p| u32::from(p)).sum::<u32>()
            + u32::from(supply.killed);
        if experts != u32::from(EXPERTS_PER_PLAYER) {
            return Err(Inconsistent("a seat's Experts do not add up"));
        }
        let occasionals = u32::from(supply.occasionals)
            + u32::from(supply.occasionals_placed)
            + u32::from(supply.occasionals_used);
        if occasionals != u32::from(OCCASIONALS_PER_PLAYER) {
            return Err(Inconsistent("a seat's Occasionals do not add up"));
        }
        if usize::from(s.seat) != seat {
            return Err(Inconsistent("seats out of order"));
        }
        let on_board = |count: fn(&crate::board::Gangsters) -> u8| -> u32 {
            view.locations
                .iter()
                .filter_map(|l| l.gangsters.get(seat))
                .map(|g| u32::from(count(g)))
                .sum()
        };
        if on_board(|g| g.experts) != u32::from(supply.experts_placed)
            || on_board(|g| g.occasionals) != u32::from(supply.occasionals_placed)
        {
            return Err(Inconsistent("the board and a seat's supply disagree"));
        }
    }
    if view.outcome.is_some() {
        return Ok(());
    }
    if !(1..=TURNS_PER_ROUND).contains(&view.turn) || usize::from(view.start_player) >= n {
        return Err(Inconsistent("turn or start player out of range"));
    }
    let mut order = view.turn_order.clone();
    order.sort_unstable();
    if order != (0..view.players).collect::<Vec<_>>() {
        return Err(Inconsistent("the turn order is not one turn of every seat"));
    }
    let acted = usize::from(view.acted_this_turn);
    if acted >= n || view.to_move != Some(view.turn_order[acted]) {
        return Err(Inconsistent(
            "the seat to move is not next in the turn order",
        ));
    }
    let clockwise: Vec<Seat> = (0..view.players)
        .map(|i| (view.start_player + i) % view.players)
        .collect();
    if view.turn < LAST_TURN {
        if view.turn_order != clockwise {
            return Err(Inconsistent(
                "before the last turn, play goes clockwise from the start player",
            ));
        }
    } else {
        // Seats yet to act on the last turn still have what they had when it was ordered:
        // most gangsters in front first, ties clockwise from the start player.
        let waiting = &view.turn_order[acted..];
        let rank = |seat: &Seat| {
            let front = view.seats[usize::from(*seat)].supply.in_front();
            let position = clockwise.iter().position(|s| s == seat).unwrap_or(n);
            (std::cmp::Reverse(front), position)
        };
        if !waiting.is_sorted_by_key(rank) {
            return Err(Inconsistent(
                "the last turn's order breaks the last-turn rule",
            ));
        }
    }
    let played: usize = view.locations.iter().map(|l| l.played.len()).sum();
    if played != n * usize::from(view.turn - 1) + acted {
        return Err(Inconsistent(
            "cards played this round do not match the turn",
        ));
    }
    for s in &view.seats {
        let has_acted = view.turn_order[..acted].contains(&s.seat);
        let expected = HAND_SIZE - usize::from(view.turn - 1) - usize::from(has_acted);
        if usize::from(s.hand_size()) != expected {
            return Err(Inconsistent("a hand's size does not match the turn"));
        }
    }
    if let (Viewer::Seat(seat), Some(hand)) = (view.viewer, &view.hand) {
        let backs = &view
            .seats
            .get(usize::from(seat))
            .ok_or(Inconsistent("no such viewer"))?;
        let matches = view.cities.iter().all(|&city| {
            hand.iter().filter(|c| c.city == city).count() == usize::from(backs.backs(city))
        });
        if hand.len() != usize::from(backs.hand_size()) || !matches {
            return Err(Inconsistent("the viewer's hand and its backs disagree"));
        }
    }
    Ok(())
}

impl Game {
    /// Samples a complete game consistent with a view: everything the view shows is kept,
    /// everything it hides (other hands' faces within their backs, face-down cards, the
    /// police deck's order, the seed) is drawn at random, each consistent world equally
    /// likely. This is how search bots reason from what their seat may know.
    pub fn determinize(view: &View, rng: &mut GameRng) -> Result<Game, DeterminizeError> {
        use DeterminizeError::Inconsistent;
        let n = usize::from(view.players);
        if view.seats.len() != n || !(2..=4).contains(&n) {
            return Err(Inconsistent("seat count"));
        }
        check_supplies_and_turns(view)?;
        let row_matches = view.cities.is_sorted()
            && view.locations.len() == view.cities.len() + 1
            && view
                .locations
                .iter()
                .filter_map(|l| l.location.city())
                .eq(view.cities.iter().copied());
        if !row_matches {
            return Err(Inconsistent("the row does not match the cities in play"));
        }
        let chicago_at = view
            .locations
            .iter()
            .position(|l| l.location == Location::Chicago)
            .ok_or(Inconsistent("no Chicago in the row"))?;
        let mut board = Board::new(view.cities.clone(), chicago_at);
        for l in &view.locations {
            if l.gangsters.len() != n {
                return Err(Inconsistent("gangsters per seat"));
            }
            for (seat, g) in (0..).zip(&l.gangsters) {
                board.add(l.location, seat, g.experts, g.occasionals);
            }
            for &card in &l.played {
                board.play(card);
            }
        }
        let own_seat = match view.viewer {
            Viewer::Seat(s) if usize::from(s) < n => Some(s),
            _ => None,
        };
        let own_hand: Vec<Card> = view.hand.clone().unwrap_or_default();
        // Cards nobody has seen this round, by city; they go to other hands and face down.
        let mut pools: [Vec<Card>; CITY_COUNT] = Default::default();
        let over = view.outcome.is_some();
        if !over {
            for &city in &view.cities {
                let played = board.played(city);
                pools[city.index()] = city
                    .cards()
                    .filter(|c| !own_hand.contains(c) && !played.contains(c))
                    .collect();
                rng.shuffle(&mut pools[city.index()]);
            }
        }
        let mut hands = vec![Vec::new(); n];
        for (seat, seat_view) in view.seats.iter().enumerate() {
            if Some(seat) == own_seat.map(usize::from) {
                hands[seat] = own_hand.clone();
                continue;
            }
            for back in &seat_view.hand_backs {
                for _ in 0..back.count {
                    let card = pools[back.city.index()]
                        .pop()
                        .ok_or(Inconsistent("more backs than unseen cards"))?;
                    hands[seat].push(card);
                }
            }
            hands[seat].sort();
        }
        let mut face_down = [None; CITY_COUNT];
        for l in view.locations.iter().filter(|l| l.face_down) {
            let city = l
                .location
                .city()
                .ok_or(Inconsistent("face down in Chicago"))?;
            face_down[city.index()] = Some(
                pools[city.index()]
                    .pop()
                    .ok_or(Inconsistent("no card left to lie face down"))?,
            );
        }
        if pools.iter().any(|p| !p.is_empty()) {
            return Err(Inconsistent("unseen cards left over"));
        }
        let mut police_deck = POLICE_DECK.to_vec();
        for card in &view.police.revealed {
            let at = police_deck
                .iter()
                .position(|c| c == card)
                .ok_or(Inconsistent("police card revealed twice"))?;
            police_deck.remove(at);
        }
        if police_deck.len() != usize::from(view.police.remaining) {
            return Err(Inconsistent("police deck size"));
        }
        rng.shuffle(&mut police_deck);
        let players = view
            .seats
            .iter()
            .map(|s| {
                let mut p = PlayerState {
                    money: s.money,
                    money_last_round: s.money_last_round,
                    supply: s.supply,
                    ..PlayerState::default()
                };
                for &city in &s.banished {
                    p.banish(city);
                }
                p
            })
            .collect();
        Ok(Game {
            setup: Setup {
                players: view.players,
                cities: view.cities.clone(),
                seed: rng.next_u64(),
                rules: view.rules,
            },
            rng: GameRng::from_seed(rng.next_u64()),
            round: view.round,
            turn: view.turn,
            start_player: view.start_player,
            order: view.turn_order.clone(),
            acted: usize::from(view.acted_this_turn),
            players,
            hands,
            face_down,
            board,
            police_deck,
            police_revealed: view.police.revealed.clone(),
            last_round: view.last_round,
            contenders: view.contenders.clone(),
            last_resolution: view.last_resolution.clone(),
            outcome: view.outcome.clone(),
        })
    }
}
