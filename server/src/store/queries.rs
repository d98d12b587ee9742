//! The text of every query both SQL backends run, written with `$n` placeholders, which
//! PostgreSQL and SQLite both accept. Schema: `server/migrations/{postgres,sqlite}`.

pub(super) const INSERT_PLAYER: &str = "INSERT INTO players (id, display_name, is_bot, token_hash, created_at) \
     VALUES ($1, $2, $3, $4, $5)";
pub(super) const PLAYER_BY_TOKEN: &str =
    "SELECT id, display_name, is_bot FROM players WHERE token_hash = $1";
pub(super) const INSERT_GAME: &str = "INSERT INTO games (id, players, cities, seed, turn_time_limit, visibility, ladder, \
     status, winners, created_by, created_at, series_id, series_index, rules_version, owner, seed_salt) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '', $9, $10, $11, $12, $13, $14, $15)";
pub(super) const GAME_COLUMNS: &str = "g.ord, g.id, g.players, g.cities, g.seed, g.turn_time_limit, g.visibility, \
     g.ladder, g.status, g.winners, g.created_by, g.created_at, g.series_id, g.series_index, g.seed_salt, \
     g.rules_version";
pub(super) const INSERT_ACTION: &str = "INSERT INTO actions (game_id, seq, player_id, idempotency_key, format, payload, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7)";
/// Touches the game's row only when something listed there changes (most turns change
/// nothing: a status moves at the start and at the end).
pub(super) const UPDATE_GAME_STATUS: &str = "UPDATE games SET status = $1, winners = $2, money = $3 \
     WHERE id = $4 AND (status <> $1 OR winners <> $2 OR money <> $3)";
pub(super) const INSERT_RATING_IF_MISSING: &str = "INSERT INTO ratings (player_id, players, mu, sigma, games) \
     VALUES ($1, $2, $3, $4, 0) ON CONFLICT (player_id, players) DO NOTHING";
pub(super) const UPDATE_RATING: &str =
    "UPDATE ratings SET mu = $1, sigma = $2, games = $3 WHERE player_id = $4 AND players = $5";
pub(super) const INSERT_RATING_HISTORY: &str = "INSERT INTO rating_history \
     (player_id, players, game_id, mu_before, sigma_before, mu, sigma, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
pub(super) const RATING_OF: &str =
    "SELECT mu, sigma, games FROM ratings WHERE player_id = $1 AND players = $2";
pub(super) const LEADERBOARD: &str = "SELECT p.id, p.display_name, p.is_bot, r.mu, r.sigma, r.games \
     FROM ratings r JOIN players p ON p.id = r.player_id WHERE r.players = $1 \
     ORDER BY r.mu - 3 * r.sigma DESC, p.id LIMIT $2 OFFSET $3";
pub(super) const PLAYER_BY_ID: &str = "SELECT id, display_name, is_bot FROM players WHERE id = $1";
pub(super) const RATINGS_OF: &str =
    "SELECT players, mu, sigma, games FROM ratings WHERE player_id = $1 ORDER BY players";
pub(super) const HISTORY_OF: &str = "SELECT game_id, players, mu_before, sigma_before, mu, sigma, at \
     FROM rating_history WHERE player_id = $1 ORDER BY at DESC, players LIMIT 100";
pub(super) const INSERT_SERIES: &str =
    "INSERT INTO series (id, players, seed, created_at) VALUES ($1, $2, $3, $4)";
pub(super) const SERIES_BY_ID: &str =
    "SELECT id, players, seed, created_at FROM series WHERE id = $1";
pub(super) const SERIES_GAMES: &str = "SELECT g.id, g.series_index, g.status, g.money FROM games g \
     WHERE g.series_id = $1 ORDER BY g.series_index";
pub(super) const SEATS_OF_GAME: &str =
    "SELECT player_id FROM seats WHERE game_id = $1 ORDER BY seat";
pub(super) const OPEN_SERIES: &str = "SELECT s.id FROM series s WHERE NOT EXISTS (SELECT 1 FROM games h \
     WHERE h.series_id = s.id AND h.series_index = h.players - 1 AND h.status IN ('finished', 'aborted')) \
     ORDER BY s.created_at";
pub(super) const LADDER_GAMES_OF: &str = "SELECT g.id, s.seat, g.players, g.series_id, g.series_index FROM games g \
     JOIN seats s ON s.game_id = g.id WHERE s.player_id = $1 AND g.ladder \
     AND g.status IN ('open', 'running') ORDER BY g.ord";
pub(super) const INSERT_SEAT: &str =
    "INSERT INTO seats (game_id, seat, player_id) VALUES ($1, $2, $3)";
pub(super) const DELETE_SEAT: &str = "DELETE FROM seats WHERE game_id = $1 AND seat = $2";
pub(super) const ACTIONS_OF_GAME: &str = "SELECT seq, player_id, idempotency_key, format, payload, at FROM actions \
     WHERE game_id = $1 ORDER BY seq";
pub(super) const UNFINISHED_GAMES: &str =
    "SELECT id FROM games WHERE status IN ('open', 'running') ORDER BY ord";
pub(super) const SEATS_COLUMNS: &str = "SELECT s.game_id, s.seat, p.id, p.display_name, p.is_bot FROM seats s \
     JOIN players p ON p.id = s.player_id WHERE s.game_id IN (";
pub(super) const ACTIONS_OF_GAMES: &str = "SELECT game_id, seq, player_id, idempotency_key, format, payload, at \
     FROM actions WHERE game_id IN (";
/// PostgreSQL: a group of simple appends (see `group`) in one statement, one round trip,
/// one transaction: every action row, and each game's row where something listed changes.
/// With a replica ($11), only the games it owns while its lease runs are written (their rows
/// locked against a takeover meanwhile), and each written action is notified to the other
/// replicas at commit. Returns the games written.
pub(super) const APPEND_GROUP_POSTGRES: &str = "WITH input AS ( \
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::text[], \
     $7::bigint[], $8::text[], $9::text[], $10::text[]) \
     AS u(game_id, seq, player_id, idempotency_key, format, payload, at, status, winners, money)), \
     owned AS (SELECT i.* FROM input i JOIN games g ON g.id = i.game_id \
     WHERE $11::text IS NULL OR (g.owner = $11 AND EXISTS \
     (SELECT 1 FROM replicas r WHERE r.id = $11 AND r.lease_until > now())) FOR SHARE OF g), \
     inserted AS (INSERT INTO actions (game_id, seq, player_id, idempotency_key, format, payload, at) \
     SELECT game_id, seq, player_id, idempotency_key, format, payload, at FROM owned \
     RETURNING game_id, seq, player_id, idempotency_key, format, payload, at), \
     updated AS (UPDATE games AS g SET status = o.status, winners = o.winners, money = o.money \
     FROM owned o WHERE g.id = o.game_id \
     AND (g.status <> o.status OR g.winners <> o.winners OR g.money <> o.money)) \
     SELECT i.game_id FROM inserted i CROSS JOIN LATERAL \
     (SELECT pg_notify('theboss_actions', json_build_object('g', i.game_id, 's', i.seq, \
     'p', i.player_id, 'k', i.idempotency_key, 'f', i.format, 't', i.at, \
     'a', CASE WHEN length(i.payload) < 6000 THEN i.payload END)::text)) n";

/// PostgreSQL: a replica's write to a game goes on only while it owns the game and its lease
/// runs; the game's row is locked against a takeover until the write commits.
pub(super) const FENCE_GAME_POSTGRES: &str = "SELECT 1 FROM games g WHERE g.id = $1 AND g.owner = $2 \
     AND EXISTS (SELECT 1 FROM replicas r WHERE r.id = $2 AND r.lease_until > now()) FOR SHARE OF g";
/// The notification of one committed action, as the group statement sends it.
pub(super) const NOTIFY_ACTION_POSTGRES: &str = "SELECT pg_notify('theboss_actions', \
     json_build_object('g', $1::text, 's', $2::bigint, 'p', $3::text, 'k', $4::text, \
     'f', $5::int, 't', $7::bigint, 'a', CASE WHEN length($6::text) < 6000 THEN $6::text END)::text)";
pub(super) const JOIN_CLUSTER: &str = "INSERT INTO replicas (id, url, started_at, lease_until) \
     VALUES ($1, $2, $3, now() + make_interval(secs => $4)) ON CONFLICT (id) \
     DO UPDATE SET url = excluded.url, lease_until = excluded.lease_until";
pub(super) const RENEW_LEASE: &str =
    "UPDATE replicas SET lease_until = now() + make_interval(secs => $2) WHERE id = $1";
pub(super) const RELEASE_GAMES: &str =
    "UPDATE games SET owner = NULL WHERE owner = $1 RETURNING id";
pub(super) const OWNED_GAMES: &str =
    "SELECT id FROM games WHERE owner = $1 AND status IN ('open', 'running') ORDER BY ord";
pub(super) const LEAVE_CLUSTER: &str = "DELETE FROM replicas WHERE id = $1";
pub(super) const LIVE_REPLICAS: &str =
    "SELECT id, url FROM replicas WHERE lease_until > now() ORDER BY id";
pub(super) const OWNERSHIP: &str = "SELECT g.status, g.owner, r.url, r.lease_until > now() \
     FROM games g LEFT JOIN replicas r ON r.id = g.owner WHERE g.id = $1";
pub(super) const CLAIM_GAME: &str = "UPDATE games g SET owner = $2 WHERE g.id = $1 \
     AND g.status IN ('open', 'running') \
     AND (g.owner IS NULL OR g.owner = $2 OR NOT EXISTS \
     (SELECT 1 FROM replicas r WHERE r.id = g.owner AND r.lease_until > now())) \
     AND EXISTS (SELECT 1 FROM replicas me WHERE me.id = $2 AND me.lease_until > now()) \
     RETURNING g.id";
pub(super) const CLAIM_ORPHANS: &str = "UPDATE games g SET owner = $1 WHERE g.id IN ( \
     SELECT o.id FROM games o WHERE o.status IN ('open', 'running') \
     AND (o.owner IS NULL OR NOT EXISTS \
     (SELECT 1 FROM replicas r WHERE r.id = o.owner AND r.lease_until > now())) \
     ORDER BY o.ord LIMIT $2 FOR UPDATE SKIP LOCKED) \
     AND EXISTS (SELECT 1 FROM replicas me WHERE me.id = $1 AND me.lease_until > now()) \
     RETURNING g.id";
pub(super) const ACTIONS_AFTER: &str = "SELECT seq, player_id, idempotency_key, format, payload, at \
     FROM actions WHERE game_id = $1 AND seq > $2 ORDER BY seq";
pub(super) const NOTIFY: &str = "SELECT pg_notify($1, $2)";
/// Advisory locks are the database's, not a schema's: the key names the schema too, so that
/// services in different schemas of one database (tests, benchmarks) elect their own.
pub(super) const TRY_ADVISORY_LOCK: &str =
    "SELECT pg_try_advisory_lock(hashtextextended(current_schema() || '/' || $1, 0))";

pub(super) const ENQUEUE_LADDER: &str = "INSERT INTO ladder_queue \
     (id, player_id, players, duplicate, replica_id, enqueued_at) VALUES ($1, $2, $3, $4, $5, $6)";
pub(super) const LADDER_QUEUE: &str = "SELECT q.id, p.id, p.display_name, p.is_bot, q.players, \
     q.duplicate, q.replica_id, q.enqueued_at FROM ladder_queue q JOIN players p ON p.id = q.player_id \
     WHERE NOT q.matched ORDER BY q.enqueued_at, q.id";
pub(super) const MARK_LADDER_ANSWERED: &str =
    "UPDATE ladder_queue SET matched = TRUE WHERE id = $1 AND NOT matched";
pub(super) const INSERT_LADDER_MATCH: &str = "INSERT INTO ladder_matches \
     (entry_id, game_id, seat, players, already_seated, series_id, series_index) \
     VALUES ($1, $2, $3, $4, $5, $6, $7)";
pub(super) const LADDER_ENTRY: &str = "SELECT matched FROM ladder_queue WHERE id = $1";
pub(super) const LADDER_MATCHES: &str = "SELECT game_id, seat, players, already_seated, series_id, \
     series_index FROM ladder_matches WHERE entry_id = $1 ORDER BY seat, game_id";
pub(super) const FORGET_LADDER_ENTRY: &str = "DELETE FROM ladder_queue WHERE id = $1";
pub(super) const CANCEL_LADDER: &str =
    "DELETE FROM ladder_queue WHERE player_id = $1 AND NOT matched";
