-- What a player says it is, leaderboards of bots or of people, and a player's finished games
-- in the order they ended (issue #22).

-- RegisterRequest.description / UpdateProfile: a bot's strategy and version, say.
ALTER TABLE players ADD COLUMN description TEXT NOT NULL DEFAULT '';

-- Whether a rating's player is a bot, copied from its player (which never changes it), so
-- that a leaderboard of bots or of people is read from the ratings' own index.
ALTER TABLE ratings ADD COLUMN is_bot BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE ratings SET is_bot = (SELECT p.is_bot FROM players p WHERE p.id = ratings.player_id);
CREATE INDEX ratings_by_kind_score ON ratings (players, is_bot, (mu - 3 * sigma));

-- When a finished game's last turn was committed (micros), on each of its seats: a player's
-- finished games, newest first, read from one index (ExportGames). Aborted games have none.
ALTER TABLE seats ADD COLUMN finished_at BIGINT;
UPDATE seats SET finished_at = (SELECT MAX(a.at) FROM actions a WHERE a.game_id = seats.game_id)
    WHERE game_id IN (SELECT g.id FROM games g WHERE g.status = 'finished');
CREATE INDEX seats_finished_by_player ON seats (player_id, finished_at, game_id)
    WHERE finished_at IS NOT NULL;
