package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/mtibben/confusables"
	"regexp"
	"strconv"
	"strings"

	"pbem/engine"
	"pbem/notation"
)

// Side is one seat of an archived game.
type Side struct {
	// Name is the side's name, which is also its tag ("First", "R").
	Name string
	// Player is the value of the side's tag ("" when the record has none).
	Player string
	// Rank in the result: 1 is the best, equal ranks tie; 0 when the game
	// has no result (*).
	Rank int
}

// Found is an archived game a query found: the entry and what the index
// knows of it.
type Found struct {
	Entry
	// Event, Date and Round are the values of those tags ("" when absent).
	Event, Date, Round string
	// Sides in seat order; nil when the game is not in the catalog.
	Sides []Side

	// Plies are the plies after which the game stands at the filter's
	// Position (0: the start), for a query by position.
	Plies []int
	// Same are the other archived games with the same moves (the same
	// game from the same start, the same canonical plies), for a query of
	// Duplicates; any game's id, whatever the filter.
	Same []int64

	// canonical: an import stored the record as it checked it.
	canonical bool
}

// Filter selects archived games. The zero Filter selects every game.
type Filter struct {
	// Game is a game id (case-insensitive).
	Game string
	// Event is the Event tag, compared case-insensitively.
	Event string
	// Player is a case-insensitive substring of one side's tag.
	Player string
	// Since (YYYY.MM.DD) keeps the games dated that day or later. Unknown
	// parts of a Date count from their earliest day (2026.??.?? is
	// 2026.01.01); a game with an unknown year or no Date is left out.
	Since string
	// Text words must each be a case-insensitive substring of one of the
	// game's tag values (search). A word given twice counts once; more
	// than MaxSearchWords different words, or longer ones than
	// MaxSearchWordLen, are refused.
	Text []string

	// Public keeps the games anyone may see, as the web shows them:
	// imported games and the referee's games not created private; Text
	// then searches the tags as a stranger sees them (PublicTag), never
	// an address.
	Public bool
	// Name is the start of one side's public name (PublicName), compared
	// case-insensitively: "ali" finds Alice; never an address.
	Name string
	// Position keeps the games whose main line passes through the position
	// (a position text of Game, which it needs; see ReadPosition and
	// AfterPlies), by transposition too; Found.Plies says after which
	// plies.
	Position string
	// Options are the game's options for reading Position (rpp's text
	// names its own board and seats; the zero value suits every game).
	Options engine.Options
	// Duplicates keeps the games whose moves another archived game has
	// too (under other tags: a record archived twice); Found.Same names
	// the others. Games of fewer than MinDuplicatePlies plies are never
	// duplicates.
	Duplicates bool

	posKey uint64 // engine.PositionKey of Position, set by Check
}

var sinceRE = regexp.MustCompile(`^[0-9]{4}\.[0-9]{2}\.[0-9]{2}$`)

// Check validates the filter and spells its game id as the catalog does.
func (f *Filter) Check(lookup notation.Lookup) error {
	if f.Game != "" {
		c, err := lookup(f.Game)
		if err != nil {
			return fmt.Errorf("archive: %v", err)
		}
		f.Game = c.Rules().ID()
	}
	if f.Since != "" && !sinceRE.MatchString(f.Since) {
		return fmt.Errorf("archive: bad date %q; expected YYYY.MM.DD", f.Since)
	}
	words, err := searchWords(f.Text)
	if err != nil {
		return err
	}
	f.Text = words
	if f.Position != "" {
		if f.Game == "" {
			return fmt.Errorf("archive: a position search needs the game; expected a game id with the position")
		}
		text, err := ReadPosition(lookup, f.Game, f.Options, f.Position)
		if err != nil {
			return err
		}
		f.Position, f.posKey = text, engine.PositionKey(text)
	}
	return nil
}

// day is the earliest day a Date tag can mean, as YYYY.MM.DD, so that dates
// sort and compare as strings; "" when the year is unknown or the date is
// malformed.
func day(date string) string {
	parts := strings.Split(date, ".")
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) != 2 || len(parts[2]) != 2 {
		return ""
	}
	if _, err := strconv.Atoi(parts[0]); err != nil {
		return ""
	}
	for i := 1; i < 3; i++ {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			parts[i] = "01"
		}
	}
	return strings.Join(parts, ".")
}

// playerKey identifies a player across games: the address of "Name
// <addr>", or a bare address, lower-cased; otherwise the value lower-cased
// with its spaces collapsed. "" (and "?", PGN's unknown) is no one.
func playerKey(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.LastIndexByte(v, '<'); i >= 0 && strings.HasSuffix(v, ">") {
		if a := strings.TrimSpace(v[i+1 : len(v)-1]); a != "" {
			return strings.ToLower(a)
		}
	}
	v = strings.Join(strings.Fields(v), " ")
	if v == "?" || v == "-" {
		return ""
	}
	return strings.ToLower(v)
}

// identityKey identifies a player in ratings, crosstables and rating
// histories: playerKey, with a name (not an address) folded to its
// Unicode TR39 skeleton after NameForm, so that look-alike spellings
// ("аlice" with a Cyrillic а, "alice") are one player, as the web pages
// promise. Addresses are not folded: two mailboxes are two players.
func identityKey(v string) string {
	k := playerKey(v)
	if k == "" || strings.Contains(k, "@") {
		return k
	}
	return strings.ToLower(confusables.Skeleton(strings.ToLower(NameForm(k))))
}

// displayName is how tables name a player: the name of "Name <addr>", else
// the value as written.
func displayName(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.LastIndexByte(v, '<'); i > 0 && strings.HasSuffix(v, ">") {
		if n := strings.Trim(strings.TrimSpace(v[:i]), `"`); n != "" {
			return n
		}
	}
	if strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") {
		return v[1 : len(v)-1]
	}
	return strings.Join(strings.Fields(v), " ")
}

func tagValue(tags []Tag, name string) (string, bool) {
	for _, t := range tags {
		if t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// sidesOf finds the sides of an archived game from its tags and result:
// nil when the game is not in the catalog or its tags name no variant.
func sidesOf(game, result string, tags []Tag, lookup notation.Lookup) []Side {
	codec, err := lookup(game)
	if err != nil {
		return nil
	}
	var o engine.Options
	if v, ok := tagValue(tags, "Players"); ok {
		if o.Players, err = strconv.Atoi(v); err != nil {
			return nil
		}
	}
	o.Board, _ = tagValue(tags, "Board")
	names, err := codec.Rules().Sides(o)
	if err != nil {
		return nil
	}
	ranks, err := notation.ParseResult(codec, names, result)
	if err != nil {
		ranks = nil
	}
	sides := make([]Side, len(names))
	for i, n := range names {
		sides[i].Name = n
		sides[i].Player, _ = tagValue(tags, n)
		if ranks != nil {
			sides[i].Rank = ranks[i]
		}
	}
	return sides
}

// putIndex indexes the archive row id; positions are its positions (nil:
// read them from record).
func putIndex(ctx context.Context, st *indexStmts, id int64, game, result string, tags []Tag, record string, positions []positionRow, lookup notation.Lookup) (line uint64, hasLine bool, err error) {
	event, _ := tagValue(tags, "Event")
	date, _ := tagValue(tags, "Date")
	round, _ := tagValue(tags, "Round")
	if _, err := st.index.ExecContext(ctx, id, event, strings.ToLower(event), date, day(date), round); err != nil {
		return 0, false, err
	}
	sides := sidesOf(game, result, tags, lookup)
	for i, sd := range sides {
		if _, err := st.sides.ExecContext(ctx, id, i, sd.Name, sd.Player, strings.ToLower(sd.Player), sd.Rank); err != nil {
			return 0, false, err
		}
	}
	if _, err := st.search.ExecContext(ctx, id, searchTags(tags), searchPlayers(sides)); err != nil {
		return 0, false, err
	}
	if positions == nil {
		positions = recordPositions(record, lookup)
	}
	if err := putPositions(ctx, st, id, positions); err != nil {
		return 0, false, err
	}
	line, hasLine = lineKey(game, positions)
	if err := putLine(ctx, st, id, line, hasLine); err != nil {
		return 0, false, err
	}
	_, err = st.done.ExecContext(ctx, id)
	return line, hasLine, err
}

// indexStmts are the statements that index archive rows, prepared in a
// transaction.
type indexStmts struct {
	index, sides, search, done *sql.Stmt
	position, dropPositions    *sql.Stmt
	line, dropLine, earlier    *sql.Stmt
}

func (s *Store) prepareIndex(ctx context.Context, tx *sql.Tx) (*indexStmts, error) {
	var st indexStmts
	var err error
	if st.index, err = tx.PrepareContext(ctx, `INSERT INTO archive_index (entry_id, event, event_key, date, day, round) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (entry_id) DO UPDATE SET event = excluded.event, event_key = excluded.event_key, date = excluded.date,
	day = excluded.day, round = excluded.round`); err != nil {
		return nil, err
	}
	if st.sides, err = tx.PrepareContext(ctx, `INSERT INTO archive_sides (entry_id, seat, side, player, player_key, rank) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (entry_id, seat) DO UPDATE SET side = excluded.side, player = excluded.player, player_key = excluded.player_key,
	rank = excluded.rank`); err != nil {
		return nil, err
	}
	// An fts5 table takes no ON CONFLICT clause; it replaces a row.
	search := `INSERT OR REPLACE INTO archive_search (rowid, tags, players) VALUES (?, ?, ?)`
	if s.pg {
		search = `INSERT INTO archive_search (rowid, tags, players) VALUES (?, ?, ?)
ON CONFLICT (rowid) DO UPDATE SET tags = excluded.tags, players = excluded.players`
	}
	if st.search, err = tx.PrepareContext(ctx, search); err != nil {
		return nil, err
	}
	if st.done, err = tx.PrepareContext(ctx, `DELETE FROM archive_unindexed WHERE entry_id = ?`); err != nil {
		return nil, err
	}
	if st.position, err = tx.PrepareContext(ctx, `INSERT INTO archive_positions (pos_key, entry_id, ply, next) VALUES (?, ?, ?, ?)`); err != nil {
		return nil, err
	}
	if st.dropPositions, err = tx.PrepareContext(ctx, `DELETE FROM archive_positions WHERE entry_id = ?`); err != nil {
		return nil, err
	}
	if st.line, err = tx.PrepareContext(ctx, `INSERT INTO archive_lines (entry_id, line_key) VALUES (?, ?)
ON CONFLICT (entry_id) DO UPDATE SET line_key = excluded.line_key`); err != nil {
		return nil, err
	}
	if st.dropLine, err = tx.PrepareContext(ctx, `DELETE FROM archive_lines WHERE entry_id = ?`); err != nil {
		return nil, err
	}
	if st.earlier, err = tx.PrepareContext(ctx, `SELECT MIN(entry_id) FROM archive_lines WHERE line_key = ? AND entry_id < ?`); err != nil {
		return nil, err
	}
	return &st, nil
}

func (st *indexStmts) Close() {
	st.index.Close()
	st.sides.Close()
	st.search.Close()
	st.done.Close()
	st.position.Close()
	st.dropPositions.Close()
	st.line.Close()
	st.dropLine.Close()
	st.earlier.Close()
}

// Reindex indexes the archived games not indexed yet: those the referee
// archived since the last query (its commits cannot index them, for the
// index needs the game catalog). Queries call it first.
func (s *Store) Reindex(ctx context.Context, lookup notation.Lookup) error {
	for {
		n, err := s.reindex(ctx, lookup, 1000)
		if err != nil {
			return fmt.Errorf("archive: index: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

func (s *Store) reindex(ctx context.Context, lookup notation.Lookup, limit int) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM archive_unindexed`).Scan(&n); err != nil || n == 0 {
		return 0, err
	}
	tx, err := s.beginTx(ctx, txUnfenced) // derived rows: a standby's queries index too
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT u.entry_id, a.id IS NOT NULL, COALESCE(a.game, ''), COALESCE(a.result, ''), COALESCE(a.tags, '[]'),
	COALESCE(a.record, '')
FROM archive_unindexed u LEFT JOIN archive a ON a.id = u.entry_id ORDER BY u.entry_id LIMIT ?`, limit)
	if err != nil {
		return 0, err
	}
	type row struct {
		id           int64
		exists       bool
		game, result string
		tags         []Tag
		record       string
	}
	var todo []row
	for rows.Next() {
		var r row
		var tags string
		if err := rows.Scan(&r.id, &r.exists, &r.game, &r.result, &tags, &r.record); err != nil {
			rows.Close()
			return 0, err
		}
		if err := json.Unmarshal([]byte(tags), &r.tags); err != nil {
			rows.Close()
			return 0, fmt.Errorf("archive row %d tags: %w", r.id, err)
		}
		todo = append(todo, r)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	st, err := s.prepareIndex(ctx, tx)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	for _, r := range todo {
		if !r.exists {
			if _, err := st.done.ExecContext(ctx, r.id); err != nil {
				return 0, err
			}
			continue
		}
		if _, _, err := putIndex(ctx, st, r.id, r.game, r.result, r.tags, r.record, nil, lookup); err != nil {
			return 0, err
		}
	}
	return len(todo), tx.Commit()
}

// queryPage is how many games a query reads at a time: a query holds no
// transaction open between pages, so that writers are not kept waiting.
const queryPage = 500

// Query calls each with every archived game the filter selects, by archive
// id (the order games were archived in). It indexes new games first. An
// error from each stops the query and is returned.
func (s *Store) Query(ctx context.Context, lookup notation.Lookup, f Filter, each func(*Found) error) error {
	if err := f.Check(lookup); err != nil {
		return err
	}
	if err := s.Reindex(ctx, lookup); err != nil {
		return err
	}
	where, args := f.where(s.pg)
	var text []string
	for _, t := range f.Text {
		text = append(text, strings.ToLower(t))
	}
	match := f.match()
	textOK := matchText
	if f.Public {
		textOK = matchPublicText
	}
	name := nameKey(f.Name)
	after := int64(0)
	for {
		page, err := s.page(ctx, match, where, append([]any{after}, args...))
		if err != nil {
			return fmt.Errorf("archive: query: %w", err)
		}
		if f.Position != "" {
			if err := s.positionPlies(ctx, f.posKey, page); err != nil {
				return fmt.Errorf("archive: query: %w", err)
			}
		}
		if f.Duplicates {
			if err := s.sameLines(ctx, page); err != nil {
				return fmt.Errorf("archive: query: %w", err)
			}
		}
		for _, fd := range page {
			if !textOK(fd, text) || name != "" && !namedSide(fd, name) {
				continue
			}
			if err := each(fd); err != nil {
				return err
			}
		}
		if len(page) < queryPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// where is the SQL condition of a filter (all but Text) and its arguments,
// on PostgreSQL (pg) or SQLite.
func (f *Filter) where(pg bool) (string, []any) {
	var conds []string
	var args []any
	if f.Game != "" {
		conds = append(conds, `a.game = ?`)
		args = append(args, f.Game)
	}
	if f.Event != "" {
		conds = append(conds, `i.event_key = ?`)
		args = append(args, strings.ToLower(f.Event))
	}
	if f.Player != "" {
		has := `instr(s.player_key, ?) > 0`
		if pg {
			has = `strpos(s.player_key, ?) > 0`
		}
		conds = append(conds, `EXISTS (SELECT 1 FROM archive_sides s WHERE s.entry_id = a.id AND `+has+`)`)
		args = append(args, strings.ToLower(f.Player))
	}
	if f.Since != "" {
		conds = append(conds, `i.day != '' AND i.day >= ?`)
		args = append(args, f.Since)
	}
	if f.Position != "" {
		conds = append(conds, `a.id IN (SELECT p.entry_id FROM archive_positions p WHERE p.pos_key = ?)`)
		args = append(args, int64(f.posKey))
	}
	if f.Duplicates {
		conds = append(conds, duplicateWhere)
	}
	if f.Public {
		conds = append(conds, publicEntry(pg))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

// match is the full-text query of the filter's words and player, which
// selects a superset of the games they select (none when they make none):
// where and matchText then compare exactly.
func (f *Filter) match() []matchTerm {
	var terms []matchTerm
	for _, w := range f.Text {
		if q, ok := matchQuery("tags", strings.ToLower(w)); ok {
			terms = append(terms, q)
		}
	}
	if q, ok := matchQuery("players", strings.ToLower(f.Player)); ok {
		terms = append(terms, q)
	}
	if q, ok := nameQuery(f.Name); ok {
		terms = append(terms, q)
	}
	return terms
}

func matchText(fd *Found, words []string) bool {
	for _, w := range words {
		found := false
		for _, t := range fd.Tags {
			if strings.Contains(strings.ToLower(t.Value), w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// page reads up to queryPage games with an id above args[0]; with a
// full-text query, the games it finds (by the index, in id order).
func (s *Store) page(ctx context.Context, match []matchTerm, where string, args []any) ([]*Found, error) {
	const columns = `SELECT a.id, COALESCE(a.game_id, 0), a.game, a.result, a.tags, a.record, a.hash, a.rated, a.created,
	i.event, i.date, i.round, a.canonical`
	q := columns + `
FROM archive a JOIN archive_index i ON i.entry_id = a.id
WHERE a.id > ?` + where + ` ORDER BY a.id LIMIT ` + strconv.Itoa(queryPage)
	if len(match) > 0 {
		cond, margs := s.matchSQL(match)
		q = columns + `
FROM archive_search f JOIN archive a ON a.id = f.rowid JOIN archive_index i ON i.entry_id = a.id
WHERE ` + cond + ` AND f.rowid > ?` + where + ` ORDER BY f.rowid LIMIT ` + strconv.Itoa(queryPage)
		args = append(margs, args...)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []*Found
	byID := map[int64]*Found{}
	for rows.Next() {
		var fd Found
		var tags string
		var created int64
		if err := rows.Scan(&fd.ID, &fd.GameID, &fd.Game, &fd.Result, &tags, &fd.Record, &fd.Hash, &fd.Rated, &created,
			&fd.Event, &fd.Date, &fd.Round, &fd.canonical); err != nil {
			return nil, err
		}
		fd.Created = fromUnix(created)
		if err := json.Unmarshal([]byte(tags), &fd.Tags); err != nil {
			return nil, fmt.Errorf("archive row %d tags: %w", fd.ID, err)
		}
		page = append(page, &fd)
		byID[fd.ID] = &fd
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(page) == 0 {
		return nil, nil
	}
	if err := s.readSides(ctx, byID, `entry_id BETWEEN ? AND ?`, page[0].ID, page[len(page)-1].ID); err != nil {
		return nil, err
	}
	return page, nil
}

// readSides appends to each game of byID its sides, in seat order, read
// from the archive's side rows that cond (on entry_id, with args) selects.
func (s *Store) readSides(ctx context.Context, byID map[int64]*Found, cond string, args ...any) error {
	rows, err := s.db.QueryContext(ctx, `SELECT entry_id, side, player, rank FROM archive_sides
WHERE `+cond+` ORDER BY entry_id, seat`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sd Side
		if err := rows.Scan(&id, &sd.Name, &sd.Player, &sd.Rank); err != nil {
			return err
		}
		if fd := byID[id]; fd != nil {
			fd.Sides = append(fd.Sides, sd)
		}
	}
	return rows.Err()
}
