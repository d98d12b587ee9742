-- The ladder: duplicate series, final money per seat, ratings and their history.
ALTER TABLE games ADD COLUMN series_id TEXT;
ALTER TABLE games ADD COLUMN series_index BIGINT;
-- Final money by seat, comma-separated, once finished (to score duplicate series).
ALTER TABLE games ADD COLUMN money TEXT NOT NULL DEFAULT '';
CREATE INDEX games_by_series ON games (series_id, series_index);

-- A duplicate series: the same seed played once per seat rotation.
CREATE TABLE series (
    id         TEXT PRIMARY KEY,
    -- Player ids in the seat order of the series' first game, comma-separated.
    players    TEXT NOT NULL,
    seed       BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);

-- Weng-Lin ratings; `players` is the player count they are for, 0 for overall.
CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players (id),
    players   BIGINT NOT NULL,
    mu        DOUBLE PRECISION NOT NULL,
    sigma     DOUBLE PRECISION NOT NULL,
    games     BIGINT NOT NULL,
    PRIMARY KEY (player_id, players)
);
CREATE INDEX ratings_by_score ON ratings (players, (mu - 3 * sigma));

CREATE TABLE rating_history (
    player_id    TEXT NOT NULL REFERENCES players (id),
    players      BIGINT NOT NULL,
    game_id      TEXT NOT NULL REFERENCES games (id),
    mu_before    DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu           DOUBLE PRECISION NOT NULL,
    sigma        DOUBLE PRECISION NOT NULL,
    at           BIGINT NOT NULL,
    PRIMARY KEY (player_id, players, game_id)
);
