//! Games for the server's unit tests: registered players, a live two-player table, and
//! playing it to its end.

use super::*;
use crate::domain::{Settings, Visibility};
use crate::store::{NewPlayer, Store};

/// Two registered players, `p0` and `p1`.
pub async fn two_players(store: &dyn Store) -> Vec<PlayerInfo> {
    let players: Vec<PlayerInfo> = (0..2)
        .map(|i| PlayerInfo {
            id: format!("p{i}"),
            display_name: format!("P{i}"),
            is_bot: true,
        })
        .collect();
    for p in &players {
        store
            .create_player(&NewPlayer {
                player: p.clone(),
                description: String::new(),
                token_hash: p.id.clone(),
                created_at: 0,
            })
            .await
            .unwrap();
    }
    players
}

/// A stored, unstarted 2-player game with its actor, and two registered players.
pub async fn two_player_game(
    store: Arc<dyn Store>,
    options: ActorOptions,
) -> (GameHandle, Vec<PlayerInfo>) {
    let settings = Settings::new(2, vec![], 0, Visibility::Public).unwrap();
    game_with(store, options, settings, None).await
}

/// As [`two_player_game`], with a 60-second turn clock and a seed commitment.
pub async fn clocked_two_player_game(store: Arc<dyn Store>) -> (GameHandle, Vec<PlayerInfo>) {
    let settings = Settings::new(2, vec![], 60, Visibility::Public).unwrap();
    let salt = Some(crate::domain::new_seed_salt());
    game_with(store, ActorOptions::default(), settings, salt).await
}

async fn game_with(
    store: Arc<dyn Store>,
    options: ActorOptions,
    settings: Settings,
    seed_salt: Option<String>,
) -> (GameHandle, Vec<PlayerInfo>) {
    let players = two_players(&*store).await;
    let record = GameInfo {
        id: "g".into(),
        settings,
        seed: 5,
        created_by: "p0".into(),
        // Created now: a table created long ago would expire before anyone joins.
        created_at: crate::domain::now_micros(),
        ladder: false,
        series: None,
        seed_salt,
        seeded: false,
    };
    store
        .create_game(&record, &[], None)
        .await
        .unwrap()
        .unwrap();
    let game = spawn(
        StoredGame {
            record,
            actions: vec![],
        },
        Context::new(store, options, None),
        Role::Owner,
    )
    .unwrap();
    (game, players)
}

/// Seats `players` in order: a two-player table starts with its second.
pub async fn seat_all(game: &GameHandle, players: &[PlayerInfo]) {
    for p in players {
        game.join(p.clone(), None).await.unwrap();
    }
}

/// Seats whoever of `players` is not seated yet, then plays the whole game: the default turn
/// of whoever is to move, each with an idempotency key (`k<seq>`). Nobody reads the game's
/// streams meanwhile.
pub async fn play_to_end(game: &GameHandle, players: &[PlayerInfo]) {
    for p in players {
        if game.latest().await.unwrap().state.seat_of(&p.id).is_none() {
            game.join(p.clone(), None).await.unwrap();
        }
    }
    loop {
        let latest = game.latest().await.unwrap();
        let Some(seat) = latest.state.to_move() else {
            break;
        };
        let turn = latest.state.default_turn(seat).unwrap();
        game.submit(Submit {
            player_id: players[usize::from(seat)].id.clone(),
            expected_seq: latest.seq_after(),
            idempotency_key: format!("k{}", latest.seq_after()),
            turn,
        })
        .await
        .unwrap();
    }
}
