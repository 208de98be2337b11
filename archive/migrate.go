package archive

import (
	"context"
	"fmt"
)

// migration is one schema step. Migrations are applied in order, each in its
// own transaction, and recorded in schema_migrations; a step is never
// edited once released: add another.
type migration struct {
	version int
	name    string
	sql     string
}

var migrations = []migration{
	{1, "referee and archive", `
CREATE TABLE game_ids (id INTEGER PRIMARY KEY AUTOINCREMENT);

CREATE TABLE games (
	id         INTEGER PRIMARY KEY,
	game       TEXT    NOT NULL,
	status     TEXT    NOT NULL,
	options    TEXT    NOT NULL,
	offers     TEXT    NOT NULL,
	record     TEXT    NOT NULL,
	turn_start INTEGER NOT NULL,
	deadline   INTEGER NOT NULL,
	reminded   INTEGER NOT NULL,
	due        INTEGER NOT NULL,
	thread     TEXT    NOT NULL,
	created    INTEGER NOT NULL,
	updated    INTEGER NOT NULL,
	version    INTEGER NOT NULL
);
CREATE INDEX games_due ON games(due) WHERE due > 0;

CREATE TABLE seats (
	game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	seat    INTEGER NOT NULL,
	side    TEXT    NOT NULL,
	address TEXT    NOT NULL,
	name    TEXT    NOT NULL,
	token   TEXT    NOT NULL,
	joined  INTEGER NOT NULL,
	PRIMARY KEY (game_id, seat)
);
CREATE INDEX seats_address ON seats(address);

CREATE TABLE observers (
	game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	address TEXT    NOT NULL,
	name    TEXT    NOT NULL,
	PRIMARY KEY (game_id, address)
);
CREATE INDEX observers_address ON observers(address);

CREATE TABLE players (
	address        TEXT PRIMARY KEY,
	name           TEXT    NOT NULL,
	vacation_until INTEGER NOT NULL,
	vacation_year  INTEGER NOT NULL,
	vacation_days  INTEGER NOT NULL,
	version        INTEGER NOT NULL
);

CREATE TABLE senders (
	address      TEXT PRIMARY KEY,
	window_start INTEGER NOT NULL,
	count        INTEGER NOT NULL,
	warned       INTEGER NOT NULL
);

CREATE TABLE processed (
	message_id TEXT PRIMARY KEY,
	at         INTEGER NOT NULL
);

CREATE TABLE outbox (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	message_id   TEXT    NOT NULL UNIQUE,
	game_id      INTEGER NOT NULL,
	from_addr    TEXT    NOT NULL,
	to_addrs     TEXT    NOT NULL,
	cc_addrs     TEXT    NOT NULL,
	reply_to     TEXT    NOT NULL,
	subject      TEXT    NOT NULL,
	date         INTEGER NOT NULL,
	in_reply_to  TEXT    NOT NULL,
	refs         TEXT    NOT NULL,
	body         TEXT    NOT NULL,
	status       TEXT    NOT NULL,
	attempts     INTEGER NOT NULL,
	next_attempt INTEGER NOT NULL,
	last_error   TEXT    NOT NULL,
	sent_at      INTEGER NOT NULL
);
CREATE INDEX outbox_due ON outbox(status, next_attempt);

CREATE TABLE archive (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	game_id INTEGER,
	game    TEXT    NOT NULL,
	result  TEXT    NOT NULL,
	tags    TEXT    NOT NULL,
	record  TEXT    NOT NULL,
	hash    TEXT    NOT NULL UNIQUE,
	rated   INTEGER NOT NULL,
	created INTEGER NOT NULL
);
CREATE INDEX archive_game ON archive(game);
CREATE INDEX archive_game_id ON archive(game_id);
`},
	{2, "archive index: event, date, round, players and ranks", `
CREATE TABLE archive_index (
	entry_id  INTEGER PRIMARY KEY REFERENCES archive(id) ON DELETE CASCADE,
	event     TEXT    NOT NULL,
	event_key TEXT    NOT NULL,
	date      TEXT    NOT NULL,
	day       TEXT    NOT NULL,
	round     TEXT    NOT NULL
);
CREATE INDEX archive_index_event ON archive_index(event_key);

CREATE TABLE archive_sides (
	entry_id   INTEGER NOT NULL REFERENCES archive(id) ON DELETE CASCADE,
	seat       INTEGER NOT NULL,
	side       TEXT    NOT NULL,
	player     TEXT    NOT NULL,
	player_key TEXT    NOT NULL,
	rank       INTEGER NOT NULL,
	PRIMARY KEY (entry_id, seat)
);

-- Rows archived by any writer wait here until they are indexed (the index
-- needs the game catalog, which only the program has).
CREATE TABLE archive_unindexed (entry_id INTEGER PRIMARY KEY);
CREATE TRIGGER archive_unindexed_insert AFTER INSERT ON archive BEGIN
	INSERT OR IGNORE INTO archive_unindexed (entry_id) VALUES (new.id);
END;
INSERT INTO archive_unindexed (entry_id) SELECT id FROM archive;
`},
	{3, "observers confirm with a token; outgoing mail says how it was submitted", `
ALTER TABLE observers ADD COLUMN token TEXT NOT NULL DEFAULT '';
ALTER TABLE observers ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 1;
ALTER TABLE outbox ADD COLUMN auto TEXT NOT NULL DEFAULT 'auto-replied';
`},
	{4, "tournaments: events, their players, games and byes", tournamentSchema},
	{5, "tournaments: the dates the director sets for rounds to open", tournamentRoundsSchema},
	{6, "archive: records stored as checked; search by a trigram index of tags and players, dates by an index", searchSchema},
	{7, "operators: audit of admin actions, blocked senders, admin commands by mail waiting for confirmation", auditSchema},
	{8, "outgoing mail carries an HTML part and its images", `
ALTER TABLE outbox ADD COLUMN html TEXT NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN inline BLOB;
`},
	{9, "players choose text or HTML mail", `
ALTER TABLE players ADD COLUMN mail TEXT NOT NULL DEFAULT '';
`},
	{10, "a change counter the web's kept pages compare, moved by every write its pages read", stampSchema},
}

// SchemaVersion is the schema version this package writes.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// Version returns the schema version of the open database.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("archive: schema version: %w", err)
	}
	return v, nil
}

func (s *Store) migrate(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version INTEGER PRIMARY KEY,
	name    TEXT    NOT NULL,
	applied INTEGER NOT NULL
)`)
	if err != nil {
		return fmt.Errorf("archive: migrations table: %w", err)
	}
	return s.migrateTo(ctx, migrations)
}

func (s *Store) migrateTo(ctx context.Context, steps []migration) error {
	have, err := s.Version(ctx)
	if err != nil {
		return err
	}
	if latest := steps[len(steps)-1].version; have > latest {
		return fmt.Errorf("archive: %s has schema version %d, newer than this program's %d; upgrade pbem", s.path, have, latest)
	}
	for _, m := range steps {
		if m.version <= have {
			continue
		}
		if err := s.apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, m migration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("archive: migration %d: %w", m.version, err)
	}
	defer tx.Rollback()
	// Another process may have applied it while we waited for the lock.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return fmt.Errorf("archive: migration %d: %w", m.version, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("archive: migration %d (%s): %w", m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)`,
		m.version, m.name, unix(s.now())); err != nil {
		return fmt.Errorf("archive: migration %d: %w", m.version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("archive: migration %d: %w", m.version, err)
	}
	return nil
}
