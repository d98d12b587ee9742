-- The unique index on (game_id, player_id, idempotency_key) goes (issue 21): a second B-tree
-- entry for every action written, which no statement reads. What it guarded holds without it:
-- a game's actions are written by the one actor that owns it, which answers a key it has seen
-- with the action already made under it, and keeps every key of its game, rebuilt from this
-- table's `idempotency_key` column whenever the game is loaded. The primary key
-- (game_id, seq) still refuses two writes of one action.
DROP INDEX IF EXISTS actions_by_idempotency_key;
