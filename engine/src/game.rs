//! The game state and its flow: setup, the deal, turn order, the police reveal, the end of
//! rounds and of the game. Placement legality lives in `legal`, resolution in `resolve`.

use serde::Serialize;

use crate::Seat;
use crate::action::Turn;
use crate::board::Board;
use crate::cards::{CITY_COUNT, Card, City, POLICE_DECK, PoliceCard};
use crate::config::{GameConfig, Setup};
use crate::error::{ConfigError, ReplayError, RuleError};
use crate::event::{
    Event, EventSink, LoggedEvent, Outcome, RoundSummary, Standing, Unrecorded, Visibility,
};
use crate::player::PlayerState;
use crate::rng::GameRng;
use crate::rules::{
    self, BADGES_TO_END, CHICAGO_FIRST_POSITION, HAND_SIZE, LAST_TURN, POLICE_REVEAL_TURN,
    TURNS_PER_ROUND,
};

/// A game in progress or finished. Only legal turns change it; see [`Game::apply`]. It can
/// be written out (`Serialize`) but not read back: a game is made by [`Game::start`] or
/// [`Game::replay`] (a configuration and a log), so every game was reached by the rules.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct Game {
    pub(crate) setup: Setup,
    pub(crate) rng: GameRng,
    pub(crate) round: u8,
    pub(crate) turn: u8,
    pub(crate) start_player: Seat,
    /// This turn's order, and how many of it have acted.
    pub(crate) order: Vec<Seat>,
    pub(crate) acted: usize,
    pub(crate) players: Vec<PlayerState>,
    pub(crate) hands: Vec<Vec<Card>>,
    pub(crate) face_down: [Option<Card>; CITY_COUNT],
    pub(crate) board: Board,
    /// Top of the deck is the end of the vector.
    pub(crate) police_deck: Vec<PoliceCard>,
    pub(crate) police_revealed: Vec<PoliceCard>,
    /// A third badge of one colour was revealed: this round is the last.
    pub(crate) last_round: bool,
    /// Set during the decisive round: the tied seats playing for the win.
    pub(crate) contenders: Option<Vec<Seat>>,
    pub(crate) last_resolution: Option<RoundSummary>,
    pub(crate) outcome: Option<Outcome>,
}

/// Written out so that `clone_from` copies into the lists the target already holds: a search
/// that re-deals a game every iteration then allocates nothing. Both destructure every field,
/// so a field added to [`Game`] cannot be forgotten here.
impl Clone for Game {
    fn clone(&self) -> Game {
        let Game {
            setup,
            rng,
            round,
            turn,
            start_player,
            order,
            acted,
            players,
            hands,
            face_down,
            board,
            police_deck,
            police_revealed,
            last_round,
            contenders,
            last_resolution,
            outcome,
        } = self;
        Game {
            setup: setup.clone(),
            rng: rng.clone(),
            round: *round,
            turn: *turn,
            start_player: *start_player,
            order: order.clone(),
            acted: *acted,
            players: players.clone(),
            hands: hands.clone(),
            face_down: *face_down,
            board: board.clone(),
            police_deck: police_deck.clone(),
            police_revealed: police_revealed.clone(),
            last_round: *last_round,
            contenders: contenders.clone(),
            last_resolution: last_resolution.clone(),
            outcome: outcome.clone(),
        }
    }

    fn clone_from(&mut self, source: &Game) {
        let Game {
            setup,
            rng,
            round,
            turn,
            start_player,
            order,
            acted,
            players,
            hands,
            face_down,
            board,
            police_deck,
            police_revealed,
            last_round,
            contenders,
            last_resolution,
            outcome,
        } = source;
        self.setup.clone_from(setup);
        self.rng.clone_from(rng);
        self.round = *round;
        self.turn = *turn;
        self.start_player = *start_player;
        self.order.clone_from(order);
        self.acted = *acted;
        self.players.clone_from(players);
        self.hands.clone_from(hands);
        self.face_down = *face_down;
        self.board.clone_from(board);
        self.police_deck.clone_from(police_deck);
        self.police_revealed.clone_from(police_revealed);
        self.last_round = *last_round;
        self.contenders.clone_from(contenders);
        self.last_resolution.clone_from(last_resolution);
        self.outcome.clone_from(outcome);
    }
}

impl Game {
    /// Sets up a game and deals its first round.
    pub fn start(config: &GameConfig) -> Result<(Game, Vec<LoggedEvent>), ConfigError> {
        let mut events = Vec::new();
        let game = Game::set_up(config, &mut events)?;
        Ok((game, events))
    }

    /// [`Game::start`] without the opening events.
    pub fn new(config: &GameConfig) -> Result<Game, ConfigError> {
        Game::set_up(config, &mut Unrecorded)
    }

    fn set_up(config: &GameConfig, events: &mut impl EventSink) -> Result<Game, ConfigError> {
        let setup = config.validate()?;
        let mut rng = GameRng::from_seed(setup.seed());
        let start_player = rules::first_start_player(&mut rng, setup.players());
        let mut police_deck = POLICE_DECK.to_vec();
        rng.shuffle(&mut police_deck);
        let n = usize::from(setup.players());
        let mut game = Game {
            board: Board::new(setup.cities().to_vec(), CHICAGO_FIRST_POSITION),
            setup,
            rng,
            round: 1,
            turn: 1,
            start_player,
            order: Vec::with_capacity(n),
            acted: 0,
            players: vec![PlayerState::default(); n],
            hands: (0..n).map(|_| Vec::with_capacity(HAND_SIZE)).collect(),
            face_down: [None; CITY_COUNT],
            police_deck,
            police_revealed: Vec::new(),
            last_round: false,
            contenders: None,
            last_resolution: None,
            outcome: None,
        };
        events.record(|| {
            LoggedEvent::public(Event::GameStarted {
                players: game.setup.players(),
                cities: game.setup.cities().to_vec(),
                rules: game.setup.rules(),
            })
        });
        game.begin_round(events);
        Ok(game)
    }

    /// Rebuilds a game from its configuration and action log.
    pub fn replay<'a>(
        config: &GameConfig,
        log: impl IntoIterator<Item = &'a (Seat, Turn)>,
    ) -> Result<Game, ReplayError> {
        let mut game = Game::new(config)?;
        for (index, (seat, turn)) in log.into_iter().enumerate() {
            game.apply_quiet(*seat, turn)
                .map_err(|error| ReplayError::Illegal { index, error })?;
        }
        Ok(game)
    }

    /// Plays a turn for a seat. On error nothing has changed.
    pub fn apply(&mut self, seat: Seat, turn: &Turn) -> Result<Vec<LoggedEvent>, RuleError> {
        self.check(seat, turn)?;
        let mut events = Vec::with_capacity(4);
        self.play(seat, turn, &mut events);
        Ok(events)
    }

    /// [`Game::apply`] without building the events: the game changes exactly as under
    /// `apply`, but no turn allocates, so playouts and replays that never read the events
    /// run at the rules' own speed. On error nothing has changed.
    pub fn apply_quiet(&mut self, seat: Seat, turn: &Turn) -> Result<(), RuleError> {
        self.check(seat, turn)?;
        self.play(seat, turn, &mut Unrecorded);
        Ok(())
    }

    /// Plays a checked turn.
    fn play(&mut self, seat: Seat, turn: &Turn, events: &mut impl EventSink) {
        if let Some(p) = turn.placement {
            self.board.add(p.location, seat, p.experts, p.occasionals);
            self.players[usize::from(seat)]
                .supply
                .place(p.experts, p.occasionals);
        }
        let hand = &mut self.hands[usize::from(seat)];
        let at = hand
            .iter()
            .position(|&c| c == turn.card)
            .expect("checked: card in hand");
        hand.remove(at);
        self.board.play(turn.card);
        events.record(|| {
            LoggedEvent::public(Event::TurnTaken {
                seat,
                round: self.round,
                turn: self.turn,
                placement: turn.placement,
                card: turn.card,
            })
        });
        self.advance(events);
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    pub fn players(&self) -> u8 {
        self.setup.players()
    }

    pub fn round(&self) -> u8 {
        self.round
    }

    /// The turn within the round, 1..=5.
    pub fn turn(&self) -> u8 {
        self.turn
    }

    pub fn start_player(&self) -> Seat {
        self.start_player
    }

    /// The seat to play next, or None once the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        if self.outcome.is_some() {
            None
        } else {
            self.order.get(self.acted).copied()
        }
    }

    /// This turn's order.
    pub fn turn_order(&self) -> &[Seat] {
        &self.order
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn player(&self, seat: Seat) -> &PlayerState {
        &self.players[usize::from(seat)]
    }

    /// A seat's hand. Hidden information: only for that seat's own view.
    pub fn hand(&self, seat: Seat) -> &[Card] {
        &self.hands[usize::from(seat)]
    }

    /// The card face down under a city this round. Hidden information.
    pub fn face_down(&self, city: City) -> Option<Card> {
        self.face_down[city.index()]
    }

    /// Police cards still in the deck, top last. Hidden information.
    pub fn police_deck(&self) -> &[PoliceCard] {
        &self.police_deck
    }

    pub fn police_revealed(&self) -> &[PoliceCard] {
        &self.police_revealed
    }

    /// (silver, gold) badges revealed so far.
    pub fn badges(&self) -> (u8, u8) {
        self.police_revealed
            .iter()
            .map(|c| c.badges())
            .fold((0, 0), |(s, g), (a, b)| (s + a, g + b))
    }

    pub fn is_last_round(&self) -> bool {
        self.last_round
    }

    pub fn contenders(&self) -> Option<&[Seat]> {
        self.contenders.as_deref()
    }

    pub fn last_resolution(&self) -> Option<&crate::event::RoundSummary> {
        self.last_resolution.as_ref()
    }

    pub(crate) fn clockwise_from(&self, first: Seat) -> impl Iterator<Item = Seat> + use<> {
        let n = self.players();
        (0..n).map(move |i| (first + i) % n)
    }

    /// The turn order clockwise from the start player, written into the order already held
    /// (a new list every turn was most of what a turn allocated).
    fn order_clockwise(&mut self) {
        let clockwise = self.clockwise_from(self.start_player);
        self.order.clear();
        self.order.extend(clockwise);
    }

    fn begin_round(&mut self, events: &mut impl EventSink) {
        self.board.clear();
        let players = self.players();
        self.face_down = crate::deal::deal_into(
            self.setup.rules,
            &mut self.rng,
            &self.setup.cities,
            players,
            self.start_player,
            &mut self.hands,
        );
        self.turn = 1;
        self.order_clockwise();
        self.acted = 0;
        events.record(|| {
            LoggedEvent::public(Event::RoundStarted {
                round: self.round,
                start_player: self.start_player,
                row: self.board.locations().collect(),
                decisive: self.contenders.is_some(),
            })
        });
        for seat in 0..self.players() {
            events.record(|| LoggedEvent {
                visibility: Visibility::Seat(seat),
                event: Event::HandDealt {
                    seat,
                    cards: self.hands[usize::from(seat)].clone(),
                },
            });
        }
    }

    /// Moves play on after a turn: next seat, next turn, the police, or the round's end.
    fn advance(&mut self, events: &mut impl EventSink) {
        self.acted += 1;
        if self.acted < self.order.len() {
            return;
        }
        if self.turn == TURNS_PER_ROUND {
            self.end_round(events);
            return;
        }
        self.turn += 1;
        self.acted = 0;
        self.order_clockwise();
        if self.turn == LAST_TURN {
            self.order_for_last_turn();
            events.record(|| {
                LoggedEvent::public(Event::LastTurnOrder {
                    order: self.order.clone(),
                })
            });
        }
        if self.turn == POLICE_REVEAL_TURN && self.contenders.is_none() {
            self.reveal_police(events);
        }
    }

    /// Reorders the clockwise order for the last turn: most gangsters still in front first;
    /// ties stay clockwise from the start player (the sort is stable, and at four seats it
    /// sorts in place without allocating).
    fn order_for_last_turn(&mut self) {
        let players = &self.players;
        self.order
            .sort_by_key(|&s| std::cmp::Reverse(players[usize::from(s)].supply.in_front()));
    }

    fn reveal_police(&mut self, events: &mut impl EventSink) {
        let Some(card) = self.police_deck.pop() else {
            return;
        };
        self.police_revealed.push(card);
        let (silver, gold) = self.badges();
        if silver >= BADGES_TO_END || gold >= BADGES_TO_END {
            self.last_round = true;
        }
        let last_round = self.last_round;
        events.record(|| {
            LoggedEvent::public(Event::PoliceRevealed {
                card,
                silver,
                gold,
                last_round,
            })
        });
    }

    fn end_round(&mut self, events: &mut impl EventSink) {
        // The last round's summary is rewritten in place: its lists keep their room.
        let mut summary = self.last_resolution.take().unwrap_or_default();
        self.resolve_into(&mut summary);
        events.record(|| LoggedEvent::public(Event::RoundResolved(summary.clone())));
        self.last_resolution = Some(summary);
        if (self.last_round || self.contenders.is_some()) && self.settle(events) {
            return;
        }
        self.board.move_chicago();
        self.start_player = (self.start_player + 1) % self.players();
        self.round += 1;
        self.begin_round(events);
    }

    /// After the last round: ends the game, or calls a decisive round if the best are tied
    /// (after the decisive round, a tie is a shared win). Returns whether the game ended.
    fn settle(&mut self, events: &mut impl EventSink) -> bool {
        let contenders = self.contenders.clone().unwrap_or_default();
        let can_win = |seat: Seat| contenders.is_empty() || contenders.contains(&seat);
        let mut standings = self.standings();
        // After a decisive round only its contenders can win: rank them first.
        standings.sort_by_key(|s| !can_win(s.seat));
        let best = standings[0].rank_key();
        let tied: Vec<Seat> = standings
            .iter()
            .take_while(|s| s.rank_key() == best && can_win(s.seat))
            .map(|s| s.seat)
            .collect();
        if tied.len() > 1 && contenders.is_empty() {
            events.record(|| {
                LoggedEvent::public(Event::DecisiveRound {
                    contenders: tied.clone(),
                })
            });
            self.contenders = Some(tied);
            return false;
        }
        let outcome = Outcome {
            winners: tied,
            standings,
            rounds: self.round,
            contenders,
        };
        events.record(|| LoggedEvent::public(Event::GameEnded(outcome.clone())));
        self.outcome = Some(outcome);
        self.order.clear();
        self.acted = 0;
        true
    }

    /// Every seat's standing, best first (ties by seat).
    pub fn standings(&self) -> Vec<Standing> {
        let mut standings: Vec<Standing> = (0..self.players())
            .map(|seat| {
                let p = &self.players[usize::from(seat)];
                Standing {
                    seat,
                    money: p.money,
                    money_last_round: p.money_last_round,
                    gangsters_owned: p.supply.owned(),
                }
            })
            .collect();
        standings.sort_by_key(|s| (std::cmp::Reverse(s.rank_key()), s.seat));
        standings
    }
}
