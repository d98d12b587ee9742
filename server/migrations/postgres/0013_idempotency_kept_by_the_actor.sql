-- The unique index on (game_id, player_id, idempotency_key) goes (issue 21): it was a second
-- B-tree entry, of three text columns, for every action written, and no statement reads it.
-- What it guarded holds without it: a game's actions are written by the one actor that owns
-- it, which answers a key it has seen with the action already made under it, and keeps every
-- key of its game, rebuilt from this table's `idempotency_key` column whenever the game is
-- loaded (after a restart, or by the replica that takes it over once the fence on the game's
-- row has let the previous owner's last write commit). The primary key (game_id, seq) still
-- refuses two writes of one action.
DROP INDEX IF EXISTS actions_by_idempotency_key;
