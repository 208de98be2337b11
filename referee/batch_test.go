package referee_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"pbem/archive"
	"pbem/referee"
)

// batchRequests are requests on game #1 that depend on each other: each ply
// is legal only after the one before, the duplicate is a message already in
// the batch, and the last ply is out of turn.
func batchRequests(h *harness) []referee.Request {
	alice := "from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n"
	bob := "from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\n"
	first := h.request("b1", h.expand(alice+"+2\n"))
	return []referee.Request{
		first,
		h.request("b2", h.expand(bob+"+1\nsay your turn\n")),
		first,
		h.request("b3", h.expand(alice+"+1\n")),
		h.request("b4", h.expand(alice+"+2\n")),
	}
}

// TestHandleBatch: a batch handled at once stores and answers exactly what
// the same requests handled one by one do.
func TestHandleBatch(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		one, all := started(t, db, nil), started(t, db, nil)
		for _, q := range batchRequests(one) {
			if err := one.ref.Handle(one.ctx, q); err != nil {
				t.Fatalf("Handle: %v", err)
			}
		}
		for i, err := range all.ref.HandleBatch(all.ctx, batchRequests(all)) {
			if err != nil {
				t.Errorf("HandleBatch, request %d: %v", i, err)
			}
		}
		if got, want := all.record(1), one.record(1); got != want || want != "1. +2 +1 2. +1 *" {
			t.Errorf("record after the batch = %q, one by one %q; want both %q", got, want, "1. +2 +1 2. +1 *")
		}
		if got, want := all.mails(), one.mails(); got != want {
			t.Errorf("mails after the batch differ from one by one:\n%s\n---- want\n%s", got, want)
		}
		st := all.ref.Stats()
		if st.Handled != 3+4 || st.Duplicates != 1 {
			t.Errorf("Stats = %+v, want 7 handled (3 to start the game) and 1 duplicate", st)
		}
	})
}

// batchConflict is a store whose CommitBatch fails with ErrConflict the
// first n times, as when another writer changed a game of the batch.
type batchConflict struct {
	*archive.Store
	mu sync.Mutex
	n  int
}

func (b *batchConflict) CommitBatch(ctx context.Context, cs []*archive.Change) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n > 0 {
		b.n--
		return archive.ErrConflict
	}
	return b.Store.CommitBatch(ctx, cs)
}

// TestHandleBatchConflict: a batch that cannot be committed is handled
// again message by message, and each is applied once.
func TestHandleBatchConflict(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		ref, err := referee.New(&batchConflict{Store: h.store, n: 1}, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: h.clock})
		if err != nil {
			t.Fatal(err)
		}
		for i, err := range ref.HandleBatch(h.ctx, batchRequests(h)) {
			if err != nil {
				t.Errorf("request %d: %v", i, err)
			}
		}
		if got := h.record(1); got != "1. +2 +1 2. +1 *" {
			t.Errorf("record = %q, want %q", got, "1. +2 +1 2. +1 *")
		}
		// Handled again (a crash before the poller marked them), nothing
		// changes.
		for i, err := range ref.HandleBatch(h.ctx, batchRequests(h)) {
			if err != nil {
				t.Errorf("again, request %d: %v", i, err)
			}
		}
		if got := h.record(1); got != "1. +2 +1 2. +1 *" {
			t.Errorf("record after the batch again = %q", got)
		}
		if st := ref.Stats(); st.Handled != 4 || st.Duplicates < 5 {
			t.Errorf("Stats = %+v, want 4 handled and at least 5 duplicates", st)
		}
	})
}

// TestTranscriptsBatched replays the requests of every transcript through
// HandleBatch, up to batchOf at a time (a clock tick or a bot's turn ends a
// batch), and checks that the referee mails exactly what it mails when it
// handles them one by one, and stores the same games.
func TestTranscriptsBatched(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		const batchOf = 4
		files, err := filepath.Glob("testdata/*.txtar")
		if err != nil || len(files) == 0 {
			t.Fatalf("no transcripts: %v", err)
		}
		for _, file := range files {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				files := parseTxtar(data).files
				opts := map[string]string{}
				if len(files) > 0 && files[0].name == "options" {
					for _, l := range strings.Split(strings.TrimSpace(files[0].data), "\n") {
						k, v, _ := strings.Cut(l, ":")
						opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
					}
					files = files[1:]
				}
				if game, ok := opts["requires"]; ok {
					delete(opts, "requires")
					if _, err := referee.Lookup(game); err != nil {
						t.Skipf("%s is not in the catalog yet", game)
					}
				}
				one, all := newHarness(t, db, opts), newHarness(t, db, opts)
				var want, got []string
				var batch []referee.Request
				flush := func() {
					if len(batch) == 0 {
						return
					}
					all.clock.set(all.now)
					for i, err := range all.ref.HandleBatch(all.ctx, batch) {
						if err != nil {
							t.Errorf("HandleBatch: request %s: %v", batch[i].MessageID, err)
						}
					}
					batch = nil
					got = append(got, splitMails(all.mails())...)
				}
				for _, f := range files {
					name, kind, _ := strings.Cut(f.name, ".")
					switch kind {
					case "out", "dump":
						continue
					case "in":
						req := one.request(name, f.data)
						one.clock.set(one.now)
						if err := one.ref.Handle(one.ctx, req); err != nil {
							t.Fatalf("step %s: %v", name, err)
						}
						want = append(want, splitMails(one.mails())...)
						batch = append(batch, req)
						all.now = one.now
						if len(batch) == batchOf {
							flush()
						}
					default:
						flush()
						all.now = one.now
						want = append(want, splitMails(one.step(name, kind, f.data))...)
						got = append(got, splitMails(all.step(name, kind, f.data))...)
					}
				}
				flush()
				slices.Sort(want)
				slices.Sort(got)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("mails differ when the requests come in batches (-one by one +batched):\n%s",
						diff(strings.Join(want, "\n"), strings.Join(got, "\n")))
				}
				for id := int64(1); ; id++ {
					a, errA := one.store.Game(one.ctx, id)
					b, errB := all.store.Game(all.ctx, id)
					if errA != nil || errB != nil {
						if (errA == nil) != (errB == nil) {
							t.Errorf("game %d: one by one %v, batched %v", id, errA, errB)
						}
						if errors.Is(errA, archive.ErrNotFound) && id > 50 {
							break
						}
						if errA != nil && !errors.Is(errA, archive.ErrNotFound) {
							t.Fatal(errA)
						}
						continue
					}
					if a.Record != b.Record || a.Status != b.Status {
						t.Errorf("game %d: one by one %s %q, batched %s %q", id, a.Status, a.Record, b.Status, b.Record)
					}
				}
			})
		}
	})
}

// splitMails cuts the output of harness.mails into one string per mail.
func splitMails(s string) []string {
	if s == "(no mail)\n" || s == "" {
		return nil
	}
	parts := strings.Split(s, "\n>>> To:")
	for i := 1; i < len(parts); i++ {
		parts[i] = ">>> To:" + parts[i]
	}
	return parts
}

// readCounter counts the store's per-key reads and prefetches.
type readCounter struct {
	*archive.Store
	mu          sync.Mutex
	reads       map[string]int
	prefetches  int
	afterPrefet func() // run after each prefetch, when set
}

func (c *readCounter) count(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads[name]++
}

func (c *readCounter) Seen(ctx context.Context, id string) (bool, error) {
	c.count("Seen")
	return c.Store.Seen(ctx, id)
}

func (c *readCounter) Game(ctx context.Context, id int64) (*archive.Game, error) {
	c.count("Game")
	return c.Store.Game(ctx, id)
}

func (c *readCounter) ActiveGamesOf(ctx context.Context, addr string) ([]*archive.Game, error) {
	c.count("ActiveGamesOf")
	return c.Store.ActiveGamesOf(ctx, addr)
}

func (c *readCounter) Player(ctx context.Context, addr string) (*archive.Player, error) {
	c.count("Player")
	return c.Store.Player(ctx, addr)
}

func (c *readCounter) Sender(ctx context.Context, addr string) (*archive.Sender, error) {
	c.count("Sender " + addr)
	return c.Store.Sender(ctx, addr)
}

func (c *readCounter) Blocked(ctx context.Context, addr string) (bool, error) {
	c.count("Blocked")
	return c.Store.Blocked(ctx, addr)
}

func (c *readCounter) MainAddress(ctx context.Context, addr string) (string, error) {
	c.count("MainAddress")
	return c.Store.MainAddress(ctx, addr)
}

func (c *readCounter) Notes(ctx context.Context, gameID int64, addr string) ([]*archive.Note, error) {
	c.count("Notes")
	return c.Store.Notes(ctx, gameID, addr)
}

func (c *readCounter) Prefetch(ctx context.Context, ids, addrs, windows []string) (*archive.Prefetched, error) {
	p, err := c.Store.Prefetch(ctx, ids, addrs, windows)
	c.mu.Lock()
	c.prefetches++
	f := c.afterPrefet
	c.mu.Unlock()
	if f != nil {
		f()
	}
	return p, err
}

// TestHandleBatchPrefetch: a batch reads its messages, its senders and
// their games once, before it is decided, and not again request by request
// (Seen, Game, ActiveGamesOf, Player, Sender, Notes: the players and
// notes of the senders' games come with the prefetch); it stores what the requests handled one by one do. (The
// referees of the other batch tests prefetch too: they show that the
// answers are the same.)
func TestHandleBatchPrefetch(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		one, all := started(t, db, nil), started(t, db, nil)
		for _, q := range batchRequests(one) {
			if err := one.ref.Handle(one.ctx, q); err != nil {
				t.Fatalf("Handle: %v", err)
			}
		}
		c := &readCounter{Store: all.store, reads: map[string]int{}}
		ref, err := referee.New(c, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: all.clock})
		if err != nil {
			t.Fatal(err)
		}
		for i, err := range ref.HandleBatch(all.ctx, batchRequests(all)) {
			if err != nil {
				t.Errorf("HandleBatch, request %d: %v", i, err)
			}
		}
		if c.prefetches != 1 || len(c.reads) != 0 {
			t.Errorf("a batch of 5 read the store with %d prefetches and %v; want 1 prefetch and no other read of these", c.prefetches, c.reads)
		}
		if got, want := all.record(1), one.record(1); got != want {
			t.Errorf("record after the batch = %q, one by one %q", got, want)
		}
	})
}

// TestHandleBatchStalePrefetch: a move committed by another writer after
// the batch's prefetch makes the batch's commit fail; its requests are
// handled again one by one, and no move is lost or made twice.
func TestHandleBatchStalePrefetch(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		reqs := batchRequests(h)
		c := &readCounter{Store: h.store, reads: map[string]int{}}
		c.afterPrefet = func() {
			c.afterPrefet = nil
			if err := h.ref.Handle(h.ctx, reqs[0]); err != nil { // the other writer: alice's +2
				t.Errorf("Handle: %v", err)
			}
		}
		ref, err := referee.New(c, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: h.clock})
		if err != nil {
			t.Fatal(err)
		}
		for i, err := range ref.HandleBatch(h.ctx, reqs) {
			if err != nil {
				t.Errorf("HandleBatch, request %d: %v", i, err)
			}
		}
		if got := h.record(1); got != "1. +2 +1 2. +1 *" {
			t.Errorf("record = %q, want %q", got, "1. +2 +1 2. +1 *")
		}
		if st := ref.Stats(); st.Handled != 3 || st.Duplicates != 2 {
			t.Errorf("Stats = %+v, want 3 handled and 2 duplicates (alice's +2, twice)", st)
		}
	})
}
