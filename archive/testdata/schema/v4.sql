-- What schema version 4 added: a round robin under way with its players,
-- its game of round 1 (game 1) and a bye.
INSERT INTO tournament_ids (id) VALUES (1);
INSERT INTO tournaments (id, name, game, format, rounds, days, rated, seats, director, director_name, director_token, status, seed,
	digest_due, created, updated, version)
VALUES (1, 'Club Cup', 'toy', 'roundrobin', 3, 7, 1, 2, 'dora@example.org', 'Dora', 'tttttttt', 'running', 42, 0,
	1761991200000000000, 1761991200000000000, 4);
INSERT INTO tournament_players (tournament_id, seed, address, name, token, joined, withdrawn, digest) VALUES
	(1, 1, 'alice@example.org', 'Alice', 'a1a1a1a1', 1, 0, 'each'),
	(1, 2, 'bob@example.org', '', 'b1b1b1b1', 1, 0, 'each'),
	(1, 3, 'carol@example.org', 'Carol', 'c1c1c1c1', 1, 0, 'none');
INSERT INTO tournament_games (tournament_id, seq, round, board, game_id, players, ranks, forfeit)
VALUES (1, 1, 1, 1, 1, '["alice@example.org","bob@example.org"]', '', 0);
INSERT INTO tournament_byes (tournament_id, round, address) VALUES (1, 1, 'carol@example.org');
