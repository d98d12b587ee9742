//! One scenario per rule of docs/RULES.md, legal and illegal sides, including the rulebook's
//! worked examples. Hands and face-down cards are rigged so every scenario reads as a story.

use crate::Viewer;
use crate::action::{Location, Placement, Turn};
use crate::cards::{Card, City, Face, PoliceCard, Sanction};
use crate::error::RuleError;
use crate::event::Event;
use crate::game::Game;
use crate::rules::{EXPERTS_PER_PLAYER, OCCASIONALS_PER_PLAYER};
use crate::{GameConfig, Seat};

use City::*;

fn m(city: City, value: u8) -> Card {
    Card::new(city, Face::Money(value))
}

fn s(city: City, sanction: Sanction) -> Card {
    Card::new(city, Face::Sanction(sanction))
}

fn at(city: City) -> Location {
    Location::City(city)
}

fn place(location: Location, experts: u8, occasionals: u8, card: Card) -> Turn {
    Turn::place_and_play(Placement::new(location, experts, occasionals), card)
}

/// A two-player game (New York, Boston, Detroit) with seat 0 to start and rigged cards.
struct Table {
    game: Game,
}

impl Table {
    fn two_players() -> Table {
        Table::new(2)
    }

    fn new(players: u8) -> Table {
        let mut game = Game::new(&GameConfig::new(players, 1)).unwrap();
        game.start_player = 0;
        game.order = (0..players).collect();
        Table { game }
    }

    /// Replaces the hands and face-down cards; they must be a deal of the cards in play.
    fn rig(&mut self, hands: &[&[Card]], face_down: &[Card]) {
        let mut dealt: Vec<Card> = hands.iter().flat_map(|h| h.iter().copied()).collect();
        dealt.extend_from_slice(face_down);
        dealt.sort();
        let mut deck: Vec<Card> = self
            .game
            .setup
            .cities()
            .iter()
            .flat_map(|c| c.cards())
            .collect();
        deck.sort();
        assert_eq!(dealt, deck, "rigged cards must be the cards in play");
        for (seat, hand) in hands.iter().enumerate() {
            self.game.hands[seat] = hand.to_vec();
            self.game.hands[seat].sort();
        }
        self.game.face_down = [None; crate::cards::CITY_COUNT];
        for &card in face_down {
            self.game.face_down[card.city.index()] = Some(card);
        }
    }

    /// The standard rig for two players.
    fn rigged() -> Table {
        let mut t = Table::two_players();
        t.rig(
            &[
                &[
                    m(NewYork, 3),
                    m(NewYork, 1),
                    m(Boston, 2),
                    m(Detroit, 4),
                    m(Detroit, 2),
                ],
                &[
                    m(NewYork, 2),
                    m(Boston, 3),
                    s(Boston, Sanction::Prison),
                    m(Detroit, 1),
                    m(Detroit, 3),
                ],
            ],
            &[m(NewYork, 0), m(Boston, 4), s(Detroit, Sanction::Revolver)],
        );
        t
    }

    fn play(&mut self, seat: Seat, turn: Turn) -> Vec<Event> {
        self.game
            .apply(seat, &turn)
            .unwrap_or_else(|e| panic!("seat {seat} {turn:?}: {e}"))
            .into_iter()
            .map(|e| e.event)
            .collect()
    }

    /// Plays each seat's lowest card, without placement, until the round's last turn ends.
    fn finish_round_quietly(&mut self) -> Vec<Event> {
        let round = self.game.round;
        let mut events = Vec::new();
        while self.game.round == round && !self.game.is_over() {
            let seat = self.game.to_move().unwrap();
            let card = self.game.hand(seat)[0];
            events.extend(self.play(seat, Turn::play(card)));
        }
        events
    }

    fn refuse(&self, seat: Seat, turn: Turn) -> RuleError {
        let mut copy = self.game.clone();
        let err = copy.apply(seat, &turn).unwrap_err();
        assert_eq!(copy, self.game, "an illegal turn changed the game");
        assert!(!self.game.is_legal(seat, &turn));
        err
    }
}

// ---- Turn structure -------------------------------------------------------------------------

#[test]
fn a_turn_may_play_a_card_without_placing() {
    let mut t = Table::rigged();
    let events = t.play(0, Turn::play(m(NewYork, 3)));
    assert!(matches!(
        events[0],
        Event::TurnTaken {
            seat: 0,
            placement: None,
            ..
        }
    ));
    assert_eq!(t.game.board.last_played(NewYork), Some(m(NewYork, 3)));
    assert_eq!(t.game.to_move(), Some(1));
}

#[test]
fn the_card_must_be_in_the_hand() {
    let t = Table::rigged();
    assert_eq!(
        t.refuse(0, Turn::play(m(Boston, 3))),
        RuleError::CardNotInHand { card: m(Boston, 3) }
    );
    // A card that does not exist at all is refused the same way.
    let bogus = m(NewYork, 9);
    assert_eq!(
        t.refuse(0, Turn::play(bogus)),
        RuleError::CardNotInHand { card: bogus }
    );
}

#[test]
fn only_the_seat_to_move_may_play() {
    let t = Table::rigged();
    assert_eq!(
        t.refuse(1, Turn::play(m(NewYork, 2))),
        RuleError::NotYourTurn {
            seat: 1,
            to_move: 0
        }
    );
    assert_eq!(
        t.refuse(7, Turn::play(m(NewYork, 2))),
        RuleError::NoSuchSeat {
            seat: 7,
            players: 2
        }
    );
}

#[test]
fn turns_one_to_four_go_clockwise_from_the_start_player() {
    let mut t = Table::new(4);
    t.game.start_player = 2;
    t.game.order = vec![2, 3, 0, 1];
    let mut seen = Vec::new();
    for _ in 0..8 {
        let seat = t.game.to_move().unwrap();
        seen.push(seat);
        let card = t.game.hand(seat)[0];
        t.play(seat, Turn::play(card));
    }
    assert_eq!(seen, [2, 3, 0, 1, 2, 3, 0, 1]);
}

// ---- Placement -------------------------------------------------------------------------------

#[test]
fn placement_needs_at_least_one_gangster() {
    let t = Table::rigged();
    assert_eq!(
        t.refuse(0, place(at(Boston), 0, 0, m(NewYork, 3))),
        RuleError::EmptyPlacement
    );
}

#[test]
fn take_back_example_one_against_two_needs_two_more() {
    // docs/RULES.md §4.2: A has 1 and B has 2 in a city, so A must add at least 2.
    let mut t = Table::rigged();
    t.play(0, place(at(Boston), 1, 0, m(NewYork, 3)));
    t.play(1, place(at(Boston), 2, 0, m(NewYork, 2)));
    assert_eq!(
        t.refuse(0, place(at(Boston), 1, 0, m(NewYork, 1))),
        RuleError::MustTakeLead {
            location: at(Boston),
            needed: 2,
            leader: 1,
            leader_count: 2,
            yours: 1
        }
    );
    let message = t
        .refuse(0, place(at(Boston), 1, 0, m(NewYork, 1)))
        .to_string();
    assert_eq!(
        message,
        "you need at least 2 gangsters in Boston to take the lead: seat 1 has 2, you have 1"
    );
    t.play(0, place(at(Boston), 2, 0, m(NewYork, 1)));
    assert_eq!(t.game.board.leader(at(Boston)), Some(0));
}

#[test]
fn a_tie_for_the_lead_is_not_allowed() {
    let mut t = Table::rigged();
    t.play(0, place(at(Detroit), 2, 0, m(NewYork, 3)));
    assert!(matches!(
        t.refuse(1, place(at(Detroit), 2, 0, m(NewYork, 2))),
        RuleError::MustTakeLead { needed: 3, .. }
    ));
    t.play(1, place(at(Detroit), 3, 0, m(NewYork, 2)));
}

#[test]
fn placing_no_more_experts_than_available() {
    let mut t = Table::rigged();
    t.play(0, place(at(Boston), 5, 0, m(NewYork, 3)));
    t.play(1, Turn::play(m(NewYork, 2)));
    assert_eq!(
        t.refuse(0, place(at(Detroit), 2, 0, m(NewYork, 1))),
        RuleError::NotEnoughExperts {
            requested: 2,
            available: 1
        }
    );
    t.play(0, place(at(Detroit), 1, 0, m(NewYork, 1)));
    assert_eq!(t.game.player(0).supply.experts_free, 0);
}

#[test]
fn placing_no_more_occasionals_than_owned() {
    let mut t = Table::rigged();
    assert_eq!(
        t.refuse(0, place(at(Boston), 1, 4, m(NewYork, 3))),
        RuleError::NotEnoughOccasionals {
            requested: 4,
            available: 3
        }
    );
    t.play(0, place(at(Boston), 1, 3, m(NewYork, 3)));
    assert_eq!(t.game.player(0).supply.occasionals, 0);
}

#[test]
fn occasionals_need_an_expert_with_them_or_already_there() {
    let mut t = Table::rigged();
    assert_eq!(
        t.refuse(0, place(at(Boston), 0, 2, m(NewYork, 3))),
        RuleError::OccasionalsNeedExpert {
            location: at(Boston)
        }
    );
    t.play(0, place(at(Boston), 1, 1, m(NewYork, 3)));
    t.play(1, Turn::play(m(NewYork, 2)));
    // An Expert of seat 0 is already in Boston: Occasionals alone are fine there...
    t.play(0, place(at(Boston), 0, 1, m(NewYork, 1)));
    // ...but not in a city where seat 1 has no Expert.
    assert_eq!(
        t.refuse(1, place(at(Detroit), 0, 1, m(Boston, 3))),
        RuleError::OccasionalsNeedExpert {
            location: at(Detroit)
        }
    );
}

#[test]
fn cities_out_of_play_are_refused() {
    let t = Table::rigged();
    assert_eq!(
        t.refuse(0, place(at(Memphis), 1, 0, m(NewYork, 3))),
        RuleError::CityNotInPlay { city: Memphis }
    );
}

#[test]
fn chicago_only_after_an_earlier_placement_elsewhere_this_round() {
    let mut t = Table::rigged();
    assert_eq!(
        t.refuse(0, place(Location::Chicago, 1, 0, m(NewYork, 3))),
        RuleError::ChicagoTooEarly
    );
    t.play(0, place(at(NewYork), 1, 0, m(NewYork, 3)));
    t.play(1, Turn::play(m(NewYork, 2)));
    t.play(0, place(Location::Chicago, 2, 1, m(NewYork, 1)));
    assert_eq!(t.game.board.leader(Location::Chicago), Some(0));
    // Gangsters return every round, so the condition starts over.
    t.finish_round_quietly();
    let seat = t.game.to_move().unwrap();
    let card = t.game.hand(seat)[0];
    assert_eq!(
        t.refuse(seat, place(Location::Chicago, 1, 0, card)),
        RuleError::ChicagoTooEarly
    );
}

#[test]
fn banished_players_may_not_place_in_that_city() {
    let mut t = Table::new(3);
    // Default 3-player cities: New York, Boston, Detroit, Kansas City, Cincinnati.
    t.rig(
        &[
            &[
                m(NewYork, 0),
                m(NewYork, 1),
                m(Boston, 2),
                m(Detroit, 1),
                m(KansasCity, 2),
            ],
            &[
                m(NewYork, 2),
                m(Boston, 3),
                m(Detroit, 2),
                m(Detroit, 3),
                m(Cincinnati, 1),
            ],
            &[
                m(Boston, 4),
                m(Detroit, 4),
                m(Cincinnati, 2),
                m(Cincinnati, 3),
                s(KansasCity, Sanction::Revolver),
            ],
        ],
        &[
            m(NewYork, 3),
            s(Boston, Sanction::Prison),
            s(Detroit, Sanction::Revolver),
            m(KansasCity, 3),
            s(Cincinnati, Sanction::Banished),
        ],
    );
    t.play(0, place(at(Cincinnati), 1, 0, m(NewYork, 0)));
    let events = t.finish_round_quietly();
    let resolved = events
        .iter()
        .find_map(|e| match e {
            Event::RoundResolved(r) => Some(r.clone()),
            _ => None,
        })
        .unwrap();
    let award = resolved
        .awards
        .iter()
        .find(|a| a.location == at(Cincinnati))
        .unwrap();
    assert_eq!(award.winner, Some(0));
    assert_eq!(
        award.sanction.map(|s| (s.sanction, s.applied)),
        Some((Sanction::Banished, true))
    );
    assert!(t.game.player(0).is_banished(Cincinnati));
    // Rotate to seat 0's turn and try Cincinnati again, for the rest of the game.
    while t.game.to_move() != Some(0) {
        let seat = t.game.to_move().unwrap();
        let card = t.game.hand(seat)[0];
        t.play(seat, Turn::play(card));
    }
    let card = t.game.hand(0)[0];
    assert_eq!(
        t.refuse(0, place(at(Cincinnati), 1, 0, card)),
        RuleError::Banished { city: Cincinnati }
    );
    assert!(
        t.game
            .placement_options(0)
            .iter()
            .all(|o| o.location != at(Cincinnati))
    );
    t.play(0, place(at(Boston), 1, 0, card));
}

#[test]
fn placed_gangsters_stay_until_the_end_of_the_round() {
    let mut t = Table::rigged();
    t.play(0, place(at(Boston), 2, 1, m(NewYork, 3)));
    let supply = t.game.player(0).supply;
    assert_eq!((supply.experts_free, supply.experts_placed), (4, 2));
    assert_eq!((supply.occasionals, supply.occasionals_placed), (2, 1));
}

// ---- Police and the last turn -------------------------------------------------------------

fn play_turns(t: &mut Table, turns: usize) {
    for _ in 0..turns {
        let seat = t.game.to_move().unwrap();
        let card = t.game.hand(seat)[0];
        t.play(seat, Turn::play(card));
    }
}

#[test]
fn police_card_is_revealed_before_the_start_players_fourth_turn() {
    let mut t = Table::rigged();
    t.game.police_deck = vec![PoliceCard::Gold, PoliceCard::Silver];
    play_turns(&mut t, 5);
    assert!(t.game.police_revealed().is_empty());
    let seat = t.game.to_move().unwrap();
    let card = t.game.hand(seat)[0];
    let events = t.play(seat, Turn::play(card));
    assert_eq!(
        events.last(),
        Some(&Event::PoliceRevealed {
            card: PoliceCard::Silver,
            silver: 1,
            gold: 0,
            last_round: false
        })
    );
    assert_eq!((t.game.turn(), t.game.to_move()), (4, Some(0)));
    assert!(t.game.hands.iter().all(|h| h.len() == 2));
}

#[test]
fn a_third_badge_of_one_colour_makes_the_round_the_last() {
    let mut t = Table::rigged();
    t.game.police_revealed = vec![PoliceCard::Gold, PoliceCard::Silver, PoliceCard::Gold];
    t.game.police_deck = vec![PoliceCard::Silver, PoliceCard::Double];
    play_turns(&mut t, 6);
    assert_eq!(t.game.badges(), (2, 3));
    assert!(t.game.is_last_round());
    t.game.players[0].money = 1; // no tie, so no decisive round
    let events = t.finish_round_quietly();
    assert!(events.iter().any(|e| matches!(e, Event::GameEnded(_))));
    assert!(t.game.is_over());
    assert_eq!(t.game.to_move(), None);
    assert_eq!(t.refuse(0, Turn::play(m(NewYork, 0))), RuleError::GameOver);
}

#[test]
fn two_badges_of_each_colour_do_not_end_the_game() {
    let mut t = Table::rigged();
    t.game.police_revealed = vec![PoliceCard::Silver, PoliceCard::Gold, PoliceCard::Gold];
    t.game.police_deck = vec![PoliceCard::Double, PoliceCard::Silver];
    play_turns(&mut t, 6);
    assert_eq!(t.game.badges(), (2, 2));
    assert!(!t.game.is_last_round());
    t.finish_round_quietly();
    assert!(!t.game.is_over());
    assert_eq!(t.game.round(), 2);
}

#[test]
fn last_turn_order_is_most_gangsters_in_front_first_ties_clockwise() {
    // Rulebook example shape: three players, start player seat 1, ties keep clockwise order.
    let mut t = Table::new(3);
    t.game.start_player = 1;
    t.game.order = vec![1, 2, 0];
    // Turns 1-4. Seat 1 places 3, seat 2 places 1, seat 0 places 3 (two Experts, one
    // Occasional): in front 6 (0), 6 (1), 8 (2).
    for turn in 1..=4 {
        for seat in [1, 2, 0] {
            let card = t.game.hand(seat)[0];
            let turn_action = match (turn, seat) {
                (1, 1) => place(at(NewYork), 3, 0, card),
                (1, 2) => place(at(Boston), 1, 0, card),
                (1, 0) => place(at(Detroit), 2, 1, card),
                _ => Turn::play(card),
            };
            let events = t.play(seat, turn_action);
            if turn == 4 && seat == 0 {
                assert!(events.contains(&Event::LastTurnOrder {
                    order: vec![2, 1, 0]
                }));
            }
        }
    }
    assert_eq!(t.game.turn(), 5);
    assert_eq!(t.game.turn_order(), [2, 1, 0]);
    let view = t.game.view(Viewer::Spectator);
    assert!(view.last_turn);
    // Players may still place on the last turn.
    let card = t.game.hand(2)[0];
    t.play(2, place(at(KansasCity), 2, 0, card));
}

// ---- Resolution -----------------------------------------------------------------------------

fn resolution(events: &[Event]) -> crate::event::RoundSummary {
    events
        .iter()
        .find_map(|e| match e {
            Event::RoundResolved(r) => Some(r.clone()),
            _ => None,
        })
        .expect("the round was resolved")
}

#[test]
fn chicago_pays_half_of_the_last_cards_to_its_left_rounded_down() {
    // docs/RULES.md §5: New York last played 3, Detroit last played 4, Chicago to their right:
    // 7, so the leader gets 3.
    let mut t = Table::rigged();
    t.game.board.set_chicago_at(3);
    t.play(0, place(at(NewYork), 1, 0, m(NewYork, 1)));
    t.play(1, Turn::play(m(NewYork, 2)));
    t.play(0, place(Location::Chicago, 1, 0, m(NewYork, 3)));
    t.play(1, Turn::play(m(Detroit, 1)));
    t.play(0, Turn::play(m(Detroit, 4)));
    assert_eq!(t.game.board.chicago_sum(), 7);
    assert_eq!(t.game.view(Viewer::Spectator).chicago_value, 3);
    // Boston's last card is a Prison (counts 0); New York stays 3, Detroit stays 4.
    t.play(1, Turn::play(s(Boston, Sanction::Prison)));
    t.play(0, Turn::play(m(Boston, 2)));
    t.play(1, Turn::play(m(Boston, 3)));
    // Last turn: seat 1 has more gangsters in front and goes first. Detroit's last card ends
    // as the 2 and Boston's stays the 3: 3 + 3 + 2 = 8 pays 4.
    assert_eq!(t.game.turn_order(), [1, 0]);
    t.play(1, Turn::play(m(Detroit, 3)));
    let events = t.play(0, Turn::play(m(Detroit, 2)));
    let summary = resolution(&events);
    let chicago = summary
        .awards
        .iter()
        .find(|a| a.location == Location::Chicago)
        .unwrap();
    assert_eq!(
        (chicago.winner, chicago.chicago_sum, chicago.money),
        (Some(0), Some(8), 4)
    );
}

#[test]
fn sanctions_count_zero_for_chicago_and_empty_cities_count_zero() {
    let mut t = Table::rigged();
    t.game.board.set_chicago_at(3);
    t.play(0, Turn::play(m(NewYork, 1)));
    t.play(1, Turn::play(s(Boston, Sanction::Prison)));
    // Detroit has no card played: New York 1 + Prison 0 + nothing = 1.
    assert_eq!(t.game.board.chicago_sum(), 1);
    assert_eq!(t.game.view(Viewer::Spectator).chicago_value, 0);
}

#[test]
fn nobody_takes_an_empty_location() {
    let mut t = Table::rigged();
    let summary = resolution(&t.finish_round_quietly());
    assert!(
        summary
            .awards
            .iter()
            .all(|a| a.winner.is_none() && a.money == 0)
    );
    assert_eq!(summary.money_won, [0, 0]);
    assert_eq!(
        summary.face_down,
        [m(NewYork, 0), m(Boston, 4), s(Detroit, Sanction::Revolver)]
    );
}

#[test]
fn money_cards_pay_their_value_to_the_leader() {
    let mut t = Table::rigged();
    t.play(0, place(at(Boston), 1, 0, m(NewYork, 3)));
    t.play(1, place(at(Boston), 2, 0, m(NewYork, 2)));
    let summary = resolution(&t.finish_round_quietly());
    let boston = summary
        .awards
        .iter()
        .find(|a| a.location == at(Boston))
        .unwrap();
    assert_eq!(
        (boston.winner, boston.card, boston.money),
        (Some(1), Some(m(Boston, 4)), 4)
    );
    assert_eq!(t.game.player(1).money, 4);
    assert_eq!(t.game.player(1).money_last_round, 4);
    assert_eq!(t.game.player(0).money, 0);
}

#[test]
fn revolver_kills_an_expert_for_good() {
    let mut t = Table::rigged();
    t.play(0, place(at(Detroit), 2, 1, m(NewYork, 3)));
    t.finish_round_quietly();
    let supply = t.game.player(0).supply;
    assert_eq!(
        (supply.killed, supply.experts_free),
        (1, EXPERTS_PER_PLAYER - 1)
    );
    assert_eq!(
        (supply.occasionals, supply.occasionals_used),
        (OCCASIONALS_PER_PLAYER - 1, 1)
    );
    assert_eq!(t.game.player(1).supply.experts_free, EXPERTS_PER_PLAYER);
}

#[test]
fn prison_keeps_an_expert_out_for_two_rounds_and_hospital_for_one() {
    let mut t = Table::new(4);
    // Default 4-player cities; Boston hides the Prison, Memphis the Hospital.
    t.rig(
        &[
            &[
                m(NewYork, 0),
                m(NewYork, 1),
                m(Boston, 2),
                m(Detroit, 1),
                m(KansasCity, 2),
            ],
            &[
                m(NewYork, 2),
                m(Boston, 3),
                m(Detroit, 2),
                m(Detroit, 3),
                m(Cincinnati, 1),
            ],
            &[
                m(Boston, 4),
                m(Detroit, 4),
                m(Cincinnati, 2),
                m(Cincinnati, 3),
                s(KansasCity, Sanction::Revolver),
            ],
            &[
                m(Memphis, 1),
                m(Memphis, 2),
                m(Memphis, 3),
                m(Philadelphia, 3),
                s(Philadelphia, Sanction::Revolver),
            ],
        ],
        &[
            m(NewYork, 3),
            s(Boston, Sanction::Prison),
            s(Detroit, Sanction::Revolver),
            m(KansasCity, 3),
            s(Cincinnati, Sanction::Banished),
            s(Memphis, Sanction::Hospital),
            s(Philadelphia, Sanction::Prison),
        ],
    );
    t.play(0, place(at(Boston), 1, 0, m(NewYork, 0)));
    t.play(1, place(at(Memphis), 1, 0, m(NewYork, 2)));
    let summary = resolution(&t.finish_round_quietly());
    let applied: Vec<_> = summary
        .awards
        .iter()
        .filter_map(|a| a.sanction.map(|s| (a.winner, s.sanction, s.applied)))
        .collect();
    assert_eq!(
        applied,
        [
            (Some(0), Sanction::Prison, true),
            (Some(1), Sanction::Hospital, true)
        ]
    );
    let away = |t: &Table, seat: Seat| {
        let s = t.game.player(seat).supply;
        (
            s.experts_free,
            s.experts_in_prison(),
            s.experts_in_hospital(),
        )
    };
    assert_eq!((away(&t, 0), away(&t, 1)), ((5, 1, 0), (5, 0, 1)));
    t.finish_round_quietly(); // round 2: both miss it
    assert_eq!((away(&t, 0), away(&t, 1)), ((5, 1, 0), (6, 0, 0)));
    t.finish_round_quietly(); // round 3: the prisoner still misses it
    assert_eq!(away(&t, 0), (6, 0, 0));
}

#[test]
fn several_sanctions_on_one_player_take_different_experts() {
    let mut t = Table::rigged();
    // Detroit hides the Revolver; put the Prison face down in Boston instead of the 4.
    t.rig(
        &[
            &[
                m(NewYork, 3),
                m(NewYork, 1),
                m(Boston, 2),
                m(Detroit, 4),
                m(Detroit, 2),
            ],
            &[
                m(NewYork, 2),
                m(Boston, 3),
                m(Boston, 4),
                m(Detroit, 1),
                m(Detroit, 3),
            ],
        ],
        &[
            m(NewYork, 0),
            s(Boston, Sanction::Prison),
            s(Detroit, Sanction::Revolver),
        ],
    );
    t.play(0, place(at(Boston), 1, 0, m(NewYork, 3)));
    t.play(1, Turn::play(m(NewYork, 2)));
    t.play(0, place(at(Detroit), 1, 0, m(NewYork, 1)));
    let summary = resolution(&t.finish_round_quietly());
    assert!(
        summary
            .awards
            .iter()
            .filter_map(|a| a.sanction)
            .all(|s| s.applied)
    );
    let supply = t.game.player(0).supply;
    assert_eq!(
        (
            supply.experts_free,
            supply.experts_in_prison(),
            supply.killed
        ),
        (4, 1, 1)
    );
}

#[test]
fn a_sanction_without_an_expert_in_play_has_no_effect() {
    use crate::player::Sanctioned;
    let mut booked = Sanctioned::default();
    assert!(booked.book(Sanction::Revolver, 1));
    assert!(!booked.book(Sanction::Prison, 1));
    assert!(
        booked.book(Sanction::Banished, 1),
        "banishment takes no Expert"
    );
    assert_eq!(booked.total(), 1);
}

#[test]
fn end_of_round_moves_chicago_and_passes_the_start_player() {
    let mut t = Table::rigged();
    assert_eq!(t.game.board.chicago_at(), 1);
    let events = t.finish_round_quietly();
    assert_eq!(t.game.round(), 2);
    assert_eq!(t.game.start_player(), 1);
    assert_eq!(t.game.to_move(), Some(1));
    assert_eq!(t.game.board.chicago_at(), 2);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::RoundStarted {
            round: 2,
            start_player: 1,
            decisive: false,
            ..
        }
    )));
    assert!(t.game.hands.iter().all(|h| h.len() == 5));
    let supply = t.game.player(0).supply;
    assert_eq!((supply.experts_free, supply.experts_placed), (6, 0));
}

// ---- End of the game ------------------------------------------------------------------------

/// Makes the current round the last and sets money so the standings are known.
fn last_round_with(t: &mut Table, money: &[u32]) {
    t.game.last_round = true;
    for (seat, &m) in money.iter().enumerate() {
        t.game.players[seat].money = m;
    }
}

fn winners(events: &[Event]) -> Option<Vec<Seat>> {
    events.iter().find_map(|e| match e {
        Event::GameEnded(o) => Some(o.winners.clone()),
        _ => None,
    })
}

#[test]
fn the_richest_player_wins() {
    let mut t = Table::rigged();
    last_round_with(&mut t, &[10, 12]);
    let events = t.finish_round_quietly();
    assert_eq!(winners(&events), Some(vec![1]));
    let outcome = t.game.outcome().unwrap();
    assert_eq!(outcome.standings[0].money, 12);
    assert!(!outcome.decisive_round());
}

#[test]
fn a_money_tie_goes_to_the_most_money_won_in_the_last_round() {
    let mut t = Table::rigged();
    last_round_with(&mut t, &[10, 6]);
    t.play(0, Turn::play(m(NewYork, 3)));
    t.play(1, place(at(Boston), 1, 0, m(NewYork, 2)));
    let events = t.finish_round_quietly();
    // Seat 1 wins Boston's 4: 10 against 10, but 4 against 0 won this round.
    assert_eq!(winners(&events), Some(vec![1]));
}

#[test]
fn then_to_the_most_gangsters_owned() {
    let mut t = Table::rigged();
    last_round_with(&mut t, &[10, 10]);
    // Seat 0 uses an Occasional (gone at the end of the round): 8 owned against 9.
    t.play(0, place(at(NewYork), 1, 1, m(NewYork, 3)));
    let events = t.finish_round_quietly();
    // New York's face-down is the 0: no money changes hands.
    assert_eq!(winners(&events), Some(vec![1]));
    let standings = &t.game.outcome().unwrap().standings;
    assert_eq!(standings[1].gangsters_owned, 8);
}

#[test]
fn a_complete_tie_plays_a_decisive_round_without_police() {
    let mut t = Table::rigged();
    last_round_with(&mut t, &[10, 10]);
    let events = t.finish_round_quietly();
    t.game.police_deck = vec![PoliceCard::Silver];
    assert!(events.contains(&Event::DecisiveRound {
        contenders: vec![0, 1]
    }));
    assert!(!t.game.is_over());
    assert_eq!(t.game.contenders(), Some(&[0, 1][..]));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::RoundStarted { decisive: true, .. }))
    );
    // The decisive round reveals no police card.
    play_turns(&mut t, 6);
    assert_eq!(t.game.police_deck(), [PoliceCard::Silver]);
    // Seat 1 (start player now) takes a city worth money and wins.
    let seat = t.game.to_move().unwrap();
    let hand = t.game.hand(seat).to_vec();
    let city = t
        .game
        .face_down
        .iter()
        .flatten()
        .find(|c| c.face.money() > 0)
        .unwrap()
        .city;
    t.play(seat, place(at(city), 1, 0, hand[0]));
    let events = t.finish_round_quietly();
    assert_eq!(winners(&events), Some(vec![seat]));
    assert!(t.game.outcome().unwrap().decisive_round());
}

#[test]
fn a_tie_after_the_decisive_round_is_a_shared_win() {
    let mut t = Table::rigged();
    last_round_with(&mut t, &[10, 10]);
    t.finish_round_quietly();
    assert!(t.game.contenders().is_some());
    let events = t.finish_round_quietly();
    assert_eq!(winners(&events), Some(vec![0, 1]));
    assert_eq!(t.game.round(), 2);
}

#[test]
fn only_the_tied_seats_contend_in_the_decisive_round() {
    let mut t = Table::new(3);
    last_round_with(&mut t, &[10, 3, 10]);
    t.finish_round_quietly();
    assert_eq!(t.game.contenders(), Some(&[0, 2][..]));
    // Seat 1 can no longer win even by taking everything.
    t.game.players[1].money = 100;
    let events = t.finish_round_quietly();
    let won = winners(&events).unwrap();
    assert!(!won.contains(&1), "{won:?}");
    let outcome = t.game.outcome().unwrap();
    assert_eq!(outcome.contenders, [0, 2]);
    assert_eq!(
        outcome.standings[2].seat, 1,
        "non-contenders rank after the contenders"
    );
}

// ---- Views -----------------------------------------------------------------------------------

#[test]
fn a_seat_sees_its_hand_and_everybody_s_backs_but_no_other_face() {
    let t = Table::rigged();
    let view = t.game.view(Viewer::Seat(1));
    assert_eq!(view.hand.as_deref(), Some(t.game.hand(1)));
    assert_eq!(view.seat(0).backs(NewYork), 2);
    assert_eq!(view.seat(0).backs(Boston), 1);
    assert_eq!(view.seat(0).backs(Detroit), 2);
    assert_eq!(view.seat(0).hand_size(), 5);
    assert!(view.legal.is_none(), "not seat 1's turn");
    assert!(t.game.view(Viewer::Seat(0)).legal.is_some());
    let text = serde_json::to_string(&view).unwrap();
    // The search below can see cards: seat 1's own New York 2 is found in this form...
    assert!(
        text.contains("\"new_york\",\"face\":{\"money\":2}"),
        "{text}"
    );
    // ...while seat 0's New York 3 and the face-down Boston 4 appear nowhere in seat 1's view.
    assert!(
        !text.contains("\"new_york\",\"face\":{\"money\":3}"),
        "{text}"
    );
    assert!(
        !text.contains("\"boston\",\"face\":{\"money\":4}"),
        "{text}"
    );
}

#[test]
fn deduction_spreads_each_city_over_the_unseen_cards() {
    let mut t = Table::rigged();
    t.play(0, Turn::play(m(NewYork, 3)));
    let view = t.game.view(Viewer::Seat(1));
    let odds = crate::deduction::face_down_odds(&view);
    let new_york = odds.iter().find(|o| o.city == NewYork).unwrap();
    // Seat 1 holds the 2 and saw the 3 played: the 0 or the 1, half each.
    assert_eq!(
        new_york.candidates,
        [(m(NewYork, 0), 0.5), (m(NewYork, 1), 0.5)]
    );
    assert_eq!(new_york.expected_money(), 0.5);
    let detroit = odds.iter().find(|o| o.city == Detroit).unwrap();
    assert_eq!(detroit.candidates.len(), 3);
    let total: f64 = detroit.candidates.iter().map(|(_, p)| p).sum();
    assert!((total - 1.0).abs() < 1e-9);
}
