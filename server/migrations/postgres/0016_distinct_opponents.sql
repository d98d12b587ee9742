-- Ratings that a person's own accounts cannot establish. A rating counts the distinct
-- opponents it was rated against, and each opponent vouches for a few rated games at most:
-- `counted` (the games that count toward being established, and toward the weight the
-- rating carries as an opponent) is min(games, 3 × opponents). The pairs rated against each
-- other, by category; `arranged_at`: when their last game arranged by a challenge or a
-- tournament was rated (such games between the same players count once a day).
CREATE TABLE rated_pairs (
    player_id   TEXT NOT NULL,
    players     BIGINT NOT NULL,
    opponent_id TEXT NOT NULL,
    arranged_at BIGINT,
    PRIMARY KEY (player_id, players, opponent_id)
);
ALTER TABLE ratings ADD COLUMN opponents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN counted BIGINT NOT NULL DEFAULT 0;
-- The pairs of the past, as far as the rating history tells: the players seated with each
-- rated player at the table its history names.
INSERT INTO rated_pairs (player_id, players, opponent_id)
    SELECT DISTINCT h.player_id, h.players, s.player_id
    FROM rating_history h JOIN seats s ON s.game_id = h.game_id
    WHERE s.player_id <> h.player_id;
UPDATE ratings SET opponents = (SELECT COUNT(*) FROM rated_pairs rp
    WHERE rp.player_id = ratings.player_id AND rp.players = ratings.players);
UPDATE ratings SET counted = CASE WHEN games < 3 * opponents THEN games ELSE 3 * opponents END;
