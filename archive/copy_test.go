package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive/pgtest"
)

// fillStore gives a store rows in every table a club's store has: games
// (invited, playing, over; with observers and offers), the players and
// senders, processed ids, the outbox (with HTML and inline images),
// archived games (imported and finished by the referee, some not indexed
// yet), a tournament with its round, audit records, blocks and pending
// admin commands, and a game id reserved and never stored.
func fillStore(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	_, err := s.ImportFile(ctx, "corpus", corpus(t, 6, 12), lookup, nil)
	require.NoError(t, err)
	alice := &Player{Address: Address{Name: "Alice", Addr: "alice@example.org"}, Mail: MailText}
	for i := range 5 {
		alice.VacationDays = i
		g := newGame(t, s)
		g.Observers = []Observer{{Address{Name: "Zed", Addr: "zed@example.org"}, "zzzz", true}, {Address{Name: "", Addr: "amy@example.org"}, "yyyy", false}}
		c := &Change{MessageID: fmt.Sprintf("m%d@example.org", i), At: t0.Add(time.Duration(i) * time.Minute), Games: []*Game{g},
			Players: []*Player{alice},
			Senders: []*Sender{{Addr: "alice@example.org", WindowStart: t0, Count: i + 1}},
			Outbox:  []*Outgoing{mail(fmt.Sprintf("out%d@x", i), "bob@example.org")}}
		c.Outbox[0].HTML = "<p>board</p>"
		c.Outbox[0].Inline = []Inline{{ContentID: "b", ContentType: "image/png", Picture: json.RawMessage(`{"w":1}`)}}
		require.NoError(t, s.Commit(ctx, c))
		if i > 0 {
			g.Status, g.Record = Playing, fmt.Sprintf("[Game \"toy\"]\n\n1. a%d b%d *\n", i, i)
			g.Offers = []Offer{{Kind: "draw", By: 1, Ply: 2}}
			require.NoError(t, s.Commit(ctx, &Change{At: t0.Add(time.Hour), Games: []*Game{g}}))
		}
		if i == 4 {
			g.Status = Over
			require.NoError(t, s.Commit(ctx, &Change{At: t0.Add(2 * time.Hour), Games: []*Game{g},
				Entries: []*Entry{{GameID: g.ID, Game: "castles", Result: "1-0", Tags: []Tag{{"Game", "castles"}, {"Event", "Cup"}},
					Record: "[Game \"castles\"]\n[Event \"Cup\"]\n\n0... @c3 1-0\n", Rated: true, Created: t0}}}))
		}
	}
	_, err = s.NewGameID(ctx) // reserved, never stored
	require.NoError(t, err)
	tr := newTournament(t, s)
	require.NoError(t, s.Commit(ctx, &Change{At: t0, Tournaments: []*Tournament{tr}}))
	require.NoError(t, s.Commit(ctx, &Change{At: t0, Audit: []*Audit{{Actor: "cli:root", Action: "block spam", Reason: "spam"}},
		Blocks:       []*Block{{Pattern: "@spam.example", Actor: "cli:root", Reason: "spam"}},
		AdminPending: []*AdminPending{{Token: "tok", Admin: "root@example.org", Command: "abort 1"}}}))
}

// rowCounts are the rows of every copied table of a store.
func rowCounts(t *testing.T, s *Store) map[string]int64 {
	t.Helper()
	n := map[string]int64{}
	for _, tb := range copyTables {
		var c int64
		require.NoError(t, s.db.QueryRow(`SELECT COUNT(*) FROM `+tb.name).Scan(&c), tb.name)
		n[tb.name] = c
	}
	return n
}

// copied is a filled SQLite store and its copy on PostgreSQL.
func copied(t *testing.T) (from, to *Store, rep CopyReport) {
	t.Helper()
	from = open(t, t.TempDir())
	fillStore(t, from)
	to = open(t, pgtest.URL(t))
	rep, err := CopyStore(context.Background(), from, to)
	require.NoError(t, err)
	return from, to, rep
}

// TestCopyStore: every row of every table arrives, ids kept; the stores
// compare equal, table by table and game by game; the ids the copy hands
// out next are new (past those SQLite handed out, stored or not), and the
// copy works as a store: it commits, searches, and its stamp moves.
func TestCopyStore(t *testing.T) {
	ctx := context.Background()
	from, to, rep := copied(t)
	want := rowCounts(t, from)
	var total int64
	for _, tr := range rep.Tables {
		assert.Equal(t, want[tr.Name], tr.Rows, tr.Name)
		total += tr.Rows
	}
	assert.Len(t, rep.Tables, len(copyTables))
	assert.Equal(t, total, rep.Rows)
	assert.Equal(t, want, rowCounts(t, to))
	for _, name := range []string{"games", "seats", "observers", "outbox", "archive", "archive_sides", "archive_search", "tournaments", "audit"} {
		assert.NotZero(t, want[name], "fillStore leaves %s empty", name)
	}

	c, err := CompareStores(ctx, from, to)
	require.NoError(t, err)
	assert.True(t, c.Equal(), "%v", c.Differences)
	assert.Equal(t, 5, c.Games)
	assert.Zero(t, c.FirstGame)

	g, err := to.Game(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, "zed@example.org", g.Observers[0].Addr, "the observers keep their order")
	sf, err := from.Stamp(ctx)
	require.NoError(t, err)
	st, err := to.Stamp(ctx)
	require.NoError(t, err)
	assert.Equal(t, sf, st)

	// The identity sequences are past the copied ids.
	id, err := to.NewGameID(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(7), id, "game 6 was reserved in SQLite")
	tid, err := to.NewTournamentID(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), tid)
	g2 := newGame(t, to)
	require.NoError(t, to.Commit(ctx, &Change{MessageID: "new@example.org", At: t0, Games: []*Game{g2},
		Outbox: []*Outgoing{mail("new-out@x", "bob@example.org")}, Audit: []*Audit{{Actor: "cli:root", Action: "x", GameID: g2.ID}},
		Entries: []*Entry{{GameID: g2.ID, Game: "castles", Result: "*", Record: "[Game \"castles\"]\n\n0... @c2 *\n", Created: t0}}}))
	st2, err := to.Stamp(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, st, st2)
	assert.Greater(t, st2.Archive, st.Archive)
	n, err := to.Pending(ctx)
	require.NoError(t, err)
	assert.Equal(t, want["outbox"]+1, n)
	found := 0
	require.NoError(t, to.Query(ctx, lookup, Filter{Text: []string{"cup"}}, func(*Found) error { found++; return nil }))
	assert.NotZero(t, found, "search finds the copied games")
}

// TestCopyStoreRefusesNonEmpty: a second copy into the same store is
// refused and changes nothing.
func TestCopyStoreRefusesNonEmpty(t *testing.T) {
	ctx := context.Background()
	from, to, _ := copied(t)
	before := rowCounts(t, to)
	_, err := CopyStore(ctx, from, to)
	require.ErrorIs(t, err, ErrTargetNotEmpty)
	assert.Contains(t, err.Error(), "game_ids holds rows")
	assert.Equal(t, before, rowCounts(t, to))
	_, err = CopyStore(ctx, to, from)
	require.ErrorContains(t, err, "expected from SQLite to PostgreSQL")
}

// TestCompareStoresFindsDamage: a ply changed in one game of the copy is
// found, naming that game and the table's row; a row missing elsewhere is
// found by the counts.
func TestCompareStoresFindsDamage(t *testing.T) {
	ctx := context.Background()
	from, to, _ := copied(t)
	_, err := to.DB().Exec(`UPDATE games SET record = REPLACE(record, 'a2', 'a9') WHERE id = 3`)
	require.NoError(t, err)
	c, err := CompareStores(ctx, from, to)
	require.NoError(t, err)
	require.False(t, c.Equal())
	assert.Equal(t, int64(3), c.FirstGame)
	assert.Contains(t, c.Differences, "table games: the row id=3 differs in record")
	assert.Contains(t, c.Differences, `game 3: differs in record: word 4 is "a2", then "a9"`)
	assert.Equal(t, 5, c.Games)

	_, err = to.DB().Exec(`DELETE FROM archive_sides WHERE entry_id = 2`)
	require.NoError(t, err)
	c, err = CompareStores(ctx, from, to)
	require.NoError(t, err)
	assert.Contains(t, fmt.Sprint(c.Differences), "table archive_sides: ")
	assert.Contains(t, fmt.Sprint(c.Differences), " rows in ")

	// Game by game alone: a seat's token changed.
	_, err = to.DB().Exec(`UPDATE seats SET token = 'xxxx' WHERE game_id = 5 AND seat = 1`)
	require.NoError(t, err)
	c, err = CompareStores(ctx, from, to)
	require.NoError(t, err)
	assert.Contains(t, c.Differences, "game 5: differs in seats")
}

// TestCopyTablesCoverSchema: every table of a fresh store, on either
// backend, is copied (copyTables) or known not to need it (notCopied), so
// that a migration adding a table cannot leave its rows behind in a copy.
func TestCopyTablesCoverSchema(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		q := `SELECT name FROM sqlite_master WHERE type = 'table'`
		if s.pg {
			q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
		}
		rows, err := s.db.Query(q)
		require.NoError(t, err)
		defer rows.Close()
		known := map[string]bool{}
		for _, tb := range copyTables {
			known[tb.name] = true
		}
		for rows.Next() {
			var name string
			require.NoError(t, rows.Scan(&name))
			if !known[name] && !notCopiedTable(name) {
				t.Errorf("table %s is neither in copyTables nor in notCopied (archive/copy.go)", name)
			}
		}
		require.NoError(t, rows.Err())
	})
}
