-- The secret that, with the seed, makes the commitment every view of a game shows; revealed
-- with the seed once the game is over. NULL for games created before commitments existed.
ALTER TABLE games ADD COLUMN seed_salt TEXT;
