-- The unfinished games a player created (open or running), counted with the seats it holds in
-- unfinished games (seats_live_by_player) when it creates or joins a game: one player's
-- unfinished games and its games with house bots are capped. Also read by a restart, which
-- loads only the running games whose turn clock runs (the others load when asked for).
CREATE INDEX games_unfinished_by_creator ON games (created_by) WHERE status IN ('open', 'running');
CREATE INDEX games_running_clocked ON games (ord) WHERE status = 'running' AND turn_time_limit > 0;
