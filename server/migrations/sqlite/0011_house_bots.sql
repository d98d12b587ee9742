-- House bots (issue #23): the server's own players, which it seats in games whose creator asks
-- for them (CreateGameRequest.house_bots). Three per strategy, so one table can seat three of
-- the same kind. Nobody can sign in as one: no token hashes to 'house:…'. Nobody can challenge
-- them. Ids are fixed (server/src/house.rs names them) so every replica knows them.
INSERT INTO players (id, display_name, is_bot, token_hash, created_at, description, challenge_policy) VALUES
    ('b0550000-0000-4000-8000-000000000011', 'House random 1', 1, 'house:11', 0, 'House bot: random (a uniformly random legal turn), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000012', 'House random 2', 1, 'house:12', 0, 'House bot: random (a uniformly random legal turn), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000013', 'House random 3', 1, 'house:13', 0, 'House bot: random (a uniformly random legal turn), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000021', 'House heuristic 1', 1, 'house:21', 0, 'House bot: heuristic (one-ply rules of thumb), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000022', 'House heuristic 2', 1, 'house:22', 0, 'House bot: heuristic (one-ply rules of thumb), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000023', 'House heuristic 3', 1, 'house:23', 0, 'House bot: heuristic (one-ply rules of thumb), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000031', 'House ismcts 1', 1, 'house:31', 0, 'House bot: ismcts (SO-ISMCTS within a think time the server bounds), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000032', 'House ismcts 2', 1, 'house:32', 0, 'House bot: ismcts (SO-ISMCTS within a think time the server bounds), played by the server', 'closed'),
    ('b0550000-0000-4000-8000-000000000033', 'House ismcts 3', 1, 'house:33', 0, 'House bot: ismcts (SO-ISMCTS within a think time the server bounds), played by the server', 'closed');
