//! What replicas of one service share through PostgreSQL: leases, ownership of games,
//! `LISTEN`/`NOTIFY` of committed actions and ladder changes, and the advisory lock that
//! elects the ladder's matchmaker (see `store::coordination` for the contract).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use sqlx::postgres::PgListener;
use sqlx::{Connection, Executor};
use tokio::sync::{mpsc, oneshot};

use super::PostgresStore;
use crate::store::coordination::{
    ClusterStore, LadderSignal, Leadership, Notification, Ownership, Renewal, Replica,
};
use crate::store::sql::rows::{self, ActionRow};
use crate::store::{StoreError, StoredAction};

pub(in crate::store) const ACTIONS_CHANNEL: &str = "theboss_actions";
pub(in crate::store) const LADDER_CHANNEL: &str = "theboss_ladder";
pub(in crate::store) const CLUSTER_CHANNEL: &str = "theboss_cluster";

pub(in crate::store) const JOIN_CLUSTER: &str = "INSERT INTO replicas (id, url, started_at, lease_until) \
     VALUES ($1, $2, $3, now() + make_interval(secs => $4)) ON CONFLICT (id) \
     DO UPDATE SET url = excluded.url, lease_until = excluded.lease_until";
/// Renews a lease and returns whether it still ran (the row as it was before, by the
/// primary key twice).
pub(in crate::store) const RENEW_LEASE: &str = "UPDATE replicas r \
     SET lease_until = now() + make_interval(secs => $2) \
     FROM replicas was WHERE r.id = $1 AND was.id = $1 RETURNING was.lease_until > now()";
/// Waits for every transaction that read `replicas` (each write does, to check its lease and
/// whom to notify) to end; later ones wait a moment behind it.
pub(in crate::store) const FENCE_WRITES: &str = "LOCK TABLE replicas IN ACCESS EXCLUSIVE MODE";
pub(in crate::store) const RELEASE_GAMES: &str =
    "UPDATE games SET owner = NULL WHERE owner = $1 RETURNING id";
/// By the partial index `games_by_owner`.
pub(in crate::store) const OWNED_GAMES: &str =
    "SELECT id FROM games WHERE owner = $1 AND status IN ('open', 'running') ORDER BY ord";
pub(in crate::store) const LEAVE_CLUSTER: &str = "DELETE FROM replicas WHERE id = $1";
pub(in crate::store) const LIVE_REPLICAS: &str =
    "SELECT id, url FROM replicas WHERE lease_until > now() ORDER BY id";
pub(in crate::store) const OWNERSHIP: &str = "SELECT g.status, g.owner, r.url, r.lease_until > now() \
     FROM games g LEFT JOIN replicas r ON r.id = g.owner WHERE g.id = $1";
pub(in crate::store) const CLAIM_GAME: &str = "UPDATE games g SET owner = $2 WHERE g.id = $1 \
     AND g.status IN ('open', 'running') \
     AND (g.owner IS NULL OR g.owner = $2 OR NOT EXISTS \
     (SELECT 1 FROM replicas r WHERE r.id = g.owner AND r.lease_until > now())) \
     AND EXISTS (SELECT 1 FROM replicas me WHERE me.id = $2 AND me.lease_until > now()) \
     RETURNING g.id";
pub(in crate::store) const CLAIM_ORPHANS: &str = "UPDATE games g SET owner = $1 WHERE g.id IN ( \
     SELECT o.id FROM games o WHERE o.status IN ('open', 'running') \
     AND (o.owner IS NULL OR NOT EXISTS \
     (SELECT 1 FROM replicas r WHERE r.id = o.owner AND r.lease_until > now())) \
     ORDER BY o.ord LIMIT $2 FOR UPDATE SKIP LOCKED) \
     AND EXISTS (SELECT 1 FROM replicas me WHERE me.id = $1 AND me.lease_until > now()) \
     RETURNING g.id";
/// By the primary key (game_id, seq).
pub(in crate::store) const ACTIONS_AFTER: &str = "SELECT seq, player_id, idempotency_key, format, payload, at \
     FROM actions WHERE game_id = $1 AND seq > $2 ORDER BY seq";
pub(in crate::store) const NOTIFY: &str = "SELECT pg_notify($1, $2)";
/// Advisory locks are the database's, not a schema's: the key names the schema too, so that
/// services in different schemas of one database (tests, benchmarks) elect their own.
pub(in crate::store) const TRY_ADVISORY_LOCK: &str =
    "SELECT pg_try_advisory_lock(hashtextextended(current_schema() || '/' || $1, 0))";

/// An advisory lock held on a connection of its own; a keeper checks the connection and
/// closes it (so the lock goes) when the leadership is dropped.
struct PgLeadership {
    held: Arc<AtomicBool>,
    _stop: oneshot::Sender<()>,
}

impl Leadership for PgLeadership {
    fn is_held(&self) -> bool {
        self.held.load(Ordering::Relaxed)
    }
}

/// A committed action as the statements that commit it notify it (`json_build_object`).
#[derive(serde::Deserialize)]
struct Committed {
    g: String,
    s: i64,
    p: Option<String>,
    k: Option<String>,
    f: i32,
    t: i64,
    /// Absent when too large for a notification.
    a: Option<String>,
}

/// How the notifications of replica `id`'s actions begin: `r`, the writer, is their first key
/// (`NOTIFY_ACTION`, `APPEND_GROUP`), as `json_build_object` writes it. Should PostgreSQL ever
/// write it otherwise, nothing starts so, and its own actions are parsed and passed by as
/// before.
fn own_actions_start(id: &str) -> String {
    let quoted = serde_json::to_string(id).expect("a string serializes");
    format!("{{\"r\" : {quoted}")
}

fn parse_notification(channel: &str, payload: &str) -> Option<Notification> {
    match channel {
        ACTIONS_CHANNEL => {
            let c: Committed = serde_json::from_str(payload).ok()?;
            let action = c.a.and_then(|a| {
                let row = (c.s, c.p, c.k, c.f, a, c.t);
                rows::action_from_row(&c.g, row).ok().map(Box::new)
            });
            Some(Notification::Action {
                seq: u64::try_from(c.s).ok()?,
                game_id: c.g,
                action,
            })
        }
        LADDER_CHANNEL => LadderSignal::decode(payload).map(Notification::Ladder),
        CLUSTER_CHANNEL if payload == "handover" => Some(Notification::Handover),
        _ => None,
    }
}

#[async_trait]
impl ClusterStore for PostgresStore {
    async fn join_cluster(&self, me: &Replica, lease: Duration) -> Result<(), StoreError> {
        let started = i64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_micros(),
        )
        .unwrap_or(i64::MAX);
        sqlx::query(JOIN_CLUSTER)
            .bind(&me.id)
            .bind(&me.url)
            .bind(started)
            .bind(lease.as_secs_f64())
            .execute(&self.pool)
            .await?;
        self.me
            .set(me.clone())
            .map_err(|_| StoreError::Corrupt("this store joined a cluster already".into()))
    }

    async fn renew_lease(&self, lease: Duration) -> Result<Renewal, StoreError> {
        let ran: Option<bool> = sqlx::query_scalar(RENEW_LEASE)
            .bind(&self.replica()?.id)
            .bind(lease.as_secs_f64())
            .fetch_optional(&self.pool)
            .await?;
        Ok(match ran {
            Some(true) => Renewal::Held,
            Some(false) => Renewal::Lapsed,
            None => Renewal::Gone,
        })
    }

    async fn fence_writes(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        // Writes are short; one that holds the table this long is stuck, and the caller
        // hears of it rather than waiting with every other write queued behind.
        sqlx::query("SET LOCAL lock_timeout = '10s'")
            .execute(&mut *tx)
            .await?;
        sqlx::query(FENCE_WRITES).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn leave_cluster(&self) -> Result<(), StoreError> {
        let me = &self.replica()?.id;
        sqlx::query(RELEASE_GAMES)
            .bind(me)
            .execute(&self.pool)
            .await?;
        sqlx::query(LEAVE_CLUSTER)
            .bind(me)
            .execute(&self.pool)
            .await?;
        self.notify(&Notification::Handover).await
    }

    async fn replicas(&self) -> Result<Vec<Replica>, StoreError> {
        let live: Vec<(String, String)> =
            sqlx::query_as(LIVE_REPLICAS).fetch_all(&self.pool).await?;
        Ok(live
            .into_iter()
            .map(|(id, url)| Replica { id, url })
            .collect())
    }

    async fn ownership(&self, game_id: &str) -> Result<Option<Ownership>, StoreError> {
        let row: Option<(String, Option<String>, Option<String>, Option<bool>)> =
            sqlx::query_as(OWNERSHIP)
                .bind(game_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(status, owner, url, alive)| {
            let over = crate::domain::GameStatus::parse(&status).is_some_and(|s| s.is_over());
            match (over, owner, url, alive) {
                (true, ..) => Ownership::Over,
                (false, Some(id), Some(url), Some(true)) => Ownership::Owned(Replica { id, url }),
                _ => Ownership::Orphan,
            }
        }))
    }

    async fn claim_game(&self, game_id: &str) -> Result<bool, StoreError> {
        let claimed: Option<(String,)> = sqlx::query_as(CLAIM_GAME)
            .bind(game_id)
            .bind(&self.replica()?.id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(claimed.is_some())
    }

    async fn claim_orphans(&self, limit: u32) -> Result<Vec<String>, StoreError> {
        let claimed: Vec<(String,)> = sqlx::query_as(CLAIM_ORPHANS)
            .bind(&self.replica()?.id)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        Ok(claimed.into_iter().map(|(id,)| id).collect())
    }

    async fn owned_games(&self) -> Result<Vec<String>, StoreError> {
        let owned: Vec<(String,)> = sqlx::query_as(OWNED_GAMES)
            .bind(&self.replica()?.id)
            .fetch_all(&self.pool)
            .await?;
        Ok(owned.into_iter().map(|(id,)| id).collect())
    }

    async fn release_games(&self) -> Result<Vec<String>, StoreError> {
        let released: Vec<(String,)> = sqlx::query_as(RELEASE_GAMES)
            .bind(&self.replica()?.id)
            .fetch_all(&self.pool)
            .await?;
        Ok(released.into_iter().map(|(id,)| id).collect())
    }

    async fn actions_after(
        &self,
        game_id: &str,
        seq: u64,
    ) -> Result<Vec<StoredAction>, StoreError> {
        let after = i64::try_from(seq).unwrap_or(i64::MAX);
        let found: Vec<ActionRow> = sqlx::query_as(ACTIONS_AFTER)
            .bind(game_id)
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
        found
            .into_iter()
            .map(|row| rows::action_from_row(game_id, row))
            .collect()
    }

    async fn notify(&self, notification: &Notification) -> Result<(), StoreError> {
        let (channel, payload) = match notification {
            // Commits notify themselves, in the committing statement.
            Notification::Action { .. } => return Ok(()),
            Notification::Ladder(signal) => (LADDER_CHANNEL, signal.encode()),
            Notification::Handover => (CLUSTER_CHANNEL, "handover".to_string()),
            Notification::Resync => return Ok(()),
        };
        sqlx::query(NOTIFY)
            .bind(channel)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn listen(&self) -> Result<mpsc::UnboundedReceiver<Notification>, StoreError> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener
            .listen_all([ACTIONS_CHANNEL, LADDER_CHANNEL, CLUSTER_CHANNEL])
            .await?;
        // Listening now: the writes that began before and may not notify this replica end
        // before it reads anything it follows.
        self.fence_writes().await?;
        let (tx, rx) = mpsc::unbounded_channel();
        let own = self.me.get().map(|me| own_actions_start(&me.id));
        tokio::spawn(async move {
            loop {
                let notification = match listener.try_recv().await {
                    // This replica's own actions, the most frequent notification by far: its
                    // games have them already.
                    Ok(Some(n))
                        if n.channel() == ACTIONS_CHANNEL
                            && own.as_ref().is_some_and(|own| n.payload().starts_with(own)) =>
                    {
                        None
                    }
                    Ok(Some(n)) => parse_notification(n.channel(), n.payload()),
                    // The connection was lost and is back: what was sent meanwhile is lost.
                    Ok(None) => Some(Notification::Resync),
                    Err(error) => {
                        tracing::warn!(%error, "the notification listener failed; retrying");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        Some(Notification::Resync)
                    }
                };
                if let Some(notification) = notification
                    && tx.send(notification).is_err()
                {
                    return;
                }
            }
        });
        Ok(rx)
    }

    async fn try_lead(&self, role: &str) -> Result<Option<Box<dyn Leadership>>, StoreError> {
        let mut connection = self.pool.acquire().await?.detach();
        let (locked,): (bool,) = sqlx::query_as(TRY_ADVISORY_LOCK)
            .bind(role)
            .fetch_one(&mut connection)
            .await?;
        if !locked {
            let _ = connection.close().await;
            return Ok(None);
        }
        let held = Arc::new(AtomicBool::new(true));
        let (stop, mut stopped) = oneshot::channel::<()>();
        let keeper = held.clone();
        tokio::spawn(async move {
            let mut check = tokio::time::interval(Duration::from_secs(1));
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    _ = check.tick() => {
                        if connection.execute("SELECT 1").await.is_err() {
                            break;
                        }
                    }
                }
            }
            keeper.store(false, Ordering::Relaxed);
            // Closing the session releases the lock.
            let _ = connection.close().await;
        });
        Ok(Some(Box::new(PgLeadership { held, _stop: stop })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::prelude::*;
    use crate::table::Action;
    use crate::testing::{a_join, a_turn, a_turn_heard, aborted, heard_within, replica, running};

    /// A replica passes its own actions' notifications by from how they begin; the test holds
    /// that start to what PostgreSQL writes, and the rest to what every replica parses.
    #[tokio::test]
    async fn a_replica_knows_its_own_actions_by_how_their_notifications_begin() {
        let url = crate::testing::fresh_postgres_url().await;
        let store = PostgresStore::connect(&url).await.unwrap();
        let mut listener = PgListener::connect_with(&store.pool).await.unwrap();
        listener.listen(ACTIONS_CHANNEL).await.unwrap();
        // Channels are the database's: other tests' replicas notify on it too.
        let me = format!("replica-{}", uuid::Uuid::new_v4());
        // Actions are notified only while another replica lives to hear them.
        let listening = Replica {
            id: format!("{me}-listening"),
            url: "http://listening.invalid:1".into(),
        };
        store
            .join_cluster(&listening, Duration::from_secs(60))
            .await
            .unwrap();
        sqlx::query(super::super::NOTIFY_ACTION)
            .bind("g1")
            .bind(3_i64)
            .bind(Some("p1"))
            .bind(None::<&str>)
            .bind(1_i32)
            .bind("not an action")
            .bind(42_i64)
            .bind(&me)
            .execute(&store.pool)
            .await
            .unwrap();
        let payload = loop {
            let notification = listener.recv().await.unwrap();
            if notification.payload().contains(&me) {
                break notification.payload().to_string();
            }
        };
        assert!(
            payload.starts_with(&own_actions_start(&me)),
            "{payload:?} does not start with {:?}",
            own_actions_start(&me)
        );
        let other = format!("{me}-2");
        assert!(!payload.starts_with(&own_actions_start(&other)));
        assert!(!payload.starts_with(&own_actions_start("replica")));
        // Another replica reads it as before.
        match parse_notification(ACTIONS_CHANNEL, &payload) {
            Some(Notification::Action {
                game_id,
                seq,
                action,
            }) => {
                assert_eq!((game_id.as_str(), seq), ("g1", 3));
                assert!(action.is_none(), "not an action: {action:?}");
            }
            _ => panic!("{payload:?} is an action's notification"),
        }
    }

    /// A commit is notified only while another replica lives to hear it; one that joins waits, in
    /// `listen`, for the writes that began before it did (and so may not notify it) to end, so
    /// that whatever it reads afterwards misses nothing.
    #[tokio::test]
    async fn a_replica_alone_notifies_nobody_and_one_that_joins_misses_nothing() {
        let url = crate::testing::fresh_postgres_url().await;
        let a = PostgresStore::connect(&url).await.unwrap();
        let b = PostgresStore::connect(&url).await.unwrap();
        let long = Duration::from_secs(60);
        a.join_cluster(&replica("a"), long).await.unwrap();
        let (player, game) = &crate::testing::player_and_game(&a).await;
        let join = a_join(player);

        // Alone, A's commits (a group's; a transaction's, the leave that ends another game)
        // reach no listener.
        let mut raw = PgListener::connect(&url).await.unwrap();
        raw.listen(ACTIONS_CHANNEL).await.unwrap();
        a.append_action(game, &join, &running()).await.unwrap();
        let (other_player, other_game) = &crate::testing::player_and_game(&a).await;
        let other_join = a_join(other_player);
        a.append_action(other_game, &other_join, &running())
            .await
            .unwrap();
        let leave = StoredAction {
            seq: 2,
            action: Action::Leave { seat: 0 },
            ..other_join
        };
        a.append_action(other_game, &leave, &aborted())
            .await
            .unwrap();
        let heard_raw = tokio::time::timeout(Duration::from_millis(300), async {
            loop {
                let n = raw.recv().await.unwrap();
                if n.payload().contains(game.as_str()) || n.payload().contains(other_game.as_str())
                {
                    return n.payload().to_string();
                }
            }
        })
        .await;
        assert!(heard_raw.is_err(), "a replica alone notified {heard_raw:?}");

        // A write of A's is under way (it has read `replicas`, as every write does) when B joins:
        // B's listen returns only once it has ended.
        let mut writing = sqlx::PgConnection::connect(&url).await.unwrap();
        let mut under_way = writing.begin().await.unwrap();
        sqlx::query("SELECT 1 FROM replicas WHERE id = 'a'")
            .execute(&mut *under_way)
            .await
            .unwrap();
        b.join_cluster(&replica("b"), long).await.unwrap();
        let listening = tokio::spawn(async move {
            let heard_by_b = b.listen().await.unwrap();
            (b, heard_by_b)
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !listening.is_finished(),
            "B listens before a write that began before it joined has ended"
        );
        under_way.commit().await.unwrap();
        let (b, mut heard_by_b) = tokio::time::timeout(Duration::from_secs(10), listening)
            .await
            .expect("B listens once the write has ended")
            .unwrap();

        // From then on, A's commits are notified.
        a.append_action(game, &a_turn(2), &running()).await.unwrap();
        let second = a_turn_heard(game, 2);
        assert!(
            heard_within(&mut heard_by_b, second, Duration::from_secs(2)).await,
            "B hears of A's commit"
        );
        assert_eq!(b.renew_lease(long).await.unwrap(), Renewal::Held);
    }
}
