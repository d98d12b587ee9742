//! One test suite for the store, run on SQLite and on PostgreSQL.

use std::sync::Arc;

use theboss_engine::{City, Turn};
use theboss_ladder::challenge::{Answer, AnswerRefused, ChallengeRecord, ChallengeStatus, Policy};
use theboss_ladder::rating::{self, Contest, PROVISIONAL_GAMES, Rated, Rating};
use theboss_ladder::tournament::{
    Entrant, Format, TournamentRecord, TournamentRefused, TournamentStatus,
};
use theboss_server::domain::LimitKind;
use theboss_server::domain::{
    GameInfo, GameStatus, LadderMatch, PlayerInfo, QueueEntry, SeriesRef, Settings, Visibility,
};
use theboss_server::store::ChallengeRefused;
use theboss_server::store::prelude::*;
use theboss_server::store::{AtCap, PlayerCaps};
use theboss_server::store::{
    Effects, Enqueued, GameQuery, NewPlayer, RatingJob, SeriesRecord, StoreError, StoredAction,
    StoredGame,
};
use theboss_server::table::Action;
use theboss_server::testing;

fn player(n: u32) -> NewPlayer {
    NewPlayer {
        player: PlayerInfo {
            id: format!("00000000-0000-4000-8000-{n:012}"),
            display_name: format!("Player {n}"),
            is_bot: n.is_multiple_of(2),
        },
        description: format!("strategy {n}"),
        token_hash: format!("hash-{n}"),
        created_at: 1_000 + i64::from(n),
    }
}

fn game(n: u32, created_by: &str, visibility: Visibility) -> GameInfo {
    GameInfo {
        id: format!("10000000-0000-4000-8000-{n:012}"),
        settings: Settings::new(2, vec![], 30, visibility).unwrap(),
        // Seeds use all 64 bits.
        seed: u64::MAX - u64::from(n),
        created_by: created_by.to_string(),
        created_at: 2_000 + i64::from(n),
        ladder: false,
        series: None,
        seed_salt: Some(format!("{n:064x}")),
        seeded: n.is_multiple_of(3),
    }
}

/// A game's result for the store to rate: the players by seat, ranked by `places`.
fn rated(game_id: &str, players: &[&NewPlayer], places: &[usize]) -> Option<RatingJob> {
    Some(RatingJob::Game(Rated {
        players_per_game: players.len() as u8,
        contests: vec![Contest {
            players: players.iter().map(|p| p.player.id.clone()).collect(),
            places: places.to_vec(),
            games: vec![game_id.to_string(); players.len()],
        }],
    }))
}

fn join(seq: u64, seat: u8, who: &NewPlayer) -> StoredAction {
    StoredAction {
        seq,
        action: Action::Join {
            seat,
            player: who.player.clone(),
        },
        player_id: Some(who.player.id.clone()),
        idempotency_key: None,
        at: 3_000 + seq as i64,
    }
}

fn effects(status: GameStatus) -> Effects {
    Effects {
        status,
        ..Effects::default()
    }
}

/// Games ending at the same moment, all with one player in them: every one of them counts,
/// each rated from the rating the one before it left (none read a stale rating). As many as
/// keep that player provisional, so that each game moves it (an established player is not
/// moved by fresh opponents).
async fn ratings_of_games_ending_at_once_all_count(store: Arc<dyn Store>) {
    const GAMES: u32 = PROVISIONAL_GAMES;
    let hub = player(60);
    store.create_player(&hub).await.unwrap();
    let mut ready = Vec::new();
    for i in 0..GAMES {
        let opponent = player(61 + i);
        store.create_player(&opponent).await.unwrap();
        let mut record = game(60 + i, &hub.player.id, Visibility::Public);
        record.ladder = true;
        store
            .create_game(&record, &[], None)
            .await
            .unwrap()
            .unwrap();
        for (seq, seat, who) in [(1, 0, &hub), (2, 1, &opponent)] {
            store
                .append_action(
                    &record.id,
                    &join(seq, seat, who),
                    &effects(GameStatus::Running),
                )
                .await
                .unwrap();
        }
        ready.push((record.id, opponent));
    }
    let mut endings = Vec::new();
    for (i, (game_id, opponent)) in ready.into_iter().enumerate() {
        let (store, hub_id) = (store.clone(), hub.player.id.clone());
        endings.push(tokio::spawn(async move {
            let end = StoredAction {
                seq: 3,
                action: Action::Abort {
                    reason: "decided".into(),
                },
                player_id: None,
                idempotency_key: None,
                at: 10_000 + i as i64,
            };
            let hub = player(60);
            assert_eq!(hub.player.id, hub_id);
            let effects = Effects {
                status: GameStatus::Finished,
                winners: vec![0],
                money: vec![5, 1],
                acted: vec![true, true],
                row_unchanged: false,
                rating: rated(&game_id, &[&hub, &opponent], &[1, 2]),
                caps: None,
            };
            store.append_action(&game_id, &end, &effects).await
        }));
    }
    for ending in endings {
        ending.await.unwrap().expect("every game's end commits");
    }
    let mine = store.player_ratings(&hub.player.id).await.unwrap().unwrap();
    for (category, rating) in &mine.ratings {
        assert_eq!(
            rating.games, GAMES,
            "category {category}: every game counted"
        );
    }
    // Each category's history is one chain from a fresh rating to the current one.
    for (category, current) in &mine.ratings {
        let mut steps: Vec<(Rating, Rating)> = mine
            .history
            .iter()
            .filter(|h| h.players == *category)
            .map(|h| (h.before, h.after))
            .collect();
        assert_eq!(steps.len(), GAMES as usize);
        let mut at = Rating::default();
        while !steps.is_empty() {
            let next = steps
                .iter()
                .position(|(before, _)| before.mu == at.mu && before.sigma == at.sigma)
                .unwrap_or_else(|| panic!("category {category}: no game was rated from {at:?}"));
            at = steps.remove(next).1;
        }
        assert_eq!((at.mu, at.sigma), (current.mu, current.sigma));
    }
}

async fn suite(store: Arc<dyn Store>) {
    players_are_found_by_token_hash(&*store).await;
    games_round_trip_with_their_log(&*store).await;
    listing_filters_and_pages(&*store).await;
    a_seat_left_is_free_again(&*store).await;
    a_row_its_writer_knows_unchanged_is_left_alone(&*store).await;
    duplicate_sets_and_ratings(&*store).await;
    tables_waiting_are_capped_per_creator_and_found_when_expired(&*store).await;
    the_ladder_queue_keeps_each_player_to_its_games_at_once(&*store).await;
    imported_games_load_and_list_like_played_ones(&*store).await;
    challenges_are_checked_answered_and_expired_atomically(&*store).await;
    players_who_played_together_know_each_other(&*store).await;
    tournaments_take_entries_until_started(&*store).await;
    // Last: they add players to the leaderboard the tests above count.
    ratings_of_games_ending_at_once_all_count(store.clone()).await;
    turns_of_many_games_at_once_commit_and_a_conflict_stays_its_games(store).await;
}

fn challenge(n: u32, challenger: &NewPlayer, opponents: &[&NewPlayer], at: i64) -> ChallengeRecord {
    let mut parties = vec![(challenger.player.clone(), Answer::Accepted)];
    parties.extend(
        opponents
            .iter()
            .map(|o| (o.player.clone(), Answer::Pending)),
    );
    ChallengeRecord {
        id: format!("20000000-0000-4000-8000-{n:012}"),
        parties,
        players: 2,
        duplicate: false,
        rated: false,
        status: ChallengeStatus::Pending,
        created_at: at,
        expires_at: at + 1_000_000,
        game_ids: vec![],
    }
}

/// A challenge is refused whole (nothing stored) for an unknown player, a player who refuses
/// it, or a challenger at its cap; answers are applied under a lock; expiry is swept.
async fn challenges_are_checked_answered_and_expired_atomically(store: &dyn Store) {
    let (a, b, c) = (player(120), player(122), player(121));
    for p in [&a, &b, &c] {
        store.create_player(p).await.unwrap();
    }
    let at = 50_000_000;
    let mut unknown = challenge(1, &a, &[&b], at);
    unknown.parties.push((player(999).player, Answer::Pending));
    assert_eq!(
        store.create_challenge(&unknown, 8).await.unwrap(),
        Err(ChallengeRefused::UnknownPlayer(player(999).player.id))
    );
    assert!(
        store.challenge(&unknown.id).await.unwrap().is_none(),
        "nothing stored"
    );
    // b takes challenges from bots only; a is a bot, c is not.
    assert!(
        store
            .set_challenge_policy(&b.player.id, Policy::BotsOnly)
            .await
            .unwrap()
    );
    assert_eq!(
        store.challenge_policy(&b.player.id).await.unwrap(),
        Some(Policy::BotsOnly)
    );
    assert_eq!(
        store
            .create_challenge(&challenge(2, &c, &[&b], at), 8)
            .await
            .unwrap(),
        Err(ChallengeRefused::Refuses(b.player.clone()))
    );
    let stored = store
        .create_challenge(&challenge(3, &a, &[&b], at), 8)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.parties[1].0.display_name, b.player.display_name,
        "names read"
    );
    assert_eq!(
        store
            .create_challenge(&challenge(4, &a, &[&c], at), 1)
            .await
            .unwrap(),
        Err(ChallengeRefused::TooMany { limit: 1 })
    );
    // b sees it; c does not.
    assert_eq!(
        store.challenges_of(&b.player.id, at).await.unwrap().len(),
        1
    );
    assert!(
        store
            .challenges_of(&c.player.id, at)
            .await
            .unwrap()
            .is_empty()
    );
    // A stranger's answer changes nothing; b's acceptance seats it.
    assert_eq!(
        store
            .answer_challenge(&stored.id, &c.player.id, true, at)
            .await
            .unwrap(),
        Some(Err(AnswerRefused::NotChallenged))
    );
    let seated = store
        .answer_challenge(&stored.id, &b.player.id, true, at + 1)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(seated.status, ChallengeStatus::Seating);
    assert_eq!(
        store.seating_challenges(at + 2).await.unwrap(),
        std::slice::from_ref(&seated)
    );
    let games = vec!["g-1".to_string()];
    assert!(
        store
            .start_challenge(&stored.id, &games, at + 3)
            .await
            .unwrap()
    );
    assert!(
        !store
            .start_challenge(&stored.id, &games, at + 3)
            .await
            .unwrap(),
        "once"
    );
    let started = store.challenge(&stored.id).await.unwrap().unwrap();
    assert_eq!(
        (started.status, started.game_ids),
        (ChallengeStatus::Started, games)
    );
    // One nobody answers expires: past its time it is read as expired, then swept.
    let late = store
        .create_challenge(&challenge(5, &a, &[&c], at), 8)
        .await
        .unwrap()
        .unwrap();
    let after = late.expires_at + 1;
    assert_eq!(
        store
            .answer_challenge(&late.id, &c.player.id, true, after)
            .await
            .unwrap(),
        Some(Err(AnswerRefused::Closed(ChallengeStatus::Expired)))
    );
    assert!(
        !store
            .expire_challenges(after, 100)
            .await
            .unwrap()
            .is_empty()
    );
    let expired = store.challenge(&late.id).await.unwrap().unwrap();
    assert_eq!(expired.status, ChallengeStatus::Expired);
    // Ten minutes after it closed, it is off the players' streams.
    let gone = after + theboss_ladder::challenge::VISIBLE_AFTER_CLOSE + 1;
    assert!(
        store
            .challenges_of(&c.player.id, gone)
            .await
            .unwrap()
            .is_empty()
    );
}

/// Players who played a game together know each other, every pair both ways: their
/// challenges come first, before newer ones from strangers. Noting them twice changes nothing.
async fn players_who_played_together_know_each_other(store: &dyn Store) {
    let (me, stranger, x, y) = (player(150), player(151), player(152), player(153));
    for p in [&me, &stranger, &x, &y] {
        store.create_player(p).await.unwrap();
    }
    let at = 60_000_000;
    let from = |n: u32, who: &NewPlayer, at: i64| challenge(n, who, &[&me], at);
    for (n, who, when) in [(30, &stranger, at + 2), (31, &x, at), (32, &y, at + 1)] {
        store
            .create_challenge(&from(n, who, when), 8)
            .await
            .unwrap()
            .unwrap();
    }
    let order = |shown: Vec<ChallengeRecord>| -> Vec<String> {
        shown
            .into_iter()
            .map(|c| c.parties[0].0.id.clone())
            .collect()
    };
    let ids = |players: &[&NewPlayer]| -> Vec<String> {
        players.iter().map(|p| p.player.id.clone()).collect()
    };
    let shown = store.challenges_of(&me.player.id, at + 3).await.unwrap();
    assert_eq!(order(shown), ids(&[&stranger, &y, &x]), "newest first");
    let table = ids(&[&y, &me, &x]);
    store.note_contacts(&table).await.unwrap();
    store.note_contacts(&table).await.unwrap();
    let shown = store.challenges_of(&me.player.id, at + 3).await.unwrap();
    assert_eq!(
        order(shown),
        ids(&[&y, &x, &stranger]),
        "players it knows first"
    );
    // x and y know each other too, and me: each sees the other's challenge first.
    store
        .create_challenge(&challenge(33, &stranger, &[&x], at + 1), 8)
        .await
        .unwrap()
        .unwrap();
    store
        .create_challenge(&challenge(34, &y, &[&x], at), 8)
        .await
        .unwrap()
        .unwrap();
    let shown = order(store.challenges_of(&x.player.id, at + 3).await.unwrap());
    let place = |who: &NewPlayer| shown.iter().position(|id| *id == who.player.id);
    assert!(place(&y).unwrap() < place(&stranger).unwrap(), "{shown:?}");
    store.note_contacts(&[]).await.unwrap();
    store.note_contacts(&ids(&[&stranger])).await.unwrap();
}

/// Entries are taken while a tournament is open and up to its size; only its creator starts
/// it, with two full tables.
async fn tournaments_take_entries_until_started(store: &dyn Store) {
    let ps: Vec<NewPlayer> = (130..136).map(player).collect();
    for p in &ps {
        store.create_player(p).await.unwrap();
    }
    let t = TournamentRecord {
        id: "30000000-0000-4000-8000-000000000001".into(),
        name: "Suite cup".into(),
        creator_id: ps[0].player.id.clone(),
        format: Format::RoundRobin,
        players: 2,
        sets_per_pair: 1,
        hero_id: None,
        max_entrants: 5,
        rated: false,
        turn_secs: 30,
        status: TournamentStatus::Open,
        created_at: 60_000_000,
        started_at: None,
        finished_at: None,
        entrants: vec![Entrant {
            player: ps[0].player.clone(),
            description: String::new(),
        }],
    };
    assert!(store.create_tournament(&t, 1).await.unwrap());
    let second = TournamentRecord {
        id: "30000000-0000-4000-8000-000000000002".into(),
        ..t.clone()
    };
    assert!(
        !store.create_tournament(&second, 1).await.unwrap(),
        "one unfinished at most"
    );
    for p in &ps[1..3] {
        store
            .enter_tournament(&t.id, &p.player.id, true, 60_000_001)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    }
    assert_eq!(
        store
            .start_tournament(&t.id, &ps[0].player.id, 60_000_002)
            .await
            .unwrap(),
        Some(Err(TournamentRefused::TooFewEntrants { have: 3, need: 4 }))
    );
    for p in &ps[3..5] {
        store
            .enter_tournament(&t.id, &p.player.id, true, 60_000_003)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    }
    assert_eq!(
        store
            .enter_tournament(&t.id, &ps[5].player.id, true, 60_000_004)
            .await
            .unwrap(),
        Some(Err(TournamentRefused::Full))
    );
    let left = store
        .enter_tournament(&t.id, &ps[4].player.id, false, 60_000_005)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(left.entrants.len(), 4);
    assert_eq!(
        store
            .start_tournament(&t.id, &ps[1].player.id, 60_000_006)
            .await
            .unwrap(),
        Some(Err(TournamentRefused::NotCreator))
    );
    let started = store
        .start_tournament(&t.id, &ps[0].player.id, 60_000_007)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(started.status, TournamentStatus::Running);
    assert!(store.running_tournaments().await.unwrap().contains(&t.id));
    assert_eq!(
        store
            .enter_tournament(&t.id, &ps[5].player.id, true, 60_000_008)
            .await
            .unwrap(),
        Some(Err(TournamentRefused::NotOpen))
    );
    let read = store.tournament(&t.id).await.unwrap().unwrap();
    let order: Vec<&str> = read.entrants.iter().map(|e| e.player.id.as_str()).collect();
    let expected: Vec<&str> = ps[..4].iter().map(|p| p.player.id.as_str()).collect();
    assert_eq!(order, expected, "in the order they entered");
    assert_eq!(read.entrants[1].description, ps[1].description);
    let listed = store
        .list_tournaments(Some(TournamentStatus::Running), 10)
        .await
        .unwrap();
    assert!(listed.iter().any(|l| l.id == t.id && l.entrants.len() == 4));
    assert!(store.tournament_tables(&t.id).await.unwrap().is_empty());
    store.finish_tournament(&t.id, 60_000_009).await.unwrap();
    assert!(!store.running_tournaments().await.unwrap().contains(&t.id));
}

/// Turns of many games arriving together are committed in groups: each is durable once
/// answered, and a taken action number fails only its own game's turn.
async fn turns_of_many_games_at_once_commit_and_a_conflict_stays_its_games(store: Arc<dyn Store>) {
    const GAMES: u32 = 40;
    let (a, b) = (player(90), player(91));
    store.create_player(&a).await.unwrap();
    store.create_player(&b).await.unwrap();
    let mut ids = Vec::new();
    for i in 0..GAMES {
        let record = game(300 + i, &a.player.id, Visibility::Public);
        store
            .create_game(&record, &[], None)
            .await
            .unwrap()
            .unwrap();
        for (seq, seat, who) in [(1, 0, &a), (2, 1, &b)] {
            store
                .append_action(
                    &record.id,
                    &join(seq, seat, who),
                    &effects(GameStatus::Running),
                )
                .await
                .unwrap();
        }
        ids.push(record.id);
    }
    let turn = |seq: u64| StoredAction {
        seq,
        action: Action::Turn {
            seat: 0,
            turn: Turn::play(City::Boston.cards().next().unwrap()),
            by_timeout: false,
        },
        player_id: Some(a.player.id.clone()),
        idempotency_key: Some(format!("turn-{seq}")),
        at: 50_000,
    };
    let mut tasks = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        // Game 7's turn takes a number that is already there (2: a join).
        let seq = if i == 7 { 2 } else { 3 };
        let (store, id, action) = (store.clone(), id.clone(), turn(seq));
        tasks.push(tokio::spawn(async move {
            store
                .append_action(&id, &action, &effects(GameStatus::Running))
                .await
        }));
    }
    for (i, task) in tasks.into_iter().enumerate() {
        match (i, task.await.unwrap()) {
            (7, Err(StoreError::Conflict { seq: 2, game_id })) => assert_eq!(game_id, ids[7]),
            (7, other) => panic!("game 7: {other:?}"),
            (_, result) => result.unwrap(),
        }
    }
    for (i, id) in ids.iter().enumerate() {
        let loaded = store.load_game(id).await.unwrap().unwrap();
        assert_eq!(loaded.actions.len(), if i == 7 { 2 } else { 3 }, "game {i}");
    }
}

async fn imported_games_load_and_list_like_played_ones(store: &dyn Store) {
    let (a, b, c) = (player(40), player(41), player(42));
    for p in [&a, &b, &c] {
        store.create_player(p).await.unwrap();
    }
    let open = StoredGame {
        record: game(40, &a.player.id, Visibility::Public),
        // A joined, left, and C took a seat.
        actions: vec![
            join(1, 0, &a),
            StoredAction {
                seq: 2,
                action: Action::Leave { seat: 0 },
                player_id: Some(a.player.id.clone()),
                idempotency_key: None,
                at: 3_002,
            },
            join(3, 1, &c),
        ],
    };
    let finished = StoredGame {
        record: game(41, &b.player.id, Visibility::Public),
        actions: vec![join(1, 0, &a), join(2, 1, &b)],
    };
    let done = Effects {
        status: GameStatus::Finished,
        winners: vec![1],
        money: vec![3, 8],
        acted: vec![true, true],
        row_unchanged: false,
        rating: None,
        caps: None,
    };
    store
        .import_games(&[
            (open.clone(), effects(GameStatus::Open)),
            (finished.clone(), done),
        ])
        .await
        .unwrap();
    assert_eq!(
        store.load_game(&open.record.id).await.unwrap(),
        Some(open.clone())
    );
    assert_eq!(
        store.load_game(&finished.record.id).await.unwrap(),
        Some(finished.clone())
    );
    let running = store.clocked_games().await.unwrap();
    assert!(!running.contains(&open.record.id) && !running.contains(&finished.record.id));
    let listed = store
        .list_games(&GameQuery {
            statuses: vec![],
            seated: Some(c.player.id.clone()),
            viewer: c.player.id.clone(),
            limit: 10,
            after: None,
        })
        .await
        .unwrap();
    assert_eq!(listed.games.len(), 1);
    assert_eq!(listed.games[0].seats, vec![(1, c.player.clone())]);
    // An import is all or nothing: a game already there fails the batch.
    let again = StoredGame {
        record: game(42, &a.player.id, Visibility::Public),
        actions: vec![join(1, 0, &a)],
    };
    assert!(
        store
            .import_games(&[
                (again.clone(), effects(GameStatus::Open)),
                (open, effects(GameStatus::Open))
            ])
            .await
            .is_err()
    );
    assert_eq!(store.load_game(&again.record.id).await.unwrap(), None);
}

/// Seats two players at a new ladder game `n` (a table of `series`, if given).
async fn seated_ladder_game(
    store: &dyn Store,
    n: u32,
    players: [&NewPlayer; 2],
    series: Option<SeriesRef>,
) -> GameInfo {
    let mut record = game(n, &players[0].player.id, Visibility::Public);
    record.ladder = true;
    record.seeded = false;
    record.series = series;
    store
        .create_game(&record, &[], None)
        .await
        .unwrap()
        .unwrap();
    store
        .append_action(
            &record.id,
            &join(1, 0, players[0]),
            &effects(GameStatus::Open),
        )
        .await
        .unwrap();
    store
        .append_action(
            &record.id,
            &join(2, 1, players[1]),
            &effects(GameStatus::Running),
        )
        .await
        .unwrap();
    record
}

fn end(at: i64) -> StoredAction {
    StoredAction {
        seq: 3,
        action: Action::Abort {
            reason: "test".into(),
        },
        player_id: None,
        idempotency_key: None,
        at,
    }
}

async fn duplicate_sets_and_ratings(store: &dyn Store) {
    let (a, b, c, d) = (player(20), player(21), player(22), player(23));
    for p in [&a, &b, &c, &d] {
        store.create_player(p).await.unwrap();
    }
    let series = SeriesRecord {
        id: "series-1".into(),
        players: [&a, &b, &c, &d]
            .iter()
            .map(|p| p.player.id.clone())
            .collect(),
        seed: u64::MAX - 1,
        created_at: 5,
        tables: 2,
    };
    store.create_series(&series).await.unwrap();
    let table = |index| {
        Some(SeriesRef {
            id: "series-1".into(),
            index,
            tables: 2,
        })
    };
    let first = seated_ladder_game(store, 200, [&a, &b], table(0)).await;
    let second = seated_ladder_game(store, 201, [&c, &d], table(1)).await;
    assert_eq!(
        store.load_game(&first.id).await.unwrap().unwrap().record,
        first
    );
    let seated = store.ladder_games_of(&b.player.id).await.unwrap();
    assert_eq!(seated.len(), 1);
    assert_eq!((seated[0].seat, seated[0].players), (1, 2));
    assert_eq!(seated[0].series, first.series);
    assert!(!store.set_over("series-1").await.unwrap());
    assert!(store.set_over("no such set").await.unwrap());

    // A table ends: nothing is rated while the other plays.
    let ended = |money: Vec<u32>| Effects {
        status: GameStatus::Finished,
        winners: vec![0],
        money,
        acted: vec![true, true],
        row_unchanged: false,
        rating: Some(RatingJob::SetTableEnded {
            series_id: "series-1".into(),
            rated: true,
        }),
        caps: None,
    };
    store
        .append_action(&first.id, &end(77), &ended(vec![12, 8]))
        .await
        .unwrap();
    assert!(
        store
            .ladder_games_of(&b.player.id)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.rating(&a.player.id, 2).await.unwrap(), None);
    assert!(!store.set_over("series-1").await.unwrap());
    // The last table ends: the holders of each seat's cards are compared, in its
    // transaction. A made more than C with the same cards; D more than B.
    store
        .append_action(&second.id, &end(78), &ended(vec![10, 9]))
        .await
        .unwrap();
    assert!(store.set_over("series-1").await.unwrap());
    // Between fresh players, as the rating module rates any two fresh players.
    let pair = Rated {
        players_per_game: 2,
        contests: vec![Contest {
            players: vec!["x".into(), "y".into()],
            places: vec![1, 2],
            games: vec![first.id.clone(); 2],
        }],
    };
    let changes = rating::rate_contests(&pair, &Default::default(), &Default::default(), false);
    let (better, worse) = (changes[0].after, changes[1].after);
    assert!(better.mu > 25.0 && worse.mu < 25.0 && better.games == 1);
    assert_eq!(store.rating(&a.player.id, 2).await.unwrap(), Some(better));
    assert_eq!(store.rating(&c.player.id, 2).await.unwrap(), Some(worse));
    assert_eq!(store.rating(&d.player.id, 0).await.unwrap(), Some(better));
    assert_eq!(store.rating(&b.player.id, 0).await.unwrap(), Some(worse));
    assert_eq!(store.rating(&a.player.id, 3).await.unwrap(), None);
    let mine = store.player_ratings(&d.player.id).await.unwrap().unwrap();
    assert_eq!(mine.ratings.len(), 2);
    assert_eq!(mine.history.len(), 2);
    assert!(
        mine.history
            .iter()
            .all(|h| h.game_id == second.id && h.at == 78),
        "named by the table it sat at"
    );
    // Provisional players are off the leaderboard.
    assert!(store.leaderboard(0, None, 10, 0).await.unwrap().is_empty());
    // Nine more games between A and B: ten rated games each, but one opponent vouches for
    // three, so neither is established by meeting the same player over and over.
    let mut n = 210;
    let mut play = |winner: &NewPlayer, loser: &NewPlayer| {
        n += 1;
        let (winner, loser, n) = (winner.clone(), loser.clone(), n);
        async move {
            let record = seated_ladder_game(store, n, [&winner, &loser], None).await;
            let result = Effects {
                status: GameStatus::Finished,
                winners: vec![0],
                money: vec![9, 3],
                acted: vec![true, true],
                row_unchanged: false,
                rating: rated(&record.id, &[&winner, &loser], &[1, 2]),
                caps: None,
            };
            store
                .append_action(&record.id, &end(100 + i64::from(n)), &result)
                .await
                .unwrap();
        }
    };
    for _ in 0..9 {
        play(&a, &b).await;
    }
    let a_rating = store.rating(&a.player.id, 2).await.unwrap().unwrap();
    assert_eq!(
        (a_rating.games, a_rating.opponents),
        (10, 2),
        "B, and C of the set"
    );
    assert!(a_rating.is_provisional());
    assert!(store.leaderboard(2, None, 10, 0).await.unwrap().is_empty());
    // Two more opponents, three games each: four opponents, twelve counted games.
    let (e, f) = (player(24), player(25));
    store.create_player(&e).await.unwrap();
    store.create_player(&f).await.unwrap();
    for other in [&e, &f] {
        for _ in 0..3 {
            play(&a, other).await;
            play(&b, other).await;
        }
    }
    let board = store.leaderboard(2, None, 10, 0).await.unwrap();
    assert_eq!(
        board
            .iter()
            .map(|r| r.player.id.clone())
            .collect::<Vec<_>>(),
        vec![a.player.id.clone(), b.player.id.clone()]
    );
    assert!(
        board
            .iter()
            .all(|r| r.rating.games == 16 && r.rating.counted() >= PROVISIONAL_GAMES),
        "{board:?}"
    );
    assert_eq!(board[0].description, "strategy 20");
    assert_eq!(store.leaderboard(2, None, 10, 1).await.unwrap().len(), 1);
    // Of bots (A) or of people (B) only, each ranked in its own list.
    assert!(a.player.is_bot && !b.player.is_bot);
    let bots = store.leaderboard(2, Some(true), 10, 0).await.unwrap();
    let people = store.leaderboard(2, Some(false), 10, 0).await.unwrap();
    assert_eq!(bots.len(), 1);
    assert_eq!(bots[0].player, a.player);
    assert_eq!(people.len(), 1);
    assert_eq!(people[0].player, b.player);
    assert!(
        store
            .leaderboard(2, Some(false), 10, 1)
            .await
            .unwrap()
            .is_empty()
    );
    // A description can change; the boards and the profile show the new one.
    assert!(store.set_description(&b.player.id, "new").await.unwrap());
    assert!(!store.set_description("nobody", "new").await.unwrap());
    let people = store.leaderboard(2, Some(false), 10, 0).await.unwrap();
    assert_eq!(people[0].description, "new");
    let profile = store.player_ratings(&b.player.id).await.unwrap().unwrap();
    assert_eq!(profile.description, "new");
    assert_eq!(store.player_ratings("nobody").await.unwrap(), None);
}

async fn tables_waiting_are_capped_per_creator_and_found_when_expired(store: &dyn Store) {
    let (a, b) = (player(30), player(31));
    store.create_player(&a).await.unwrap();
    store.create_player(&b).await.unwrap();
    let caps = |open, unfinished, house| PlayerCaps {
        player_id: a.player.id.clone(),
        open,
        unfinished,
        house,
    };
    let at = |kind, limit| Err(AtCap { kind, limit });
    let mut old = game(400, &a.player.id, Visibility::Public);
    old.created_at = 100;
    let two_open = caps(2, 0, 0);
    assert_eq!(
        store.create_game(&old, &[], Some(&two_open)).await.unwrap(),
        Ok(())
    );
    let second = game(401, &a.player.id, Visibility::Public);
    assert_eq!(
        store
            .create_game(&second, &[], Some(&two_open))
            .await
            .unwrap(),
        Ok(())
    );
    let third = game(402, &a.player.id, Visibility::Public);
    assert_eq!(
        store
            .create_game(&third, &[], Some(&two_open))
            .await
            .unwrap(),
        at(LimitKind::OpenGames, 2),
        "two waiting already"
    );
    assert_eq!(
        store.load_game(&third.id).await.unwrap(),
        None,
        "nothing written"
    );
    // A table that started no longer counts as waiting.
    store
        .append_action(&old.id, &join(1, 0, &a), &effects(GameStatus::Open))
        .await
        .unwrap();
    store
        .append_action(&old.id, &join(2, 1, &b), &effects(GameStatus::Running))
        .await
        .unwrap();
    assert_eq!(
        store
            .create_game(&third, &[], Some(&two_open))
            .await
            .unwrap(),
        Ok(())
    );
    assert!(store.clocked_games().await.unwrap().contains(&old.id));
    // Tables created before a time, oldest first: they have expired.
    let expired = store.expired_open_games(2_000 + 402, 10).await.unwrap();
    assert!(expired.contains(&second.id));
    assert!(!expired.contains(&third.id) && !expired.contains(&old.id));
    assert!(store.expired_open_games(0, 10).await.unwrap().is_empty());

    // Unfinished games, created or sat at: A has three (one running, two waiting).
    let fourth = game(403, &a.player.id, Visibility::Public);
    assert_eq!(
        store
            .create_game(&fourth, &[], Some(&caps(0, 3, 0)))
            .await
            .unwrap(),
        at(LimitKind::UnfinishedGames, 3)
    );
    // Joining another's table counts the same, checked with the seat's write.
    let bs = game(404, &b.player.id, Visibility::Public);
    store.create_game(&bs, &[], None).await.unwrap().unwrap();
    let capped = Effects {
        caps: Some(caps(0, 3, 0)),
        ..effects(GameStatus::Open)
    };
    let refused = store.append_action(&bs.id, &join(1, 1, &a), &capped).await;
    assert!(
        matches!(
            refused,
            Err(StoreError::AtCap(AtCap {
                kind: LimitKind::UnfinishedGames,
                limit: 3
            }))
        ),
        "{refused:?}"
    );
    assert!(
        store
            .load_game(&bs.id)
            .await
            .unwrap()
            .unwrap()
            .actions
            .is_empty()
    );
    // Joining a table it created adds no game.
    let own = Effects {
        caps: Some(caps(0, 3, 0)),
        ..effects(GameStatus::Open)
    };
    store
        .append_action(&third.id, &join(1, 0, &a), &own)
        .await
        .unwrap();

    // Tables with house bots, created with their bots seated in the same write.
    let house_bot = |seq, seat: u8, id: &str| StoredAction {
        seq,
        action: Action::Join {
            seat,
            player: PlayerInfo {
                id: id.into(),
                display_name: "House".into(),
                is_bot: true,
            },
        },
        player_id: None,
        idempotency_key: None,
        at: 3_000,
    };
    let bots = [house_bot(1, 1, "b0550000-0000-4000-8000-000000000011")];
    let with_bots = game(405, &b.player.id, Visibility::Public);
    let b_house = PlayerCaps {
        player_id: b.player.id.clone(),
        open: 0,
        unfinished: 0,
        house: 1,
    };
    assert_eq!(
        store
            .create_game(&with_bots, &bots, Some(&b_house))
            .await
            .unwrap(),
        Ok(())
    );
    let loaded = store.load_game(&with_bots.id).await.unwrap().unwrap();
    assert_eq!(loaded.actions.len(), 1, "the bot sits from the start");
    assert_eq!(
        store
            .create_game(
                &game(406, &b.player.id, Visibility::Public),
                &bots,
                Some(&b_house)
            )
            .await
            .unwrap(),
        at(LimitKind::HouseGames, 1),
        "one table with house bots already"
    );
    // A's first table with house bots may be joined; its second may not.
    let house_join = Effects {
        caps: Some(caps(0, 0, 1)),
        ..effects(GameStatus::Running)
    };
    store
        .append_action(&with_bots.id, &join(2, 0, &a), &house_join)
        .await
        .unwrap();
    let more = game(407, &b.player.id, Visibility::Public);
    store
        .create_game(&more, &bots, None)
        .await
        .unwrap()
        .unwrap();
    let refused = store
        .append_action(
            &more.id,
            &join(2, 0, &a),
            &Effects {
                caps: Some(caps(0, 0, 1)),
                ..effects(GameStatus::Running)
            },
        )
        .await;
    assert!(
        matches!(
            refused,
            Err(StoreError::AtCap(AtCap {
                kind: LimitKind::HouseGames,
                ..
            }))
        ),
        "{refused:?}"
    );
}

fn request(id: &str, who: &NewPlayer, parallel: u8) -> QueueEntry {
    QueueEntry {
        id: id.into(),
        player: who.player.clone(),
        players: Some(2),
        duplicate: false,
        parallel,
        replica: "local".into(),
        enqueued_at: 1,
    }
}

async fn the_ladder_queue_keeps_each_player_to_its_games_at_once(store: &dyn Store) {
    let (a, b) = (player(50), player(51));
    store.create_player(&a).await.unwrap();
    store.create_player(&b).await.unwrap();
    assert_eq!(
        store.enqueue_ladder(&request("q1", &a, 1)).await.unwrap(),
        Enqueued::Queued
    );
    assert_eq!(
        store.enqueue_ladder(&request("q2", &a, 1)).await.unwrap(),
        Enqueued::AtLimit {
            waiting: 1,
            seated: 0
        }
    );
    assert_eq!(
        store.enqueue_ladder(&request("q3", &a, 2)).await.unwrap(),
        Enqueued::Queued
    );
    let queue = store.ladder_queue().await.unwrap();
    assert_eq!(
        queue
            .iter()
            .map(|e| (e.id.as_str(), e.parallel))
            .collect::<Vec<_>>(),
        [("q1", 1), ("q3", 2)]
    );
    assert_eq!(
        queue[0].player, a.player,
        "the name is kept with the request"
    );
    // q1 is answered with a game: A sits in it, and may wait for one more (parallel 2).
    let record = seated_ladder_game(store, 500, [&a, &b], None).await;
    let answer = vec![LadderMatch {
        game_id: record.id.clone(),
        seat: 0,
        players: 2,
        already_seated: false,
        series: None,
    }];
    store
        .answer_ladder(&[("q1".into(), answer.clone())])
        .await
        .unwrap();
    let answers = store
        .ladder_answers(&["q1".into(), "q3".into(), "gone".into()])
        .await
        .unwrap();
    assert_eq!(
        answers,
        vec![
            ("q1".to_string(), Some(answer)),
            ("q3".to_string(), Some(vec![])),
            ("gone".to_string(), None),
        ]
    );
    store.forget_ladder_entry("q1").await.unwrap();
    // One game and one request: at A's two.
    assert_eq!(
        store.enqueue_ladder(&request("q4", &a, 2)).await.unwrap(),
        Enqueued::AtLimit {
            waiting: 1,
            seated: 1
        }
    );
    // One game is all A may play at once by default: the request gets it back.
    let Enqueued::Seated(seats) = store.enqueue_ladder(&request("q5", &a, 1)).await.unwrap() else {
        panic!("seated");
    };
    assert_eq!(seats.len(), 1);
    assert_eq!(seats[0].game_id, record.id);
    assert_eq!(
        store.cancel_ladder(&a.player.id).await.unwrap(),
        vec!["q3".to_string()]
    );
    assert!(store.cancel_ladder(&a.player.id).await.unwrap().is_empty());
    store
        .append_action(
            &record.id,
            &end(9),
            &Effects {
                status: GameStatus::Aborted,
                ..Effects::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        store.enqueue_ladder(&request("q6", &a, 1)).await.unwrap(),
        Enqueued::Queued
    );
    assert_eq!(store.purge_ladder(&["another".into()]).await.unwrap(), 1);
    assert!(store.ladder_queue().await.unwrap().is_empty());
}

async fn players_are_found_by_token_hash(store: &dyn Store) {
    let p = player(1);
    store.create_player(&p).await.unwrap();
    assert_eq!(
        store.player_by_token_hash("hash-1").await.unwrap(),
        Some(p.player.clone())
    );
    assert_eq!(store.player_by_token_hash("nope").await.unwrap(), None);
    assert!(
        store.create_player(&p).await.is_err(),
        "ids and token hashes are unique"
    );
}

async fn games_round_trip_with_their_log(store: &dyn Store) {
    let (a, b) = (player(2), player(3));
    store.create_player(&a).await.unwrap();
    store.create_player(&b).await.unwrap();
    // Under an earlier rules version: the version is stored and read back with the game.
    let mut record = game(1, &a.player.id, Visibility::Public);
    record.settings = record.settings.with_rules(theboss_engine::RulesVersion::V1);
    store
        .create_game(&record, &[], None)
        .await
        .unwrap()
        .unwrap();
    assert!(
        !store.clocked_games().await.unwrap().contains(&record.id),
        "not started"
    );

    store
        .append_action(&record.id, &join(1, 1, &a), &effects(GameStatus::Open))
        .await
        .unwrap();
    // A second writer with the same action number is refused, and nothing changes.
    let err = store
        .append_action(&record.id, &join(1, 0, &b), &effects(GameStatus::Running))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict { seq: 1, .. }), "{err}");
    store
        .append_action(&record.id, &join(2, 0, &b), &effects(GameStatus::Running))
        .await
        .unwrap();
    let turn = StoredAction {
        seq: 3,
        action: Action::Turn {
            seat: 0,
            turn: Turn::play(City::Boston.cards().nth(1).unwrap()),
            by_timeout: true,
        },
        player_id: None,
        idempotency_key: Some("key-1".into()),
        at: 9_999,
    };
    store
        .append_action(
            &record.id,
            &turn,
            &Effects {
                status: GameStatus::Finished,
                winners: vec![0, 1],
                money: vec![7, 9],
                acted: vec![false, true],
                row_unchanged: false,
                rating: None,
                caps: None,
            },
        )
        .await
        .unwrap();

    // A turn's number taken twice is refused too (PostgreSQL writes turns in one statement).
    let again = store
        .append_action(&record.id, &turn, &effects(GameStatus::Running))
        .await
        .unwrap_err();
    assert!(
        matches!(again, StoreError::Conflict { seq: 3, .. }),
        "{again}"
    );
    let loaded = store.load_game(&record.id).await.unwrap().unwrap();
    assert_eq!(loaded.record, record);
    assert_eq!(loaded.actions.len(), 3);
    assert_eq!(loaded.actions[0], join(1, 1, &a));
    assert_eq!(loaded.actions[2], turn);
    assert!(!store.clocked_games().await.unwrap().contains(&record.id));
    assert_eq!(store.load_game("missing").await.unwrap(), None);
    // In bulk: each game with its own result.
    let bulk = store
        .load_games(&[record.id.clone(), "missing".to_string()])
        .await
        .unwrap();
    assert_eq!(bulk.len(), 2);
    assert_eq!(bulk[0].0, record.id);
    assert_eq!(bulk[0].1.as_ref().unwrap(), &loaded);
    assert!(matches!(bulk[1], (ref id, Err(StoreError::Corrupt(_))) if id == "missing"));

    let page = store
        .list_games(&GameQuery {
            statuses: vec![GameStatus::Finished],
            seated: Some(b.player.id.clone()),
            viewer: b.player.id.clone(),
            limit: 10,
            after: None,
        })
        .await
        .unwrap();
    assert_eq!(page.games.len(), 1);
    let listing = &page.games[0];
    assert_eq!(listing.winners, vec![0, 1]);
    assert_eq!(
        listing
            .seats
            .iter()
            .map(|(s, p)| (*s, p.id.clone()))
            .collect::<Vec<_>>(),
        vec![(0, b.player.id.clone()), (1, a.player.id.clone())]
    );
    // The game's end marked its seats: it is each player's finished game, since 9_999.
    for who in [&a, &b] {
        let finished = store
            .finished_games_of(&who.player.id, (0, i64::MAX), None, 10)
            .await
            .unwrap();
        assert_eq!(finished, vec![(record.id.clone(), 9_999)]);
    }
}

/// Joins and leaves are written with their neighbours' turns (PostgreSQL's group statement):
/// a seat left is taken by another player, and the player who left no longer lists the game.
async fn a_seat_left_is_free_again(store: &dyn Store) {
    let (a, b) = (player(140), player(141));
    store.create_player(&a).await.unwrap();
    store.create_player(&b).await.unwrap();
    let record = game(140, &a.player.id, Visibility::Public);
    store
        .create_game(&record, &[], None)
        .await
        .unwrap()
        .unwrap();
    let leave = StoredAction {
        seq: 2,
        action: Action::Leave { seat: 0 },
        player_id: Some(a.player.id.clone()),
        idempotency_key: Some("leave".into()),
        at: 3_002,
    };
    for action in [join(1, 0, &a), leave, join(3, 0, &b)] {
        store
            .append_action(&record.id, &action, &effects(GameStatus::Open))
            .await
            .unwrap();
    }
    let open_games_of = |who: &NewPlayer| GameQuery {
        statuses: vec![GameStatus::Open],
        seated: Some(who.player.id.clone()),
        viewer: who.player.id.clone(),
        limit: 10,
        after: None,
    };
    let of_a = store.list_games(&open_games_of(&a)).await.unwrap();
    assert!(of_a.games.is_empty(), "{:?}", of_a.games);
    let of_b = store.list_games(&open_games_of(&b)).await.unwrap();
    assert_eq!(of_b.games.len(), 1);
    assert_eq!(
        of_b.games[0]
            .seats
            .iter()
            .map(|(s, p)| (*s, p.id.clone()))
            .collect::<Vec<_>>(),
        vec![(0, b.player.id.clone())]
    );
    let loaded = store.load_game(&record.id).await.unwrap().unwrap();
    assert_eq!(loaded.actions.len(), 3);
}

/// A writer that knows its game's row already holds what an action would write says so
/// (`Effects::row_unchanged`), and the store leaves the row alone; the action is kept all the
/// same. Told so falsely here, to see it: the row keeps the status it had, for a join (a
/// group that changes seats) and for a turn (on PostgreSQL, a statement of its own).
async fn a_row_its_writer_knows_unchanged_is_left_alone(store: &dyn Store) {
    let (a, b) = (player(160), player(161));
    store.create_player(&a).await.unwrap();
    store.create_player(&b).await.unwrap();
    let record = game(160, &a.player.id, Visibility::Public);
    store
        .create_game(&record, &[], None)
        .await
        .unwrap()
        .unwrap();
    let status_of_the_game = || async {
        let listed = store
            .list_games(&GameQuery {
                statuses: vec![],
                seated: Some(a.player.id.clone()),
                viewer: a.player.id.clone(),
                limit: 10,
                after: None,
            })
            .await
            .unwrap();
        assert_eq!(listed.games.len(), 1);
        listed.games[0].status
    };
    let turn = StoredAction {
        seq: 3,
        action: Action::Turn {
            seat: 0,
            turn: Turn::play(City::Boston.cards().nth(1).unwrap()),
            by_timeout: false,
        },
        player_id: Some(a.player.id.clone()),
        idempotency_key: None,
        at: 3_003,
    };
    let later = StoredAction {
        seq: 4,
        at: 3_004,
        ..turn.clone()
    };
    for (action, status, row_unchanged, listed) in [
        (join(1, 0, &a), GameStatus::Open, false, GameStatus::Open),
        (join(2, 1, &b), GameStatus::Running, true, GameStatus::Open),
        (turn, GameStatus::Running, false, GameStatus::Running),
        (later.clone(), GameStatus::Open, true, GameStatus::Running),
    ] {
        let effects = Effects {
            row_unchanged,
            ..effects(status)
        };
        store
            .append_action(&record.id, &action, &effects)
            .await
            .unwrap();
        assert_eq!(
            status_of_the_game().await,
            listed,
            "after action {}",
            action.seq
        );
    }
    // A turn alone that leaves its row (PostgreSQL's statement of its own) is refused like
    // any other when its number is taken.
    let again = store
        .append_action(
            &record.id,
            &later,
            &Effects {
                row_unchanged: true,
                ..effects(GameStatus::Running)
            },
        )
        .await
        .unwrap_err();
    assert!(
        matches!(again, StoreError::Conflict { seq: 4, .. }),
        "{again}"
    );
    let loaded = store.load_game(&record.id).await.unwrap().unwrap();
    assert_eq!(loaded.actions.len(), 4);
    // So is a turn alone of a game the store does not hold, and it leaves no row behind for
    // a game of that id made later.
    let absent = game(162, &a.player.id, Visibility::Public);
    let refused = store
        .append_action(
            &absent.id,
            &later,
            &Effects {
                row_unchanged: true,
                ..effects(GameStatus::Running)
            },
        )
        .await;
    assert!(refused.is_err(), "written without its game: {refused:?}");
    store
        .create_game(&absent, &[], None)
        .await
        .unwrap()
        .unwrap();
    let made_later = store.load_game(&absent.id).await.unwrap().unwrap();
    assert!(made_later.actions.is_empty(), "{:?}", made_later.actions);
}

async fn listing_filters_and_pages(store: &dyn Store) {
    let (owner, other) = (player(10), player(11));
    store.create_player(&owner).await.unwrap();
    store.create_player(&other).await.unwrap();
    for n in 100..105 {
        store
            .create_game(&game(n, &owner.player.id, Visibility::Public), &[], None)
            .await
            .unwrap()
            .unwrap();
    }
    let hidden = game(105, &owner.player.id, Visibility::Unlisted);
    store
        .create_game(&hidden, &[], None)
        .await
        .unwrap()
        .unwrap();
    let mut query = GameQuery {
        statuses: vec![GameStatus::Open],
        seated: None,
        viewer: other.player.id.clone(),
        limit: 2,
        after: None,
    };
    let mut seen = Vec::new();
    loop {
        let page = store.list_games(&query).await.unwrap();
        assert!(page.games.len() <= 2);
        seen.extend(page.games.iter().map(|g| g.record.id.clone()));
        match page.next {
            Some(next) => query.after = Some(next),
            None => break,
        }
    }
    let expected: Vec<String> = (100..105)
        .rev()
        .map(|n| game(n, "", Visibility::Public).id)
        .collect();
    assert_eq!(seen, expected, "newest first, every open public game once");
    // The creator sees its unlisted game; others do not.
    query.viewer = owner.player.id.clone();
    query.after = None;
    query.limit = 100;
    let mine = store.list_games(&query).await.unwrap();
    assert_eq!(mine.games[0].record.id, hidden.id);
    query.statuses = vec![GameStatus::Running, GameStatus::Aborted];
    assert!(store.list_games(&query).await.unwrap().games.is_empty());
    // Games created at once are inserted in another order than their creation times, and
    // some in the same microsecond: the listing is still newest first, in a total order,
    // across pages.
    for (n, created_at) in [(110, 3_000), (111, 2_990), (112, 3_000), (113, 2_995)] {
        let mut late = game(n, &owner.player.id, Visibility::Public);
        late.created_at = created_at;
        store.create_game(&late, &[], None).await.unwrap().unwrap();
    }
    // Asked for with another status besides (each status is read on its own and merged).
    query.statuses = vec![GameStatus::Running, GameStatus::Open];
    query.viewer = other.player.id.clone();
    query.limit = 2;
    query.after = None;
    let mut listed = Vec::new();
    loop {
        let page = store.list_games(&query).await.unwrap();
        listed.extend(
            page.games
                .iter()
                .map(|g| (g.record.created_at, g.record.id.clone())),
        );
        match page.next {
            Some(next) => query.after = Some(next),
            None => break,
        }
    }
    let id = |n| game(n, "", Visibility::Public).id;
    assert_eq!(
        listed[..4],
        [
            (3_000, id(112)),
            (3_000, id(110)),
            (2_995, id(113)),
            (2_990, id(111))
        ],
        "by creation time, then id, newest first"
    );
    assert_eq!(listed.len(), 9, "every open public game once");
}

#[tokio::test]
async fn sqlite_store_passes_the_suite() {
    let (store, _dir) = testing::sqlite_store().await;
    suite(store).await;
}

#[tokio::test]
async fn postgres_store_passes_the_suite() {
    suite(testing::postgres_store().await).await;
}
