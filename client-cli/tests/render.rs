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
