package archive

import (
	"context"
	"fmt"
	"strings"

	"pbem/engine"
	"pbem/notation"
)

// positionsSchema is migration 14 (numbered 14 so that 12 and 13, made on
// other branches at the same time, keep their numbers; a merge renumbers
// it after them): archive_positions holds the key of every position of the
// main line of every archived game (docs/NOTATION.md, "Positions") with the
// ply after which it stands (0: the start) and the ply played from it (""
// at the end), so that search finds the games through a position, by
// transposition too, and the explorer counts the plies played from it.
// Every row is indexed again (archive_unindexed) to fill it.
const positionsSchema = `
CREATE TABLE archive_positions (
	pos_key  INTEGER NOT NULL,
	entry_id INTEGER NOT NULL REFERENCES archive(id) ON DELETE CASCADE,
	ply      INTEGER NOT NULL,
	next     TEXT    NOT NULL,
	PRIMARY KEY (pos_key, entry_id, ply)
);
CREATE INDEX archive_positions_entry ON archive_positions(entry_id);
INSERT OR IGNORE INTO archive_unindexed (entry_id) SELECT id FROM archive;
`

// pgPositionsSchema is migration 14 on PostgreSQL.
const pgPositionsSchema = `
CREATE TABLE archive_positions (
	pos_key  BIGINT NOT NULL,
	entry_id BIGINT NOT NULL REFERENCES archive(id) ON DELETE CASCADE,
	ply      BIGINT NOT NULL,
	next     TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (pos_key, entry_id, ply)
);
CREATE INDEX archive_positions_entry ON archive_positions(entry_id);
INSERT INTO archive_unindexed (entry_id) SELECT id FROM archive ON CONFLICT DO NOTHING;
`

// positionRow is one position of an archived game's main line.
type positionRow struct {
	key  uint64
	ply  int
	next string
}

// positionRows lists the positions of g's main line: the key after every
// ply (0: the start) and the ply played from there. It is nil for a game
// without a position notation.
func positionRows(g *notation.Game) []positionRow {
	rows := make([]positionRow, 0, len(g.Lines))
	for i, l := range g.Lines {
		_, key, ok := engine.Position(l.State())
		if !ok {
			return nil
		}
		r := positionRow{key: key, ply: i}
		if i < len(g.Record.Main.Plies) {
			r.next = g.Record.Main.Plies[i].Canon
		}
		rows = append(rows, r)
	}
	return rows
}

// recordPositions checks an archived record and lists its positions; nil
// when it does not check (a game no longer in the catalog).
func recordPositions(record string, lookup notation.Lookup) []positionRow {
	recs, problems := notation.Parse("archive", []byte(record))
	if len(problems) > 0 || len(recs) != 1 {
		return nil
	}
	g, problems := notation.Check(recs[0], lookup)
	if g == nil || len(problems) > 0 {
		return nil
	}
	return positionRows(g)
}

// putPositions replaces the position rows of the archive row id.
func putPositions(ctx context.Context, st *indexStmts, id int64, rows []positionRow) error {
	if _, err := st.dropPositions.ExecContext(ctx, id); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := st.position.ExecContext(ctx, int64(r.key), id, r.ply, r.next); err != nil {
			return err
		}
	}
	return nil
}

// ReadPosition reads a position text of game (a game id) and returns its
// canonical text, for the archive's position search; the error says what is
// wrong and where.
func ReadPosition(lookup notation.Lookup, game string, o engine.Options, text string) (string, error) {
	c, err := lookup(game)
	if err != nil {
		return "", fmt.Errorf("archive: %v", err)
	}
	s, err := engine.ParsePosition(c.Rules(), o, strings.TrimSpace(text))
	if err != nil {
		return "", fmt.Errorf("archive: %v", err)
	}
	return s.(engine.Positioner).Position(), nil
}

// AfterPlies plays plies (one per word, as players write them) from the
// start of game with options o and returns the canonical position text
// reached; the error names the ply that does not play.
func AfterPlies(lookup notation.Lookup, game string, o engine.Options, plies string) (string, error) {
	c, err := lookup(game)
	if err != nil {
		return "", fmt.Errorf("archive: %v", err)
	}
	s, err := c.Rules().Start(o)
	if err != nil {
		return "", fmt.Errorf("archive: %v", err)
	}
	for i, p := range strings.Fields(plies) {
		m, err := c.Decode(s, p)
		if err == nil {
			s, err = s.Apply(m)
		}
		if err != nil {
			return "", fmt.Errorf("archive: ply %d %q: %v", i+1, p, err)
		}
	}
	text, _, ok := engine.Position(s)
	if !ok {
		return "", fmt.Errorf("archive: %s has no position notation", game)
	}
	return text, nil
}

// positionPlies fills in the plies at which the games of page stand at the
// position key.
func (s *Store) positionPlies(ctx context.Context, key uint64, page []*Found) error {
	if len(page) == 0 {
		return nil
	}
	byID := make(map[int64]*Found, len(page))
	for _, fd := range page {
		byID[fd.ID] = fd
	}
	rows, err := s.db.QueryContext(ctx, `SELECT entry_id, ply FROM archive_positions
WHERE pos_key = ? AND entry_id BETWEEN ? AND ? ORDER BY entry_id, ply`, int64(key), page[0].ID, page[len(page)-1].ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ply int
		if err := rows.Scan(&id, &ply); err != nil {
			return err
		}
		if fd := byID[id]; fd != nil {
			fd.Plies = append(fd.Plies, ply)
		}
	}
	return rows.Err()
}
