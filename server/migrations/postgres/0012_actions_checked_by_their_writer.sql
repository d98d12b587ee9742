-- The action log's two foreign keys go (issue 21): each was a trigger per written action, a
-- look-up and a row lock on the referenced row (and a WAL record for the lock). What they
-- guarded holds without them: an action is written only by the statement that also finds its
-- game's row, owned by the writer, and locks it (APPEND_GROUP, FENCE_GAME), and only by a
-- player seated at that game (`seats` keeps its own foreign keys); games and players are never
-- deleted. The primary key (game_id, seq) still refuses two writes of one action.
ALTER TABLE actions DROP CONSTRAINT IF EXISTS actions_game_id_fkey;
ALTER TABLE actions DROP CONSTRAINT IF EXISTS actions_player_id_fkey;
