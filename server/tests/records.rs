//! Game records through real gRPC: `ExportGames` streams a player's finished games, newest
//! first, page by page, as documented JSON that the engine replays to the same outcome with
//! the shuffle verified; bad requests are refused and change nothing.

mod common;

use common::*;
use theboss::fairness::Verdict;
use theboss::record::{self, EventKind, GameRecord};
use theboss::v1::{self, export_games_response::Message};
use theboss_client::Session;
use theboss_server::Options;
use theboss_server::quota::QuotaOptions;
use theboss_server::testing::TestServer;
use tonic::Code;

/// One export call: its records and its next page token.
async fn export(
    p: &Session,
    request: v1::ExportGamesRequest,
) -> Result<(Vec<String>, Option<String>), tonic::Status> {
    let mut stream = p
        .game_client()
        .export_games(p.request(request))
        .await?
        .into_inner();
    let (mut records, mut next) = (Vec::new(), None);
    while let Some(message) = stream.message().await? {
        match message.message {
            Some(Message::Record(json)) => {
                assert!(next.is_none(), "the page token comes last");
                assert!(!json.contains('\n'), "one line per record");
                records.push(json);
            }
            Some(Message::NextPageToken(token)) => next = Some(token),
            None => panic!("an empty message"),
        }
    }
    Ok((records, next))
}

/// A game of `n` players in which `me` sits at seat 0, played to its end; its id and seats.
async fn finished_game(
    server: &TestServer,
    me: &Session,
    n: u32,
    seed: u64,
) -> (String, Vec<Session>) {
    let mut seated = vec![me.clone()];
    for i in 1..n {
        seated.push(player(server, &format!("Opponent {seed}.{i}")).await);
    }
    let game_id = create(me, settings(n), Some(seed)).await;
    for (i, p) in seated.iter().enumerate() {
        p.join(&game_id, Some(i as u32)).await.expect("join");
    }
    play_to_end(&game_id, &seated, seed).await;
    (game_id, seated)
}

#[tokio::test]
async fn a_players_finished_games_export_as_records_that_replay() {
    // The test plays fast from one player: no quota.
    let server = TestServer::sqlite_with(Options {
        quotas: QuotaOptions::unlimited(),
        ..Options::default()
    })
    .await;
    let me = player(&server, "Exporter").await;
    let mut played = Vec::new();
    let mut tables = Vec::new();
    for (n, seed) in [(2, 901), (3, 902), (4, 903)] {
        let (game_id, seated) = finished_game(&server, &me, n, seed).await;
        played.push(game_id);
        tables.push(seated);
    }
    // A game still running is not exported.
    let (running, _) = seated_game(&server, 2, 904).await;

    // Two pages: two records and a token, then the last record.
    let (first, token) = export(
        &me,
        v1::ExportGamesRequest {
            page_size: 2,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let token = token.expect("a third game remains");
    let (second, last) = export(
        &me,
        v1::ExportGamesRequest {
            page_size: 2,
            page_token: token.clone(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!((first.len(), second.len(), last), (2, 1, None));
    let records: Vec<GameRecord> = first
        .iter()
        .chain(&second)
        .map(|json| GameRecord::from_json(json).expect("a record of this format"))
        .collect();
    // Newest first.
    let ids: Vec<&str> = records.iter().map(|r| r.game_id.as_str()).collect();
    assert_eq!(
        ids,
        [&played[2], &played[1], &played[0]].map(String::as_str)
    );
    assert!(!ids.contains(&running.as_str()));

    for record in &records {
        assert_eq!(
            (record.format.as_str(), record.version),
            (record::FORMAT, 1)
        );
        let n = usize::from(record.players);
        assert_eq!(record.seats.len(), n);
        assert_eq!(record.seats[0].player_id, me.player_id());
        // The engine replays it to the recorded end, the shuffle the one committed to.
        let replayed = record.replay().expect("the record replays");
        assert_eq!(replayed.shuffle, Verdict::Verified);
        assert!(replayed.game.is_over());
        // The record says what the service says.
        let final_view = view(&me, &record.game_id).await;
        let winners: Vec<u8> = final_view
            .outcome
            .as_ref()
            .unwrap()
            .winners
            .iter()
            .map(|&w| w as u8)
            .collect();
        assert_eq!(record.outcome.winners, winners);
        assert_eq!(
            record.seed_commitment.as_deref(),
            Some(final_view.seed_commitment.as_str())
        );
        let history = history(&me, &record.game_id).await;
        assert_eq!(record.seed, history.seed.unwrap().to_string());
        assert_eq!(record.events.len(), history.entries.len());
        let turns = history
            .entries
            .iter()
            .filter(|e| {
                matches!(
                    e.event.as_ref().and_then(|e| e.kind.as_ref()),
                    Some(v1::game_event::Kind::TurnTaken(_))
                )
            })
            .count();
        assert_eq!(record.turns.len(), turns);
        // Every hand is in it once the game is over.
        let hands = record
            .events
            .iter()
            .filter(|e| matches!(e.event, EventKind::HandDealt { .. }))
            .count();
        assert_eq!(hands % n, 0);
        assert!(hands >= n);
        // It round-trips through its JSON.
        assert_eq!(&GameRecord::from_json(&record.to_json()).unwrap(), record);
    }

    // A record whose turns were tampered with does not replay to its outcome.
    let mut forged = records[0].clone();
    let last = forged.turns.len() - 1;
    forged.turns.truncate(last);
    assert!(forged.replay().is_err());
    let mut reseeded = records[0].clone();
    reseeded.seed = "1".into();
    assert!(reseeded.replay().is_err(), "another seed deals other cards");

    // An opponent exports only its own games: the one game it sat in.
    let opponent = &tables[0][1];
    let (theirs, _) = export(opponent, v1::ExportGamesRequest::default())
        .await
        .unwrap();
    assert_eq!(theirs.len(), 1);
    assert_eq!(
        GameRecord::from_json(&theirs[0]).unwrap().game_id,
        played[0]
    );

    // Time windows.
    let later = prost_types::Timestamp {
        seconds: 4_000_000_000,
        nanos: 0,
    };
    let (none, _) = export(
        &me,
        v1::ExportGamesRequest {
            finished_after: Some(later),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(none.is_empty());
    let (all, _) = export(
        &me,
        v1::ExportGamesRequest {
            finished_before: Some(later),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(all.len(), 3);

    // Bad requests are refused, naming the field.
    for (request, field) in [
        (
            v1::ExportGamesRequest {
                page_token: "not-a-token".into(),
                ..Default::default()
            },
            "page_token",
        ),
        (
            v1::ExportGamesRequest {
                page_token: format!("12.{}", "x".repeat(36)),
                ..Default::default()
            },
            "page_token",
        ),
        (
            v1::ExportGamesRequest {
                page_size: 201,
                ..Default::default()
            },
            "page_size",
        ),
        (
            v1::ExportGamesRequest {
                finished_after: Some(later),
                finished_before: Some(later),
                ..Default::default()
            },
            "finished_before",
        ),
    ] {
        let refused = export(&me, request).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert_eq!(bad_field(&refused), field);
    }
    server.stop().await;
}

fn bad_field(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_details_bad_request()
        .expect("BadRequest")
        .field_violations[0]
        .field
        .clone()
}
