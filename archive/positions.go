package archive

import (
	"context"
	"encoding/json"
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

// PositionCountLimit bounds the count of a position search: past it (or
// past the page asked for, if further), PositionPage.More says that more
// games match than PositionPage.Total.
const PositionCountLimit = 1000

// positionCountLimit is PositionCountLimit, lowered by tests.
var positionCountLimit = PositionCountLimit

// PositionPage is one page of the games through a position.
type PositionPage struct {
	// Games are the page's games, the newest archived first, with the
	// plies at which they stand at the position (Found.Plies); their
	// records are not read (Found.Record is "").
	Games []*Found
	// Total counts the games the search finds in all; with More, at least
	// that many (the count stops there).
	Total int
	More  bool
}

// SearchPosition is a page of the games through the position of f (see
// Filter.Position): limit games after the offset first ones, the newest
// archived first (by archive id). It reads the position index and the
// games' index rows only, never a record, so that a position in thousands
// of games is a page as quick as one in a few. The filter's other fields
// narrow the search as in Query; keep, when not nil, too (the web hides
// some games so). Duplicates are not searched.
func (s *Store) SearchPosition(ctx context.Context, lookup notation.Lookup, f Filter, keep func(*Found) bool, limit, offset int) (*PositionPage, error) {
	if f.Position == "" {
		return nil, fmt.Errorf("archive: a position search needs a position")
	}
	if limit < 1 || offset < 0 {
		return nil, fmt.Errorf("archive: a position search needs a limit above 0 and an offset from 0, not %d and %d", limit, offset)
	}
	if err := f.Check(lookup); err != nil {
		return nil, err
	}
	if err := s.Reindex(ctx, lookup); err != nil {
		return nil, err
	}
	g := f
	g.Position, g.Text, g.Name, g.Duplicates = "", nil, "", false
	where, args := g.where(s.pg)
	countTo := max(positionCountLimit, offset+limit)
	// The ids of the games through the position, newest first, below the
	// id before (0: from the newest), at most n of them after skip.
	ids := func(before int64, n, skip int) ([]int64, error) {
		q := `SELECT DISTINCT p.entry_id FROM archive_positions p JOIN archive a ON a.id = p.entry_id
JOIN archive_index i ON i.entry_id = a.id
WHERE p.pos_key = ?` + where
		qargs := append([]any{int64(f.posKey)}, args...)
		if before > 0 {
			q += ` AND p.entry_id < ?`
			qargs = append(qargs, before)
		}
		q += ` ORDER BY p.entry_id DESC LIMIT ? OFFSET ?`
		rows, err := s.db.QueryContext(ctx, q, append(qargs, n, skip)...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			out = append(out, id)
		}
		return out, rows.Err()
	}
	out := &PositionPage{Games: []*Found{}}
	var text []string
	for _, t := range f.Text {
		text = append(text, strings.ToLower(t))
	}
	name := nameKey(f.Name)
	textOK := matchText
	if f.Public {
		textOK = matchPublicText
	}
	if len(text) == 0 && name == "" && keep == nil {
		// The index says it all: the page, then the count.
		page, err := ids(0, limit, offset)
		if err != nil {
			return nil, fmt.Errorf("archive: search: %w", err)
		}
		if out.Games, err = s.foundByID(ctx, f.posKey, page); err != nil {
			return nil, fmt.Errorf("archive: search: %w", err)
		}
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT DISTINCT p.entry_id FROM archive_positions p
JOIN archive a ON a.id = p.entry_id JOIN archive_index i ON i.entry_id = a.id
WHERE p.pos_key = ?`+where+` LIMIT ?) c`, append(append([]any{int64(f.posKey)}, args...), countTo+1)...).Scan(&n); err != nil {
			return nil, fmt.Errorf("archive: search: %w", err)
		}
		out.Total, out.More = min(n, countTo), n > countTo
		return out, nil
	}
	// Words, a name or keep are compared here: the games through the
	// position are read by pages of their index rows, and counted until
	// countTo.
	before := int64(0)
	for {
		chunk, err := ids(before, queryPage, 0)
		if err != nil {
			return nil, fmt.Errorf("archive: search: %w", err)
		}
		found, err := s.foundByID(ctx, f.posKey, chunk)
		if err != nil {
			return nil, fmt.Errorf("archive: search: %w", err)
		}
		for _, fd := range found {
			if !textOK(fd, text) || name != "" && !namedSide(fd, name) || keep != nil && !keep(fd) {
				continue
			}
			if out.Total == countTo {
				out.More = true
				return out, nil
			}
			if out.Total >= offset && len(out.Games) < limit {
				out.Games = append(out.Games, fd)
			}
			out.Total++
		}
		if len(chunk) < queryPage {
			return out, nil
		}
		before = chunk[len(chunk)-1]
	}
}

// foundByID reads the archive entries ids (without their records) with
// their index rows, sides and the plies at which they stand at the
// position key, in the order of ids.
func (s *Store) foundByID(ctx context.Context, key uint64, ids []int64) ([]*Found, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	marks := strings.Repeat(",?", len(ids))[1:]
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	byID := make(map[int64]*Found, len(ids))
	rows, err := s.db.QueryContext(ctx, `SELECT a.id, COALESCE(a.game_id, 0), a.game, a.result, a.tags, a.hash, a.rated, a.created,
	i.event, i.date, i.round, a.canonical
FROM archive a JOIN archive_index i ON i.entry_id = a.id WHERE a.id IN (`+marks+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var fd Found
		var tags string
		var created int64
		if err := rows.Scan(&fd.ID, &fd.GameID, &fd.Game, &fd.Result, &tags, &fd.Hash, &fd.Rated, &created,
			&fd.Event, &fd.Date, &fd.Round, &fd.canonical); err != nil {
			return nil, err
		}
		fd.Created = fromUnix(created)
		if err := json.Unmarshal([]byte(tags), &fd.Tags); err != nil {
			return nil, fmt.Errorf("archive row %d tags: %w", fd.ID, err)
		}
		byID[fd.ID] = &fd
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := s.readSides(ctx, byID, `entry_id IN (`+marks+`)`, args...); err != nil {
		return nil, err
	}
	prows, err := s.db.QueryContext(ctx, `SELECT entry_id, ply FROM archive_positions
WHERE pos_key = ? AND entry_id IN (`+marks+`) ORDER BY entry_id, ply`, append([]any{int64(key)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer prows.Close()
	for prows.Next() {
		var id int64
		var ply int
		if err := prows.Scan(&id, &ply); err != nil {
			return nil, err
		}
		if fd := byID[id]; fd != nil {
			fd.Plies = append(fd.Plies, ply)
		}
	}
	if err := prows.Err(); err != nil {
		return nil, err
	}
	out := make([]*Found, 0, len(ids))
	for _, id := range ids {
		if fd := byID[id]; fd != nil {
			out = append(out, fd)
		}
	}
	return out, nil
}
