//! PostgreSQL, for deployments: `--database-url postgres://…`. Queries are shared with
//! SQLite (see `rows`); a connection may carry `options=-c search_path=…` so that tests can
//! give each run its own schema.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use sqlx::postgres::{PgListener, PgPoolOptions};
use sqlx::{Connection, Executor};
use tokio::sync::{mpsc, oneshot};

use super::cluster::{ClusterStore, Leadership, Notification, Ownership, Replica};
use super::group::{Append, GroupCommit, Refused};
use super::sql::sql_store;
use super::{StoreError, StoredAction, queries, rows};

const ACTIONS_CHANNEL: &str = "theboss_actions";
const LADDER_CHANNEL: &str = "theboss_ladder";
const CLUSTER_CHANNEL: &str = "theboss_cluster";

/// Connections in the pool.
const CONNECTIONS: u32 = 16;
/// Groups of appends written at once; the rest of the pool serves reads and other writes.
const GROUP_LANES: usize = 2;
const MAX_GROUP: usize = 256;

pub struct PostgresStore {
    pool: sqlx::PgPool,
    group: GroupCommit,
    /// Set once this store joins a cluster: the replica it writes for.
    me: Arc<OnceLock<Replica>>,
}

impl PostgresStore {
    /// Connects and applies the migrations (under an advisory lock, so several servers may
    /// start at once).
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(CONNECTIONS)
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let me: Arc<OnceLock<Replica>> = Arc::default();
        let (writer, replica) = (pool.clone(), me.clone());
        let group = GroupCommit::start(GROUP_LANES, MAX_GROUP, move |appends| {
            write_group(writer.clone(), replica.get().map(|r| r.id.clone()), appends)
        });
        Ok(PostgresStore { pool, group, me })
    }

    const BEGIN_WRITE: &'static str = "BEGIN";
    /// Rows read to be written back are locked until the transaction ends.
    const LOCK_ROW: &'static str = " FOR UPDATE";
    /// In a cluster, a write goes on only while this replica owns the game.
    const FENCE_GAME: Option<&'static str> = Some(queries::FENCE_GAME_POSTGRES);
    /// In a cluster, every committed action is told to the other replicas.
    const NOTIFY_ACTION: Option<&'static str> = Some(queries::NOTIFY_ACTION_POSTGRES);

    /// The replica this store writes for, once it joined a cluster.
    fn owner_id(&self) -> Option<&str> {
        self.me.get().map(|r| r.id.as_str())
    }

    fn replica(&self) -> Result<&Replica, StoreError> {
        self.me
            .get()
            .ok_or_else(|| StoreError::Corrupt("this store has not joined a cluster".into()))
    }
}

/// A group of appends in one statement, column by column; as replica `me`, only those of
/// games it owns (the others are refused).
async fn write_group(
    pool: sqlx::PgPool,
    me: Option<String>,
    appends: Vec<Append>,
) -> Result<Refused, sqlx::Error> {
    let n = appends.len();
    let (mut games, mut seqs, mut players, mut keys) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut formats, mut payloads, mut ats) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut statuses, mut winners, mut money) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for a in appends {
        games.push(a.game_id.clone());
        seqs.push(a.seq);
        players.push(a.player_id);
        keys.push(a.idempotency_key);
        formats.push(a.format);
        payloads.push(a.payload);
        ats.push(a.at);
        statuses.push(a.status);
        winners.push(a.winners);
        money.push(a.money);
    }
    let written: Vec<(String,)> = sqlx::query_as(queries::APPEND_GROUP_POSTGRES)
        .bind(&games)
        .bind(seqs)
        .bind(players)
        .bind(keys)
        .bind(formats)
        .bind(payloads)
        .bind(ats)
        .bind(statuses)
        .bind(winners)
        .bind(money)
        .bind(me)
        .fetch_all(&pool)
        .await?;
    Ok(games
        .into_iter()
        .filter(|g| !written.iter().any(|(w,)| w == g))
        .collect())
}

sql_store!(PostgresStore, sqlx::Postgres);

impl PostgresStore {
    /// Creates a new, empty schema named `<prefix><unix seconds>_<random>` in the database at
    /// `base_url` and returns a URL whose connections use it, so that test runs never see
    /// each other's data. Schemas with the same prefix older than an hour (left by runs that
    /// were killed) are dropped.
    pub async fn fresh_schema(base_url: &str, prefix: &str) -> Result<String, StoreError> {
        let pool = sqlx::PgPool::connect(base_url).await?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let existing: Vec<(String,)> = sqlx::query_as(
            "SELECT schema_name::text FROM information_schema.schemata WHERE starts_with(schema_name, $1)",
        )
        .bind(prefix)
        .fetch_all(&pool)
        .await?;
        for (name,) in existing {
            let created = name
                .strip_prefix(prefix)
                .and_then(|rest| rest.split('_').next())
                .and_then(|secs| secs.parse::<u64>().ok());
            if created.is_some_and(|t| t + 3600 < now) {
                // Another run may be dropping it too; either way it goes.
                let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "DROP SCHEMA IF EXISTS \"{name}\" CASCADE"
                )))
                .execute(&pool)
                .await;
            }
        }
        let schema = format!("{prefix}{now}_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA \"{schema}\"")))
            .execute(&pool)
            .await?;
        pool.close().await;
        let separator = if base_url.contains('?') { '&' } else { '?' };
        Ok(format!(
            "{base_url}{separator}options[search_path]={schema}"
        ))
    }
}

/// The advisory lock key of a role (its name's FNV-1a hash: stable across versions).
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
        LADDER_CHANNEL => Some(Notification::Ladder),
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
        sqlx::query(queries::JOIN_CLUSTER)
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

    async fn renew_lease(&self, lease: Duration) -> Result<bool, StoreError> {
        let done = sqlx::query(queries::RENEW_LEASE)
            .bind(&self.replica()?.id)
            .bind(lease.as_secs_f64())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn leave_cluster(&self) -> Result<(), StoreError> {
        let me = &self.replica()?.id;
        sqlx::query(queries::RELEASE_GAMES)
            .bind(me)
            .execute(&self.pool)
            .await?;
        sqlx::query(queries::LEAVE_CLUSTER)
            .bind(me)
            .execute(&self.pool)
            .await?;
        self.notify(&Notification::Handover).await
    }

    async fn replicas(&self) -> Result<Vec<Replica>, StoreError> {
        let rows: Vec<(String, String)> = sqlx::query_as(queries::LIVE_REPLICAS)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .into_iter()
            .map(|(id, url)| Replica { id, url })
            .collect())
    }

    async fn ownership(&self, game_id: &str) -> Result<Option<Ownership>, StoreError> {
        let row: Option<(String, Option<String>, Option<String>, Option<bool>)> =
            sqlx::query_as(queries::OWNERSHIP)
                .bind(game_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(status, owner, url, alive)| {
            let over = crate::domain::Status::parse(&status).is_some_and(|s| s.is_over());
            match (over, owner, url, alive) {
                (true, ..) => Ownership::Over,
                (false, Some(id), Some(url), Some(true)) => Ownership::Owned(Replica { id, url }),
                _ => Ownership::Orphan,
            }
        }))
    }

    async fn claim_game(&self, game_id: &str) -> Result<bool, StoreError> {
        let claimed: Option<(String,)> = sqlx::query_as(queries::CLAIM_GAME)
            .bind(game_id)
            .bind(&self.replica()?.id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(claimed.is_some())
    }

    async fn claim_orphans(&self, limit: u32) -> Result<Vec<String>, StoreError> {
        let claimed: Vec<(String,)> = sqlx::query_as(queries::CLAIM_ORPHANS)
            .bind(&self.replica()?.id)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        Ok(claimed.into_iter().map(|(id,)| id).collect())
    }

    async fn owned_games(&self) -> Result<Vec<String>, StoreError> {
        let owned: Vec<(String,)> = sqlx::query_as(queries::OWNED_GAMES)
            .bind(&self.replica()?.id)
            .fetch_all(&self.pool)
            .await?;
        Ok(owned.into_iter().map(|(id,)| id).collect())
    }

    async fn release_games(&self) -> Result<Vec<String>, StoreError> {
        let released: Vec<(String,)> = sqlx::query_as(queries::RELEASE_GAMES)
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
        let rows: Vec<rows::ActionRow> = sqlx::query_as(queries::ACTIONS_AFTER)
            .bind(game_id)
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter()
            .map(|row| rows::action_from_row(game_id, row))
            .collect()
    }

    async fn notify(&self, notification: &Notification) -> Result<(), StoreError> {
        let (channel, payload) = match notification {
            // Commits notify themselves, in the committing statement.
            Notification::Action { .. } => return Ok(()),
            Notification::Ladder => (LADDER_CHANNEL, String::new()),
            Notification::Handover => (CLUSTER_CHANNEL, "handover".to_string()),
            Notification::Resync => return Ok(()),
        };
        sqlx::query(queries::NOTIFY)
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
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            loop {
                let notification = match listener.try_recv().await {
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
        let (locked,): (bool,) = sqlx::query_as(queries::TRY_ADVISORY_LOCK)
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
