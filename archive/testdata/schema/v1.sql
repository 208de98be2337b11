-- A store as schema version 1 wrote it: one game under way with a
-- watcher, a finished game in the archive, a player on vacation, a
-- processed message and a reply waiting in the outbox. The migrations
-- test loads it at every version (what later versions added has its
-- defaults) and migrates it to the latest.
INSERT INTO game_ids (id) VALUES (1), (2);
INSERT INTO games (id, game, status, options, offers, record, turn_start, deadline, reminded, due, thread, created, updated, version)
VALUES (1, 'toy', 'playing', '{"players":2,"days":7,"rated":true,"event":"Club Cup"}', '[]',
	'[Game "toy"]
[Event "Club Cup"]
[Site "PBEM"]
[Date "2026.11.01"]
[Round "-"]
[A "Alice <alice@example.org>"]
[B "bob@example.org"]
[Result "*"]
[Players "2"]

1. +2 *
', 1761991200000000000, 1762596000000000000, 0, 1762596000000000000, 'pbem.1.game.aaaa@pbem.example',
	1761991200000000000, 1761991200000000000, 3);
INSERT INTO seats (game_id, seat, side, address, name, token, joined) VALUES
	(1, 0, 'A', 'alice@example.org', 'Alice', 'aaaaaaaa', 1),
	(1, 1, 'B', 'bob@example.org', '', 'bbbbbbbb', 1);
INSERT INTO observers (game_id, address, name) VALUES (1, 'carol@example.org', 'Carol');
INSERT INTO players (address, name, vacation_until, vacation_year, vacation_days, version)
VALUES ('bob@example.org', '', 1762000000000000000, 2026, 3, 1);
INSERT INTO processed (message_id, at) VALUES ('m1@example.org', 1761991200000000000);
INSERT INTO outbox (message_id, game_id, from_addr, to_addrs, cc_addrs, reply_to, subject, date, in_reply_to, refs, body,
	status, attempts, next_attempt, last_error, sent_at)
VALUES ('pbem.1.x@pbem.example', 1, '{"name":"pbem referee","addr":"referee@pbem.example"}', '[{"addr":"bob@example.org"}]', '[]', '',
	'[pbem #1 bbbbbbbb] toy', 1761991200000000000, 'pbem.1.game.aaaa@pbem.example', '["pbem.1.game.aaaa@pbem.example"]',
	'Your move.', 'pending', 0, 0, '', 0);
INSERT INTO archive (id, game_id, game, result, tags, record, hash, rated, created)
VALUES (1, 2, 'castles', '1-0', '[{"name":"Game","value":"castles"},{"name":"Event","value":"Club Cup"},{"name":"Date","value":"2026.03.01"},{"name":"Round","value":"1"},{"name":"First","value":"Alice <alice@example.org>"},{"name":"Second","value":"Bob <bob@example.org>"},{"name":"Result","value":"1-0"},{"name":"Termination","value":"resign"}]',
	'[Game "castles"]
[Event "Club Cup"]
[Date "2026.03.01"]
[Round "1"]
[First "Alice <alice@example.org>"]
[Second "Bob <bob@example.org>"]
[Result "1-0"]
[Termination "resign"]

0... @c3 1. Ca1-b2 1-0
', 'fixturehash1', 1, 1761991200000000000);
