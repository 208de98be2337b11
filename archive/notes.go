package archive

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Note is a player's private note on a game: kept for that player only,
// never shown to another player, a watcher, the web pages or an export.
type Note struct {
	GameID int64
	// Addr is the owner's address (stored lower-cased).
	Addr string
	At   time.Time
	// Ply is the number of plies the game had when the note was written.
	Ply  int
	Text string
}

// notesSchema is migration 18: the players' private notes, one row a note,
// read back in the order they were written.
const notesSchema = `
CREATE TABLE notes (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	address TEXT    NOT NULL,
	at      INTEGER NOT NULL,
	ply     INTEGER NOT NULL,
	text    TEXT    NOT NULL
);
CREATE INDEX notes_owner ON notes(game_id, address);
`

// Notes returns the notes of one player (addr, case-insensitive) on one
// game, oldest first; none when there are none.
func (s *Store) Notes(ctx context.Context, gameID int64, addr string) ([]*Note, error) {
	rows, err := s.q(nil).QueryContext(ctx, `SELECT at, ply, text FROM notes WHERE game_id = ? AND address = ? ORDER BY id`,
		gameID, strings.ToLower(addr))
	if err != nil {
		return nil, fmt.Errorf("archive: notes: %w", err)
	}
	defer rows.Close()
	var out []*Note
	for rows.Next() {
		n := &Note{GameID: gameID, Addr: strings.ToLower(addr)}
		var at int64
		if err := rows.Scan(&at, &n.Ply, &n.Text); err != nil {
			return nil, fmt.Errorf("archive: notes: %w", err)
		}
		n.At = fromUnix(at)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: notes: %w", err)
	}
	return out, nil
}

// putNote stores a new note within a change.
func putNote(ctx context.Context, q querier, n *Note, at time.Time) error {
	if n.GameID <= 0 || n.Addr == "" {
		return fmt.Errorf("%w: a note needs a game and an owner (game %d, owner %q)", ErrInvalidChange, n.GameID, n.Addr)
	}
	if n.At.IsZero() {
		n.At = at
	}
	_, err := q.ExecContext(ctx, `INSERT INTO notes (game_id, address, at, ply, text) VALUES (?, ?, ?, ?, ?)`,
		n.GameID, strings.ToLower(n.Addr), unix(n.At), n.Ply, n.Text)
	return err
}
