-- The ladder's queue lives in the store (one replica here, but the same code as several on
-- PostgreSQL), and games have an owner column, always NULL on SQLite.
ALTER TABLE games ADD COLUMN owner TEXT;

CREATE TABLE ladder_queue (
    id          TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players (id),
    players     INTEGER NOT NULL,
    duplicate   INTEGER NOT NULL,
    replica_id  TEXT NOT NULL,
    enqueued_at INTEGER NOT NULL,
    matched     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ladder_queue_by_time ON ladder_queue (matched, enqueued_at);

CREATE TABLE ladder_matches (
    entry_id       TEXT NOT NULL REFERENCES ladder_queue (id) ON DELETE CASCADE,
    game_id        TEXT NOT NULL REFERENCES games (id),
    seat           INTEGER NOT NULL,
    players        INTEGER NOT NULL,
    already_seated INTEGER NOT NULL,
    series_id      TEXT,
    series_index   INTEGER,
    PRIMARY KEY (entry_id, game_id)
);
