package referee_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/notation"
	"pbem/referee"
)

// flakyStore fails commits on demand.
type flakyStore struct {
	referee.Store
	mu        sync.Mutex
	fail      int // fail the next fail commits with a temporary error
	conflicts int // then fail the next conflicts commits with ErrConflict
}

var errDiskFull = errors.New("disk full")

func (f *flakyStore) Commit(ctx context.Context, c *archive.Change) error {
	f.mu.Lock()
	switch {
	case f.fail > 0:
		f.fail--
		f.mu.Unlock()
		return errDiskFull
	case f.conflicts > 0:
		f.conflicts--
		f.mu.Unlock()
		return archive.ErrConflict
	}
	f.mu.Unlock()
	return f.Store.Commit(ctx, c)
}

// started is a harness with a two-player toy game #1 under way, Alice to
// move.
func started(t testing.TB, db store, opts map[string]string) *harness {
	h := newHarness(t, db, opts)
	h.send(`from: Alice <alice@example.org>
subject: new toy with bob@example.org players=2
`)
	h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n") // the inviter confirms
	h.send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\naccept\n")
	return h
}

// send handles a request written as in a transcript and returns the mails.
func (h *harness) send(text string) string {
	h.t.Helper()
	return h.step(fmt.Sprintf("s%d", h.now.UnixNano()), "in", text)
}

// record is the movetext of game id's record without its clock comments
// ({[%emt ...] [%clk ...]}, which the clock tests read): the plies, the
// other comments and the result.
func (h *harness) record(id int64) string {
	h.t.Helper()
	g, err := h.store.Game(h.ctx, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return movetext(h.t, g.Record)
}

// movetext is a record's movetext without its clock comments.
func movetext(t testing.TB, record string) string {
	t.Helper()
	recs, probs := notation.Parse("record", []byte(record))
	if len(probs) > 0 || len(recs) != 1 {
		t.Fatalf("record does not parse: %v\n%s", probs, record)
	}
	r := recs[0]
	strip := func(cs []string) []string {
		return slices.DeleteFunc(cs, func(c string) bool { return strings.HasPrefix(c, "[%emt ") })
	}
	r.Main.Comments = strip(r.Main.Comments)
	for _, p := range r.Main.Plies {
		p.Comments = strip(p.Comments)
	}
	cg, problems := notation.Check(r, testLookup)
	if cg == nil {
		t.Fatalf("record does not check: %v", problems)
	}
	_, moves, _ := strings.Cut(notation.Format(cg), "\n\n")
	return strings.TrimSpace(moves)
}

// TestStoreFailureLosesNothing: when the commit fails, Handle says so and
// nothing of the request is stored; handled again, it is applied once.
func TestStoreFailureLosesNothing(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		flaky := &flakyStore{Store: h.store, fail: 1}
		ref, err := referee.New(flaky, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: h.clock})
		if err != nil {
			t.Fatal(err)
		}
		req := h.request("m1", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n"))
		if err := ref.Handle(h.ctx, req); !errors.Is(err, errDiskFull) {
			t.Fatalf("Handle = %v, want %v", err, errDiskFull)
		}
		if got := h.mails(); got != "(no mail)\n" {
			t.Errorf("mails after a failed commit:\n%s", got)
		}
		if seen, _ := h.store.Seen(h.ctx, "<m1@test.example>"); seen {
			t.Error("a failed request was marked processed")
		}
		if got := h.record(1); got != "*" {
			t.Errorf("record after a failed commit = %q, want no ply", got)
		}
		if err := ref.Handle(h.ctx, req); err != nil {
			t.Fatalf("Handle again = %v", err)
		}
		if err := ref.Handle(h.ctx, req); err != nil {
			t.Fatalf("Handle a third time = %v", err)
		}
		if got := h.record(1); got != "1. +2 *" {
			t.Errorf("record = %q, want the ply once", got)
		}
		if got := strings.Count(h.mails(), ">>> To:"); got != 2 {
			t.Errorf("%d mails, want 2 (one per player)", got)
		}
	})
}

// TestConflictIsRetried: a commit that conflicts is decided again.
func TestConflictIsRetried(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		flaky := &flakyStore{Store: h.store, conflicts: 2}
		ref, err := referee.New(flaky, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: h.clock})
		if err != nil {
			t.Fatal(err)
		}
		req := h.request("m1", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n"))
		if err := ref.Handle(h.ctx, req); err != nil {
			t.Fatalf("Handle = %v", err)
		}
		if st := ref.Stats(); st.Conflicts != 2 || st.Handled != 1 {
			t.Errorf("Stats = %+v, want 2 conflicts and 1 handled", st)
		}
		if got := h.record(1); got != "1. +2 *" {
			t.Errorf("record = %q", got)
		}
		flaky.conflicts = 100
		req = h.request("m2", h.expand("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\n+2\n"))
		if err := ref.Handle(h.ctx, req); !errors.Is(err, archive.ErrConflict) {
			t.Fatalf("Handle with endless conflicts = %v, want ErrConflict", err)
		}
	})
}

// TestConcurrentMoves: two moves of the same player handled at once; one
// is played, the other finds that it is no longer that player's turn. The
// same message handled at once by many is applied once.
func TestConcurrentMoves(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		reqs := []referee.Request{
			h.request("a", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+1\n")),
			h.request("b", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n")),
		}
		dup := h.request("c", h.expand("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\nsay hello\n"))
		for range 6 {
			reqs = append(reqs, dup)
		}
		var wg sync.WaitGroup
		for _, q := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := h.ref.Handle(h.ctx, q); err != nil {
					t.Errorf("Handle: %v", err)
				}
			}()
		}
		wg.Wait()
		rec := h.record(1)
		if rec != "1. +1 *" && rec != "1. +2 *" {
			t.Errorf("record = %q, want exactly one ply", rec)
		}
		mails := h.mails()
		if n := strings.Count(mails, "It is not your turn"); n != 1 {
			t.Errorf("%d refusals, want 1:\n%s", n, mails)
		}
		if n := strings.Count(mails, "Bob (B) says:"); n != 1 {
			t.Errorf("the message was delivered %d times, want once", n)
		}
	})
}

// boom is toy, except that decoding "+3" panics (a bug).
type boom struct{ enginetest.Toy }

func (b boom) Decode(s engine.State, text string) (engine.Move, error) {
	if strings.TrimSpace(text) == "+3" {
		panic("boom")
	}
	return b.Toy.Decode(s, text)
}

// TestPanicIsRecovered: a bug while handling a message is recovered: the
// message is processed, nothing of it applied, and its sender told.
func TestPanicIsRecovered(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		ref, err := referee.New(h.store, &referee.Options{
			Address: "referee@pbem.example",
			Lookup: func(id string) (notation.Codec, error) {
				if id == "toy" {
					return boom{}, nil
				}
				return testLookup(id)
			},
			Clock: h.clock,
		})
		if err != nil {
			t.Fatal(err)
		}
		req := h.request("m1", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nsay first\nmove 1 +3\n"))
		if err := ref.Handle(h.ctx, req); err != nil {
			t.Fatalf("Handle = %v", err)
		}
		if n := ref.Stats().Panics; n != 1 {
			t.Errorf("Stats().Panics = %d, want 1", n)
		}
		mails := h.mails()
		if !strings.Contains(mails, "internal error") || strings.Count(mails, ">>> To:") != 1 || strings.Contains(mails, "first") {
			t.Errorf("mails = \n%s\nwant one reply about an internal error, and nothing said", mails)
		}
		if seen, _ := h.store.Seen(h.ctx, "<m1@test.example>"); !seen {
			t.Error("the message that hit a bug was not marked processed")
		}
		if got := h.record(1); got != "*" {
			t.Errorf("record = %q, want nothing applied", got)
		}
	})
}

func TestNew(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		for _, addr := range []string{"", "referee", "@x.org", "referee+1@x.org"} {
			if _, err := referee.New(h.store, &referee.Options{Address: addr}); err == nil {
				t.Errorf("New with address %q succeeded", addr)
			}
		}
		if _, err := referee.New(nil, &referee.Options{Address: "r@x.org"}); err == nil {
			t.Error("New without a store succeeded")
		}
		r, err := referee.New(h.store, &referee.Options{Address: "Referee@X.org"})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Address(); got.Addr != "referee@x.org" || got.Name != "pbem referee" {
			t.Errorf("Address() = %+v", got)
		}
	})
}

// FuzzHandle sends arbitrary subjects and bodies, as a player of a game
// under way and as a stranger: the referee answers or ignores, never fails
// and never panics.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		"+2", "move 1 +3 #1", "preview 1 +1 +2 +3", "draw\naccept draw", "undo", "say \x00\x01 hi",
		"new toy with a@b.org c@d.org players=3 first=random", "vacation 3", "watch 1\nunwatch 1",
		"resign", "> quoted\nOn x wrote:\n-- \nsig", "help toy", "record 1", "show", "games",
		"accept\ndecline", "new toy with x event=\"", "move 99999999999999999999 +1",
	} {
		f.Add("", s, true)
		f.Add(s, "", false)
	}
	h := started(f, sqliteOnly, map[string]string{"rate-limit": "1000000000"})
	n := 0
	f.Fuzz(func(t *testing.T, subject, body string, player bool) {
		n++
		q := referee.Request{
			From:      referee.Address{Name: "Alice", Addr: "alice@example.org"},
			To:        h.expand("{plus 1 alice@example.org}"),
			Subject:   subject,
			Body:      body,
			MessageID: fmt.Sprintf("fuzz%d@test", n),
			Received:  h.now,
		}
		if !player {
			q.From = referee.Address{Name: subject, Addr: "stranger@example.org"}
			q.To = "referee@pbem.example"
		}
		if err := h.ref.Handle(h.ctx, q); err != nil {
			t.Fatalf("Handle(%q, %q) = %v", subject, body, err)
		}
		if p := h.ref.Stats().Panics; p > 0 {
			t.Fatalf("Handle(%q, %q) panicked", subject, body)
		}
		due, err := h.store.Due(h.ctx, h.now.Add(time.Hour), 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range due {
			h.store.Sent(h.ctx, o.ID)
		}
	})
}

// Example wires a referee to its store and answers one message.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "pbem-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store, err := archive.Open(ctx, dir, nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: "referee@pbem.example"})
	if err != nil {
		panic(err)
	}
	err = ref.Handle(ctx, referee.Request{
		From:      referee.Address{Name: "Alice", Addr: "alice@example.org"},
		To:        "referee@pbem.example",
		Subject:   "games",
		MessageID: "1@example.org",
	})
	if err != nil {
		panic(err)
	}
	// The mail transport sends what is due and marks it sent.
	due, err := store.Due(ctx, time.Now().Add(time.Minute), 10)
	if err != nil {
		panic(err)
	}
	for _, o := range due {
		fmt.Printf("to %s: %s\n", o.To[0].Addr, o.Subject)
		store.Sent(ctx, o.ID)
	}
	// Output: to alice@example.org: [pbem] your games
}

// TestCommandLimit: a message is read for at most MaxCommands command
// lines; the reply says how many were not read.
func TestCommandLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		body := strings.Repeat("games\n", referee.MaxCommands+5)
		out := h.send("from: Alice <alice@example.org>\n\n" + body)
		text := strings.Join(strings.Fields(out), " ")
		if want := fmt.Sprintf("Your message has %d lines of commands; only the first %d were read.", referee.MaxCommands+5, referee.MaxCommands); !strings.Contains(text, want) {
			t.Errorf("the reply lacks %q:\n%s", want, out)
		}
		if n := strings.Count(out, "Your games (alice@example.org)"); n != referee.MaxCommands {
			t.Errorf("%d games lists in the reply, want %d", n, referee.MaxCommands)
		}
	})
}
