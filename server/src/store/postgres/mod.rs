//! PostgreSQL, for deployments: `--database-url postgres://…`. The statements are shared with
//! SQLite (`sql`); this module brings the pool, the migrations, its group commit (a group of
//! turns in one statement over arrays, a turn alone in one of its own) and, in
//! [`coordination`], what replicas of one service share. A connection may carry
//! `options=-c search_path=…` so that tests can give each run its own schema.

mod coordination;
#[cfg(test)]
mod plans;
mod schemas;
mod vacuum;

use std::str::FromStr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgQueryResult};
use sqlx::{Connection, PgConnection};

use super::StoreError;
use super::coordination::Replica;
use super::group::{Append, GroupCommit, Refused, Seating};
use super::sql::{Backend, SqlStore};

/// The store on PostgreSQL.
pub type PostgresStore = SqlStore<sqlx::Postgres>;

/// Connections of the games' pool (the group commits keep one more of their own, `Writers`).
const CONNECTIONS: u32 = 16;
/// Connections of the other work's pool (`SqlStore::side`).
const SIDE_CONNECTIONS: u32 = 4;
/// Groups of appends written at once; the rest of the pool serves reads and other writes.
/// One lane: a second one let appends go at once while the first was busy, but made groups
/// half as large, and each transaction has a fixed cost in PostgreSQL and in the server (a
/// round trip, a commit, a flush of the log). Measured with the benchmark on 2 cores, one
/// lane gave more actions/s and lower latencies at 10 and 100 concurrent games, and the same
/// latency for one game alone (measured by `theboss-bench`).
const GROUP_LANES: usize = 1;
const MAX_GROUP: usize = 256;

/// A replica's write to a game goes on only while it owns the game and its lease runs; the
/// game's row is locked against a takeover until the write commits.
pub(in crate::store) const FENCE_GAME: &str = "SELECT 1 FROM games g WHERE g.id = $1 AND g.owner = $2 \
     AND EXISTS (SELECT 1 FROM replicas r WHERE r.id = $2 AND r.lease_until > now()) FOR SHARE OF g";
/// Whether a replica other than `$id` holds a live lease: a commit's notification is for them
/// only. A replica alone notifies nobody, which spares PostgreSQL a JSON object and a queue
/// entry per action and the replica its own listener's echo. Two ranges rather than
/// `<>`, so that both are read through the primary key. A writer that began before another
/// replica joined (or came back from a lapsed lease) may not have seen it: that replica
/// waits for such writes to end (`ClusterStore::fence_writes`), then reads the store.
macro_rules! others_live {
    ($id:literal) => {
        concat!(
            "(EXISTS (SELECT 1 FROM replicas o WHERE o.id < ",
            $id,
            " AND o.lease_until > now()) OR EXISTS (SELECT 1 FROM replicas o WHERE o.id > ",
            $id,
            " AND o.lease_until > now()))"
        )
    };
}

/// The notification of one committed action, written in a transaction by replica `$8`,
/// when another replica lives (`others_live!`). `r`, the replica that wrote it, comes first,
/// so that its own listener can pass it by without parsing it (see `coordination::listen`).
pub(in crate::store) const NOTIFY_ACTION: &str = concat!(
    "SELECT pg_notify('theboss_actions', \
     json_build_object('r', $8::text, 'g', $1::text, 's', $2::bigint, 'p', $3::text, 'k', $4::text, \
     'f', $5::int, 't', $7::bigint, 'a', CASE WHEN length($6::text) < 6000 THEN $6::text END)::text) \
     WHERE ",
    others_live!("$8")
);
/// A group of simple appends (see `group`) in one statement, one round trip, one
/// transaction: every action row, each game's row where something kept there changes
/// (decided from the row as it was locked, so that the others are not looked up twice), and
/// the seats the group changes. With a replica (`$12`), only the games it owns while its
/// lease runs are written (their rows locked against a takeover meanwhile), and each written
/// action is notified at commit when another replica lives (`others_live!`, evaluated once
/// for the statement). Returns the games written.
///
/// It comes in variants ([`Writing::statement`] picks one), because PostgreSQL pays at every
/// execution for each table a statement writes, rows or not: each part a group does not need
/// is left out (and a turn alone that needs neither is written by [`APPEND_ONE`]).
/// - `$update`: the games' rows, left out when the writer of every game of the group knows
///   its row already holds what it would write (`Append::row_unchanged`): most turns change
///   nothing kept there, and the `UPDATE` opens all the table's indexes even for no row.
/// - `$seats`: the seats taken (`$13`, by `$14`), left (`$15`), and those of the games that
///   end (`$16`, finished at `$17`).
macro_rules! append_group {
    ($update:ident, $seats:ident) => {
        concat!(
            "WITH input AS ( \
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[], \
             $6::text[], $7::bigint[], $8::text[], $9::text[], $10::text[], $11::text[], \
             $13::bigint[], $14::text[], $15::bigint[], $16::boolean[], $17::bigint[]) \
             AS u(game_id, seq, player_id, idempotency_key, format, payload, at, status, winners, \
             money, acted, takes_seat, taken_by, leaves_seat, ends, finished_at)), \
             owned AS (SELECT i.*, (g.status <> i.status OR g.winners <> i.winners \
             OR g.money <> i.money OR g.acted <> i.acted) AS changed \
             FROM input i JOIN games g ON g.id = i.game_id \
             WHERE $12::text IS NULL OR (g.owner = $12 AND EXISTS \
             (SELECT 1 FROM replicas r WHERE r.id = $12 AND r.lease_until > now())) FOR SHARE OF g), \
             inserted AS (INSERT INTO actions \
             (game_id, seq, player_id, idempotency_key, format, payload, at) \
             SELECT game_id, seq, player_id, idempotency_key, format, payload, at FROM owned \
             RETURNING game_id, seq, player_id, idempotency_key, format, payload, at)",
            $update!(),
            $seats!(),
            " SELECT i.game_id FROM inserted i LEFT JOIN LATERAL \
             (SELECT pg_notify('theboss_actions', json_build_object('r', $12::text, \
             'g', i.game_id, 's', i.seq, 'p', i.player_id, 'k', i.idempotency_key, 'f', i.format, \
             't', i.at, 'a', CASE WHEN length(i.payload) < 6000 THEN i.payload END)::text) WHERE ",
            others_live!("$12"),
            ") n ON true"
        )
    };
}

/// `append_group!`'s parts.
macro_rules! update_games {
    () => {
        ", updated AS (UPDATE games AS g SET status = o.status, winners = o.winners, \
         money = o.money, acted = o.acted FROM owned o WHERE o.changed AND g.id = o.game_id)"
    };
}
macro_rules! change_seats {
    () => {
        ", seated AS (INSERT INTO seats (game_id, seat, player_id) \
         SELECT game_id, takes_seat, taken_by FROM owned WHERE takes_seat IS NOT NULL), \
         unseated AS (DELETE FROM seats s USING owned o \
         WHERE o.leaves_seat IS NOT NULL AND s.game_id = o.game_id AND s.seat = o.leaves_seat), \
         ended AS (UPDATE seats s SET game_over = TRUE, finished_at = o.finished_at FROM owned o \
         WHERE o.ends AND s.game_id = o.game_id)"
    };
}
macro_rules! nothing {
    () => {
        ""
    };
}

/// The variants of `append_group!`: (updating the games' rows, leaving them) × (changing no
/// seat, changing seats).
const APPEND_GROUPS: [[&str; 2]; 2] = [
    [
        append_group!(update_games, nothing),
        append_group!(update_games, change_seats),
    ],
    [
        append_group!(nothing, nothing),
        append_group!(nothing, change_seats),
    ],
];

/// A group of one turn that changes neither its game's row nor a seat, the only kind an idle
/// game writes: what `append_group!` does for it, with the columns as scalars (`$1`–`$7`)
/// and the replica as `$8`, as in [`NOTIFY_ACTION`]: seventeen arrays of one element each,
/// unnested, cost PostgreSQL 0.01–0.03 ms more a turn (`pgbench`, three alternations), and
/// the server seventeen vectors. Returns the game if written.
pub(in crate::store) const APPEND_ONE: &str = concat!(
    "WITH owned AS (SELECT g.id FROM games g WHERE g.id = $1 \
     AND ($8::text IS NULL OR (g.owner = $8 AND EXISTS \
     (SELECT 1 FROM replicas r WHERE r.id = $8 AND r.lease_until > now()))) FOR SHARE OF g), \
     inserted AS (INSERT INTO actions \
     (game_id, seq, player_id, idempotency_key, format, payload, at) \
     SELECT id, $2, $3, $4, $5, $6, $7 FROM owned \
     RETURNING game_id, seq, player_id, idempotency_key, format, payload, at) \
     SELECT i.game_id FROM inserted i LEFT JOIN LATERAL \
     (SELECT pg_notify('theboss_actions', json_build_object('r', $8::text, \
     'g', i.game_id, 's', i.seq, 'p', i.player_id, 'k', i.idempotency_key, 'f', i.format, \
     't', i.at, 'a', CASE WHEN length(i.payload) < 6000 THEN i.payload END)::text) WHERE ",
    others_live!("$8"),
    ") n ON true"
);

/// What a group's statement has to write: see `append_group!`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::store) struct Writing {
    pub update: bool,
    pub seats: bool,
}

impl Writing {
    /// What `appends` need.
    fn of(appends: &[Append]) -> Writing {
        Writing {
            update: appends.iter().any(|a| !a.row_unchanged),
            seats: appends.iter().any(|a| a.seating != Seating::Unchanged),
        }
    }

    /// The statement that does it.
    pub fn statement(self) -> &'static str {
        APPEND_GROUPS[usize::from(!self.update)][usize::from(self.seats)]
    }
}

/// Tells the operator when the database gathers no statistics by itself: with autovacuum
/// off, tables are never analyzed unless someone runs `ANALYZE`. The statements are written
/// to be right without statistics (`plans` checks them), but the operator should know.
/// Returns whether it is off.
async fn check_autovacuum(pool: &sqlx::PgPool) -> Result<bool, StoreError> {
    let setting: String = sqlx::query_scalar("SELECT current_setting('autovacuum')")
        .fetch_one(pool)
        .await?;
    let off = setting != "on";
    crate::metrics::store_autovacuum_off(off);
    if off {
        tracing::warn!(
            autovacuum = %setting,
            "PostgreSQL's autovacuum is off: its tables are never analyzed by themselves; \
             run ANALYZE on a schedule (README, \"What the server needs from PostgreSQL\"); \
             the server vacuums its few hot tables itself every minute"
        );
    }
    Ok(off)
}

impl Backend for sqlx::Postgres {
    const BEGIN_WRITE: &'static str = "BEGIN";
    const LOCK_ROW: &'static str = " FOR UPDATE";
    const FENCE_GAME: Option<&'static str> = Some(FENCE_GAME);
    const NOTIFY_ACTION: Option<&'static str> = Some(NOTIFY_ACTION);

    fn rows_affected(result: &PgQueryResult) -> u64 {
        result.rows_affected()
    }
}

/// How the server's connections are opened: see [`SqlStore::connect`] for each setting.
fn connect_options(url: &str) -> Result<PgConnectOptions, StoreError> {
    Ok(PgConnectOptions::from_str(url)?.options([
        ("enable_seqscan", "off"),
        ("jit", "off"),
        ("plan_cache_mode", "force_generic_plan"),
    ]))
}

impl SqlStore<sqlx::Postgres> {
    /// Connects and applies the migrations (under an advisory lock, so several servers may
    /// start at once).
    ///
    /// Its connections run with `enable_seqscan = off`. Every statement the server runs is
    /// written to be read through an index (the plan tests check it with sequential scans
    /// allowed), but on a table that is still small PostgreSQL prefers reading it whole, and
    /// a prepared statement's generic plan made then is kept as the table grows: with no
    /// statistics to replan from (autovacuum off, a fresh schema, a bulk import), one such plan
    /// read `games` whole at every action for the rest of the connection's life. Off, a
    /// sequential scan is chosen only where no index can serve.
    ///
    /// And with `jit = off`: every statement here reads a few rows, but a plan that must
    /// still scan a small table costs as much as a huge one with sequential scans off, and
    /// past `jit_above_cost` PostgreSQL compiles the statement at every execution (a
    /// statement with a `<>` on `replicas` took 7 ms a run so, against 0.1 ms).
    ///
    /// And with `plan_cache_mode = force_generic_plan`: a prepared statement is planned once
    /// per connection, not at each execution. Left to choose, PostgreSQL plans a statement
    /// afresh at every execution for as long as its generic plan looks dearer than the plans
    /// made for the arguments, which on tables with history it does for the group commit's
    /// statement (its arrays' lengths are known only with the arguments): 0.28 ms of planning
    /// for a 0.10 ms execution, at every commit, on a server started on a store with history
    /// (one game's turns took 1.15 ms instead of 0.85). Every statement's generic plan is one
    /// the plan tests check.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let options = connect_options(url)?;
        // No ping before each use of a pooled connection: it was a round trip to PostgreSQL
        // for every action (and a second wake-up of the server). A connection that broke
        // meanwhile fails its statement, which the caller sees as an error, and is dropped.
        let pool = PgPoolOptions::new()
            .max_connections(CONNECTIONS)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        let side = PgPoolOptions::new()
            .max_connections(SIDE_CONNECTIONS)
            .test_before_acquire(false)
            .connect_lazy_with(options);
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let upkeep = if check_autovacuum(&pool).await? {
            let (upkeep, stopped) = tokio::sync::oneshot::channel();
            tokio::spawn(vacuum::every_period(pool.clone(), stopped));
            Some(upkeep)
        } else {
            None
        };
        let me: Arc<OnceLock<Replica>> = Arc::default();
        let writers = Arc::new(Writers::new(pool.clone(), WriterBounds::default()));
        let replica = me.clone();
        let group = GroupCommit::start(GROUP_LANES, MAX_GROUP, move |appends| {
            write_group(
                writers.clone(),
                replica.get().map(|r| r.id.clone()),
                appends,
            )
        });
        Ok(SqlStore {
            pool,
            side,
            group,
            me,
            _upkeep: upkeep,
        })
    }

    fn replica(&self) -> Result<&Replica, StoreError> {
        self.me
            .get()
            .ok_or_else(|| StoreError::Corrupt("this store has not joined a cluster".into()))
    }
}

/// The connections groups are written on, kept out of the pool. A pooled connection given
/// back is pinged before anyone may take it again (sqlx checks it so, on a task of its own):
/// a second round trip to PostgreSQL and a second wake-up of the server at every commit,
/// which is to say at every action of an idle server. A connection is kept only after a
/// statement that succeeded: one that failed (PostgreSQL closed it, a conflict, a write
/// cancelled midway) is dropped, and the next group takes a fresh one from the pool.
///
/// What the pool would do for it, the writers do at their own pace: a connection left idle
/// is pinged before it is used again (a proxy or PostgreSQL may have closed it meanwhile:
/// HAProxy does after an hour in `deploy/ha`, and `idle_session_timeout` would), and one that
/// has served long is closed and replaced, as sqlx's `max_lifetime` replaces a pool's.
struct Writers {
    pool: sqlx::PgPool,
    kept: Mutex<Vec<Kept>>,
    bounds: WriterBounds,
}

/// When a kept connection is checked before use, and when it is replaced.
#[derive(Debug, Clone, Copy)]
struct WriterBounds {
    /// Idle for longer than this, a connection is pinged first: a round trip, after a pause.
    check_after: Duration,
    /// Kept for longer than this, it is closed and another taken from the pool.
    lifetime: Duration,
}

impl Default for WriterBounds {
    fn default() -> WriterBounds {
        WriterBounds {
            check_after: Duration::from_secs(30),
            lifetime: Duration::from_secs(30 * 60),
        }
    }
}

/// A connection between two groups.
struct Kept {
    connection: PgConnection,
    taken_at: Instant,
    idle_since: Instant,
}

impl Writers {
    fn new(pool: sqlx::PgPool, bounds: WriterBounds) -> Writers {
        Writers {
            pool,
            kept: Mutex::new(Vec::with_capacity(GROUP_LANES)),
            bounds,
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<Kept>> {
        // Only pushed to and popped from: a panic elsewhere cannot leave it half-changed.
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A kept connection that is still good, or one taken from the pool for good (the pool
    /// may open another in its place), with when it was taken.
    async fn take(&self) -> Result<(PgConnection, Instant), sqlx::Error> {
        let kept = self.kept().pop();
        if let Some(mut kept) = kept {
            if kept.taken_at.elapsed() > self.bounds.lifetime {
                // Said goodbye to, so that PostgreSQL logs no lost connection.
                let _ = kept.connection.close().await;
            } else if kept.idle_since.elapsed() <= self.bounds.check_after
                || kept.connection.ping().await.is_ok()
            {
                return Ok((kept.connection, kept.taken_at));
            }
        }
        Ok((self.pool.acquire().await?.detach(), Instant::now()))
    }

    /// Keeps `connection` for the next group if its statement succeeded. A failure may be
    /// the connection's own (a terminated session's last words are an error from PostgreSQL
    /// too), and failures are rare: a fresh connection costs little then.
    fn give_back<T>(
        &self,
        (connection, taken_at): (PgConnection, Instant),
        outcome: &Result<T, sqlx::Error>,
    ) {
        if outcome.is_ok() {
            self.kept().push(Kept {
                connection,
                taken_at,
                idle_since: Instant::now(),
            });
        }
    }
}

/// A group of appends in one statement, column by column; as replica `me`, only those of
/// games it owns (the others are refused).
async fn write_group(
    writers: Arc<Writers>,
    me: Option<String>,
    appends: Arc<[Append]>,
) -> Result<Refused, sqlx::Error> {
    let writing = Writing::of(&appends);
    if let [one] = &*appends
        && !writing.update
        && !writing.seats
    {
        return write_one(&writers, me, one).await;
    }
    // Columns borrowed from the appends: nothing is copied but into the statement's buffer.
    fn column<'a, T>(appends: &'a [Append], field: impl Fn(&'a Append) -> T) -> Vec<T> {
        appends.iter().map(field).collect()
    }
    let games = column(&appends, |a| a.game_id.as_str());
    let seqs = column(&appends, |a| a.seq);
    let players = column(&appends, |a| a.player_id.as_deref());
    let keys = column(&appends, |a| a.idempotency_key.as_deref());
    let formats = column(&appends, |a| a.format);
    let payloads = column(&appends, |a| a.payload.as_str());
    let ats = column(&appends, |a| a.at);
    let statuses = column(&appends, |a| a.status);
    let winners = column(&appends, |a| a.winners.as_str());
    let money = column(&appends, |a| a.money.as_str());
    let acted = column(&appends, |a| a.acted.as_str());
    let takes_seat = column(&appends, |a| a.seating.taken().0);
    let taken_by = column(&appends, |a| a.seating.taken().1);
    let leaves_seat = column(&appends, |a| a.seating.left());
    let ends = column(&appends, |a| a.seating.over().0);
    let finished_at = column(&appends, |a| a.seating.over().1);
    let statement = writing.statement();
    let mut writer = writers.take().await?;
    let written: Result<Vec<(String,)>, sqlx::Error> = sqlx::query_as(statement)
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
        .bind(acted)
        .bind(me)
        .bind(takes_seat)
        .bind(taken_by)
        .bind(leaves_seat)
        .bind(ends)
        .bind(finished_at)
        .fetch_all(&mut writer.0)
        .await;
    writers.give_back(writer, &written);
    let written = written?;
    Ok(games
        .into_iter()
        .filter(|g| !written.iter().any(|(w,)| w == g))
        .map(str::to_string)
        .collect())
}

/// One append that changes neither its game's row nor a seat ([`APPEND_ONE`]); as replica
/// `me`, refused unless it owns the game.
async fn write_one(
    writers: &Writers,
    me: Option<String>,
    append: &Append,
) -> Result<Refused, sqlx::Error> {
    let mut writer = writers.take().await?;
    let written: Result<Option<(String,)>, sqlx::Error> = sqlx::query_as(APPEND_ONE)
        .bind(&append.game_id)
        .bind(append.seq)
        .bind(&append.player_id)
        .bind(&append.idempotency_key)
        .bind(append.format)
        .bind(&append.payload)
        .bind(append.at)
        .bind(me)
        .fetch_optional(&mut writer.0)
        .await;
    writers.give_back(writer, &written);
    Ok(match written? {
        Some(_) => Refused::new(),
        None => vec![append.game_id.clone()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn backend(writer: &mut (PgConnection, Instant)) -> Result<i32, sqlx::Error> {
        sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(&mut writer.0)
            .await
    }

    /// Ends the session `pid` and waits until PostgreSQL has.
    async fn terminate(pool: &sqlx::PgPool, pid: i32) {
        let terminated: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
            .bind(pid)
            .fetch_one(pool)
            .await
            .unwrap();
        assert!(terminated);
        for _ in 0..500 {
            let alive: i64 =
                sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = $1")
                    .bind(pid)
                    .fetch_one(pool)
                    .await
                    .unwrap();
            if alive == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("session {pid} still there after 5 s");
    }

    const OK: Result<(), sqlx::Error> = Ok(());

    /// A seat or a game with every cap off counts nothing, so it locks nothing: both are
    /// written while another transaction updates their player's row, which a seat under a
    /// cap waits for (its count is taken with that row locked).
    #[tokio::test]
    async fn without_caps_a_seat_waits_for_no_lock_on_its_player() {
        use crate::domain::GameStatus;
        use crate::store::prelude::*;
        use crate::store::{Effects, PlayerCaps};

        let url = crate::testing::fresh_postgres_url().await;
        let store = PostgresStore::connect(&url).await.unwrap();
        let (a, _) = crate::testing::player_and_game(&store).await;
        let (_, theirs) = crate::testing::player_and_game(&store).await;
        let (_, other) = crate::testing::player_and_game(&store).await;
        let caps = |unfinished| PlayerCaps {
            player_id: a.id.clone(),
            unfinished,
            ..PlayerCaps::default()
        };
        let under = |caps| Effects {
            caps: Some(caps),
            status: GameStatus::Open,
            ..Effects::default()
        };
        let seat = crate::testing::a_join(&a);

        // What an update of A's row takes (its foreign keys' shares do not wait for it).
        let mut holder = PgConnection::connect(&url).await.unwrap();
        sqlx::query("BEGIN").execute(&mut holder).await.unwrap();
        sqlx::query("SELECT id FROM players WHERE id = $1 FOR NO KEY UPDATE")
            .bind(&a.id)
            .execute(&mut holder)
            .await
            .unwrap();

        let in_time = Duration::from_secs(10);
        let off = under(caps(0));
        tokio::time::timeout(in_time, store.append_action(&theirs, &seat, &off))
            .await
            .expect("a seat without caps does not wait for its player's row")
            .unwrap();
        let mine = crate::testing::a_game_by(&a.id);
        tokio::time::timeout(in_time, store.create_game(&mine, &[], Some(&caps(0))))
            .await
            .expect("a game without caps does not wait for its creator's row")
            .unwrap()
            .unwrap();
        // Under a cap, the same kind of seat waits until the row is free.
        let capped = under(caps(10));
        let capped = store.append_action(&other, &seat, &capped);
        tokio::pin!(capped);
        assert!(
            tokio::time::timeout(Duration::from_millis(300), capped.as_mut())
                .await
                .is_err(),
            "a seat under a cap is counted with its player's row locked"
        );
        sqlx::query("ROLLBACK").execute(&mut holder).await.unwrap();
        tokio::time::timeout(in_time, capped)
            .await
            .expect("written once the row is free")
            .unwrap();
        for game in [&theirs, &other] {
            let stored = store.load_game(game).await.unwrap().unwrap();
            assert_eq!(stored.actions.len(), 1, "{game}");
        }
        assert!(store.load_game(&mine.id).await.unwrap().is_some());
    }

    /// Groups are written on one connection kept from commit to commit, unchecked while it is
    /// busy; after a failure, on a fresh one, whether PostgreSQL refused the statement or
    /// closed the session.
    #[tokio::test]
    async fn the_writers_connection_is_kept_until_a_statement_fails() {
        let url = crate::testing::fresh_postgres_url().await;
        let store = PostgresStore::connect(&url).await.unwrap();
        let writers = Writers::new(store.pool.clone(), WriterBounds::default());

        let mut writer = writers.take().await.unwrap();
        let first = backend(&mut writer).await;
        let pid = *first.as_ref().unwrap();
        writers.give_back(writer, &first);
        let mut writer = writers.take().await.unwrap();
        let again = backend(&mut writer).await;
        assert_eq!(again.as_ref().unwrap(), &pid, "the same connection, kept");

        let refused = sqlx::query("SELECT 1 / 0").execute(&mut writer.0).await;
        assert!(matches!(refused, Err(sqlx::Error::Database(_))));
        writers.give_back(writer, &refused);
        let mut writer = writers.take().await.unwrap();
        let after_refusal = backend(&mut writer).await.unwrap();
        assert_ne!(
            after_refusal, pid,
            "a fresh connection after a refused statement"
        );
        writers.give_back(writer, &OK);

        // Within the idle bound a kept connection is used unchecked: the group meets the
        // closed session, and the next one a fresh connection.
        terminate(&store.pool, after_refusal).await;
        let mut writer = writers.take().await.unwrap();
        let closed = backend(&mut writer).await;
        assert!(
            closed.is_err(),
            "PostgreSQL closed that session: {closed:?}"
        );
        writers.give_back(writer, &closed);
        let mut writer = writers.take().await.unwrap();
        let fresh = backend(&mut writer).await.unwrap();
        assert!(
            fresh != after_refusal && fresh != pid,
            "a fresh connection once closed"
        );
    }

    /// A connection left idle past the bound is checked before use, so that one a proxy or
    /// PostgreSQL closed meanwhile costs no group; one kept past its lifetime is replaced.
    #[tokio::test]
    async fn an_idle_writer_is_checked_first_and_an_old_one_replaced() {
        let url = crate::testing::fresh_postgres_url().await;
        let store = PostgresStore::connect(&url).await.unwrap();
        let checked = WriterBounds {
            check_after: Duration::ZERO,
            lifetime: Duration::from_secs(3600),
        };
        let writers = Writers::new(store.pool.clone(), checked);
        let mut writer = writers.take().await.unwrap();
        let pid = backend(&mut writer).await.unwrap();
        writers.give_back(writer, &OK);
        let mut writer = writers.take().await.unwrap();
        assert_eq!(backend(&mut writer).await.unwrap(), pid, "alive: kept");
        writers.give_back(writer, &OK);
        terminate(&store.pool, pid).await;
        let mut writer = writers.take().await.unwrap();
        let replaced = backend(&mut writer).await;
        assert!(
            replaced.as_ref().is_ok_and(|&p| p != pid),
            "the closed session found before use and replaced: {replaced:?}"
        );

        let old = WriterBounds {
            check_after: Duration::from_secs(3600),
            lifetime: Duration::ZERO,
        };
        let writers = Writers::new(store.pool.clone(), old);
        let mut writer = writers.take().await.unwrap();
        let pid = backend(&mut writer).await.unwrap();
        writers.give_back(writer, &OK);
        let mut writer = writers.take().await.unwrap();
        assert_ne!(
            backend(&mut writer).await.unwrap(),
            pid,
            "past its lifetime: replaced"
        );
    }
}
