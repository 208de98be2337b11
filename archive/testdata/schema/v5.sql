-- What schema version 5 added: the date the director set for round 2.
INSERT INTO tournament_rounds (tournament_id, round, opens) VALUES (1, 2, 1762596000000000000);
