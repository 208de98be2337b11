-- What schema version 7 added: an operator's action, a blocked domain and
-- an admin command by mail waiting for its token.
INSERT INTO audit (at, actor, action, game_id, reason) VALUES (1761991400000000000, 'cli:root', 'clock 1 +2d', 1, 'outage');
INSERT INTO blocked (pattern, at, actor, reason) VALUES ('@spam.example', 1761991400000000000, 'cli:root', 'advertising');
INSERT INTO admin_pending (token, admin, command, created, done) VALUES ('pppppppp', 'root@example.org', 'resend 1', 1761991400000000000, 0);
