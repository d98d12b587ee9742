//! Challenges and tournaments through real gRPC: a challenge offered on the challenged
//! player's `Offers` stream, answered and seated (its free seats filled from the ladder's
//! queue); every refusal with its documented code, changing nothing; a round-robin
//! tournament of duplicate sets played out by bots, across a server restart, to a crosstable
//! that adds up.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;
use theboss::v1::{self, offers_response::Message};
use theboss_client::{ClientError, Connection, Session};
use theboss_engine::GameRng;
use theboss_ladder::challenge;
use theboss_server::quota::QuotaOptions;
use theboss_server::testing::TestServer;
use theboss_server::{LadderOptions, Options};
use tonic::{Code, Streaming};

async fn bot(server: &TestServer, name: &str) -> Session {
    Connection::connect(&server.url())
        .await
        .expect("connect")
        .register(name, true)
        .await
        .expect("register")
}

/// The next message of an `Offers` stream that is not a keep-alive.
async fn next_offer(stream: &mut Streaming<v1::OffersResponse>) -> Message {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(15), stream.message())
            .await
            .expect("the stream tells something in time")
            .expect("a healthy stream")
            .expect("the stream stays open");
        match message.message {
            Some(Message::KeepAlive(_)) | None => continue,
            Some(other) => return other,
        }
    }
}

async fn next_challenge(stream: &mut Streaming<v1::OffersResponse>) -> v1::Challenge {
    match next_offer(stream).await {
        Message::Challenge(c) => c,
        other => panic!("expected a challenge, got {other:?}"),
    }
}

async fn next_match(stream: &mut Streaming<v1::OffersResponse>) -> v1::LadderMatch {
    loop {
        match next_offer(stream).await {
            Message::Matched(m) => return m,
            Message::Challenge(_) => continue,
            other => panic!("expected a match, got {other:?}"),
        }
    }
}

fn refused<T: std::fmt::Debug>(result: Result<T, ClientError>, code: Code) -> tonic::Status {
    let status = result
        .expect_err("the call must fail")
        .status()
        .cloned()
        .expect("the server answered");
    assert_eq!(status.code(), code, "{status:?}");
    status
}

fn field(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_details_bad_request()
        .and_then(|b| b.field_violations.first().map(|v| v.field.clone()))
        .unwrap_or_default()
}

fn challenge_of(opponents: &[&Session], rated: bool) -> v1::ChallengeRequest {
    v1::ChallengeRequest {
        opponents: opponents
            .iter()
            .map(|s| s.player_id().to_string())
            .collect(),
        players: 0,
        duplicate: false,
        rated,
        expires_in_secs: 0,
    }
}

/// Plays a seat's random legal turns until its game is over, waiting on the game's stream
/// between turns.
async fn play_seat(p: Session, game_id: String, seat: u32, seed: u64) {
    let mut rng = GameRng::from_seed(seed);
    let mut stream = p
        .watch(v1::WatchGameRequest {
            game_id: game_id.clone(),
            after_seq: None,
            update_views: v1::UpdateViews::ActionComplete as i32,
        })
        .await
        .expect("watch");
    loop {
        let mine = view(&p, &game_id).await;
        let Some(to_move) = mine.to_move else {
            return;
        };
        if to_move == seat {
            let key = format!("{}-{seat}", mine.seq);
            submit(&p, &game_id, mine.seq, &key, pick(&mine, &mut rng))
                .await
                .expect("a legal turn is accepted");
            continue;
        }
        match tokio::time::timeout(Duration::from_secs(30), stream.message()).await {
            Ok(Ok(Some(_))) => {}
            // The stream ended (a restart): read the view again and watch anew.
            _ => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                if let Ok(s) = p
                    .watch(v1::WatchGameRequest {
                        game_id: game_id.clone(),
                        after_seq: None,
                        update_views: v1::UpdateViews::ActionComplete as i32,
                    })
                    .await
                {
                    stream = s;
                }
            }
        }
    }
}

#[tokio::test]
async fn a_challenge_is_offered_accepted_seated_and_played_unrated() {
    let server = TestServer::sqlite().await;
    let a = bot(&server, "Challenger").await;
    let b = bot(&server, "Challenged").await;
    let mut b_offers = b.offers().await.unwrap();
    let mut a_offers = a.offers().await.unwrap();
    let made = a.challenge(challenge_of(&[&b], false)).await.unwrap();
    assert_eq!(made.status(), v1::ChallengeStatus::Pending);
    assert_eq!(made.players, 2);
    assert_eq!(made.opponents[0].display_name, "Challenged");
    let offered = next_challenge(&mut b_offers).await;
    assert_eq!(offered.challenge_id, made.challenge_id);
    assert_eq!(offered.challenger_name, "Challenger");
    assert_eq!(
        next_challenge(&mut a_offers).await.challenge_id,
        made.challenge_id
    );

    let accepted = b.answer_challenge(&made.challenge_id, true).await.unwrap();
    assert!(matches!(
        accepted.status(),
        v1::ChallengeStatus::Seating | v1::ChallengeStatus::Started
    ));
    // Both are seated in one game, told on their streams with the challenge started (in
    // whichever order the stream read them).
    let ma = next_match(&mut a_offers).await;
    let (mut mb, mut started) = (None, None);
    while mb.is_none() || started.is_none() {
        match next_offer(&mut b_offers).await {
            Message::Matched(m) => mb = Some(m),
            Message::Challenge(c) if c.status() == v1::ChallengeStatus::Started => {
                started = Some(c);
            }
            _ => {}
        }
    }
    let (mb, started) = (mb.unwrap(), started.unwrap());
    assert_eq!(ma.game_id, mb.game_id);
    assert_ne!(ma.seat, mb.seat);
    assert_eq!(started.game_ids, std::slice::from_ref(&ma.game_id));
    // Accepting again changes nothing; a started challenge cannot be called off.
    let again = b.answer_challenge(&made.challenge_id, true).await.unwrap();
    assert_eq!(again.status(), v1::ChallengeStatus::Started);
    let closed = refused(
        a.answer_challenge(&made.challenge_id, false).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&closed), "CHALLENGE_CLOSED");

    let game = ma.game_id.clone();
    tokio::join!(
        play_seat(a.clone(), game.clone(), ma.seat, 1),
        play_seat(b.clone(), game.clone(), mb.seat, 2)
    );
    let summary = a.player(a.player_id()).await.unwrap();
    assert!(
        summary.ratings.is_empty(),
        "a casual challenge is not rated"
    );
    // Played out, the game is not offered again to a new stream.
    let mut fresh = b.offers().await.unwrap();
    let first = next_offer(&mut fresh).await;
    assert!(matches!(first, Message::Challenge(c) if c.status() == v1::ChallengeStatus::Started));
    server.stop().await;
}

#[tokio::test]
async fn a_rated_challenge_fills_its_free_seats_from_the_ladder_queue() {
    let server = TestServer::sqlite().await;
    let a = bot(&server, "A").await;
    let b = bot(&server, "B").await;
    let c = bot(&server, "C").await;
    let mut a_offers = a.offers().await.unwrap();
    let mut request = challenge_of(&[&b], true);
    request.players = 3;
    let made = a.challenge(request).await.unwrap();
    b.answer_challenge(&made.challenge_id, true).await.unwrap();
    // Nobody waits in the queue yet: it waits for a third player.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let waiting = b.answer_challenge(&made.challenge_id, true).await.unwrap();
    assert_eq!(waiting.status(), v1::ChallengeStatus::Seating);
    let mut queue = c.enqueue(3, false).await.unwrap();
    let filled = loop {
        let message = tokio::time::timeout(Duration::from_secs(10), queue.message())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Some(v1::enqueue_response::Message::Matched(m)) = message.message {
            break m;
        }
    };
    let mine = next_match(&mut a_offers).await;
    assert_eq!(
        filled.game_id, mine.game_id,
        "the queued player fills the free seat"
    );
    assert_eq!(filled.players, 3);
    server.stop().await;
}

#[tokio::test]
async fn bad_challenges_are_refused_with_their_codes_and_change_nothing() {
    // No challenge quota here: `challenges_are_throttled_per_challenger` tests it.
    let server = TestServer::sqlite_with(Options {
        quotas: QuotaOptions {
            challenges_per_min: 0,
            ..QuotaOptions::default()
        },
        ..Options::default()
    })
    .await;
    let a = bot(&server, "A").await;
    let b = bot(&server, "B").await;
    let person = player(&server, "Person").await;
    let stranger = bot(&server, "Stranger").await;

    let own = refused(
        a.challenge(challenge_of(&[&a], false)).await,
        Code::InvalidArgument,
    );
    assert_eq!(field(&own), "opponents");
    let mut twice = challenge_of(&[&b, &b], false);
    twice.players = 3;
    assert_eq!(
        field(&refused(a.challenge(twice).await, Code::InvalidArgument)),
        "opponents"
    );
    let mut forged = challenge_of(&[&b], false);
    forged.opponents = vec!["not-an-id".into()];
    assert_eq!(
        field(&refused(a.challenge(forged).await, Code::InvalidArgument)),
        "opponents"
    );
    let mut unknown = challenge_of(&[&b], false);
    unknown.opponents = vec![uuid::Uuid::new_v4().to_string()];
    refused(a.challenge(unknown).await, Code::NotFound);
    let mut unnamed = challenge_of(&[&b], false);
    unnamed.players = 3;
    assert_eq!(
        field(&refused(a.challenge(unnamed).await, Code::InvalidArgument)),
        "rated"
    );
    let mut crowded = challenge_of(&[&b], true);
    crowded.players = 5;
    assert_eq!(
        field(&refused(a.challenge(crowded).await, Code::InvalidArgument)),
        "players"
    );
    let mut late = challenge_of(&[&b], false);
    late.expires_in_secs = 3601;
    assert_eq!(
        field(&refused(a.challenge(late).await, Code::InvalidArgument)),
        "expires_in_secs"
    );

    // B takes challenges from bots only; then from nobody.
    assert_eq!(
        b.set_challenge_policy(v1::ChallengePolicy::BotsOnly)
            .await
            .unwrap(),
        v1::ChallengePolicy::BotsOnly
    );
    let from_person = refused(
        person.challenge(challenge_of(&[&b], false)).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&from_person), "CHALLENGES_REFUSED");
    let from_bot = a.challenge(challenge_of(&[&b], false)).await.unwrap();
    assert_eq!(
        b.set_challenge_policy(v1::ChallengePolicy::Unspecified)
            .await
            .unwrap(),
        v1::ChallengePolicy::BotsOnly,
        "unspecified leaves it as it is"
    );
    b.set_challenge_policy(v1::ChallengePolicy::Closed)
        .await
        .unwrap();
    let closed = refused(
        a.challenge(challenge_of(&[&b], false)).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&closed), "CHALLENGES_REFUSED");
    b.set_challenge_policy(v1::ChallengePolicy::Open)
        .await
        .unwrap();

    // Only those named answer; a declined challenge stays declined.
    let outsider = refused(
        stranger
            .answer_challenge(&from_bot.challenge_id, true)
            .await,
        Code::PermissionDenied,
    );
    assert_eq!(reason(&outsider), "NOT_CHALLENGED");
    let declined = b
        .answer_challenge(&from_bot.challenge_id, false)
        .await
        .unwrap();
    assert_eq!(declined.status(), v1::ChallengeStatus::Declined);
    let reopened = refused(
        b.answer_challenge(&from_bot.challenge_id, true).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&reopened), "CHALLENGE_CLOSED");
    refused(
        b.answer_challenge(&uuid::Uuid::new_v4().to_string(), true)
            .await,
        Code::NotFound,
    );
    assert_eq!(
        field(&refused(
            b.answer_challenge("x", true).await,
            Code::InvalidArgument
        )),
        "challenge_id"
    );

    // An expired challenge cannot be accepted.
    let mut short = challenge_of(&[&stranger], false);
    short.expires_in_secs = 1;
    let short = a.challenge(short).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let expired = refused(
        stranger.answer_challenge(&short.challenge_id, true).await,
        Code::FailedPrecondition,
    );
    assert!(expired.message().contains("expired"), "{expired:?}");

    // At most 8 challenges wait at once; the 9th is a limit, not a quota.
    let mut open = 0;
    let mut at_limit = None;
    for _ in 0..9 {
        match a.challenge(challenge_of(&[&stranger], false)).await {
            Ok(_) => open += 1,
            Err(e) => {
                at_limit = e.status().cloned();
                break;
            }
        }
    }
    // A's first challenge was declined and the short one expired: they count as long as they
    // can be seen (withdrawing or letting one expire frees no place at once): 6 more fit.
    assert_eq!(open, 6);
    let at_limit = at_limit.expect("refused at the limit");
    assert_eq!(at_limit.code(), Code::ResourceExhausted);
    assert_eq!(reason(&at_limit), "TOO_MANY_CHALLENGES");

    // What the refusals left: the stranger, who does not know A, is shown two of A's
    // challenges (the newest), and nothing else.
    let mut offers = stranger.offers().await.unwrap();
    let mut seen = HashMap::new();
    while seen.len() < challenge::SHOWN_PER_CHALLENGER {
        let c = next_challenge(&mut offers).await;
        seen.insert(
            c.challenge_id.clone(),
            (c.challenger_id.clone(), c.status()),
        );
    }
    assert!(
        seen.values()
            .all(|(who, s)| who == a.player_id() && *s == v1::ChallengeStatus::Pending),
        "{seen:?}"
    );
    let more = tokio::time::timeout(Duration::from_millis(500), offers.message()).await;
    assert!(
        !matches!(&more, Ok(Ok(Some(m))) if matches!(m.message, Some(Message::Challenge(_)))),
        "nothing else: {more:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn challenges_are_throttled_per_challenger() {
    let server = TestServer::sqlite_with(Options {
        quotas: QuotaOptions {
            challenges_per_min: 1,
            challenge_burst: 2,
            ..QuotaOptions::default()
        },
        ..Options::default()
    })
    .await;
    let a = bot(&server, "A").await;
    let b = bot(&server, "B").await;
    let other = bot(&server, "Other").await;
    for _ in 0..2 {
        a.challenge(challenge_of(&[&b], false)).await.unwrap();
    }
    // Called as a third party would, without this client's waiting on RetryInfo.
    let throttled = a
        .ladder_client()
        .challenge(a.request(challenge_of(&[&b], false)))
        .await
        .expect_err("over the quota");
    assert_eq!(throttled.code(), Code::ResourceExhausted);
    assert_eq!(reason(&throttled), "RATE_LIMITED");
    assert!(
        throttled.message().contains("challenges per player"),
        "{throttled:?}"
    );
    {
        use tonic_types::StatusExt;
        let wait = throttled
            .get_details_retry_info()
            .and_then(|r| r.retry_delay);
        assert!(wait.is_some_and(|w| w > Duration::from_secs(1)), "{wait:?}");
    }
    // Another challenger is not slowed by A.
    other.challenge(challenge_of(&[&b], false)).await.unwrap();
    server.stop().await;
}

/// Keeps a bot playing every game its `Offers` stream tells it of, reopening the stream
/// whenever it ends (a restart), until aborted.
fn drive(p: Session, seed: u64) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut playing = std::collections::HashSet::new();
        loop {
            let Ok(mut offers) = p.offers().await else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            while let Ok(Some(message)) = offers.message().await {
                if let Some(Message::Matched(m)) = message.message
                    && playing.insert(m.game_id.clone())
                {
                    let seed = seed + playing.len() as u64;
                    tokio::spawn(play_seat(p.clone(), m.game_id, m.seat, seed));
                }
            }
        }
    })
}

async fn tournament_of(p: &Session, id: &str) -> v1::GetTournamentResponse {
    loop {
        match p.tournament(id).await {
            Ok(t) => return t,
            // The server restarting.
            Err(e) if e.code() == Code::Unavailable => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("GetTournament: {e}"),
        }
    }
}

#[tokio::test]
async fn a_round_robin_is_played_out_across_a_restart_to_a_crosstable_that_adds_up() {
    let url = theboss_server::testing::fresh_postgres_url().await;
    let open = || async {
        let store = theboss_server::store::open(&url)
            .await
            .expect("open the store");
        std::sync::Arc::<dyn theboss_server::store::Store>::from(store)
    };
    let options = || Options {
        ladder: LadderOptions {
            turn_secs: 60,
            ..LadderOptions::default()
        },
        ..Options::default()
    };
    let server = TestServer::start(open().await, options()).await;
    let addr = server.addr;
    let mut bots = Vec::new();
    for i in 0..4 {
        bots.push(bot(&server, &format!("Bot {i}")).await);
    }
    let creator = &bots[0];

    // Bad requests change nothing.
    let request = |format: v1::TournamentFormat| v1::CreateTournamentRequest {
        name: "Test cup".into(),
        format: format as i32,
        players: 2,
        sets_per_pair: 1,
        hero_id: String::new(),
        max_entrants: 0,
        rated: false,
        enter: true,
    };
    let bad = refused(
        creator
            .create_tournament(request(v1::TournamentFormat::Unspecified))
            .await,
        Code::InvalidArgument,
    );
    assert_eq!(field(&bad), "format");
    let bad = refused(
        creator
            .create_tournament(request(v1::TournamentFormat::Gauntlet))
            .await,
        Code::InvalidArgument,
    );
    assert_eq!(field(&bad), "hero_id");
    let mut too_small = request(v1::TournamentFormat::RoundRobin);
    too_small.max_entrants = 3;
    assert_eq!(
        field(&refused(
            creator.create_tournament(too_small).await,
            Code::InvalidArgument
        )),
        "max_entrants"
    );
    assert!(
        creator
            .tournaments(v1::TournamentStatus::Unspecified, 10)
            .await
            .unwrap()
            .is_empty()
    );

    let cup = creator
        .create_tournament(request(v1::TournamentFormat::RoundRobin))
        .await
        .unwrap();
    let id = cup.tournament_id.clone();
    assert_eq!(cup.status(), v1::TournamentStatus::Open);
    assert_eq!(cup.entrants.len(), 1);
    for b in &bots[1..3] {
        b.enter_tournament(&id, false).await.unwrap();
    }
    let few = refused(
        creator.start_tournament(&id).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&few), "TOO_FEW_ENTRANTS");
    bots[3].enter_tournament(&id, false).await.unwrap();
    let not_mine = refused(bots[1].start_tournament(&id).await, Code::PermissionDenied);
    assert_eq!(reason(&not_mine), "NOT_CREATOR");
    refused(
        creator
            .start_tournament(&uuid::Uuid::new_v4().to_string())
            .await,
        Code::NotFound,
    );
    assert_eq!(
        field(&refused(
            creator.tournament("forged").await,
            Code::InvalidArgument
        )),
        "tournament_id"
    );
    let started = creator.start_tournament(&id).await.unwrap();
    assert_eq!(started.status(), v1::TournamentStatus::Running);
    let late = bot(&server, "Late").await;
    let closed = refused(
        late.enter_tournament(&id, false).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&closed), "TOURNAMENT_NOT_OPEN");

    let drivers: Vec<_> = bots
        .iter()
        .enumerate()
        .map(|(i, b)| drive(b.clone(), 100 * i as u64))
        .collect();
    // Once the first set has ended, the server stops and another takes its place on the
    // same database and address: the tournament goes on.
    tokio::time::timeout(Duration::from_secs(120), async {
        while tournament_of(creator, &id)
            .await
            .tournament
            .unwrap()
            .sets_finished
            == 0
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the first set ends");
    server.stop().await;
    let listener = tokio::net::TcpListener::bind(addr).await.expect("rebind");
    let server = TestServer::start_on(listener, open().await, options());

    let done = tokio::time::timeout(Duration::from_secs(240), async {
        loop {
            let t = tournament_of(creator, &id).await;
            if t.tournament.as_ref().unwrap().status() == v1::TournamentStatus::Finished {
                return t;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the tournament finishes");
    for d in drivers {
        d.abort();
    }
    let t = done.tournament.as_ref().unwrap();
    // Four entrants of 2-player games: six pairs, two compared per set, three sets.
    assert_eq!((t.sets_finished, t.sets_running), (3, 0));
    assert!(done.games.is_empty());
    assert_eq!(done.standings.len(), 4);
    assert!(
        done.standings.iter().all(|s| s.sets == 3),
        "{:?}",
        done.standings
    );
    let points: f64 = done.standings.iter().map(|s| s.points).sum();
    assert_eq!(points, 6.0, "one point per comparison");
    assert_eq!(done.crosstable.len(), 12, "every pair, both ways");
    for cell in &done.crosstable {
        assert_eq!(cell.sets, 1);
        assert!(cell.interval.is_none(), "one comparison has no interval");
        let mirror = done
            .crosstable
            .iter()
            .find(|c| c.player_id == cell.opponent_id && c.opponent_id == cell.player_id)
            .expect("both ways");
        assert_eq!(cell.points + mirror.points, 1.0);
        assert_eq!(cell.mean_money_diff, -mirror.mean_money_diff);
    }
    let ranks: Vec<u32> = done.standings.iter().map(|s| s.rank).collect();
    assert_eq!(ranks, [1, 2, 3, 4]);
    // A casual tournament rates nobody.
    assert!(
        creator
            .player(creator.player_id())
            .await
            .unwrap()
            .ratings
            .is_empty()
    );
    server.stop().await;
}
