-- Players, games, seats and each game's action log (event sourcing: a game is its settings,
-- its seed and its actions; everything else is derived by replaying them).
-- Timestamps are microseconds since the Unix epoch.
CREATE TABLE players (
    id           TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    is_bot       BOOLEAN NOT NULL,
    -- SHA-256 of the API token, hex; the token itself is never stored.
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL
);

CREATE TABLE games (
    ord             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    players         BIGINT NOT NULL,
    -- City numbers in play, comma-separated.
    cities          TEXT NOT NULL,
    -- The u64 seed's bits.
    seed            BIGINT NOT NULL,
    turn_time_limit BIGINT NOT NULL,
    visibility      TEXT NOT NULL,
    ladder          BOOLEAN NOT NULL,
    -- Derived from the log, kept here for listing: open, running, finished, aborted.
    status          TEXT NOT NULL,
    -- Winning seats, comma-separated, once finished.
    winners         TEXT NOT NULL,
    created_by      TEXT NOT NULL REFERENCES players (id),
    created_at      BIGINT NOT NULL
);
CREATE INDEX games_by_status ON games (status, ord);

-- Derived from the log, kept here for listing a player's games.
CREATE TABLE seats (
    game_id   TEXT NOT NULL REFERENCES games (id),
    seat      BIGINT NOT NULL,
    player_id TEXT NOT NULL REFERENCES players (id),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id)
);
CREATE INDEX seats_by_player ON seats (player_id);

-- The primary key makes two writers unable to commit the same action number.
CREATE TABLE actions (
    game_id         TEXT NOT NULL REFERENCES games (id),
    seq             BIGINT NOT NULL,
    player_id       TEXT REFERENCES players (id),
    idempotency_key TEXT,
    -- The action as JSON.
    payload         TEXT NOT NULL,
    at              BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE UNIQUE INDEX actions_by_idempotency_key
    ON actions (game_id, player_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
