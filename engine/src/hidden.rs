//! Re-dealing what a viewer cannot see: other hands' faces (keeping their backs), the
//! face-down cards, the police deck's order and the future shuffles.
//!
//! The result is a game the viewer cannot tell apart from the real one. Tests use
//! [`Game::redeal_hidden`] to prove that views leak nothing; search-based bots use
//! [`Game::determinize`] to sample, from a view alone, worlds consistent with what they know.
//! Both also write into a game the caller keeps (`*_into`), so that a search sampling a
//! world every iteration allocates nothing for it.

use crate::Seat;
use crate::action::Location;
use crate::board::Board;
use crate::cards::{CITY_COUNT, Card, City, DECK, Face, POLICE_DECK, PoliceCard};
use crate::config::Setup;
use crate::error::DeterminizeError;
use crate::game::Game;
use crate::player::PlayerState;
use crate::rng::GameRng;
use crate::rules::{
    EXPERTS_PER_PLAYER, HAND_SIZE, LAST_TURN, OCCASIONALS_PER_PLAYER, TURNS_PER_ROUND,
};
use crate::version::RulesVersion;
use crate::view::{View, Viewer};

/// The most cards one city has.
const MOST_CITY_CARDS: usize = {
    let mut most = 0;
    let mut i = 0;
    while i < DECK.len() {
        if DECK[i].1.len() > most {
            most = DECK[i].1.len();
        }
        i += 1;
    }
    most
};

/// Cards of one city to deal again, on the stack.
#[derive(Clone, Copy)]
struct Pool {
    cards: [Card; MOST_CITY_CARDS],
    len: usize,
}

impl Pool {
    const EMPTY: Pool = Pool {
        cards: [Card::new(City::NewYork, Face::Money(0)); MOST_CITY_CARDS],
        len: 0,
    };

    fn push(&mut self, card: Card) {
        self.cards[self.len] = card;
        self.len += 1;
    }

    fn pop(&mut self) -> Option<Card> {
        self.len = self.len.checked_sub(1)?;
        Some(self.cards[self.len])
    }

    fn cards_mut(&mut self) -> &mut [Card] {
        &mut self.cards[..self.len]
    }
}

impl Game {
    /// A copy of the game with everything hidden from `viewer` dealt again at random,
    /// consistently with what the viewer knows.
    pub fn redeal_hidden(&self, viewer: Viewer, rng: &mut GameRng) -> Game {
        let mut game = self.clone();
        game.redeal(viewer, rng);
        game
    }

    /// [`Game::redeal_hidden`] written into `into`, whose lists are reused; the same draws
    /// give the same game.
    pub fn redeal_hidden_into(&self, viewer: Viewer, rng: &mut GameRng, into: &mut Game) {
        into.clone_from(self);
        into.redeal(viewer, rng);
    }

    fn redeal(&mut self, viewer: Viewer, rng: &mut GameRng) {
        if self.is_over() {
            return;
        }
        let hidden_seat =
            |seat: usize| !matches!(viewer, Viewer::Seat(v) if usize::from(v) == seat);
        let mut pools = [Pool::EMPTY; CITY_COUNT];
        for (seat, hand) in self.hands.iter().enumerate() {
            if hidden_seat(seat) {
                for &card in hand {
                    pools[card.city.index()].push(card);
                }
            }
        }
        for card in self.face_down.iter().flatten() {
            pools[card.city.index()].push(*card);
        }
        for pool in &mut pools {
            rng.shuffle(pool.cards_mut());
        }
        for (seat, hand) in self.hands.iter_mut().enumerate() {
            if hidden_seat(seat) {
                for card in hand.iter_mut() {
                    *card = pools[card.city.index()]
                        .pop()
                        .expect("pool holds this back");
                }
                hand.sort();
            }
        }
        for card in self.face_down.iter_mut().flatten() {
            *card = pools[card.city.index()]
                .pop()
                .expect("pool holds this card");
        }
        rng.shuffle(&mut self.police_deck);
        self.rng = GameRng::from_seed(rng.next_u64());
        self.setup.seed = rng.next_u64();
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
    // One turn of every seat: as many entries as seats, each a seat, none twice.
    let mut seen = 0u32;
    let one_each = view.turn_order.len() == n
        && view.turn_order.iter().all(|&seat| {
            let fresh = usize::from(seat) < n && seen & (1 << seat) == 0;
            if fresh {
                seen |= 1 << seat;
            }
            fresh
        });
    if !one_each {
        return Err(Inconsistent("the turn order is not one turn of every seat"));
    }
    let acted = usize::from(view.acted_this_turn);
    if acted >= n || view.to_move != Some(view.turn_order[acted]) {
        return Err(Inconsistent(
            "the seat to move is not next in the turn order",
        ));
    }
    let clockwise = (0..view.players).map(|i| (view.start_player + i) % view.players);
    if view.turn < LAST_TURN {
        if !view.turn_order.iter().copied().eq(clockwise) {
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
            let position = clockwise.clone().position(|s| s == *seat).unwrap_or(n);
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

/// What checking a view finds for the sampling to use.
struct Checked {
    chicago_at: usize,
    /// The police deck without the revealed cards, in the published deck's order.
    police_deck: [PoliceCard; POLICE_DECK.len()],
    police_left: usize,
}

/// Checks everything `determinize` refuses, in the order it always has (a view wrong in
/// several ways is refused for the same reason), before anything is written: sampling a
/// checked view cannot fail. A view refused for its hidden side (the second half of the
/// checks) used to be found out only after the unseen cards were shuffled; those draws are
/// still made, so that a random stream goes on after a refusal as it always has.
fn check_view(view: &View, rng: &mut GameRng) -> Result<Checked, DeterminizeError> {
    let chicago_at = check_public(view)?;
    check_hidden(view, chicago_at).inspect_err(|_| {
        shuffle_unseen(view, rng, &mut [Pool::EMPTY; CITY_COUNT]);
    })
}

/// The checks of what the view shows; returns Chicago's place in the row.
fn check_public(view: &View) -> Result<usize, DeterminizeError> {
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
    if view.locations.iter().any(|l| l.gangsters.len() != n) {
        return Err(Inconsistent("gangsters per seat"));
    }
    Ok(chicago_at)
}

/// The checks of what the view hides: enough unseen cards for every back and face-down
/// card and none left over, and a police deck that adds up.
fn check_hidden(view: &View, chicago_at: usize) -> Result<Checked, DeterminizeError> {
    use DeterminizeError::Inconsistent;
    // How many unseen cards each city has for the other hands and face down.
    let mut unseen = [0usize; CITY_COUNT];
    if view.outcome.is_none() {
        for &city in &view.cities {
            unseen[city.index()] = unseen_cards(view, city).count();
        }
    }
    let own_seat = own_seat(view);
    for (seat, seat_view) in view.seats.iter().enumerate() {
        if Some(seat) == own_seat {
            continue;
        }
        for back in &seat_view.hand_backs {
            let left = &mut unseen[back.city.index()];
            *left = left
                .checked_sub(usize::from(back.count))
                .ok_or(Inconsistent("more backs than unseen cards"))?;
        }
    }
    for l in view.locations.iter().filter(|l| l.face_down) {
        let city = l
            .location
            .city()
            .ok_or(Inconsistent("face down in Chicago"))?;
        let left = &mut unseen[city.index()];
        *left = left
            .checked_sub(1)
            .ok_or(Inconsistent("no card left to lie face down"))?;
    }
    if unseen.iter().any(|&left| left != 0) {
        return Err(Inconsistent("unseen cards left over"));
    }
    let mut police_deck = POLICE_DECK;
    let mut police_left = police_deck.len();
    for card in &view.police.revealed {
        let at = police_deck[..police_left]
            .iter()
            .position(|c| c == card)
            .ok_or(Inconsistent("police card revealed twice"))?;
        police_deck.copy_within(at + 1..police_left, at);
        police_left -= 1;
    }
    if police_left != usize::from(view.police.remaining) {
        return Err(Inconsistent("police deck size"));
    }
    Ok(Checked {
        chicago_at,
        police_deck,
        police_left,
    })
}

/// Each city's unseen cards into its pool, shuffled, city by city along the row.
fn shuffle_unseen(view: &View, rng: &mut GameRng, pools: &mut [Pool; CITY_COUNT]) {
    if view.outcome.is_some() {
        return;
    }
    for &city in &view.cities {
        let pool = &mut pools[city.index()];
        *pool = Pool::EMPTY;
        for card in unseen_cards(view, city) {
            pool.push(card);
        }
        rng.shuffle(pool.cards_mut());
    }
}

/// The viewing seat, when it is one of the game's.
fn own_seat(view: &View) -> Option<usize> {
    match view.viewer {
        Viewer::Seat(s) if s < view.players => Some(usize::from(s)),
        _ => None,
    }
}

/// A city's cards that are neither in the viewer's hand nor played this round (in any
/// column: a card counts as played wherever the view lists it).
fn unseen_cards(view: &View, city: City) -> impl Iterator<Item = Card> + '_ {
    let own_hand: &[Card] = view.hand.as_deref().unwrap_or_default();
    city.cards().filter(move |c| {
        !own_hand.contains(c) && !view.locations.iter().any(|l| l.played.contains(c))
    })
}

impl Game {
    /// Samples a complete game consistent with a view: everything the view shows is kept,
    /// everything it hides (other hands' faces within their backs, face-down cards, the
    /// police deck's order, the seed) is drawn at random, each consistent world equally
    /// likely. This is how search bots reason from what their seat may know.
    pub fn determinize(view: &View, rng: &mut GameRng) -> Result<Game, DeterminizeError> {
        let checked = check_view(view, rng)?;
        let mut game = Game::blank();
        game.sample(view, &checked, rng);
        Ok(game)
    }

    /// [`Game::determinize`] written into `game`, whose lists are reused: the same view and
    /// draws give the same game. On error `game` is left as it was.
    pub fn determinize_into(
        view: &View,
        rng: &mut GameRng,
        game: &mut Game,
    ) -> Result<(), DeterminizeError> {
        let checked = check_view(view, rng)?;
        game.sample(view, &checked, rng);
        Ok(())
    }

    /// A game with nothing in it, for [`Game::sample`] to overwrite whole.
    fn blank() -> Game {
        Game {
            setup: Setup {
                players: 0,
                cities: Vec::new(),
                seed: 0,
                rules: RulesVersion::LATEST,
            },
            rng: GameRng::from_seed(0),
            round: 0,
            turn: 0,
            start_player: 0,
            order: Vec::new(),
            acted: 0,
            players: Vec::new(),
            hands: Vec::new(),
            face_down: [None; CITY_COUNT],
            board: Board::new(Vec::new(), 0),
            police_deck: Vec::new(),
            police_revealed: Vec::new(),
            last_round: false,
            contenders: None,
            last_resolution: None,
            outcome: None,
        }
    }

    /// Overwrites every field with a world drawn for a checked view. The draws come in the
    /// order they always have (each city's unseen cards shuffled in the row's order, then
    /// the police deck, the seed and the game's stream), so a seed samples the same world.
    fn sample(&mut self, view: &View, checked: &Checked, rng: &mut GameRng) {
        let n = usize::from(view.players);
        self.board.reset(&view.cities, checked.chicago_at);
        for l in &view.locations {
            for (seat, g) in (0..).zip(&l.gangsters) {
                self.board.add(l.location, seat, g.experts, g.occasionals);
            }
            for &card in &l.played {
                self.board.play(card);
            }
        }
        let mut pools = [Pool::EMPTY; CITY_COUNT];
        shuffle_unseen(view, rng, &mut pools);
        let own_seat = own_seat(view);
        let own_hand: &[Card] = view.hand.as_deref().unwrap_or_default();
        self.hands.resize_with(n, Vec::new);
        for ((seat, seat_view), hand) in view.seats.iter().enumerate().zip(&mut self.hands) {
            hand.clear();
            if Some(seat) == own_seat {
                hand.extend_from_slice(own_hand);
                continue;
            }
            for back in &seat_view.hand_backs {
                for _ in 0..back.count {
                    hand.push(
                        pools[back.city.index()]
                            .pop()
                            .expect("checked: a card for every back"),
                    );
                }
            }
            hand.sort();
        }
        self.face_down = [None; CITY_COUNT];
        for l in view.locations.iter().filter(|l| l.face_down) {
            let city = l.location.city().expect("checked: a city");
            self.face_down[city.index()] = pools[city.index()].pop();
        }
        self.police_deck.clear();
        self.police_deck
            .extend_from_slice(&checked.police_deck[..checked.police_left]);
        rng.shuffle(&mut self.police_deck);
        self.players.clear();
        self.players.extend(view.seats.iter().map(|s| {
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
        }));
        self.setup.players = view.players;
        self.setup.cities.clone_from(&view.cities);
        self.setup.seed = rng.next_u64();
        self.setup.rules = view.rules;
        self.rng = GameRng::from_seed(rng.next_u64());
        self.round = view.round;
        self.turn = view.turn;
        self.start_player = view.start_player;
        self.order.clone_from(&view.turn_order);
        self.acted = usize::from(view.acted_this_turn);
        self.police_revealed.clone_from(&view.police.revealed);
        self.last_round = view.last_round;
        self.contenders.clone_from(&view.contenders);
        self.last_resolution.clone_from(&view.last_resolution);
        self.outcome.clone_from(&view.outcome);
    }
}
