//! Shared drivers for the gRPC integration tests: seating players, choosing turns from a
//! view's legal set, playing games to the end and collecting streams.

#![allow(dead_code)] // each test binary uses its own part of these helpers

use theboss::convert::view_to_wire;
use theboss::v1::game_event::Kind;
use theboss::v1::{self, watch_game_response::Message};
use theboss_client::{Connection, Session};
use theboss_engine::{Game, GameConfig, GameRng, Viewer};
use theboss_server::testing::TestServer;
use tokio::task::JoinHandle;
use tonic::Code;

pub fn settings(players: u32) -> v1::GameSettings {
    v1::GameSettings {
        players,
        cities: vec![],
        turn_time_limit_seconds: 0,
        visibility: v1::Visibility::Public as i32,
        rules_version: 0,
    }
}

/// Registers a player on a server.
pub async fn player(server: &TestServer, name: &str) -> Session {
    Connection::connect(&server.url())
        .await
        .expect("connect to the test server")
        .register(name, false)
        .await
        .expect("register")
}

/// Registers `n` players, creates a game with `seed`, and seats them in order.
pub async fn seated_game(server: &TestServer, n: u32, seed: u64) -> (String, Vec<Session>) {
    let mut players = Vec::new();
    for i in 0..n {
        players.push(player(server, &format!("Player {i}")).await);
    }
    let game_id = create(&players[0], settings(n), Some(seed)).await;
    for (i, p) in players.iter().enumerate() {
        let joined = p.join(&game_id, Some(i as u32)).await.expect("join");
        assert_eq!(joined.seat, i as u32);
        assert_eq!(joined.started, i as u32 == n - 1);
    }
    (game_id, players)
}

/// Creates a game; a seeded one is unlisted, as the contract requires.
pub async fn create(p: &Session, mut settings: v1::GameSettings, seed: Option<u64>) -> String {
    if seed.is_some() {
        settings.visibility = v1::Visibility::Unlisted as i32;
    }
    p.create_game(settings, seed).await.expect("create")
}

pub async fn view(p: &Session, game_id: &str) -> v1::GameView {
    p.view(game_id).await.expect("view")
}

pub async fn history(p: &Session, game_id: &str) -> v1::GetHistoryResponse {
    p.history(game_id).await.expect("history")
}

/// A random legal turn from a view's legal set (half the time without placement).
pub fn pick(view: &v1::GameView, rng: &mut GameRng) -> v1::TurnAction {
    let legal = view.legal.as_ref().expect("it is the viewer's turn");
    let card = legal.cards[rng.below(legal.cards.len() as u32) as usize];
    let mut options = Vec::new();
    for o in &legal.placements {
        for e in 0..=o.max_experts {
            for c in 0..=o.max_occasionals {
                let enough = e + c >= o.min_gangsters.max(1);
                let backed = c == 0 || e > 0 || o.expert_present;
                if enough && backed {
                    options.push(v1::Placement {
                        location: o.location,
                        experts: e,
                        occasionals: c,
                    });
                }
            }
        }
    }
    let placement = (!options.is_empty() && rng.below(2) == 0)
        .then(|| options[rng.below(options.len() as u32) as usize]);
    v1::TurnAction {
        placement,
        card: Some(card),
    }
}

pub async fn submit(
    p: &Session,
    game_id: &str,
    expected_seq: u64,
    key: &str,
    action: v1::TurnAction,
) -> Result<v1::SubmitActionResponse, tonic::Status> {
    p.submit_with_key(game_id, expected_seq, key, action)
        .await
        .map_err(|e| e.status().cloned().expect("the server answered"))
}

/// Plays one random legal turn for whoever is to move. Returns false once the game is over.
pub async fn play_one(game_id: &str, players: &[Session], rng: &mut GameRng) -> bool {
    let current = view(&players[0], game_id).await;
    let Some(to_move) = current.to_move else {
        return false;
    };
    let p = &players[to_move as usize];
    let mine = view(p, game_id).await;
    let action = pick(&mine, rng);
    let key = format!("{}-{}", mine.seq, to_move);
    let response = submit(p, game_id, mine.seq, &key, action)
        .await
        .expect("a legal turn is accepted");
    assert!(response.seq > mine.seq);
    true
}

/// Plays random legal turns until the game ends; returns how many turns were played.
pub async fn play_to_end(game_id: &str, players: &[Session], seed: u64) -> usize {
    let mut rng = GameRng::from_seed(seed);
    let mut turns = 0;
    while play_one(game_id, players, &mut rng).await {
        turns += 1;
    }
    turns
}

/// Collects a `WatchGame` stream until it ends, a view on every update.
pub fn collect(p: &Session, game_id: &str, after_seq: Option<u64>) -> JoinHandle<Vec<Message>> {
    collect_with(p, game_id, after_seq, v1::UpdateViews::Every)
}

/// Collects a `WatchGame` stream until it ends.
pub fn collect_with(
    p: &Session,
    game_id: &str,
    after_seq: Option<u64>,
    views: v1::UpdateViews,
) -> JoinHandle<Vec<Message>> {
    let p = p.clone();
    let game_id = game_id.to_string();
    tokio::spawn(async move {
        let mut stream = p
            .watch(v1::WatchGameRequest {
                game_id,
                after_seq,
                update_views: views as i32,
            })
            .await
            .expect("watch");
        let mut messages = Vec::new();
        while let Some(message) = stream.message().await.expect("a healthy stream") {
            messages.push(message.message.expect("a message"));
        }
        messages
    })
}

pub fn updates(messages: &[Message]) -> Vec<&v1::GameUpdate> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Update(u) => Some(u),
            _ => None,
        })
        .collect()
}

pub fn reason(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_default()
}

pub fn assert_code(
    result: Result<impl std::fmt::Debug, tonic::Status>,
    code: Code,
) -> tonic::Status {
    let status = result.expect_err("the call must fail");
    assert_eq!(status.code(), code, "{status:?}");
    status
}

/// The server's view without what the server adds on top of the engine's.
pub fn engine_part(view: &v1::GameView) -> v1::GameView {
    let mut view = view.clone();
    view.game_id.clear();
    view.seed_commitment.clear();
    view.seeded = false;
    view.status = 0;
    view.settings = None;
    view.seq = 0;
    for seat in &mut view.seats {
        seat.player = None;
        seat.timeouts_in_a_row = 0;
        seat.forfeited = false;
    }
    if let Some(legal) = view.legal.as_mut() {
        legal.deadline = None;
    }
    view
}

/// Follows one viewer's updates (from the game's start, a view on each) with a local engine
/// game, asserting that every view is exactly the engine's redaction for that viewer and
/// that hands reach only their seat. Returns how many views were checked.
pub fn check_redaction(
    updates: &[&v1::GameUpdate],
    viewer: Viewer,
    seed: u64,
    players: u8,
) -> usize {
    let mut game: Option<Game> = None;
    let mut checked = 0;
    for update in updates {
        let kind = update.event.as_ref().unwrap().kind.as_ref().unwrap();
        match kind {
            Kind::GameStarted(_) => {
                game = Some(Game::new(&GameConfig::new(players, seed)).unwrap());
            }
            Kind::TurnTaken(t) => {
                let turn =
                    theboss::convert::turn_from_wire(t.action.as_ref().unwrap(), "a").unwrap();
                game.as_mut()
                    .unwrap()
                    .apply(t.seat as u8, &turn)
                    .expect("the stream's turns replay");
            }
            Kind::HandDealt(hand) => {
                assert_eq!(
                    viewer,
                    Viewer::Seat(hand.seat as u8),
                    "a hand reached a viewer it does not belong to"
                );
            }
            _ => {}
        }
        if let Some(game) = &game {
            let expected = view_to_wire(&game.view(viewer));
            assert_eq!(engine_part(update.view.as_ref().unwrap()), expected);
            checked += 1;
        }
    }
    checked
}

/// The table `table` of a duplicate set (`series_game`) and its players in seat order, from
/// the matches each player got (`matches[i]` is `players[i]`'s).
pub fn set_table(
    matches: &[v1::LadderMatch],
    players: &[Session],
    table: u32,
) -> (String, Vec<Session>) {
    let mut at: Vec<(u32, Session)> = matches
        .iter()
        .zip(players)
        .filter(|(m, _)| m.series_game == table)
        .map(|(m, p)| (m.seat, p.clone()))
        .collect();
    at.sort_by_key(|(seat, _)| *seat);
    let game = matches
        .iter()
        .find(|m| m.series_game == table)
        .expect("a match at that table")
        .game_id
        .clone();
    (game, at.into_iter().map(|(_, p)| p).collect())
}

/// The `theboss-server` binary, listening on a free port of 127.0.0.1 with `args`, once it
/// says where it serves: the process (killed when dropped) and its URL. Its log is read to
/// the end so that it never blocks on a full pipe.
pub async fn server_binary(args: &[&str]) -> (tokio::process::Child, String) {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_theboss-server"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start theboss-server");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = served_addr(&mut lines, std::time::Duration::from_secs(60)).await;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("http://{addr}"))
}

/// The address a starting `theboss-server` logs (`addr=`), read from its log within `wait`.
pub async fn served_addr(
    lines: &mut tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
    wait: std::time::Duration,
) -> String {
    tokio::time::timeout(wait, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.split("addr=").nth(1) {
                return rest.split_whitespace().next().unwrap().to_string();
            }
        }
        panic!("the server exited before serving");
    })
    .await
    .expect("the server reports its address")
}
