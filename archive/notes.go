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

// notesSchema is migration 20: the players' private notes, one row a note,
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
func putNote(ctx context.Context, w *wtx, n *Note, at time.Time) error {
	if n.GameID <= 0 || n.Addr == "" {
		return fmt.Errorf("%w: a note needs a game and an owner (game %d, owner %q)", ErrInvalidChange, n.GameID, n.Addr)
	}
	if n.At.IsZero() {
		n.At = at
	}
	return w.exec(ctx, `INSERT INTO notes (game_id, address, at, ply, text) VALUES (?, ?, ?, ?, ?)`,
		[]any{n.GameID, strings.ToLower(n.Addr), unix(n.At), n.Ply, n.Text}, nil)
}

// Analysis is a request for the computer's annotation of a finished game
// (analyse GAMEID by mail): queued with the request, done later by a
// worker behind every move.
type Analysis struct {
	ID     int64 // 0 until stored
	GameID int64
	// Addr is who asked; the annotated record is mailed there.
	Addr  string
	Name  string // the display name of Addr
	Level int
	// Side is the seat whose plies are analysed, -1 for every seat.
	Side      int
	Requested time.Time
	// Status is AnalysisQueued, AnalysisDone or AnalysisFailed.
	Status string
	// Text is the annotated record (done) or why it failed.
	Text string
	// Published: a player had it shown on the game's web page (its Text
	// then names the players, never their addresses).
	Published bool
}

// Analysis statuses.
const (
	AnalysisQueued = "queued"
	AnalysisDone   = "done"
	AnalysisFailed = "failed"
)

// analysesSchema is migration 21: the queue of requested analyses and
// their results.
const analysesSchema = `
CREATE TABLE analyses (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	game_id   INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	address   TEXT    NOT NULL,
	name      TEXT    NOT NULL,
	level     INTEGER NOT NULL,
	side      INTEGER NOT NULL DEFAULT -1,
	requested INTEGER NOT NULL,
	status    TEXT    NOT NULL,
	text      TEXT    NOT NULL,
	published INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX analyses_status ON analyses(status, id);
`

const analysisColumns = `id, game_id, address, name, level, side, requested, status, text, published`

// QueuedAnalyses returns up to limit queued analyses, oldest first.
func (s *Store) QueuedAnalyses(ctx context.Context, limit int) ([]*Analysis, error) {
	return s.analyses(ctx, `SELECT `+analysisColumns+` FROM analyses WHERE status = ? ORDER BY id LIMIT ?`, AnalysisQueued, limit)
}

// AnalysesOf returns the analyses asked for by addr (case-insensitive),
// oldest first.
func (s *Store) AnalysesOf(ctx context.Context, addr string) ([]*Analysis, error) {
	return s.analyses(ctx, `SELECT `+analysisColumns+` FROM analyses WHERE address = ? ORDER BY id`, strings.ToLower(addr))
}

func (s *Store) analyses(ctx context.Context, query string, args ...any) ([]*Analysis, error) {
	rows, err := s.q(nil).QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("archive: analyses: %w", err)
	}
	defer rows.Close()
	var out []*Analysis
	for rows.Next() {
		a := &Analysis{}
		var at int64
		var pub int
		if err := rows.Scan(&a.ID, &a.GameID, &a.Addr, &a.Name, &a.Level, &a.Side, &at, &a.Status, &a.Text, &pub); err != nil {
			return nil, fmt.Errorf("archive: analyses: %w", err)
		}
		a.Requested = fromUnix(at)
		a.Published = pub != 0
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: analyses: %w", err)
	}
	return out, nil
}

// PublishedAnalysis is the analysis of a game last published; ErrNotFound
// when none is.
func (s *Store) PublishedAnalysis(ctx context.Context, gameID int64) (*Analysis, error) {
	as, err := s.analyses(ctx, `SELECT `+analysisColumns+` FROM analyses WHERE game_id = ? AND status = ? AND published = 1 ORDER BY id DESC LIMIT 1`,
		gameID, AnalysisDone)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return nil, ErrNotFound
	}
	return as[0], nil
}

// putAnalysis inserts a new analysis (ID 0), publishes a done one
// (Published, with its public Text), or stores the status and text of a
// queued one; finishing one that is no longer queued is ErrConflict
// (another worker finished it).
func putAnalysis(ctx context.Context, w *wtx, a *Analysis, at time.Time) error {
	if a.ID == 0 {
		if a.Requested.IsZero() {
			a.Requested = at
		}
		if a.Status == "" {
			a.Status = AnalysisQueued
		}
		return w.queryRow(ctx, `INSERT INTO analyses (game_id, address, name, level, side, requested, status, text)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, []any{a.GameID, strings.ToLower(a.Addr), a.Name, a.Level, a.Side, unix(a.Requested), a.Status, a.Text},
			func(scan func(...any) error) error { return scan(&a.ID) })
	}
	query, args := `UPDATE analyses SET status = ?, text = ? WHERE id = ? AND status = ?`, []any{a.Status, a.Text, a.ID, AnalysisQueued}
	if a.Published {
		query, args = `UPDATE analyses SET published = 1, text = ? WHERE id = ? AND status = ?`, []any{a.Text, a.ID, AnalysisDone}
	}
	return w.exec(ctx, query, args, func(n int64, err error) error {
		if err == nil && n == 0 {
			return fmt.Errorf("%w: analysis %d is not in the state expected (queued to finish, done to publish)", ErrConflict, a.ID)
		}
		return err
	})
}
