//! The actor against a real (SQLite) store: clocks across restarts, rebuilt tables,
//! catching up with a store that moved on.

use super::*;
use crate::domain::{Settings, Visibility};
use crate::store::Effects;
use crate::wire::ViewsOn;
use theboss_engine::Viewer;

#[tokio::test]
async fn a_clock_that_ran_out_while_the_server_was_down_fires_on_restart() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let players = fixtures::two_players(&*store).await;
    // A game with a 10-second clock whose last action was committed a minute ago.
    let long_ago = now_micros() - 60_000_000;
    let record = GameInfo {
        id: "g".into(),
        settings: Settings::new(2, vec![], 10, Visibility::Public).unwrap(),
        seed: 9,
        created_by: "p0".into(),
        created_at: long_ago,
        ladder: false,
        series: None,
        seed_salt: None,
        seeded: false,
    };
    store
        .create_game(&record, &[], None)
        .await
        .unwrap()
        .unwrap();
    let actions: Vec<StoredAction> = players
        .iter()
        .enumerate()
        .map(|(i, p)| StoredAction {
            seq: i as u64 + 1,
            action: Action::Join {
                seat: i as u8,
                player: p.clone(),
            },
            player_id: Some(p.id.clone()),
            idempotency_key: None,
            at: long_ago,
        })
        .collect();
    for a in &actions {
        store
            .append_action("g", a, &Effects::default())
            .await
            .unwrap();
    }
    let stored = store.load_game("g").await.unwrap().unwrap();
    let game = spawn(
        stored,
        Context::new(store, ActorOptions::default(), None),
        Role::Owner,
    )
    .unwrap();
    let mut latest = game.latest().await.unwrap();
    for _ in 0..100 {
        if latest.state.timeouts_in_a_row.iter().any(|&t| t > 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        latest = game.latest().await.unwrap();
    }
    assert_eq!(
        latest.state.timeouts_in_a_row.iter().sum::<u32>(),
        1,
        "the overdue turn is played at once, and the next seat gets a fresh clock"
    );
    assert!(latest.deadline.unwrap() > now_micros());
}

/// The actor keeps few tables; every batch it rebuilds is the table the log gives.
#[tokio::test]
async fn rebuilt_batches_are_the_tables_of_the_log() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
    fixtures::play_to_end(&game, &players).await;
    let stored = store.load_game("g").await.unwrap().unwrap();
    assert!(
        stored.actions.len() > 2 * CHECKPOINT,
        "{} actions",
        stored.actions.len()
    );
    let mut table = TableState::new(&stored.record.settings);
    let mut expected = vec![format!("{table:?}")];
    for action in &stored.actions {
        table.apply(&stored.record, &action.action).unwrap();
        expected.push(format!("{table:?}"));
    }
    let backlog = game.watch(Some(0)).await.unwrap().backlog.unwrap().build();
    let rebuilt: Vec<String> = backlog.iter().map(|b| format!("{:?}", b.state)).collect();
    assert_eq!(
        rebuilt,
        expected[1..],
        "every action's table, from the checkpoints"
    );
    // An idempotent retry of an early action answers with that action's batch.
    let seat = stored.actions[4].player_id.clone().unwrap();
    let early = Submit {
        player_id: seat,
        expected_seq: 0,
        idempotency_key: stored.actions[4].idempotency_key.clone().unwrap(),
        turn: match stored.actions[4].action {
            Action::Turn { turn, .. } => turn,
            _ => panic!("a turn"),
        },
    };
    let again = game.submit(early).await.unwrap();
    assert_eq!(format!("{:?}", again.batch.state), expected[5]);
}

#[tokio::test]
async fn an_actor_behind_its_store_catches_up_and_answers_aborted() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    let latest = game.latest().await.unwrap();
    let seat = latest.state.to_move().unwrap();
    let turn = latest.state.default_turn(seat).unwrap();
    // Another writer commits the next action behind the actor's back.
    let next = commit_behind(
        &*store,
        &latest,
        3,
        turn,
        &players[usize::from(seat)],
        "theirs",
    )
    .await;
    let submit = Submit {
        player_id: players[usize::from(seat)].id.clone(),
        expected_seq: latest.seq_after(),
        idempotency_key: "mine".into(),
        turn,
    };
    let refused = game.submit(submit.clone()).await.unwrap_err();
    assert!(
        matches!(
            refused,
            GameError::Store(StoreError::Conflict { seq: 3, .. })
        ),
        "{refused}"
    );
    let caught_up = game.latest().await.unwrap();
    assert!(caught_up.seq_after() > latest.seq_after());
    assert_eq!(caught_up.state.to_move(), next.to_move());
    // The stale request is now refused as stale, and the other writer's key is known.
    assert!(matches!(
        game.submit(submit).await,
        Err(GameError::Stale { .. })
    ));
    let theirs = Submit {
        player_id: players[usize::from(seat)].id.clone(),
        expected_seq: 0,
        idempotency_key: "theirs".into(),
        turn,
    };
    assert_eq!(
        game.submit(theirs).await.unwrap().batch.seq_after(),
        caught_up.seq_after()
    );
}

/// A store whose log stops replaying partway (a corrupt action after a good one, written
/// behind the actor's back): catching up applies the good one, and the game's watchers are
/// sent its step, as they are of every step the actor applies.
#[tokio::test]
async fn steps_caught_up_before_an_action_that_does_not_replay_reach_the_watchers() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    let latest = game.latest().await.unwrap();
    let mut watching = game.watch(None).await.unwrap();
    assert_eq!(watching.latest.seq_after(), latest.seq_after());
    let seat = latest.state.to_move().unwrap();
    let turn = latest.state.default_turn(seat).unwrap();
    let player = &players[usize::from(seat)];
    let next = commit_behind(&*store, &latest, 3, turn, player, "good").await;
    // Action 4 is a turn of the seat not to move: it cannot replay.
    let not_to_move = 1 - next.to_move().unwrap();
    let corrupt = StoredAction {
        seq: 4,
        action: Action::Turn {
            seat: not_to_move,
            turn,
            by_timeout: false,
        },
        player_id: Some(player.id.clone()),
        idempotency_key: None,
        at: now_micros(),
    };
    store
        .append_action("g", &corrupt, &Effects::default())
        .await
        .unwrap();
    let refused = game
        .submit(Submit {
            player_id: player.id.clone(),
            expected_seq: latest.seq_after(),
            idempotency_key: "mine".into(),
            turn,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(refused, GameError::Store(StoreError::Conflict { .. })),
        "{refused}"
    );
    let sent = tokio::time::timeout(Duration::from_secs(5), watching.live.recv())
        .await
        .expect("the step caught up with is sent to the watchers")
        .unwrap();
    assert_eq!(sent.seq_before, latest.seq_after(), "no step lost");
    assert_eq!(sent.state.to_move(), next.to_move());
    assert_eq!(
        game.latest().await.unwrap().seq_after(),
        sent.seq_after(),
        "and published for reads"
    );
}

/// A write whose answer was lost (the store kept it; the connection died before saying so):
/// the caller's retry with the same key is answered from the store's copy, as committed,
/// and nothing is written twice.
#[tokio::test]
async fn a_retry_after_a_lost_answer_finds_its_action_in_the_store() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    let latest = game.latest().await.unwrap();
    let seat = latest.state.to_move().unwrap();
    let turn = latest.state.default_turn(seat).unwrap();
    let player_id = players[usize::from(seat)].id.clone();
    // The first attempt's write, as the store kept it.
    let next = commit_behind(
        &*store,
        &latest,
        3,
        turn,
        &players[usize::from(seat)],
        "mine",
    )
    .await;
    let retry = Submit {
        player_id: player_id.clone(),
        expected_seq: latest.seq_after(),
        idempotency_key: "mine".into(),
        turn,
    };
    let committed = game.submit(retry.clone()).await.unwrap();
    assert_eq!(committed.seat, seat);
    assert!(committed.batch.seq_after() > latest.seq_after());
    assert_eq!(committed.batch.state.to_move(), next.to_move());
    // Asked again, the same answer; the store holds the action once.
    let again = game.submit(retry).await.unwrap();
    assert_eq!(again.batch.seq_after(), committed.batch.seq_after());
    let stored = store.load_game("g").await.unwrap().unwrap();
    assert_eq!(stored.actions.len(), 3);
    // The key names this turn: another turn under it is refused.
    let other = latest
        .state
        .game
        .as_ref()
        .unwrap()
        .legal_turns(seat)
        .unwrap()
        .cards
        .into_iter()
        .find(|c| *c != turn.card)
        .map(theboss_engine::Turn::play)
        .expect("a first hand has several cards");
    let misuse = Submit {
        player_id,
        expected_seq: committed.batch.seq_after(),
        idempotency_key: "mine".into(),
        turn: other,
    };
    assert!(matches!(
        game.submit(misuse).await,
        Err(GameError::Invalid { .. })
    ));
}

/// Commits the seat to move's `turn` as the game's action `seq` straight to the store, under
/// `key`, as another writer (or an earlier attempt whose answer was lost) would; returns the
/// table it leads to.
async fn commit_behind(
    store: &dyn Store,
    latest: &Batch,
    seq: u64,
    turn: theboss_engine::Turn,
    player: &PlayerInfo,
    key: &str,
) -> crate::table::TableState {
    let seat = latest.state.to_move().unwrap();
    let action = Action::Turn {
        seat,
        turn,
        by_timeout: false,
    };
    let mut next = (*latest.state).clone();
    next.apply(&latest.record, &action).unwrap();
    store
        .append_action(
            "g",
            &StoredAction {
                seq,
                action,
                player_id: Some(player.id.clone()),
                idempotency_key: Some(key.into()),
                at: now_micros(),
            },
            &Effects {
                status: next.status,
                ..Effects::default()
            },
        )
        .await
        .unwrap();
    next
}

/// Most actions change nothing kept in the game's row (its status, winners, money, seats that
/// acted): the actor's write leaves the row alone then, and writes it whenever the table's
/// columns change. Seen through a mark put in the row before each turn, which only a write of
/// the row takes away.
#[tokio::test]
async fn a_games_row_is_written_by_the_actions_that_change_it_and_only_by_them() {
    let (store, dir) = crate::testing::sqlite_store().await;
    let db = crate::store::GameRowProbe::open(&dir.path().join("theboss.db")).await;
    let (game, players) = fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    let text = |items: Vec<String>| items.join(",");
    let columns = |state: &TableState| {
        (
            state.status.as_str().to_string(),
            text(state.winners().iter().map(u8::to_string).collect()),
            if state.status == GameStatus::Finished {
                text(state.money().iter().map(u32::to_string).collect())
            } else {
                String::new()
            },
            text(
                state
                    .acted
                    .iter()
                    .map(|a| u8::from(*a).to_string())
                    .collect(),
            ),
        )
    };
    let (mut left_alone, mut written) = (0, 0);
    loop {
        let latest = game.latest().await.unwrap();
        let Some(seat) = latest.state.to_move() else {
            break;
        };
        db.set_money("g", "mark").await;
        game.submit(Submit {
            player_id: players[usize::from(seat)].id.clone(),
            expected_seq: latest.seq_after(),
            idempotency_key: format!("k{}", latest.seq_after()),
            turn: latest.state.default_turn(seat).unwrap(),
        })
        .await
        .unwrap();
        let after = game.latest().await.unwrap();
        let mut row = db.read("g").await;
        let changed = columns(&after.state) != columns(&latest.state);
        if row.2 == "mark" {
            assert!(
                !changed,
                "action {}: its row was not written",
                after.seq_after()
            );
            left_alone += 1;
            row.2 = columns(&after.state).2;
        } else {
            written += 1;
        }
        assert_eq!(row, columns(&after.state), "action {}", after.seq_after());
    }
    assert_eq!(
        game.latest().await.unwrap().state.status,
        GameStatus::Finished
    );
    assert!(
        left_alone > written && written >= 2,
        "{left_alone} turns left the row alone, {written} wrote it"
    );
}

/// What a step's watchers will be sent is encoded while its action is written, when the game
/// has watchers: what they all share, and the updates of the kinds of viewer the step before
/// was asked for. Nothing is encoded ahead when nobody watches.
#[tokio::test]
async fn a_watched_step_is_published_with_its_updates_encoded() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store, ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    let turn = |latest: &Batch| {
        let seat = latest.state.to_move().unwrap();
        Submit {
            player_id: players[usize::from(seat)].id.clone(),
            expected_seq: latest.seq_after(),
            idempotency_key: format!("k{}", latest.seq_after()),
            turn: latest.state.default_turn(seat).unwrap(),
        }
    };
    // A watcher that reads nothing: whatever is encoded was encoded by the actor.
    let watching = game.watch(None).await.unwrap();
    let latest = game.latest().await.unwrap();
    let committed = game.submit(turn(&latest)).await.unwrap();
    assert!(committed.batch.encoded.shared_encoded());
    assert!(
        !committed
            .batch
            .encoded
            .has_updates(Viewer::Seat(0), ViewsOn::LastUpdate)
    );
    // Seat 0's updates were asked for: the next step's are encoded ahead, and only those.
    crate::wire::encoded_updates(committed.batch.step(), Viewer::Seat(0), ViewsOn::LastUpdate);
    let committed = game.submit(turn(&committed.batch)).await.unwrap();
    assert!(
        committed
            .batch
            .encoded
            .has_updates(Viewer::Seat(0), ViewsOn::LastUpdate)
    );
    for other in [Viewer::Seat(1), Viewer::Spectator] {
        assert!(
            !committed
                .batch
                .encoded
                .has_updates(other, ViewsOn::LastUpdate)
        );
    }
    assert!(
        !committed
            .batch
            .encoded
            .has_updates(Viewer::Seat(0), ViewsOn::EveryUpdate)
    );
    drop(watching);
    let committed = game.submit(turn(&committed.batch)).await.unwrap();
    assert!(!committed.batch.encoded.shared_encoded());
}

/// A snapshot's subscription takes no turn in the actor's mailbox, and loses no step: a
/// watcher that starts while the actor takes no command gets the game's last step at once,
/// then every step after it.
#[tokio::test]
async fn a_snapshot_is_watched_without_asking_the_actor_and_loses_no_step() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store, ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    // The same game through a mailbox nobody reads: a command would wait for ever.
    let (unread, _kept) = mpsc::channel(1);
    let stuck = GameHandle {
        tx: unread,
        ..game.clone()
    };
    let mut watching = tokio::time::timeout(Duration::from_secs(5), stuck.watch(None))
        .await
        .expect("a snapshot asks the actor nothing")
        .unwrap();
    assert!(watching.backlog.is_none());
    let snapshot = watching.latest.seq_after();
    assert_eq!(snapshot, game.latest().await.unwrap().seq_after());
    for _ in 0..3 {
        let latest = game.latest().await.unwrap();
        let seat = latest.state.to_move().unwrap();
        let committed = game
            .submit(Submit {
                player_id: players[usize::from(seat)].id.clone(),
                expected_seq: latest.seq_after(),
                idempotency_key: String::new(),
                turn: latest.state.default_turn(seat).unwrap(),
            })
            .await
            .unwrap();
        let next = watching.live.recv().await.unwrap();
        assert_eq!(next.seq_before, latest.seq_after(), "no step lost");
        assert_eq!(next.seq_after(), committed.batch.seq_after());
    }
}

/// The next turn of the seat to move in `latest`, as its player asks for it.
fn next_turn(latest: &Batch, players: &[PlayerInfo]) -> Submit {
    let seat = latest.state.to_move().unwrap();
    Submit {
        player_id: players[usize::from(seat)].id.clone(),
        expected_seq: latest.seq_after(),
        idempotency_key: String::new(),
        turn: latest.state.default_turn(seat).unwrap(),
    }
}

/// A turn is played on its caller's task. A caller that goes away while its action is being
/// written (its call cancelled) leaves the rest of the turn to a task of its own: the action
/// is committed, logged and told to the game's watchers without waiting for another call.
#[tokio::test]
async fn a_turn_whose_caller_went_away_midway_still_reaches_the_watchers() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store.clone(), ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    let mut watching = game.watch(None).await.unwrap();
    let latest = game.latest().await.unwrap();
    {
        let mut submitting = std::pin::pin!(game.submit(next_turn(&latest, &players)));
        assert!(
            futures::poll!(submitting.as_mut()).is_pending(),
            "the turn's write is in flight"
        );
        // Dropped here, with its write sent.
    }
    let heard = tokio::time::timeout(Duration::from_secs(10), watching.live.recv())
        .await
        .expect("the watchers hear of the action without another call")
        .unwrap();
    assert_eq!(heard.seq_before, latest.seq_after());
    let stored = store.load_game("g").await.unwrap().unwrap();
    assert_eq!(stored.actions.len(), 3, "two joins and the turn, once");
    // The game goes on from there.
    let now = game.latest().await.unwrap();
    assert_eq!(now.seq_after(), heard.seq_after());
    game.submit(next_turn(&now, &players)).await.unwrap();
}

/// The actor's task sets a seat's clock from the game as it last looked at it; turns played
/// on their callers' tasks since only move the clock later, and do not wake the task. When
/// the clock it set runs out, a seat that has played since is not played for: the task sets
/// the clock again. The clock it set for the seat to move now does play it.
#[tokio::test]
async fn a_clock_moved_on_by_a_turn_does_not_play_for_the_seat_after() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::clocked_two_player_game(store).await;
    fixtures::seat_all(&game, &players).await;
    let first = game.latest().await.unwrap();
    let armed = first
        .deadline
        .expect("a clocked game's seat to move has a deadline");
    let actor = game.actor.upgrade().unwrap();
    {
        // The task planned from the game as it started (it takes its lock to do so).
        let plan = actor.lock().await.plan;
        assert_eq!(plan.status, GameStatus::Running);
        assert_eq!(plan.deadline, Some(armed));
    }
    tokio::time::sleep(Duration::from_millis(5)).await;
    let second = game
        .submit(next_turn(&first, &players))
        .await
        .unwrap()
        .batch;
    let moved = second.deadline.unwrap();
    assert!(moved > armed);
    let mut actor = actor.lock().await;
    assert!(
        !actor.outgrew_plan(),
        "a later clock, the same status, no house bot: the task sleeps on"
    );
    actor.plan.deadline = None;
    assert!(actor.outgrew_plan(), "a clock the task does not know of");
    actor.plan = Plan {
        status: GameStatus::Open,
        deadline: Some(armed),
    };
    assert!(actor.outgrew_plan(), "a status the task does not know of");
    actor.clock_expired(Some(armed)).await;
    assert_eq!(
        actor.log.seq(),
        second.seq_after(),
        "the old clock plays for nobody"
    );
    actor.clock_expired(Some(moved)).await;
    let timed_out = actor.log.latest();
    assert!(timed_out.seq_after() > second.seq_after());
    assert_eq!(timed_out.state.timeouts_in_a_row.iter().sum::<u32>(), 1);
}

/// A game whose task stopped (unloaded while idle) plays no turn on a caller's task: the
/// caller is told to load the game again.
#[tokio::test]
async fn an_unloaded_game_plays_no_turn() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let options = ActorOptions {
        idle_unload: Duration::from_millis(50),
        ..ActorOptions::default()
    };
    let (game, players) = fixtures::two_player_game(store.clone(), options).await;
    fixtures::seat_all(&game, &players).await;
    let latest = game.latest().await.unwrap();
    for _ in 0..500 {
        if game.is_closed() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(game.is_closed(), "an idle game nobody watches unloads");
    assert!(matches!(
        game.submit(next_turn(&latest, &players)).await,
        Err(GameError::Unavailable)
    ));
    let stored = store.load_game("g").await.unwrap().unwrap();
    assert_eq!(stored.actions.len(), 2, "only the joins");
}

/// A turn that leaves a forfeited seat to move: the server plays for that seat before anyone
/// reads the game, as it did when a turn was the task's command. (The turn's wake-up of the
/// task and a read's command may reach it in either order.)
#[tokio::test]
async fn a_read_after_a_turn_that_leaves_a_forfeited_seat_to_move_sees_its_turn_played() {
    let (store, _dir) = crate::testing::sqlite_store().await;
    let (game, players) = fixtures::two_player_game(store, ActorOptions::default()).await;
    fixtures::seat_all(&game, &players).await;
    let mover = game.latest().await.unwrap().state.to_move().unwrap();
    let resigned = 1 - mover;
    game.leave(players[usize::from(resigned)].id.clone())
        .await
        .unwrap();
    let mut turns = 0;
    loop {
        let latest = game.latest().await.unwrap();
        assert!(latest.state.forfeited[usize::from(resigned)]);
        assert!(
            latest.state.forced_action().is_none(),
            "a step read is never one the server is about to play on from"
        );
        let Some(seat) = latest.state.to_move() else {
            break;
        };
        assert_eq!(seat, mover);
        game.submit(next_turn(&latest, &players)).await.unwrap();
        turns += 1;
    }
    assert!(turns >= 3, "the game ran a while: {turns} turns");
}
