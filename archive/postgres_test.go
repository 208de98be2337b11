package archive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE x = ? AND y IN (?, ?)`, `SELECT a FROM t WHERE x = $1 AND y IN ($2, $3)`},
		{`SELECT '?', "a?b", ? FROM t`, `SELECT '?', "a?b", $1 FROM t`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{`SELECT E'\'?', ?`, `SELECT E'\'?', $1`},
		{"SELECT ? -- a comment?\n, ?", "SELECT $1 -- a comment?\n, $2"},
		{`SELECT /* why? */ ?`, `SELECT /* why? */ $1`},
		{`DO $$ BEGIN PERFORM '?'; END $$; SELECT ?`, `DO $$ BEGIN PERFORM '?'; END $$; SELECT $1`},
		{`SELECT $tag$ ? $tag$, ?`, `SELECT $tag$ ? $tag$, $1`},
		{`SELECT $1, ?`, `SELECT $1, $1`}, // $1 is no tag; mixing is the writer's mistake
		{`SELECT 'unterminated ?`, `SELECT 'unterminated ?`},
	} {
		assert.Equal(t, c.want, rebind(c.in), "rebind(%q)", c.in)
	}
}

// TestOpenStoreBadAddress: an address that is neither a directory nor a
// postgres URL, a URL that does not parse, and a server that does not
// answer are refused with what was wrong and what was expected, never
// with the password.
func TestOpenStoreBadAddress(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ where, want string }{
		{"mysql://u@h/db", `unknown kind "mysql"; expected a data directory (SQLite) or a postgres:// URL`},
		{"postgres://u:s3cret@127.0.0.1:notaport/db", "expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"},
		{"postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=5", "cannot connect"},
	} {
		_, err := OpenStore(ctx, c.where, nil)
		require.Error(t, err, c.where)
		assert.Contains(t, err.Error(), c.want)
		assert.NotContains(t, err.Error(), "s3cret")
		assert.True(t, strings.HasPrefix(err.Error(), "archive: store "), err.Error())
	}
}

func TestPathHidesPassword(t *testing.T) {
	where := backends[1].where(t) // postgres only: a URL
	s := open(t, strings.Replace(where, "://pbem@", "://pbem:s3cret@", 1))
	assert.Equal(t, Postgres, s.Backend())
	assert.Contains(t, s.Path(), "pbem:xxxxx@")
	assert.NotContains(t, s.Path(), "s3cret")
}

// TestTextPostgresCannotHold: SQLite stores a NUL character and bytes that
// are not UTF-8 as given; PostgreSQL cannot, and the commit fails as an
// invalid change (trying again would fail alike), storing nothing.
func TestTextPostgresCannotHold(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		for i, text := range []string{"a\x00b", "caf\xe9"} {
			o := mail(fmt.Sprint("bad", i), "a@x")
			o.Text = text
			err := s.Commit(ctx, &Change{MessageID: fmt.Sprint("m", i), Outbox: []*Outgoing{o}})
			if s.Backend() == SQLite {
				require.NoError(t, err)
				got, err := s.Outgoing(ctx, o.ID)
				require.NoError(t, err)
				assert.Equal(t, text, got.Text)
				continue
			}
			require.ErrorIs(t, err, ErrInvalidChange)
			assert.ErrorContains(t, err, "cannot hold")
			seen, err := s.Seen(ctx, fmt.Sprint("m", i))
			require.NoError(t, err)
			assert.False(t, seen)
		}
	})
}

// TestConcurrentCommitsFromSeveralStores is TestConcurrentCommits with a
// Store per writer, as several processes would have: the database alone
// (SQLite's lock, PostgreSQL's writer lock and the version checks) lets
// one writer move the game, and a message id be processed once.
func TestConcurrentCommitsFromSeveralStores(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}}))
		stores := make([]*Store, 4)
		for i := range stores {
			stores[i] = open(t, where)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, dups := 0, 0
		for i := range 8 {
			wg.Go(func() {
				mine := *g
				mine.Reminded = i
				err := stores[i%4].Commit(ctx, &Change{MessageID: fmt.Sprint("m", i%3), Games: []*Game{&mine},
					Outbox: []*Outgoing{mail(fmt.Sprint("o", i), "a@x")}})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
				case errors.Is(err, ErrDuplicate):
					dups++
				case !errors.Is(err, ErrConflict):
					t.Errorf("commit %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, 1, wins, "only one writer may move the game from version 1")
		got, err := s.Game(ctx, g.ID)
		require.NoError(t, err)
		assert.Equal(t, int64(2), got.Version)
		due, err := s.Due(ctx, t0.Add(time.Hour), 100)
		require.NoError(t, err)
		assert.Len(t, due, 1)

		// New players and entries from several stores at once: each
		// stored once.
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() {
				errs[i] = stores[i%4].Commit(ctx, &Change{
					Players: []*Player{{Address: Address{Name: "", Addr: "same@x"}}},
					Entries: []*Entry{{Game: "toy", Result: "1-0", Record: "the same record"}},
				})
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				assert.ErrorIs(t, err, ErrConflict)
			}
		}
		assert.Equal(t, 1, ok)
		var n int
		require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive WHERE record = ?`, "the same record").Scan(&n))
		assert.Equal(t, 1, n)
	})
}

// TestPostgresKeepsItsConnections: a PostgreSQL store keeps the
// connections its concurrent users (the batch handler, the sender's
// lanes, the web, the clock) opened, instead of closing all but two after
// each use: a new connection costs a server process and the preparing of
// every statement again, which made a move wait about 100 ms at 100 moves
// a second. Counted by database/sql (connections closed for want of an
// idle place), not timed.
func TestPostgresKeepsItsConnections(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		if s.Backend() == SQLite {
			return // one file, opened at once: nothing of the kind
		}
		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}}))
		for round := range 20 {
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					if _, err := s.Game(ctx, g.ID); err != nil {
						t.Error(err)
					}
					if _, err := s.Player(ctx, fmt.Sprintf("p%d@x", i)); err != nil {
						t.Error(err)
					}
					if err := s.Commit(ctx, &Change{MessageID: fmt.Sprintf("m%d-%d", round, i)}); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
		}
		st := s.DB().Stats()
		assert.Zero(t, st.MaxIdleClosed, "connections closed for want of an idle place (opened: %d)", st.OpenConnections)
	})
}
