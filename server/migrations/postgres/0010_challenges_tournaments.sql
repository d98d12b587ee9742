-- Challenges and tournaments (issue #22): games the service seats for named players.

-- Who may challenge a player: 'open', 'bots' (bots only) or 'closed'.
ALTER TABLE players ADD COLUMN challenge_policy TEXT NOT NULL DEFAULT 'open';

CREATE TABLE challenges (
    id            TEXT PRIMARY KEY,
    challenger_id TEXT NOT NULL REFERENCES players (id),
    -- Players per game.
    players       BIGINT NOT NULL,
    duplicate     BOOLEAN NOT NULL,
    rated         BOOLEAN NOT NULL,
    -- 'pending', 'seating', 'started', 'declined', 'expired' or 'withdrawn'. A pending or
    -- seating challenge past `expires_at` is expired, whether or not the sweep wrote it yet.
    status        TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    -- Once started: its games, comma-separated, in table order.
    game_ids      TEXT NOT NULL DEFAULT ''
);
-- The matchmaker's read of the challenges waiting for seats, and the expiry sweep: both
-- bounded by what is still open, whatever the history.
CREATE INDEX challenges_open ON challenges (expires_at) WHERE status IN ('pending', 'seating');
CREATE INDEX challenges_open_by_challenger ON challenges (challenger_id)
    WHERE status IN ('pending', 'seating');

-- Everyone in a challenge, the challenger at position 0.
CREATE TABLE challenge_players (
    challenge_id  TEXT NOT NULL REFERENCES challenges (id),
    player_id     TEXT NOT NULL REFERENCES players (id),
    position      BIGINT NOT NULL,
    -- 'pending', 'accepted' or 'declined' (the challenger: 'accepted').
    answer        TEXT NOT NULL,
    -- Until when the player's Offers stream shows the challenge (micros): ten minutes past
    -- its expiry while open, ten minutes past its closing once closed.
    visible_until BIGINT NOT NULL,
    PRIMARY KEY (challenge_id, player_id)
);
CREATE INDEX challenge_players_visible ON challenge_players (player_id, visible_until);

CREATE TABLE tournaments (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    creator_id    TEXT NOT NULL REFERENCES players (id),
    -- 'round_robin' or 'gauntlet'.
    format        TEXT NOT NULL,
    players       BIGINT NOT NULL,
    sets_per_pair BIGINT NOT NULL,
    hero_id       TEXT,
    max_entrants  BIGINT NOT NULL,
    rated         BOOLEAN NOT NULL,
    turn_secs     BIGINT NOT NULL,
    -- 'open', 'running' or 'finished'.
    status        TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    started_at    BIGINT,
    finished_at   BIGINT
);
CREATE INDEX tournaments_by_time ON tournaments (created_at DESC, id DESC);
CREATE INDEX tournaments_by_status ON tournaments (status, created_at DESC, id DESC);
CREATE INDEX tournaments_running ON tournaments (created_at) WHERE status = 'running';
CREATE INDEX tournaments_unfinished_by_creator ON tournaments (creator_id)
    WHERE status <> 'finished';

CREATE TABLE tournament_entrants (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id     TEXT NOT NULL REFERENCES players (id),
    entered_at    BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);

-- The games a challenge or a tournament seated (`arranged_by` is its id), written before
-- the games themselves: a game is delivered to its players through their Offers streams
-- only if it is here.
CREATE TABLE arranged_games (
    game_id     TEXT PRIMARY KEY,
    arranged_by TEXT NOT NULL
);
CREATE INDEX arranged_games_by_origin ON arranged_games (arranged_by, game_id);
