-- Who a player knows: players it challenged, and players it played a game with. A player's
-- Offers stream shows the challenges of players it knows first, and a player who already sees
-- many challenges from players it does not know is not challenged by more strangers, so that
-- spam cannot hide a friend's challenge.
CREATE TABLE contacts (
    player_id  TEXT NOT NULL,
    contact_id TEXT NOT NULL,
    PRIMARY KEY (player_id, contact_id)
);
-- A challenger's challenges that someone can still see: they count toward its cap.
CREATE INDEX challenge_players_visible_as_challenger ON challenge_players (player_id, visible_until)
    WHERE position = 0;
