//! The table's layout, pinned for a few fixed positions (plain mode, as pipes get it).

use theboss::convert::view_to_wire;
use theboss::v1;
use theboss_bot::strategy::Strategy;
use theboss_bot::strategy::heuristic::Heuristic;
use theboss_cli::render::{self, Painter};
use theboss_engine::{Game, GameConfig, RulesVersion, Viewer};

const NAMES: [&str; 4] = ["Ann", "Bob", "Cid", "Dee"];

/// A game of `players` after `turns` heuristic turns. The positions were chosen under the
/// first rules version's deal, which is kept for them: the layout is what is pinned here.
fn position(players: u8, seed: u64, turns: usize) -> Game {
    let config = GameConfig::new(players, seed).with_rules(RulesVersion::V1);
    let mut game = Game::new(&config).unwrap();
    for _ in 0..turns {
        let Some(seat) = game.to_move() else { break };
        let turn = Heuristic::new().choose(&game.view(Viewer::Seat(seat)), None);
        game.apply(seat, &turn).unwrap();
    }
    game
}

fn drawn(game: &Game, viewer: Viewer) -> String {
    let view = game.view(viewer);
    let mut wire = view_to_wire(&view);
    wire.status = if game.is_over() {
        v1::GameStatus::Finished
    } else {
        v1::GameStatus::Running
    } as i32;
    for (i, seat) in wire.seats.iter_mut().enumerate() {
        seat.player = Some(v1::SeatPlayer {
            seat: i as u32,
            display_name: NAMES[i].to_string(),
            ..Default::default()
        });
    }
    render::table(&wire, &view, Painter::PLAIN)
}

#[test]
fn the_opening_of_a_three_player_game() {
    let game = position(3, 7, 0);
    let seat = game.to_move().unwrap();
    insta::assert_snapshot!(drawn(&game, Viewer::Seat(seat)));
}

#[test]
fn a_four_player_game_on_its_last_turn() {
    let game = position(4, 3, 16);
    assert!(game.view(Viewer::Spectator).last_turn);
    let seat = game.to_move().unwrap();
    insta::assert_snapshot!(drawn(&game, Viewer::Seat(seat)));
}

#[test]
fn a_finished_two_player_game_for_a_spectator() {
    let game = position(2, 5, 10_000);
    assert!(game.is_over());
    insta::assert_snapshot!(drawn(&game, Viewer::Spectator));
}

#[test]
fn the_deduction_panel() {
    let game = position(3, 7, 4);
    let seat = game.to_move().unwrap();
    insta::assert_snapshot!(render::odds(&game.view(Viewer::Seat(seat))));
}

#[test]
fn a_tournament_crosstable() {
    use theboss::v1;
    let entrant = |id: &str, name: &str| v1::TournamentEntrant {
        player_id: id.into(),
        display_name: name.into(),
        is_bot: true,
        description: String::new(),
    };
    let tournament = v1::Tournament {
        tournament_id: "t1".into(),
        name: "Friday cup".into(),
        format: v1::TournamentFormat::RoundRobin as i32,
        players: 2,
        sets_per_pair: 2,
        status: v1::TournamentStatus::Finished as i32,
        entrants: vec![
            entrant("a", "ismcts"),
            entrant("b", "heuristic"),
            entrant("c", "random"),
        ],
        sets_finished: 3,
        ..Default::default()
    };
    let standing = |rank, id: &str, name: &str, points, diff| v1::TournamentStanding {
        rank,
        player_id: id.into(),
        display_name: name.into(),
        sets: 4,
        points,
        mean_money_diff: diff,
    };
    let cell = |p: &str, o: &str, points, diff, interval: Option<(f64, f64)>| v1::CrosstableCell {
        player_id: p.into(),
        opponent_id: o.into(),
        sets: 2,
        points,
        mean_money_diff: diff,
        interval: interval.map(|(low, high)| v1::Interval { low, high }),
    };
    let report = v1::GetTournamentResponse {
        tournament: Some(tournament.clone()),
        standings: vec![
            standing(1, "a", "ismcts", 3.5, 6.25),
            standing(2, "b", "heuristic", 2.5, 2.0),
            standing(3, "c", "random", 0.0, -8.25),
        ],
        crosstable: vec![
            cell("a", "b", 1.5, 2.5, Some((-3.0, 8.0))),
            cell("a", "c", 2.0, 10.0, Some((6.1, 13.9))),
            cell("b", "a", 0.5, -2.5, Some((-8.0, 3.0))),
            cell("b", "c", 2.0, 6.5, None),
            cell("c", "a", 0.0, -10.0, Some((-13.9, -6.1))),
            cell("c", "b", 0.0, -6.5, None),
        ],
        games: vec![],
    };
    insta::assert_snapshot!(theboss_cli::arranged::render_report(&tournament, &report));
}
