-- Seeded games, the seats that played, duplicate sets, bounded open games, per-player ladder
-- limits (issue #19).

-- The creator chose the seed (CreateGameRequest.seed; only unlisted games can be seeded).
ALTER TABLE games ADD COLUMN seeded BOOLEAN NOT NULL DEFAULT FALSE;
-- Which seats played a turn themselves (not by their clock): '1' or '0' per seat,
-- comma-separated. A game, or a duplicate set, in which a seat never did is not rated.
ALTER TABLE games ADD COLUMN acted TEXT NOT NULL DEFAULT '';
-- A table of a duplicate set: how many tables play the set's deal. 0 for the games of the
-- series of earlier versions (one deal replayed with the seats rotated, one game after
-- another), which are no longer continued or rated.
ALTER TABLE games ADD COLUMN series_tables BIGINT NOT NULL DEFAULT 0;

-- A duplicate set: its deal played at `tables` tables at once by different players; the
-- tables not ended yet. The last table to end rates the set, in its own transaction.
ALTER TABLE series ADD COLUMN tables BIGINT NOT NULL DEFAULT 0;
ALTER TABLE series ADD COLUMN open_tables BIGINT NOT NULL DEFAULT 0;

-- Games a player created that have not started (capped per player), and the oldest of them
-- (they expire).
CREATE INDEX games_open_by_creator ON games (created_by) WHERE status = 'open';
CREATE INDEX games_open_by_age ON games (created_at) WHERE status = 'open';
-- Unfinished games, for a restart and for a replica taking games over.
CREATE INDEX games_running ON games (ord) WHERE status = 'running';

-- A request may allow its player several ladder games at once; its player's name comes
-- along, so that reading the queue reads nothing else.
ALTER TABLE ladder_queue ADD COLUMN parallel BIGINT NOT NULL DEFAULT 1;
ALTER TABLE ladder_queue ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
ALTER TABLE ladder_queue ADD COLUMN is_bot BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE ladder_queue q SET display_name = p.display_name, is_bot = p.is_bot
    FROM players p WHERE p.id = q.player_id;
CREATE INDEX ladder_queue_by_player ON ladder_queue (player_id);
-- How many tables the answered game's duplicate set has (0: not a duplicate set).
ALTER TABLE ladder_matches ADD COLUMN series_tables BIGINT NOT NULL DEFAULT 0;

-- A seat of a game that is over: the seats a player holds in unfinished games are found
-- without reading every game it ever played.
ALTER TABLE seats ADD COLUMN game_over BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE seats SET game_over = TRUE
    WHERE game_id IN (SELECT id FROM games WHERE status IN ('finished', 'aborted'));
CREATE INDEX seats_live_by_player ON seats (player_id) WHERE NOT game_over;
-- ListGames, one status at a time, newest first: a page costs a page, whatever the history.
CREATE INDEX games_listing ON games (status, created_at DESC, id DESC);
