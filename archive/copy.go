package archive

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// copyTable is a table of the store as CopyStore copies it and
// CompareStores compares it.
type copyTable struct {
	name string
	// key orders the rows for the comparison: the primary key (rowid for
	// archive_search, whose key on SQLite is its fts5 rowid).
	key []string
	// identity: the id column is an identity column on PostgreSQL (an
	// AUTOINCREMENT key on SQLite), whose sequence must be set past the
	// copied ids.
	identity bool
}

// copyTables are every table of the store, parents before children (the
// foreign keys are checked as the rows arrive). A table a migration adds
// goes here (TestCopyTablesCoverSchema fails naming it until then), or
// among notCopied.
var copyTables = []copyTable{
	{"game_ids", []string{"id"}, true},
	{"games", []string{"id"}, false},
	{"seats", []string{"game_id", "seat"}, false},
	// Read in SQLite's rowid order, so PostgreSQL's rowid column numbers
	// the observers of a game in the order they came.
	{"observers", []string{"game_id", "address"}, false},
	{"notes", []string{"id"}, true},
	{"analyses", []string{"id"}, true},
	{"players", []string{"address"}, false},
	{"senders", []string{"address"}, false},
	{"unsubscriptions", []string{"address", "kind"}, false},
	{"player_addresses", []string{"address"}, false},
	{"address_pending", []string{"code"}, false},
	{"processed", []string{"message_id"}, false},
	{"outbox", []string{"id"}, true},
	{"archive", []string{"id"}, true},
	{"archive_index", []string{"entry_id"}, false},
	{"archive_sides", []string{"entry_id", "seat"}, false},
	{"archive_unindexed", []string{"entry_id"}, false},
	{"archive_search", []string{"rowid"}, false},
	{"archive_positions", []string{"pos_key", "entry_id", "ply"}, false},
	{"archive_lines", []string{"entry_id"}, false},
	{"tournament_ids", []string{"id"}, true},
	{"tournaments", []string{"id"}, false},
	{"tournament_players", []string{"tournament_id", "address"}, false},
	{"tournament_games", []string{"tournament_id", "seq"}, false},
	{"tournament_byes", []string{"tournament_id", "round", "address"}, false},
	{"tournament_rounds", []string{"tournament_id", "round"}, false},
	{"audit", []string{"id"}, true},
	{"blocked", []string{"pattern"}, false},
	{"admin_pending", []string{"token"}, false},
	// The referee's keys: a copy marks and recognises its Message-IDs
	// as the source did.
	{"secrets", []string{"name"}, false},
	// The counter row the migration wrote is replaced by the source's.
	{"stamp", []string{"id"}, false},
}

// notCopied are the tables CopyStore leaves: what each store keeps of
// itself.
var notCopied = map[string]string{
	"schema_migrations": "the target's own migrations wrote it",
	"sqlite_sequence":   "SQLite's counters of AUTOINCREMENT ids: they set the identity sequences",
	"leader":            "the leadership lease: the target's instances take their own",
}

// notCopiedTable reports whether a table is one CopyStore leaves:
// notCopied, and the shadow tables of SQLite's fts5 index archive_search,
// which PostgreSQL has no use for (archive_search itself is copied).
func notCopiedTable(name string) bool {
	_, ok := notCopied[name]
	return ok || strings.HasPrefix(name, "archive_search_")
}

// TableRows is how many rows of a table were copied or compared.
type TableRows struct {
	Name string
	Rows int64
}

// CopyReport is what CopyStore copied.
type CopyReport struct {
	Tables  []TableRows // in the order copied
	Rows    int64       // all tables together
	Elapsed time.Duration
}

// ErrTargetNotEmpty is returned by CopyStore when the target holds rows.
var ErrTargetNotEmpty = errors.New("archive: the target store is not empty")

// CopyStore copies every row of every table of from, a SQLite store, into
// to, a PostgreSQL store at the same schema version that holds no rows (a
// fresh one: ErrTargetNotEmpty otherwise), keeping every id, and then sets
// the target's identity sequences past the copied ids (and past the ids
// SQLite handed out and never stored), so that the ids it hands out next
// are new ones, as SQLite's would have been.
//
// It is one transaction on the target, under the writer lock: a referee
// on the target waits for it, and sees all of the copy or none. The rows
// stream from a read transaction on the source through PostgreSQL's COPY,
// table by table; nothing is held in memory but a row. The target's
// triggers (the stamp's counter, the archive's index queue) are off while
// the rows arrive, which they would otherwise count again: the source's
// counter and queue are copied as they are. The foreign keys are checked.
//
// The source must not change while it is copied: its reader sees one
// state of it, but a referee writing meanwhile would write what the copy
// does not hold. The caller stops the referee (pbem archive migrate takes
// the data directory's lock).
func CopyStore(ctx context.Context, from, to *Store) (CopyReport, error) {
	began := time.Now()
	if from.pg || !to.pg {
		return CopyReport{}, fmt.Errorf("archive: copy: from %s (%s) to %s (%s); expected from SQLite to PostgreSQL",
			from.path, from.Backend(), to.path, to.Backend())
	}
	fv, err := from.Version(ctx)
	if err != nil {
		return CopyReport{}, err
	}
	tv, err := to.Version(ctx)
	if err != nil {
		return CopyReport{}, err
	}
	if fv != tv {
		return CopyReport{}, fmt.Errorf("archive: copy: %s has schema version %d, %s %d; expected the same", from.path, fv, to.path, tv)
	}
	if err := knownTables(ctx, from); err != nil {
		return CopyReport{}, err
	}
	src, err := from.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return CopyReport{}, fmt.Errorf("archive: copy: read %s: %w", from.path, err)
	}
	defer src.Rollback()

	conn, err := to.db.Conn(ctx)
	if err != nil {
		return CopyReport{}, fmt.Errorf("archive: copy: %s: %w", to.path, err)
	}
	defer conn.Close()
	var rep CopyReport
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(*pgConn)
		if !ok {
			return fmt.Errorf("archive: copy: the target's connection is a %T", dc)
		}
		rep, err = copyInto(ctx, src, pc.Conn.Conn(), from.path)
		return err
	})
	if err != nil {
		return CopyReport{}, err
	}
	rep.Elapsed = time.Since(began)
	return rep, nil
}

// copyInto copies the tables read by src into the PostgreSQL connection
// dst, in one transaction.
func copyInto(ctx context.Context, src *sql.Tx, dst *pgx.Conn, fromPath string) (CopyReport, error) {
	var rep CopyReport
	tx, err := dst.Begin(ctx)
	if err != nil {
		return rep, fmt.Errorf("archive: copy: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(writerLock)); err != nil {
		return rep, fmt.Errorf("archive: copy: waiting for the writer lock: %w", err)
	}
	// Every table must be there and empty (but for the stamp's one row)
	// before anything is written.
	cols := make([][]pgColumn, len(copyTables))
	for i, t := range copyTables {
		if cols[i], err = pgColumns(ctx, tx, t.name); err != nil {
			return rep, err
		}
		if t.name == "stamp" {
			continue
		}
		var held bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+t.name+`)`).Scan(&held); err != nil {
			return rep, fmt.Errorf("archive: copy: %s: %w", t.name, err)
		}
		if held {
			return rep, fmt.Errorf("%w: its table %s holds rows", ErrTargetNotEmpty, t.name)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM stamp`); err != nil {
		return rep, fmt.Errorf("archive: copy: stamp: %w", err)
	}
	for i, t := range copyTables {
		if _, err := tx.Exec(ctx, `ALTER TABLE `+t.name+` DISABLE TRIGGER USER`); err != nil {
			return rep, fmt.Errorf("archive: copy: %s: turning its triggers off: %w", t.name, err)
		}
		n, err := copyTableRows(ctx, src, tx, t, cols[i])
		if err != nil {
			return rep, err
		}
		if _, err := tx.Exec(ctx, `ALTER TABLE `+t.name+` ENABLE TRIGGER USER`); err != nil {
			return rep, fmt.Errorf("archive: copy: %s: turning its triggers on: %w", t.name, err)
		}
		if t.identity {
			if err := setIdentity(ctx, src, tx, t.name); err != nil {
				return rep, err
			}
		}
		rep.Tables = append(rep.Tables, TableRows{t.name, n})
		rep.Rows += n
	}
	if err := tx.Commit(ctx); err != nil {
		return rep, fmt.Errorf("archive: copy: commit: %w", err)
	}
	return rep, nil
}

// pgColumn is a column of a PostgreSQL table that rows are written to.
type pgColumn struct {
	name, typ string // typ: information_schema's data_type
}

// pgColumns are the columns of a table of the target that a copy writes:
// all but those PostgreSQL always generates (the rowid of observers and
// tournament_byes, which numbers rows in the order they arrive).
func pgColumns(ctx context.Context, tx pgx.Tx, table string) ([]pgColumn, error) {
	rows, err := tx.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'
	AND (is_identity = 'NO' OR identity_generation <> 'ALWAYS')
ORDER BY ordinal_position`, table)
	if err != nil {
		return nil, fmt.Errorf("archive: copy: columns of %s: %w", table, err)
	}
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pgColumn, error) {
		var c pgColumn
		err := r.Scan(&c.name, &c.typ)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("archive: copy: columns of %s: %w", table, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("archive: copy: the target has no table %s; expected a store migrated by this pbem", table)
	}
	return cols, nil
}

// sqliteColumns are the declared columns of a SQLite table.
func sqliteColumns(ctx context.Context, q querier, table string) ([]string, error) {
	return columnNames(ctx, q, table, `SELECT name FROM pragma_table_info(?)`)
}

// columnNames runs query, which lists table's columns by name.
func columnNames(ctx context.Context, q querier, table, query string) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, table)
	if err != nil {
		return nil, fmt.Errorf("archive: columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("archive: columns of %s: %w", table, err)
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// knownTables checks that every table of the SQLite store s is copied or
// known not to need it: a table this code does not know would be left
// behind.
func knownTables(ctx context.Context, s *Store) error {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return fmt.Errorf("archive: copy: tables of %s: %w", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("archive: copy: tables of %s: %w", s.path, err)
		}
		if !notCopiedTable(name) && !slices.ContainsFunc(copyTables, func(t copyTable) bool { return t.name == name }) {
			return fmt.Errorf("archive: copy: %s has a table %s this pbem does not know how to copy", s.path, name)
		}
	}
	return rows.Err()
}

// copyTableRows streams the rows of one table from the source into the
// target by COPY, in the source's rowid order, and returns how many.
func copyTableRows(ctx context.Context, src *sql.Tx, dst pgx.Tx, t copyTable, cols []pgColumn) (int64, error) {
	have, err := sqliteColumns(ctx, src, t.name)
	if err != nil {
		return 0, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
		if c.name != "rowid" && !slices.Contains(have, c.name) {
			return 0, fmt.Errorf("archive: copy: the source's table %s has no column %s; expected the same schema on both", t.name, c.name)
		}
	}
	for _, c := range have {
		if !slices.Contains(names, c) {
			return 0, fmt.Errorf("archive: copy: the target's table %s has no column %s; expected the same schema on both", t.name, c)
		}
	}
	rows, err := src.QueryContext(ctx, `SELECT `+strings.Join(names, ", ")+` FROM `+t.name+` ORDER BY rowid`)
	if err != nil {
		return 0, fmt.Errorf("archive: copy: read %s: %w", t.name, err)
	}
	defer rows.Close()
	in := &rowSource{rows: rows, cols: cols, vals: make([]any, len(cols)), ptrs: make([]any, len(cols))}
	for i := range in.vals {
		in.ptrs[i] = &in.vals[i]
	}
	n, err := dst.CopyFrom(ctx, pgx.Identifier{t.name}, names, in)
	if err == nil {
		err = in.err
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("archive: copy: %s (after %d rows): %w", t.name, in.n, err)
	}
	return n, nil
}

// rowSource hands COPY the rows of a SQLite query, one at a time, each
// value in the type of its column on PostgreSQL.
type rowSource struct {
	rows *sql.Rows
	cols []pgColumn
	vals []any
	ptrs []any
	n    int64
	err  error
}

func (r *rowSource) Next() bool {
	if r.err != nil || !r.rows.Next() {
		return false
	}
	if r.err = r.rows.Scan(r.ptrs...); r.err != nil {
		return false
	}
	for i, v := range r.vals {
		switch r.cols[i].typ {
		case "bytea":
			if s, ok := v.(string); ok {
				r.vals[i] = []byte(s)
			}
		case "text":
			if b, ok := v.([]byte); ok {
				r.vals[i] = string(b)
			}
		}
	}
	r.n++
	return true
}

func (r *rowSource) Values() ([]any, error) { return r.vals, nil }

func (r *rowSource) Err() error { return r.err }

// setIdentity sets the identity sequence of a table's id past the largest
// id SQLite handed out: the largest copied, or a larger one that its
// counter (sqlite_sequence) kept of a row since deleted or never stored.
func setIdentity(ctx context.Context, src *sql.Tx, dst pgx.Tx, table string) error {
	var last int64
	err := src.QueryRowContext(ctx, `SELECT MAX(COALESCE((SELECT MAX(id) FROM `+table+`), 0),
	COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0))`, table).Scan(&last)
	if err != nil {
		return fmt.Errorf("archive: copy: the last id of %s: %w", table, err)
	}
	// setval(seq, n, true): the next id is n+1; an empty table starts at 1.
	next, called := last, true
	if last < 1 {
		next, called = 1, false
	}
	if _, err := dst.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, 'id'), $2, $3)`, table, next, called); err != nil {
		return fmt.Errorf("archive: copy: the identity sequence of %s: %w", table, err)
	}
	return nil
}

// Comparison is what CompareStores found.
type Comparison struct {
	// Tables are the rows of each table in the first store and the second.
	Tables []TableComparison
	// Games is how many games were read back and compared.
	Games int
	// FirstGame is the first game (by id) that differs; 0 for none.
	FirstGame int64
	// Differences say what differs, the first maxDifferences of them.
	Differences []string
}

// TableComparison is one table in both stores.
type TableComparison struct {
	Name string
	A, B int64 // rows
	// Differs names the first row that differs ("" for none).
	Differs string
}

// maxDifferences is how many differences a Comparison lists.
const maxDifferences = 20

// Equal reports whether the stores held the same.
func (c *Comparison) Equal() bool { return len(c.Differences) == 0 }

func (c *Comparison) differ(format string, args ...any) {
	if len(c.Differences) < maxDifferences {
		c.Differences = append(c.Differences, fmt.Sprintf(format, args...))
	}
}

// CompareStores compares two stores (a SQLite one and its copy, or any
// two): every table row by row (in the order of its key, the values
// compared as the backends' common types: integers, text and bytes), and
// then every game of a as the referee reads it (Game: status, record,
// seats, observers, offers, clocks; Player for each seat) against the
// same game in b. The error is for a store that could not be read; what
// differs is in the Comparison.
func CompareStores(ctx context.Context, a, b *Store) (*Comparison, error) {
	c := &Comparison{}
	for _, t := range copyTables {
		tc, err := compareTable(ctx, a, b, t)
		if err != nil {
			return nil, err
		}
		c.Tables = append(c.Tables, tc)
		if tc.A != tc.B {
			c.differ("table %s: %d rows in %s, %d in %s", t.name, tc.A, a.path, tc.B, b.path)
		} else if tc.Differs != "" {
			c.differ("table %s: %s", t.name, tc.Differs)
		}
	}
	if err := compareGames(ctx, a, b, c); err != nil {
		return nil, err
	}
	return c, nil
}

// columnsOf are a table's columns in a store that a copy carries over
// (PostgreSQL's generated rowid is not one).
func columnsOf(ctx context.Context, s *Store, table string) ([]string, error) {
	if !s.pg {
		return sqliteColumns(ctx, s.db, table)
	}
	return columnNames(ctx, s.db, table, `SELECT column_name FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'
	AND (is_identity = 'NO' OR identity_generation <> 'ALWAYS')
ORDER BY ordinal_position`)
}

// compareTable reads a table of both stores side by side, in key order,
// and names the first row that differs.
func compareTable(ctx context.Context, a, b *Store, t copyTable) (TableComparison, error) {
	tc := TableComparison{Name: t.name}
	ca, err := columnsOf(ctx, a, t.name)
	if err != nil {
		return tc, err
	}
	cb, err := columnsOf(ctx, b, t.name)
	if err != nil {
		return tc, err
	}
	// The key first, then the other columns both have; a column one of
	// them lacks makes the table differ.
	cols := slices.Clone(t.key)
	for _, c := range slices.Concat(ca, cb) {
		if slices.Contains(cols, c) {
			continue
		}
		if !slices.Contains(ca, c) || !slices.Contains(cb, c) {
			tc.Differs = "column " + c + " is not in both"
			continue
		}
		cols = append(cols, c)
	}
	query := `SELECT ` + strings.Join(cols, ", ") + ` FROM ` + t.name + ` ORDER BY ` + strings.Join(t.key, ", ")
	ra, err := a.db.QueryContext(ctx, query)
	if err != nil {
		return tc, fmt.Errorf("archive: compare: %s of %s: %w", t.name, a.path, err)
	}
	defer ra.Close()
	rb, err := b.db.QueryContext(ctx, query)
	if err != nil {
		return tc, fmt.Errorf("archive: compare: %s of %s: %w", t.name, b.path, err)
	}
	defer rb.Close()
	va, vb := make([]any, len(cols)), make([]any, len(cols))
	pa, pb := make([]any, len(cols)), make([]any, len(cols))
	for i := range cols {
		pa[i], pb[i] = &va[i], &vb[i]
	}
	moreA, moreB := true, true
	for moreA || moreB {
		if moreA = moreA && ra.Next(); moreA {
			if err := ra.Scan(pa...); err != nil {
				return tc, fmt.Errorf("archive: compare: %s of %s: %w", t.name, a.path, err)
			}
			tc.A++
		}
		if moreB = moreB && rb.Next(); moreB {
			if err := rb.Scan(pb...); err != nil {
				return tc, fmt.Errorf("archive: compare: %s of %s: %w", t.name, b.path, err)
			}
			tc.B++
		}
		if tc.Differs != "" || !moreA || !moreB {
			continue
		}
		for i := range cols {
			if !sameValue(va[i], vb[i]) {
				tc.Differs = "the row " + keyText(t.key, va) + " differs in " + cols[i]
				break
			}
		}
	}
	if err := ra.Err(); err != nil {
		return tc, fmt.Errorf("archive: compare: %s of %s: %w", t.name, a.path, err)
	}
	if err := rb.Err(); err != nil {
		return tc, fmt.Errorf("archive: compare: %s of %s: %w", t.name, b.path, err)
	}
	return tc, nil
}

// keyText shows a row's key: "id=3", "game_id=3 seat=1".
func keyText(key []string, vals []any) string {
	parts := make([]string, len(key))
	for i, k := range key {
		v := vals[i]
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		parts[i] = fmt.Sprintf("%s=%v", k, v)
	}
	return strings.Join(parts, " ")
}

// sameValue compares two values as read from either backend: text and
// bytes alike by their bytes, integers by value.
func sameValue(x, y any) bool {
	bx, xs := asBytes(x)
	by, ys := asBytes(y)
	if xs || ys {
		return xs && ys && bytes.Equal(bx, by)
	}
	return reflect.DeepEqual(x, y)
}

func asBytes(v any) ([]byte, bool) {
	switch v := v.(type) {
	case string:
		return []byte(v), true
	case []byte:
		return v, true
	}
	return nil, false
}

// compareGames reads every game of a and the same game of b through the
// store's API, with the players of its seats, and notes the first
// difference of each game that differs.
func compareGames(ctx context.Context, a, b *Store, c *Comparison) error {
	var last int64
	for {
		ids, err := gameIDs(ctx, a, last, 500)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			c.Games++
			d, err := gameDiff(ctx, a, b, id)
			if err != nil {
				return err
			}
			if d != "" {
				if c.FirstGame == 0 {
					c.FirstGame = id
				}
				c.differ("game %d: %s", id, d)
			}
		}
		last = ids[len(ids)-1]
	}
}

// gameIDs are the next ids of the games of s after the id after, at most
// limit of them.
func gameIDs(ctx context.Context, s *Store, after int64, limit int) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM games WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("archive: compare: games of %s: %w", s.path, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("archive: compare: games of %s: %w", s.path, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// gameDiff says how game id of b differs from a's, "" when it does not.
func gameDiff(ctx context.Context, a, b *Store, id int64) (string, error) {
	ga, err := a.Game(ctx, id)
	if err != nil {
		return "", err
	}
	gb, err := b.Game(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return "missing in " + b.path, nil
	}
	if err != nil {
		return "", err
	}
	for _, f := range []struct {
		name string
		x, y any
	}{
		{"game", ga.Game, gb.Game},
		{"status", ga.Status, gb.Status},
		{"record", ga.Record, gb.Record},
		{"seats", ga.Seats, gb.Seats},
		{"observers", ga.Observers, gb.Observers},
		{"options", ga.Options, gb.Options},
		{"offers", ga.Offers, gb.Offers},
		{"conditions", ga.Conditions, gb.Conditions},
		{"clock", []any{ga.TurnStart, ga.Deadline, ga.Due, ga.Reminded}, []any{gb.TurnStart, gb.Deadline, gb.Due, gb.Reminded}},
		{"thread", ga.Thread, gb.Thread},
		{"times", []time.Time{ga.Created, ga.Updated}, []time.Time{gb.Created, gb.Updated}},
		{"version", ga.Version, gb.Version},
	} {
		if !reflect.DeepEqual(f.x, f.y) {
			if f.name == "record" {
				return "differs in record: " + firstDifference(ga.Record, gb.Record), nil
			}
			return "differs in " + f.name, nil
		}
	}
	for _, st := range ga.Seats {
		pa, err := a.Player(ctx, st.Player.Addr)
		if err != nil {
			return "", err
		}
		pb, err := b.Player(ctx, st.Player.Addr)
		if err != nil {
			return "", err
		}
		if !reflect.DeepEqual(pa, pb) {
			return "differs in player " + st.Player.Addr, nil
		}
	}
	return "", nil
}

// firstDifference shows where two texts part: the word of each there.
func firstDifference(x, y string) string {
	wx, wy := strings.Fields(x), strings.Fields(y)
	for i := 0; i < len(wx) && i < len(wy); i++ {
		if wx[i] != wy[i] {
			return fmt.Sprintf("word %d is %q, then %q", i+1, wx[i], wy[i])
		}
	}
	return fmt.Sprintf("%d words, then %d", len(wx), len(wy))
}

// PostgresState is what a PostgreSQL database holds before a copy into it.
type PostgresState struct {
	// Tables is how many tables its schema (the first of the search path)
	// has: 0 for an empty database.
	Tables int
	// Version is the pbem schema version of those tables (0: none, or
	// tables that are not a pbem store's).
	Version int
}

// InspectPostgres connects to the PostgreSQL database at url and says
// what it holds, creating and migrating nothing.
func InspectPostgres(ctx context.Context, url string) (PostgresState, error) {
	var st PostgresState
	s, err := connectPostgres(ctx, url, nil)
	if err != nil {
		return st, err
	}
	defer s.Close()
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&st.Tables)
	if err != nil {
		return st, fmt.Errorf("archive: %s: tables: %w", s.path, err)
	}
	var has bool
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.tables
WHERE table_schema = current_schema() AND table_name = 'schema_migrations')`).Scan(&has)
	if err != nil {
		return st, fmt.Errorf("archive: %s: tables: %w", s.path, err)
	}
	if has {
		if st.Version, err = s.Version(ctx); err != nil {
			return st, err
		}
	}
	return st, nil
}

// Redacted is a store's address with its password hidden (xxxxx), for
// messages.
func Redacted(where string) string { return redact(where) }
