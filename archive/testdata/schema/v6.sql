-- What schema version 6 added: an imported record stored as checked.
INSERT INTO archive (id, game_id, game, result, tags, record, hash, rated, created, canonical)
VALUES (2, NULL, 'castles', '1/2-1/2', '[{"name":"Game","value":"castles"},{"name":"Event","value":"Club Cup"},{"name":"Date","value":"2026.03.15"},{"name":"Round","value":"3"},{"name":"First","value":"Dan <dan@example.org>"},{"name":"Second","value":"Alice <alice@example.org>"},{"name":"Result","value":"1/2-1/2"},{"name":"Termination","value":"agreement"}]',
	'[Game "castles"]
[Event "Club Cup"]
[Date "2026.03.15"]
[Round "3"]
[First "Dan <dan@example.org>"]
[Second "Alice <alice@example.org>"]
[Result "1/2-1/2"]
[Termination "agreement"]

0... @c3 1. Ca1-b2 1/2-1/2
', 'fixturehash2', 1, 1761991200000000000, 1);
