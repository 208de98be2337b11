package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// putEntry archives e unless a record with the same hash is there; it
// returns the id of the row holding the record.
func putEntry(ctx context.Context, w *wtx, e *Entry, at time.Time, id *int64) error {
	hash := e.Hash
	if hash == "" {
		hash = Hash(e.Record)
	}
	tags, err := json.Marshal(e.Tags)
	if err != nil {
		return err
	}
	var gameID any
	if e.GameID != 0 {
		gameID = e.GameID
	}
	created := e.Created
	if created.IsZero() {
		created = at
	}
	err = w.exec(ctx, `INSERT INTO archive (game_id, game, result, tags, record, hash, rated, created)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
		[]any{gameID, e.Game, e.Result, string(tags), e.Record, hash, e.Rated, unix(created)}, nil)
	if err != nil {
		return err
	}
	// Read in SQL, after the INSERT: the id of the row stored now or before.
	return w.queryRow(ctx, `SELECT id FROM archive WHERE hash = ?`, []any{hash},
		func(scan func(...any) error) error { return scan(id) })
}

const entryColumns = `id, COALESCE(game_id, 0), game, result, tags, record, hash, rated, created`

// Entries returns up to limit archived games with an id above after, by id
// (for export: page on with the last id seen).
func (s *Store) Entries(ctx context.Context, after int64, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM archive WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("archive: entries: %w", err)
	}
	defer rows.Close()
	var es []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("archive: entries: %w", err)
		}
		es = append(es, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: entries: %w", err)
	}
	return es, nil
}

// EntryOfGame returns the archived record of a referee game, or
// ErrNotFound.
func (s *Store) EntryOfGame(ctx context.Context, gameID int64) (Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM archive WHERE game_id = ? ORDER BY id LIMIT 1`, gameID)
	if err != nil {
		return Entry{}, fmt.Errorf("archive: entry: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Entry{}, fmt.Errorf("archive: entry: %w", err)
		}
		return Entry{}, ErrNotFound
	}
	e, err := scanEntry(rows)
	if err != nil {
		return Entry{}, fmt.Errorf("archive: entry: %w", err)
	}
	return e, nil
}

// AddEntry archives one record outside any referee change (import). It
// reports false, with the existing row's id, when the record was archived
// already.
func (s *Store) AddEntry(ctx context.Context, e *Entry) (added bool, err error) {
	if e.Hash == "" {
		e.Hash = Hash(e.Record)
	}
	var id int64
	err = s.db.QueryRowContext(ctx, `SELECT id FROM archive WHERE hash = ?`, e.Hash).Scan(&id)
	if err == nil {
		e.ID = id
		return false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("archive: add entry: %w", err)
	}
	if err := s.Commit(ctx, &Change{At: e.Created, Entries: []*Entry{e}}); err != nil {
		return false, err
	}
	return true, nil
}

func scanEntry(rows *sql.Rows) (Entry, error) {
	var e Entry
	var tags string
	var created int64
	if err := rows.Scan(&e.ID, &e.GameID, &e.Game, &e.Result, &tags, &e.Record, &e.Hash, &e.Rated, &created); err != nil {
		return e, err
	}
	e.Created = fromUnix(created)
	if err := json.Unmarshal([]byte(tags), &e.Tags); err != nil {
		return e, fmt.Errorf("archive row %d tags: %w", e.ID, err)
	}
	return e, nil
}
