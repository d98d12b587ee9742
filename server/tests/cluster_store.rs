//! What replicas share through PostgreSQL: ownership and its leases (a replica writes only
//! the games it owns while its lease runs), takeover of a dead replica's games, notifications
//! of committed actions, the matchmaker's election, and handing games over.

use std::time::Duration;

use theboss_server::store::coordination::{ClusterStore, Notification, Ownership, Renewal};
use theboss_server::store::prelude::*;
use theboss_server::store::{Effects, PostgresStore, StoreError, StoredAction};
use theboss_server::table::Action;
use theboss_server::testing::{
    self, a_join, a_turn, a_turn_heard, aborted, heard_within, replica, running,
};

/// A turn's effects whose writer knows they leave the game's row as it is: PostgreSQL writes
/// such a turn alone with a statement of its own, which fences and notifies as the others do.
fn unchanged() -> Effects {
    Effects {
        row_unchanged: true,
        ..running()
    }
}

/// Whether `wanted` arrives within two seconds (others before it are skipped).
async fn heard(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Notification>,
    wanted: Notification,
) -> bool {
    heard_within(rx, wanted, Duration::from_secs(2)).await
}

/// The next notification that is not a resync, within two seconds.
async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Notification>) -> Option<Notification> {
    tokio::time::timeout(Duration::from_secs(2), async {
        loop {
            match rx.recv().await {
                Some(Notification::Resync) => continue,
                other => return other,
            }
        }
    })
    .await
    .ok()
    .flatten()
}

#[tokio::test]
async fn replicas_write_only_what_they_own_and_take_over_the_dead() {
    let url = testing::fresh_postgres_url().await;
    let a = PostgresStore::connect(&url).await.unwrap();
    let b = PostgresStore::connect(&url).await.unwrap();
    let long = Duration::from_secs(60);
    a.join_cluster(&replica("a"), long).await.unwrap();
    b.join_cluster(&replica("b"), long).await.unwrap();
    let mut heard_by_a = a.listen().await.unwrap();
    let mut heard_by_b = b.listen().await.unwrap();

    // A creates the game: A runs it.
    let (player, game) = &testing::player_and_game(&a).await;
    assert_eq!(
        a.ownership(game).await.unwrap(),
        Some(Ownership::Owned(replica("a")))
    );
    let join = a_join(player);
    a.append_action(game, &join, &running()).await.unwrap();
    assert_eq!(
        next(&mut heard_by_b).await,
        Some(Notification::Action {
            game_id: game.clone(),
            seq: 1,
            action: Some(Box::new(join.clone())),
        }),
        "B hears of A's commit, the action with it"
    );
    a.append_action(game, &a_turn(2), &unchanged())
        .await
        .unwrap();
    assert!(matches!(
        next(&mut heard_by_b).await,
        Some(Notification::Action { seq: 2, .. })
    ));
    // B may not write A's game, in a group, alone or in a transaction (a leave that ends the
    // game), nor take it while A lives.
    for effects in [running(), unchanged()] {
        assert!(matches!(
            b.append_action(game, &a_turn(3), &effects).await,
            Err(StoreError::NotOwner { .. })
        ));
    }
    let leave = StoredAction {
        seq: 3,
        action: Action::Leave { seat: 0 },
        ..join.clone()
    };
    assert!(matches!(
        b.append_action(game, &leave, &aborted()).await,
        Err(StoreError::NotOwner { .. })
    ));
    assert!(!b.claim_game(game).await.unwrap());
    assert!(b.claim_orphans(10).await.unwrap().is_empty());

    // A's lease runs out: its own writes are refused, and B takes the game over.
    a.renew_lease(Duration::from_millis(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(a.ownership(game).await.unwrap(), Some(Ownership::Orphan));
    for effects in [running(), unchanged()] {
        assert!(matches!(
            a.append_action(game, &a_turn(3), &effects).await,
            Err(StoreError::NotOwner { .. })
        ));
    }
    assert_eq!(b.claim_orphans(10).await.unwrap(), vec![game.clone()]);
    assert_eq!(
        b.ownership(game).await.unwrap(),
        Some(Ownership::Owned(replica("b")))
    );
    // B, the only live replica now, notifies nobody, in a group or alone; A finds the
    // actions in the store.
    for (seq, effects) in [(3, running()), (4, unchanged())] {
        b.append_action(game, &a_turn(seq), &effects).await.unwrap();
        assert!(
            !heard_within(
                &mut heard_by_a,
                a_turn_heard(game, seq),
                Duration::from_millis(300)
            )
            .await,
            "B notified a replica it counts dead"
        );
    }
    let after: Vec<u64> = a
        .actions_after(game, 1)
        .await
        .unwrap()
        .iter()
        .map(|x| x.seq)
        .collect();
    assert_eq!(after, vec![2, 3, 4]);
    // A back alive learns it was away (to catch up), and hears of B's commits again; it does
    // not get the game back: B runs it.
    assert_eq!(a.renew_lease(long).await.unwrap(), Renewal::Lapsed);
    assert_eq!(a.renew_lease(long).await.unwrap(), Renewal::Held);
    b.append_action(game, &a_turn(5), &running()).await.unwrap();
    assert!(
        heard(&mut heard_by_a, a_turn_heard(game, 5)).await,
        "A hears of B's commit"
    );
    assert!(!a.claim_game(game).await.unwrap());

    // One matchmaker at a time; when it goes, another can be elected.
    let lead = a
        .try_lead("test.role")
        .await
        .unwrap()
        .expect("nobody leads yet");
    assert!(lead.is_held());
    assert!(b.try_lead("test.role").await.unwrap().is_none());
    drop(lead);
    let mut elected = None;
    for _ in 0..50 {
        elected = b.try_lead("test.role").await.unwrap();
        if elected.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(elected.is_some(), "B is elected once A lets go");
    // A service in another schema of the same database elects its own.
    let elsewhere = PostgresStore::connect(&testing::fresh_postgres_url().await)
        .await
        .unwrap();
    let other = elsewhere.try_lead("test.role").await.unwrap();
    assert!(other.is_some(), "another schema's service is not B's");

    // B stops: it gives its games up and says so.
    b.leave_cluster().await.unwrap();
    assert!(heard(&mut heard_by_a, Notification::Handover).await);
    assert_eq!(a.ownership(game).await.unwrap(), Some(Ownership::Orphan));
    assert_eq!(a.claim_orphans(10).await.unwrap(), vec![game.clone()]);
    let live: Vec<String> = a
        .replicas()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(live, vec!["a".to_string()]);
}
