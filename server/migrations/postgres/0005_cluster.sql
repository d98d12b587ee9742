-- Several replicas on one database (see ARCHITECTURE.md, "Replicas").

-- Each running replica, where its peers reach it, and until when its lease runs (database
-- time, so replicas' clocks do not matter). A replica renews its lease; one whose lease ran
-- out is dead, and its games are taken over.
CREATE TABLE replicas (
    id          TEXT PRIMARY KEY,
    url         TEXT NOT NULL,
    started_at  BIGINT NOT NULL,
    lease_until TIMESTAMPTZ NOT NULL
);

-- The replica that runs an unfinished game's actor (its one writer); NULL when none does.
ALTER TABLE games ADD COLUMN owner TEXT;
CREATE INDEX games_by_owner ON games (owner) WHERE owner IS NOT NULL;

-- The ladder's queue, shared by every replica: requests live here, not in a process.
CREATE TABLE ladder_queue (
    id          TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players (id),
    -- 0: any player count.
    players     BIGINT NOT NULL,
    duplicate   BOOLEAN NOT NULL,
    -- The replica holding the request's stream.
    replica_id  TEXT NOT NULL,
    enqueued_at BIGINT NOT NULL,
    matched     BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX ladder_queue_by_time ON ladder_queue (matched, enqueued_at);

-- What a request was answered: its game, or the games its player already sits in.
CREATE TABLE ladder_matches (
    entry_id       TEXT NOT NULL REFERENCES ladder_queue (id) ON DELETE CASCADE,
    game_id        TEXT NOT NULL REFERENCES games (id),
    seat           BIGINT NOT NULL,
    players        BIGINT NOT NULL,
    already_seated BOOLEAN NOT NULL,
    series_id      TEXT,
    series_index   BIGINT,
    PRIMARY KEY (entry_id, game_id)
);
