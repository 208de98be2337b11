package archive

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMigrationsFromEveryVersion: a store as each earlier schema version
// left it (testdata/schema/v1.sql loaded at that version) migrates to the
// latest with its games, people, outbox and archive intact and readable.
func TestMigrationsFromEveryVersion(t *testing.T) {
	fixture, err := os.ReadFile("testdata/schema/v1.sql")
	require.NoError(t, err)
	ctx := context.Background()
	for k := 1; k < len(migrations); k++ {
		t.Run(fmt.Sprintf("from v%d", migrations[k-1].version), func(t *testing.T) {
			dir := t.TempDir()
			db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
			require.NoError(t, err)
			old := &Store{db: db, path: dir, now: func() time.Time { return t0 }}
			_, err = db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL)`)
			require.NoError(t, err)
			require.NoError(t, old.migrateTo(ctx, migrations[:k]))
			_, err = db.Exec(string(fixture))
			require.NoError(t, err)
			require.NoError(t, old.Close())

			s := open(t, dir)
			v, err := s.Version(ctx)
			require.NoError(t, err)
			assert.Equal(t, SchemaVersion(), v)
			g, err := s.Game(ctx, 1)
			require.NoError(t, err)
			assert.Equal(t, Playing, g.Status)
			assert.Equal(t, int64(3), g.Version)
			assert.Equal(t, "Club Cup", g.Options.Event)
			require.Len(t, g.Seats, 2)
			assert.Equal(t, "bob@example.org", g.Seats[1].Player.Addr)
			require.Len(t, g.Observers, 1)
			assert.True(t, g.Observers[0].Confirmed, "a watcher from before tokens counts as confirmed")
			p, err := s.Player(ctx, "bob@example.org")
			require.NoError(t, err)
			assert.Equal(t, 3, p.VacationDays)
			seen, err := s.Seen(ctx, "m1@example.org")
			require.NoError(t, err)
			assert.True(t, seen)
			due, err := s.Due(ctx, t0, 10)
			require.NoError(t, err)
			require.Len(t, due, 1)
			assert.Equal(t, "Your move.", due[0].Text)
			assert.Equal(t, AutoReplied, due[0].Auto)
			assert.Equal(t, []int64{1}, ids(t, s, Filter{Player: "bob", Event: "Club Cup"}))
			found, err := s.FindGames(ctx, GameFilter{Player: "alice@example.org", Event: "Club Cup", Active: true})
			require.NoError(t, err)
			require.Len(t, found, 1)
			// The new tables work on the migrated store.
			g.Status = Over
			require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g},
				Audit: []*Audit{{Actor: "cli:root", Action: "abort 1", GameID: 1, Reason: "fixture"}}}))
			as, err := s.Audits(ctx, 1)
			require.NoError(t, err)
			require.Len(t, as, 1)
			assert.Equal(t, "abort 1", as[0].Action)
			problems, err := s.IntegrityCheck(ctx)
			require.NoError(t, err)
			assert.Empty(t, problems)
		})
	}
}

// TestNewerSchemaRefused: a store written by a newer pbem is not opened.
func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	_, err := s.DB().Exec(`INSERT INTO schema_migrations (version, name, applied) VALUES (?, 'from the future', 0)`, SchemaVersion()+1)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = Open(context.Background(), dir, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("has schema version %d, newer than this program's %d; upgrade pbem", SchemaVersion()+1, SchemaVersion()))
}

func TestAuditBlocksPending(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	g := newGame(t, s)
	require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}}))

	// An audit record is stored with its change, or not at all.
	g.Status = Declined
	bad := &Change{Games: []*Game{g}, Audit: []*Audit{{Action: "abort 1"}}}
	require.ErrorIs(t, s.Commit(ctx, bad), ErrInvalidChange)
	stored, err := s.Game(ctx, g.ID)
	require.NoError(t, err)
	assert.Equal(t, Invited, stored.Status, "the game's change was rolled back with its audit record")
	as, err := s.Audits(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, as)

	require.NoError(t, s.Commit(ctx, &Change{Blocks: []*Block{{Pattern: "@Spam.Example", Actor: "cli:root", Reason: "spam"},
		{Pattern: "Eve@example.org", Actor: "cli:root"}}}))
	for addr, want := range map[string]bool{"x@spam.example": true, "X@SPAM.EXAMPLE": true, "eve@example.org": true,
		"x@notspam.example": false, "eve@example.net": false, "": false} {
		got, err := s.Blocked(ctx, addr)
		require.NoError(t, err)
		assert.Equal(t, want, got, addr)
	}
	require.NoError(t, s.Commit(ctx, &Change{Blocks: []*Block{{Pattern: "@spam.example", Remove: true}}}))
	got, err := s.Blocked(ctx, "x@spam.example")
	require.NoError(t, err)
	assert.False(t, got)
	require.ErrorIs(t, s.Commit(ctx, &Change{Blocks: []*Block{{Pattern: "nobody"}}}), ErrInvalidChange)

	p := &AdminPending{Token: "tok", Admin: "Root@Club.Example", Command: "abort 1 \"x\""}
	require.NoError(t, s.Commit(ctx, &Change{AdminPending: []*AdminPending{p}}))
	have, err := s.AdminPendingByToken(ctx, "tok")
	require.NoError(t, err)
	assert.Equal(t, "root@club.example", have.Admin)
	assert.False(t, have.Done)
	done := &AdminPending{Token: "tok", Done: true}
	require.NoError(t, s.Commit(ctx, &Change{AdminPending: []*AdminPending{done}}))
	require.ErrorIs(t, s.Commit(ctx, &Change{AdminPending: []*AdminPending{done}}), ErrConflict, "a token is used once")
	_, err = s.AdminPendingByToken(ctx, "nope")
	require.ErrorIs(t, err, ErrNotFound)
}

// TestBackupWhileWriting: a backup taken while commits go on is a sound
// database holding every commit that finished before it began.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	var mu sync.Mutex
	var committed []string // message ids whose commit returned
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d@example.org", w, i)
				if err := s.Commit(ctx, &Change{MessageID: id, Outbox: []*Outgoing{mail("out-"+id, "bob@example.org")}}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				committed = append(committed, id)
				mu.Unlock()
			}
		})
	}
	for {
		mu.Lock()
		n := len(committed)
		mu.Unlock()
		if n >= 50 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	mu.Lock()
	before := append([]string(nil), committed...)
	mu.Unlock()
	dir := t.TempDir()
	require.NoError(t, s.Backup(ctx, filepath.Join(dir, DBFile)))
	close(stop)
	wg.Wait()

	b := open(t, dir)
	problems, err := b.IntegrityCheck(ctx)
	require.NoError(t, err)
	assert.Empty(t, problems)
	for _, id := range before {
		seen, err := b.Seen(ctx, id)
		require.NoError(t, err)
		require.True(t, seen, "%s was committed before the backup began", id)
	}
}
