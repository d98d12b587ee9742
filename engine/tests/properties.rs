//! Properties over thousands of random games for 2, 3 and 4 players: conservation of cards and
//! gangsters, no tied leads, `is_legal` agreeing with `legal_actions`, illegal turns changing
//! nothing, replay reproducing the game, games ending in 3–6 rounds with a winner, and views
//! leaking nothing (re-dealing all a viewer cannot see leaves its view identical).

use std::collections::HashSet;

use proptest::prelude::*;
use theboss_engine::rules::{EXPERTS_PER_PLAYER, OCCASIONALS_PER_PLAYER};
use theboss_engine::{
    Card, City, Event, Face, Game, GameConfig, GameRng, Location, LoggedEvent, Placement, Sanction,
    Seat, Turn, Viewer,
};

/// A turn drawn from the whole space of well-formed turns, legal or not.
fn any_turn(rng: &mut GameRng) -> Turn {
    let city = City::ALL[rng.below(7) as usize];
    let faces = city.faces();
    let face = if rng.below(8) == 0 {
        Face::Sanction(Sanction::Banished)
    } else {
        faces[rng.below(faces.len() as u32) as usize]
    };
    let placement = (rng.below(3) != 0).then(|| {
        let location = if rng.below(8) == 0 {
            Location::Chicago
        } else {
            Location::City(City::ALL[rng.below(7) as usize])
        };
        Placement::new(location, rng.below(8) as u8, rng.below(5) as u8)
    });
    Turn {
        placement,
        card: Card::new(city, face),
    }
}

fn check_conservation(game: &Game) {
    let mut cards: Vec<Card> = Vec::new();
    for seat in 0..game.players() {
        cards.extend_from_slice(game.hand(seat));
    }
    if !game.is_over() {
        for &city in game.setup().cities() {
            cards.extend_from_slice(game.board().played(city));
            let under = game
                .face_down(city)
                .expect("a face-down card under every city");
            assert_eq!(under.city, city, "the card under a city is one of its own");
            cards.push(under);
        }
        let mut deck: Vec<Card> = game
            .setup()
            .cities()
            .iter()
            .flat_map(|c| c.cards())
            .collect();
        deck.sort();
        cards.sort();
        assert_eq!(
            cards, deck,
            "every card is in a hand, a column or face down"
        );
    }
    for seat in 0..game.players() {
        let s = game.player(seat).supply;
        assert_eq!(
            s.experts_free
                + s.experts_placed
                + s.experts_in_hospital()
                + s.experts_in_prison()
                + s.killed,
            EXPERTS_PER_PLAYER
        );
        assert_eq!(
            s.occasionals + s.occasionals_placed + s.occasionals_used,
            OCCASIONALS_PER_PLAYER
        );
        let on_board = game
            .board()
            .locations()
            .map(|l| game.board().gangsters(l, seat))
            .fold((0, 0), |(e, o), g| (e + g.experts, o + g.occasionals));
        if !game.is_over() {
            assert_eq!(on_board, (s.experts_placed, s.occasionals_placed));
        }
    }
}

fn check_no_tied_lead(game: &Game) {
    for location in game.board().locations() {
        let mut totals: Vec<u8> = (0..game.players())
            .map(|s| game.board().gangsters(location, s).total())
            .filter(|&t| t > 0)
            .collect();
        totals.sort_unstable();
        if let [.., second, first] = totals[..] {
            assert!(first > second, "tied lead in {location}: {totals:?}");
        }
    }
}

/// Every listed action is legal, every other well-formed turn is not, and an illegal turn
/// leaves the game bit-for-bit unchanged.
fn check_legality(game: &Game, seat: Seat, rng: &mut GameRng) {
    let listed: HashSet<Turn> = game.legal_actions(seat).into_iter().collect();
    assert!(
        !listed.is_empty(),
        "the seat to move always has a legal turn"
    );
    let compact = game.legal_turns(seat).expect("seat to move");
    assert_eq!(compact.count(), listed.len());
    let by_index: HashSet<Turn> = (0..compact.count())
        .map(|i| compact.nth(i).unwrap())
        .collect();
    assert_eq!(by_index, listed);
    assert_eq!(compact.nth(compact.count()), None);
    for turn in &listed {
        assert!(game.is_legal(seat, turn), "{turn:?}");
        assert!(compact.allows(turn));
    }
    for _ in 0..24 {
        let turn = any_turn(rng);
        assert_eq!(
            game.is_legal(seat, &turn),
            listed.contains(&turn),
            "{turn:?}"
        );
        assert_eq!(compact.allows(&turn), listed.contains(&turn), "{turn:?}");
        if !listed.contains(&turn) {
            let mut copy = game.clone();
            assert!(copy.apply(seat, &turn).is_err());
            assert_eq!(&copy, game, "an illegal turn changed the game");
        }
    }
    for other in (0..game.players()).filter(|&s| s != seat) {
        assert!(game.legal_actions(other).is_empty());
        let turn = *listed.iter().next().unwrap();
        let mut copy = game.clone();
        assert!(copy.apply(other, &turn).is_err());
        assert_eq!(&copy, game);
    }
}

/// Re-deals what each viewer cannot see; its view must not change. Returns how many re-deals
/// changed hidden state, so the caller can check the test had teeth.
fn check_no_leak(game: &Game, rng: &mut GameRng) -> usize {
    let mut changed = 0;
    let viewers = (0..game.players())
        .map(Viewer::Seat)
        .chain(std::iter::once(Viewer::Spectator));
    for viewer in viewers {
        let other = game.redeal_hidden(viewer, rng);
        assert_eq!(
            other.view(viewer),
            game.view(viewer),
            "{viewer:?} can tell a re-deal"
        );
        if let Viewer::Seat(seat) = viewer {
            assert_eq!(other.hand(seat), game.hand(seat));
        }
        if other != *game {
            changed += 1;
        }
    }
    changed
}

struct Played {
    game: Game,
    log: Vec<(Seat, Turn)>,
    events: Vec<LoggedEvent>,
    redeals_that_changed_something: usize,
}

fn play_random_game(players: u8, seed: u64, thorough: bool) -> Played {
    let config = GameConfig::new(players, seed);
    let (mut game, mut events) = Game::start(&config).unwrap();
    let mut rng = GameRng::from_seed(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut log = Vec::new();
    let mut redeals = 0;
    while let Some(seat) = game.to_move() {
        check_conservation(&game);
        check_no_tied_lead(&game);
        if thorough {
            check_legality(&game, seat, &mut rng);
            if rng.below(4) == 0 {
                redeals += check_no_leak(&game, &mut rng);
            }
        }
        let actions = game.legal_actions(seat);
        let turn = actions[rng.below(actions.len() as u32) as usize];
        events.extend(game.apply(seat, &turn).unwrap());
        log.push((seat, turn));
        assert!(log.len() < 1000, "a game cannot go on forever");
    }
    check_conservation(&game);
    Played {
        game,
        log,
        events,
        redeals_that_changed_something: redeals,
    }
}

fn check_ending(played: &Played) {
    let game = &played.game;
    let outcome = game.outcome().expect("over");
    assert!((3..=6).contains(&game.round()), "{} rounds", game.round());
    assert!(!outcome.winners.is_empty());
    let can_win = |seat: Seat| outcome.contenders.is_empty() || outcome.contenders.contains(&seat);
    let best = outcome
        .standings
        .iter()
        .filter(|s| can_win(s.seat))
        .map(|s| s.money)
        .max()
        .unwrap();
    for &w in &outcome.winners {
        let s = outcome.standings.iter().find(|s| s.seat == w).unwrap();
        assert!(can_win(w));
        assert_eq!(
            s.money, best,
            "a winner has the most money of those who could win"
        );
    }
    assert_eq!(outcome.standings[0].seat, outcome.winners[0]);
    assert_eq!(
        outcome.decisive_round(),
        game.round() > rounds_of_police(game)
    );
    let ended = played
        .events
        .iter()
        .filter(|e| matches!(e.event, Event::GameEnded(_)))
        .count();
    assert_eq!(ended, 1);
}

/// Rounds before the decisive one: the round in which the third badge showed.
fn rounds_of_police(game: &Game) -> u8 {
    game.police_revealed().len() as u8
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(players in 2u8..=4, seed in any::<u64>()) {
        let played = play_random_game(players, seed, true);
        check_ending(&played);
        let replayed = Game::replay(&GameConfig::new(players, seed), &played.log).unwrap();
        prop_assert_eq!(&replayed, &played.game);
    }
}

#[test]
fn thousands_of_games_end_properly_for_every_player_count() {
    let mut rounds = [[0usize; 7]; 5];
    for players in 2..=4u8 {
        for seed in 0..1000 {
            let played = play_random_game(players, seed, false);
            check_ending(&played);
            rounds[usize::from(players)][usize::from(played.game.round())] += 1;
        }
    }
    for (players, r) in rounds.iter().enumerate().skip(2) {
        assert_eq!(r[0] + r[1] + r[2], 0);
        assert!(r[3] > 0 && r[4] > 0 && r[5] > 0, "{players}p rounds: {r:?}");
    }
}

#[test]
fn views_leak_nothing_and_the_check_has_teeth() {
    let mut changed = 0;
    for seed in 0..60 {
        changed +=
            play_random_game(2 + (seed % 3) as u8, seed, true).redeals_that_changed_something;
    }
    assert!(
        changed > 100,
        "re-deals almost never changed hidden state: {changed}"
    );
}

#[test]
fn a_leaky_view_would_be_caught() {
    // The check itself: a "view" that exposes another hand must differ after a re-deal.
    let game = Game::new(&GameConfig::new(4, 5)).unwrap();
    let mut rng = GameRng::from_seed(1);
    let differs =
        (0..20).any(|_| game.redeal_hidden(Viewer::Seat(0), &mut rng).hand(1) != game.hand(1));
    assert!(differs);
}

#[test]
fn same_config_and_log_give_the_same_events() {
    let a = play_random_game(4, 99, false);
    let b = play_random_game(4, 99, false);
    assert_eq!(a.events, b.events);
    let config = GameConfig::new(4, 99);
    let (mut game, mut events) = Game::start(&config).unwrap();
    for (seat, turn) in &a.log {
        events.extend(game.apply(*seat, turn).unwrap());
    }
    assert_eq!(events, a.events);
}

#[test]
fn event_visibility_matches_the_views() {
    let played = play_random_game(3, 12, false);
    for e in &played.events {
        if let Event::HandDealt { seat, .. } = e.event {
            assert!(e.visible_to(Viewer::Seat(seat)));
            assert!(!e.visible_to(Viewer::Spectator));
            assert!(!e.visible_to(Viewer::Seat((seat + 1) % 3)));
        } else {
            assert!(e.visible_to(Viewer::Spectator), "{e:?}");
        }
    }
}

#[test]
fn serde_round_trips_config_actions_events_views_and_games() {
    let played = play_random_game(3, 4, false);
    let json = serde_json::to_string(&played.log).unwrap();
    assert_eq!(
        serde_json::from_str::<Vec<(Seat, Turn)>>(&json).unwrap(),
        played.log
    );
    let json = serde_json::to_string(&played.events).unwrap();
    assert_eq!(
        serde_json::from_str::<Vec<LoggedEvent>>(&json).unwrap(),
        played.events
    );
    let config = GameConfig::new(3, 4).with_cities(vec![
        City::Memphis,
        City::NewYork,
        City::Boston,
        City::Detroit,
        City::KansasCity,
    ]);
    assert!(config.validate().is_ok());
    let json = serde_json::to_string(&config).unwrap();
    assert_eq!(serde_json::from_str::<GameConfig>(&json).unwrap(), config);
    let mid = Game::replay(&GameConfig::new(3, 4), &played.log[..17]).unwrap();
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        let view = mid.view(viewer);
        let json = serde_json::to_string(&view).unwrap();
        assert_eq!(
            serde_json::from_str::<theboss_engine::View>(&json).unwrap(),
            view
        );
    }
    // A setup reads back only through validation.
    let setup = mid.setup().clone();
    let json = serde_json::to_string(&setup).unwrap();
    assert_eq!(
        serde_json::from_str::<theboss_engine::Setup>(&json).unwrap(),
        setup
    );
    let mut bad: serde_json::Value = serde_json::from_str(&json).unwrap();
    bad["players"] = serde_json::json!(9);
    assert!(serde_json::from_value::<theboss_engine::Setup>(bad).is_err());
}

#[test]
fn a_game_sampled_from_a_view_shows_the_same_view_and_plays_on() {
    // Views carry the whole public state: a game rebuilt from one looks the same to its
    // viewer, and can be played to the end.
    let mut rng = GameRng::from_seed(77);
    let mut checked = 0;
    for seed in 0..40u64 {
        let players = 2 + (seed % 3) as u8;
        let full = play_random_game(players, seed, false);
        let stop = rng.below(full.log.len() as u32) as usize;
        let game = Game::replay(&GameConfig::new(players, seed), &full.log[..stop]).unwrap();
        let viewers = (0..players).map(Viewer::Seat).chain([Viewer::Spectator]);
        for viewer in viewers {
            let view = game.view(viewer);
            let mut world = Game::determinize(&view, &mut rng).unwrap();
            assert_eq!(
                world.view(viewer),
                view,
                "seed {seed} turn {stop} {viewer:?}"
            );
            while let Some(seat) = world.to_move() {
                let legal = world.legal_turns(seat).unwrap();
                let turn = legal.nth(rng.below(legal.count() as u32) as usize).unwrap();
                world.apply(seat, &turn).unwrap();
            }
            checked += 1;
        }
    }
    assert!(checked >= 120);
}

#[test]
fn determinize_rejects_an_inconsistent_view() {
    let game = Game::new(&GameConfig::new(3, 1)).unwrap();
    let mut view = game.view(Viewer::Seat(0));
    view.seats[1].hand_backs[0].count += 3;
    assert!(Game::determinize(&view, &mut GameRng::from_seed(1)).is_err());
    let mut view = game.view(Viewer::Spectator);
    view.police.remaining = 1;
    assert!(Game::determinize(&view, &mut GameRng::from_seed(1)).is_err());
    let mut view = game.view(Viewer::Spectator);
    let extra = view.locations[0].clone();
    view.locations.push(extra);
    assert!(Game::determinize(&view, &mut GameRng::from_seed(1)).is_err());
    let mut view = game.view(Viewer::Spectator);
    view.cities.reverse();
    assert!(Game::determinize(&view, &mut GameRng::from_seed(1)).is_err());
}

/// Why `determinize` refuses a view, or "accepted".
fn refusal(view: &theboss_engine::View) -> String {
    match Game::determinize(view, &mut GameRng::from_seed(3)) {
        Ok(_) => "accepted".to_string(),
        Err(theboss_engine::DeterminizeError::Inconsistent(why)) => why.to_string(),
    }
}

#[test]
fn determinize_rejects_views_the_rules_make_impossible() {
    let mut rng = GameRng::from_seed(5);
    let mut last_turns = 0;
    for seed in 0..60u64 {
        let players = 2 + (seed % 3) as u8;
        let full = play_random_game(players, seed, false);
        let stop = rng.below(full.log.len() as u32) as usize;
        let game = Game::replay(&GameConfig::new(players, seed), &full.log[..stop]).unwrap();
        let view = game.view(Viewer::Seat(0));
        assert_eq!(refusal(&view), "accepted", "a real view (seed {seed})");
        let n = usize::from(players);

        let mut v = view.clone();
        v.seats[1].supply.experts_free += 1;
        assert!(
            refusal(&v).contains("Experts do not add up"),
            "{}",
            refusal(&v)
        );

        let mut v = view.clone();
        v.seats[0].supply.occasionals_used += 1;
        assert!(
            refusal(&v).contains("Occasionals do not add up"),
            "{}",
            refusal(&v)
        );

        let mut v = view.clone();
        if v.seats[1].supply.experts_free > 0 {
            v.seats[1].supply.experts_free -= 1;
            v.seats[1].supply.experts_placed += 1;
            assert!(refusal(&v).contains("board"), "{}", refusal(&v));
        }

        let mut v = view.clone();
        let next = v.turn_order[(usize::from(v.acted_this_turn) + 1) % n];
        v.to_move = Some(next);
        assert!(
            refusal(&v).contains("next in the turn order"),
            "{}",
            refusal(&v)
        );

        // Hands: one card moved from a seat's backs to another's.
        let mut v = view.clone();
        if let Some(back) = v.seats[1].hand_backs.iter_mut().find(|b| b.count > 0) {
            back.count -= 1;
            let city = back.city;
            match v.seats[n - 1]
                .hand_backs
                .iter_mut()
                .find(|b| b.city == city)
            {
                Some(b) => b.count += 1,
                None => v.seats[n - 1]
                    .hand_backs
                    .push(theboss_engine::CityCount { city, count: 1 }),
            }
            if n > 2 {
                assert!(refusal(&v).contains("hand's size"), "{}", refusal(&v));
            }
        }

        let mut v = view.clone();
        if v.turn < 5 {
            v.turn_order.swap(0, 1);
            let acted = usize::from(v.acted_this_turn);
            v.to_move = Some(v.turn_order[acted]);
            assert!(refusal(&v).contains("clockwise"), "{}", refusal(&v));
        }

        // The last turn: two seats still to act, in the wrong order for their gangsters.
        for stop in 0..full.log.len() {
            let game = Game::replay(&GameConfig::new(players, seed), &full.log[..stop]).unwrap();
            let mut v = game.view(Viewer::Spectator);
            let acted = usize::from(v.acted_this_turn);
            let front = |s: u8| v.seats[usize::from(s)].supply.in_front();
            let waiting = &v.turn_order[acted.min(v.turn_order.len())..];
            if v.turn == 5 && waiting.len() >= 2 && front(waiting[0]) > front(waiting[1]) {
                v.turn_order.swap(acted, acted + 1);
                v.to_move = Some(v.turn_order[acted]);
                assert!(refusal(&v).contains("last-turn rule"), "{}", refusal(&v));
                last_turns += 1;
                break;
            }
        }
    }
    assert!(
        last_turns >= 10,
        "the last-turn check was exercised {last_turns} times"
    );
}
