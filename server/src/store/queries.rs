//! The text of every query both SQL backends run, written with `$n` placeholders, which
//! PostgreSQL and SQLite both accept. Schema: `server/migrations/{postgres,sqlite}`.

pub(super) const INSERT_PLAYER: &str = "INSERT INTO players (id, display_name, is_bot, token_hash, created_at) \
     VALUES ($1, $2, $3, $4, $5)";
pub(super) const PLAYER_BY_TOKEN: &str =
    "SELECT id, display_name, is_bot FROM players WHERE token_hash = $1";
pub(super) const INSERT_GAME: &str = "INSERT INTO games (id, players, cities, seed, turn_time_limit, visibility, ladder, \
     status, winners, created_by, created_at, series_id, series_index, rules_version) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '', $9, $10, $11, $12, $13)";
pub(super) const GAME_COLUMNS: &str = "g.ord, g.id, g.players, g.cities, g.seed, g.turn_time_limit, g.visibility, \
     g.ladder, g.status, g.winners, g.created_by, g.created_at, g.series_id, g.series_index, g.money, \
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
pub(super) const APPEND_GROUP_POSTGRES: &str = "WITH inserted AS ( \
     INSERT INTO actions (game_id, seq, player_id, idempotency_key, format, payload, at) \
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::text[], $7::bigint[]) \
     RETURNING game_id) \
     UPDATE games AS g SET status = u.status, winners = u.winners, money = u.money \
     FROM unnest($1::text[], $8::text[], $9::text[], $10::text[]) AS u(id, status, winners, money) \
     WHERE g.id = u.id AND (g.status <> u.status OR g.winners <> u.winners OR g.money <> u.money)";
