-- ListGames pages newest first in a total order, (created_at, id) descending; games created
-- at once are inserted (ord) in another order than their creation times.
CREATE INDEX games_by_creation ON games (created_at DESC, id DESC);
