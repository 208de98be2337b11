-- What schema version 3 added: a watcher waiting for its token's
-- confirmation, and a reply the clock sent (auto-generated).
INSERT INTO observers (game_id, address, name, token, confirmed) VALUES (1, 'dan@example.org', 'Dan', 'dddddddd', 0);
INSERT INTO outbox (message_id, game_id, from_addr, to_addrs, cc_addrs, reply_to, subject, date, in_reply_to, refs, body,
	status, attempts, next_attempt, last_error, sent_at, auto)
VALUES ('pbem.1.reminder@pbem.example', 1, '{"name":"pbem referee","addr":"referee@pbem.example"}', '[{"addr":"bob@example.org"}]', '[]', '',
	'[pbem #1 bbbbbbbb] toy: reminder', 1761991300000000000, 'pbem.1.game.aaaa@pbem.example', '["pbem.1.game.aaaa@pbem.example"]',
	'Reminder: your move.', 'sent', 1, 1761991300000000000, '', 1761991301000000000, 'auto-generated');
