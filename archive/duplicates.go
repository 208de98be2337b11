package archive

import (
	"context"
	"database/sql"
	"encoding/binary"
	"hash/fnv"
)

// linesSchema is migration 19: the key of each archived game's moves (its
// game, start position and canonical plies), to find the games archived
// twice under other tags. Every row is indexed again (archive_unindexed)
// to fill it.
const linesSchema = `
CREATE TABLE archive_lines (
	entry_id INTEGER PRIMARY KEY REFERENCES archive(id) ON DELETE CASCADE,
	line_key INTEGER NOT NULL
);
CREATE INDEX archive_lines_key ON archive_lines(line_key);
INSERT OR IGNORE INTO archive_unindexed (entry_id) SELECT id FROM archive;
`

// pgLinesSchema is migration 19 on PostgreSQL.
const pgLinesSchema = `
CREATE TABLE archive_lines (
	entry_id BIGINT PRIMARY KEY REFERENCES archive(id) ON DELETE CASCADE,
	line_key BIGINT NOT NULL
);
CREATE INDEX archive_lines_key ON archive_lines(line_key);
INSERT INTO archive_unindexed (entry_id) SELECT id FROM archive ON CONFLICT DO NOTHING;
`

// Duplicate is an imported game whose moves equal those of a game archived
// before it under other tags: the same game, from the same start position,
// with the same canonical plies (compared by a 64-bit key of them).
type Duplicate struct {
	// ID is the imported game's archive id; Of the earliest archived game
	// with the same moves.
	ID, Of int64
	// File and Index say where the imported game was read (Index from 1).
	File  string
	Index int
}

// MinDuplicatePlies is the fewest plies a game has for another with the
// same moves to be its possible duplicate: shorter games coincide by play
// (a resignation or a forfeit after the first moves), not by copying.
const MinDuplicatePlies = 8

// lineKey is the key of a game's moves: the 64-bit FNV-1a hash of the game
// id, the key of its start position and its canonical plies, from its
// position rows (positionRows). ok is false for a game of fewer than
// MinDuplicatePlies plies (or without position notation), which no other
// game duplicates.
func lineKey(game string, rows []positionRow) (key uint64, ok bool) {
	if len(rows)-1 < MinDuplicatePlies {
		return 0, false
	}
	h := fnv.New64a()
	h.Write([]byte(game))
	h.Write([]byte{0})
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], rows[0].key)
	h.Write(b[:])
	for _, r := range rows[:len(rows)-1] {
		h.Write([]byte{0})
		h.Write([]byte(r.next))
	}
	return h.Sum64(), true
}

// putLine replaces the line key of the archive row id (none when ok is
// false).
func putLine(ctx context.Context, st *indexStmts, id int64, key uint64, ok bool) error {
	if !ok {
		_, err := st.dropLine.ExecContext(ctx, id)
		return err
	}
	_, err := st.line.ExecContext(ctx, id, int64(key))
	return err
}

// earlierLine returns the earliest archive row before id with the line key
// (0 when none), in the transaction of st.
func earlierLine(ctx context.Context, st *indexStmts, id int64, key uint64) (int64, error) {
	var of sql.NullInt64
	if err := st.earlier.QueryRowContext(ctx, int64(key), id).Scan(&of); err != nil {
		return 0, err
	}
	return of.Int64, nil
}

// duplicateWhere is the condition of Filter.Duplicates: games whose line
// key another archived game shares.
const duplicateWhere = `a.id IN (SELECT l.entry_id FROM archive_lines l WHERE l.line_key IN (
	SELECT line_key FROM archive_lines GROUP BY line_key HAVING COUNT(*) > 1))`

// sameLines fills in, for the games of page, the other archived games with
// the same moves (Found.Same).
func (s *Store) sameLines(ctx context.Context, page []*Found) error {
	if len(page) == 0 {
		return nil
	}
	byID := make(map[int64]*Found, len(page))
	for _, fd := range page {
		byID[fd.ID] = fd
	}
	rows, err := s.db.QueryContext(ctx, `SELECT l.entry_id, m.entry_id FROM archive_lines l
JOIN archive_lines m ON m.line_key = l.line_key AND m.entry_id <> l.entry_id
WHERE l.entry_id BETWEEN ? AND ? ORDER BY l.entry_id, m.entry_id`, page[0].ID, page[len(page)-1].ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, other int64
		if err := rows.Scan(&id, &other); err != nil {
			return err
		}
		if fd := byID[id]; fd != nil {
			fd.Same = append(fd.Same, other)
		}
	}
	return rows.Err()
}
