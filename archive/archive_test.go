package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// open opens the store at where (a directory or a postgres URL) with the
// clock at t0, closed when the test ends.
func open(t *testing.T, where string) *Store {
	t.Helper()
	s, err := OpenStore(context.Background(), where, &Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func newGame(t *testing.T, s *Store) *Game {
	t.Helper()
	id, err := s.NewGameID(context.Background())
	require.NoError(t, err)
	return &Game{
		ID: id, Game: "toy", Status: Invited,
		Options: GameOptions{Days: 7, Rated: true, Event: "Cup"},
		Seats: []Seat{
			{Side: "A", Player: Address{Name: "Alice", Addr: "alice@example.org"}, Token: "aaaa", Joined: true},
			{Side: "B", Player: Address{Name: "", Addr: "bob@example.org"}, Token: "bbbb"},
		},
		Deadline: t0.Add(7 * 24 * time.Hour), Due: t0.Add(7 * 24 * time.Hour), Thread: "thread@x",
	}
}

func mail(id string, to string) *Outgoing {
	return &Outgoing{Mail: Mail{
		From: Address{Name: "referee", Addr: "referee@x"}, To: []Address{{Name: "", Addr: to}}, Subject: "s " + id, Date: t0,
		MessageID: id, InReplyTo: "in@x", References: []string{"thread@x", "in@x"}, Text: "body " + id,
	}}
}

func TestMigrations(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		v, err := s.Version(ctx)
		require.NoError(t, err)
		assert.Equal(t, SchemaVersion(), v)
		if s.Backend() == SQLite { // SQLite's settings
			var mode string
			require.NoError(t, s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode))
			assert.Equal(t, "wal", mode)
			var busy int
			require.NoError(t, s.DB().QueryRow(`PRAGMA busy_timeout`).Scan(&busy))
			assert.Equal(t, 10000, busy)
		} else { // the same wait for a lock on PostgreSQL
			var timeout string
			require.NoError(t, s.DB().QueryRow(`SHOW lock_timeout`).Scan(&timeout))
			assert.Equal(t, "10s", timeout)
		}
		s.Close()

		// Reopening applies nothing twice.
		s = open(t, where)
		var n int
		require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n))
		assert.Equal(t, len(migrations), n)

		// A later step is applied once, in order, and recorded.
		more := append(append([]migration(nil), migrations...), migration{version: 99, name: "test column", sql: `ALTER TABLE players ADD COLUMN note TEXT NOT NULL DEFAULT ''`})
		require.NoError(t, s.migrateTo(ctx, more))
		require.NoError(t, s.migrateTo(ctx, more))
		v, _ = s.Version(ctx)
		assert.Equal(t, 99, v)

		// A failing step leaves the schema as it was.
		bad := append(more, migration{version: 100, name: "broken", sql: `CREATE TABLE t100 (x INTEGER); SELECT nonsense FROM nowhere;`})
		require.Error(t, s.migrateTo(ctx, bad))
		v, _ = s.Version(ctx)
		assert.Equal(t, 99, v)
		_, err = s.DB().Exec(`SELECT * FROM t100`)
		assert.Error(t, err, "table of a failed migration exists")
		s.Close()

		// This program refuses a database newer than itself.
		_, err = OpenStore(ctx, where, nil)
		require.ErrorContains(t, err, "newer than this program")
	})
}

// TestMigrationsConcurrent opens one new store from several processes'
// worth of Stores at once: each step is applied once, and every Open
// succeeds (SQLite's write lock, PostgreSQL's writer lock).
func TestMigrationsConcurrent(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				s, err := OpenStore(context.Background(), where, nil)
				if err == nil {
					s.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		s := open(t, where)
		var n int
		require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n))
		assert.Equal(t, len(migrations), n)
	})
}

// TestOpenDefaultDir: SQLite only (a data directory).
func TestOpenDefaultDir(t *testing.T) {
	t.Chdir(t.TempDir())
	s, err := Open(context.Background(), "", nil)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, filepath.Join(DefaultDir, DBFile), s.Path())
	_, err = os.Stat(filepath.Join(DefaultDir, DBFile))
	assert.NoError(t, err)
}

func TestGameRoundTrip(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		g.Observers = []Observer{{Address{Name: "Olga", Addr: "olga@example.org"}, "tok12345", true}, {Address{Name: "", Addr: "pat@example.org"}, "tok67890", false}}
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m1", At: t0, Games: []*Game{g}, Outbox: []*Outgoing{mail("o1", "bob@example.org")}}))
		assert.Equal(t, int64(1), g.Version)

		got, err := s.Game(ctx, g.ID)
		require.NoError(t, err)
		assert.Equal(t, g, got)

		g.Status = Playing
		g.Seats[1].Joined = true
		g.Seats[1].Player.Name = "Bob"
		g.Offers = []Offer{{Kind: "draw", By: 0, Ply: 3}}
		g.Record = "[Game \"toy\"]\n\n*\n"
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m2", At: t0.Add(time.Hour), Games: []*Game{g}}))
		got, err = s.Game(ctx, g.ID)
		require.NoError(t, err)
		assert.Equal(t, g, got)
		assert.Equal(t, int64(2), got.Version)

		mine, err := s.ActiveGamesOf(ctx, "BOB@example.org")
		require.NoError(t, err)
		require.Len(t, mine, 1)
		watched, err := s.ActiveGamesOf(ctx, "olga@example.org")
		require.NoError(t, err)
		require.Len(t, watched, 1)
		none, err := s.ActiveGamesOf(ctx, "nobody@example.org")
		require.NoError(t, err)
		assert.Empty(t, none)

		due, err := s.DueGames(ctx, t0.Add(6*24*time.Hour))
		require.NoError(t, err)
		assert.Empty(t, due)
		due, err = s.DueGames(ctx, t0.Add(7*24*time.Hour))
		require.NoError(t, err)
		assert.Len(t, due, 1)

		_, err = s.Game(ctx, 999)
		assert.ErrorIs(t, err, ErrNotFound)
	})
}

func TestDuplicateAndConflict(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m1", Games: []*Game{g}}))

		// The same message id again changes nothing, not even the outbox.
		stale := *g
		err := s.Commit(ctx, &Change{MessageID: "m1", Outbox: []*Outgoing{mail("o1", "a@x")}})
		assert.ErrorIs(t, err, ErrDuplicate)
		due, _ := s.Due(ctx, t0.Add(time.Hour), 10)
		assert.Empty(t, due)

		// A game changed since it was read is refused, with all else.
		g.Status = Playing
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m2", Games: []*Game{g}}))
		stale.Status = Declined
		err = s.Commit(ctx, &Change{MessageID: "m3", Games: []*Game{&stale}, Outbox: []*Outgoing{mail("o2", "a@x")}})
		assert.ErrorIs(t, err, ErrConflict)
		seen, _ := s.Seen(ctx, "m3")
		assert.False(t, seen, "a refused change marked its message processed")
		got, _ := s.Game(ctx, g.ID)
		assert.Equal(t, Playing, got.Status)
		due, _ = s.Due(ctx, t0.Add(time.Hour), 10)
		assert.Empty(t, due)

		// Two new players with the same address: the second conflicts.
		p1 := &Player{Address: Address{Name: "", Addr: "p@x"}}
		require.NoError(t, s.Commit(ctx, &Change{Players: []*Player{p1}}))
		p2 := &Player{Address: Address{Name: "", Addr: "P@x"}}
		assert.ErrorIs(t, s.Commit(ctx, &Change{Players: []*Player{p2}}), ErrConflict)
	})
}

// TestCommitIsAtomic fails a commit at every step and checks that nothing
// of it was stored.
func TestCommitIsAtomic(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		for _, stepName := range []string{"processed", "game", "players", "outbox", "entries"} {
			t.Run(stepName, func(t *testing.T) {
				g := newGame(t, s)
				s.failAt = func(step string) error {
					if len(step) >= len(stepName) && step[:len(stepName)] == stepName {
						return errors.New("injected failure")
					}
					return nil
				}
				c := &Change{
					MessageID: "m-" + stepName, Games: []*Game{g},
					Players: []*Player{{Address: Address{Name: "", Addr: stepName + "@x"}}},
					Senders: []*Sender{{Addr: stepName + "@x", WindowStart: t0, Count: 1}},
					Outbox:  []*Outgoing{mail("o-"+stepName, "a@x")},
					Entries: []*Entry{{Game: "toy", Result: "1-0", Record: "record " + stepName}},
				}
				require.ErrorContains(t, s.Commit(ctx, c), "injected failure")
				s.failAt = nil
				assertNothingOf(t, s, c)
				// The same change commits once the failure is gone.
				require.NoError(t, s.Commit(ctx, c))
				seen, _ := s.Seen(ctx, c.MessageID)
				assert.True(t, seen)
			})
		}
	})
}

func assertNothingOf(t *testing.T, s *Store, c *Change) {
	t.Helper()
	ctx := context.Background()
	seen, err := s.Seen(ctx, c.MessageID)
	require.NoError(t, err)
	assert.False(t, seen, "message marked processed")
	_, err = s.Game(ctx, c.Games[0].ID)
	assert.ErrorIs(t, err, ErrNotFound, "game stored")
	assert.Zero(t, c.Games[0].Version, "version incremented")
	p, _ := s.Player(ctx, c.Players[0].Address.Addr)
	assert.Zero(t, p.Version, "player stored")
	r, _ := s.Sender(ctx, c.Senders[0].Addr)
	assert.Zero(t, r.Count, "sender stored")
	due, _ := s.Due(ctx, t0.Add(time.Hour), 100)
	for _, o := range due {
		assert.NotEqual(t, c.Outbox[0].MessageID, o.MessageID, "outbox row stored")
	}
	var n int
	require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive WHERE record = ?`, c.Entries[0].Record).Scan(&n))
	assert.Zero(t, n, "archive entry stored")
}

// TestCrashMidTransaction kills a process in the middle of a commit (after
// every statement was executed, before COMMIT) and checks that the database
// it leaves holds none of it.
func TestCrashMidTransaction(t *testing.T) {
	if where := os.Getenv("ARCHIVE_CRASH_DIR"); where != "" {
		s, err := OpenStore(context.Background(), where, nil)
		if err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		s.failAt = func(step string) error {
			if step == "entries" {
				os.Exit(3) // the crash: no rollback, no close
			}
			return nil
		}
		g, _ := s.NewGameID(context.Background())
		s.Commit(context.Background(), crashChange(g))
		os.Exit(4)
	}
	eachStore(t, func(t *testing.T, where string) {
		open(t, where).Close()
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashMidTransaction$")
		cmd.Env = append(os.Environ(), "ARCHIVE_CRASH_DIR="+where)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee) && ee.ExitCode() == 3, "child: %v\n%s", err, out)

		s := open(t, where)
		assertNothingOf(t, s, crashChange(1))
		// The database is usable and the id reserved before the crash is not
		// handed out again.
		id, err := s.NewGameID(context.Background())
		require.NoError(t, err)
		assert.Equal(t, int64(2), id)
	})
}

func crashChange(id int64) *Change {
	return &Change{
		MessageID: "crash", Games: []*Game{{ID: id, Game: "toy", Status: Playing, Options: GameOptions{Days: 7}}},
		Players: []*Player{{Address: Address{Name: "", Addr: "crash@x"}}},
		Senders: []*Sender{{Addr: "crash@x", WindowStart: t0, Count: 1}},
		Outbox:  []*Outgoing{mail("o-crash", "a@x")},
		Entries: []*Entry{{Game: "toy", Result: "1-0", Record: "crash record"}},
	}
}

func TestOutbox(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		a, b, c := mail("a", "x@x"), mail("b", "y@y"), mail("c", "z@z")
		c.Date = t0.Add(time.Hour) // due an hour later
		c.AutoSubmitted = AutoGenerated
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m", Outbox: []*Outgoing{a, b, c}}))
		require.NotEmpty(t, a.ID)
		oldest, ok, err := s.OldestPending(ctx)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.True(t, oldest.Equal(t0), "OldestPending = %v, want %v", oldest, t0)

		due, err := s.Due(ctx, t0, 10)
		require.NoError(t, err)
		require.Len(t, due, 2)
		assert.Equal(t, "a", due[0].MessageID)
		assert.Equal(t, []Address{{Name: "", Addr: "x@x"}}, due[0].To)
		assert.Equal(t, []string{"thread@x", "in@x"}, due[0].References)
		assert.Equal(t, "body a", due[0].Text)
		assert.Equal(t, Pending, due[0].Status)
		assert.Equal(t, AutoReplied, due[0].AutoSubmitted, "the default")
		due, _ = s.Due(ctx, t0, 1)
		assert.Len(t, due, 1, "limit")

		require.NoError(t, s.Sent(ctx, a.ID))
		require.NoError(t, s.Retry(ctx, b.ID, t0.Add(30*time.Minute), "451 try later"))
		due, _ = s.Due(ctx, t0.Add(10*time.Minute), 10)
		assert.Empty(t, due)
		due, _ = s.Due(ctx, t0.Add(time.Hour), 10)
		require.Len(t, due, 2)
		assert.Equal(t, "b", due[0].MessageID)
		assert.Equal(t, 1, due[0].Attempts)
		assert.Equal(t, "451 try later", due[0].LastError)
		assert.Equal(t, "c", due[1].MessageID)
		assert.Equal(t, AutoGenerated, due[1].AutoSubmitted)

		require.NoError(t, s.Failed(ctx, b.ID, "550 no such user"))
		got, err := s.Outgoing(ctx, b.ID)
		require.NoError(t, err)
		assert.Equal(t, Failed, got.Status)
		assert.Equal(t, 2, got.Attempts)
		due, _ = s.Due(ctx, t0.Add(time.Hour), 10)
		require.Len(t, due, 1)
		assert.Equal(t, "c", due[0].MessageID)
		oldest, ok, _ = s.OldestPending(ctx)
		assert.True(t, ok && oldest.Equal(c.Date), "OldestPending = %v, want c's date %v", oldest, c.Date)
		require.NoError(t, s.Failed(ctx, c.ID, "550 no such user"))
		_, ok, _ = s.OldestPending(ctx)
		assert.False(t, ok, "nothing pending")

		assert.ErrorIs(t, s.Retry(ctx, b.ID, t0, "again"), ErrNotFound, "retry of a failed mail")
		assert.ErrorIs(t, s.Sent(ctx, "999"), ErrNotFound)

		// The Message-ID is unique: queuing it twice fails the whole change.
		err = s.Commit(ctx, &Change{MessageID: "m2", Outbox: []*Outgoing{mail("a", "x@x")}})
		require.Error(t, err)
		seen, _ := s.Seen(ctx, "m2")
		assert.False(t, seen)

		n, err := s.Prune(ctx, t0.Add(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, int64(2), n, "the processed id and the sent mail")
	})
}

func TestEntries(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		e := &Entry{GameID: 7, Game: "toy", Result: "A>B=C", Tags: []Tag{{"Game", "toy"}, {"Result", "A>B=C"}}, Record: "r1", Rated: true}
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m", Entries: []*Entry{e}}))
		got, err := s.EntryOfGame(ctx, 7)
		require.NoError(t, err)
		assert.Equal(t, *e, got)
		assert.Equal(t, Hash("r1"), got.Hash)

		// The same record again (import) is not archived twice.
		added, err := s.AddEntry(ctx, &Entry{Game: "toy", Result: "*", Record: "r1"})
		require.NoError(t, err)
		assert.False(t, added)
		imp := &Entry{Game: "toy", Result: "1-0", Record: "r2", Created: t0}
		added, err = s.AddEntry(ctx, imp)
		require.NoError(t, err)
		assert.True(t, added)
		all, err := s.Entries(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, all, 2)
		assert.Zero(t, all[1].GameID)
		page, _ := s.Entries(ctx, all[0].ID, 10)
		assert.Len(t, page, 1)
	})
}

func TestPlayerAndSender(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		p, err := s.Player(ctx, "Alice@Example.org")
		require.NoError(t, err)
		assert.Equal(t, "alice@example.org", p.Address.Addr)
		assert.Zero(t, p.Version)
		p.Address.Name = "Alice"
		p.VacationUntil, p.VacationYear, p.VacationDays = t0.Add(48*time.Hour), 2026, 2
		require.NoError(t, s.Commit(ctx, &Change{Players: []*Player{p}}))
		got, err := s.Player(ctx, "alice@example.org")
		require.NoError(t, err)
		assert.Equal(t, p, got)

		r := &Sender{Addr: "alice@example.org", WindowStart: t0, Count: 3, Warned: true}
		require.NoError(t, s.Commit(ctx, &Change{Senders: []*Sender{r}}))
		r.Count = 4
		require.NoError(t, s.Commit(ctx, &Change{Senders: []*Sender{r}}))
		gotR, err := s.Sender(ctx, "ALICE@example.org")
		require.NoError(t, err)
		assert.Equal(t, r, gotR)
	})
}

// TestConcurrentCommits: many writers at once; each message is processed
// once and a game moves on once per version.
func TestConcurrentCommits(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}}))
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, dups := 0, 0
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := *g
				mine.Reminded = i
				err := s.Commit(ctx, &Change{MessageID: fmt.Sprint("m", i%4), Games: []*Game{&mine},
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
			}()
		}
		wg.Wait()
		assert.Equal(t, 1, wins, "only one writer may move the game from version 1")
		got, _ := s.Game(ctx, g.ID)
		assert.Equal(t, int64(2), got.Version)
		due, _ := s.Due(ctx, t0.Add(time.Hour), 100)
		assert.Len(t, due, 1)
	})
}
