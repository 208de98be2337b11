package referee_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pbem/archive"
	"pbem/referee"
)

// invalidStore refuses the next invalid commits as archive.ErrInvalidChange
// (a change that can never be stored as it is), the rest as the store does.
type invalidStore struct {
	referee.Store
	mu      sync.Mutex
	invalid int
	commits []*archive.Change // the changes it stored
}

func (f *invalidStore) Commit(ctx context.Context, c *archive.Change) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.invalid > 0 {
		f.invalid--
		return fmt.Errorf("%w: outgoing mail x: UNIQUE constraint failed: outbox.message_id", archive.ErrInvalidChange)
	}
	if err := f.Store.Commit(ctx, c); err != nil {
		return err
	}
	f.commits = append(f.commits, c)
	return nil
}

// TestInvalidChangeIsAnsweredOnce: a message whose change the store can
// never take is answered once, "could not be processed", with nothing of
// it applied, and marked processed; it is not retried for ever. If even
// that answer cannot be stored, the error is permanent (the poller sets
// the message aside); a failure of the store stays temporary
// (TestStoreFailureLosesNothing).
func TestInvalidChangeIsAnsweredOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		bad := &invalidStore{Store: h.store, invalid: 1}
		ref, err := referee.New(bad, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: h.clock})
		if err != nil {
			t.Fatal(err)
		}
		req := h.request("m1", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n"))
		if err := ref.Handle(h.ctx, req); err != nil {
			t.Fatalf("Handle = %v, want nil (answered and committed)", err)
		}
		if seen, _ := h.store.Seen(h.ctx, "<m1@test.example>"); !seen {
			t.Error("the message was not marked processed: it would be retried for ever")
		}
		if got := h.record(1); got != "*" {
			t.Errorf("record = %q, want no ply applied", got)
		}
		mails := h.mails()
		if n := strings.Count(mails, ">>> To:"); n != 1 || !strings.Contains(mails, "To: Alice <alice@example.org>") ||
			!strings.Contains(strings.Join(strings.Fields(mails), " "), "could not be processed, and nothing of it was applied") {
			t.Errorf("mails = %s\nwant one to Alice: could not be processed, nothing applied", mails)
		}
		if st := ref.Stats(); st.Unprocessable != 1 {
			t.Errorf("Stats().Unprocessable = %d, want 1", st.Unprocessable)
		}
		if err := ref.Handle(h.ctx, req); err != nil {
			t.Fatalf("Handle again = %v", err)
		}
		if got := h.mails(); got != "(no mail)\n" {
			t.Errorf("handled again, mails:\n%s", got)
		}

		bad.invalid = 2
		req = h.request("m2", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n"))
		err = ref.Handle(h.ctx, req)
		var perm interface{ Permanent() bool }
		if !errors.As(err, &perm) || !perm.Permanent() {
			t.Fatalf("Handle, its answer refused too = %v, want a permanent error", err)
		}
		if !errors.Is(err, archive.ErrInvalidChange) {
			t.Errorf("Handle = %v, want it to wrap ErrInvalidChange", err)
		}
		if seen, _ := h.store.Seen(h.ctx, "<m2@test.example>"); seen {
			t.Error("a message stored with nothing was marked processed")
		}
	})
}

// TestTemporaryFailureIsNotPermanent: a failure of the store (a full
// disk) is returned as it is, never as a permanent error, so that the
// message is tried again.
func TestTemporaryFailureIsNotPermanent(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		flaky := &flakyStore{Store: h.store, fail: 1}
		ref, err := referee.New(flaky, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: h.clock})
		if err != nil {
			t.Fatal(err)
		}
		req := h.request("m1", h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n"))
		err = ref.Handle(h.ctx, req)
		var perm interface{ Permanent() bool }
		if !errors.Is(err, errDiskFull) || errors.As(err, &perm) {
			t.Fatalf("Handle = %v, want the temporary %v", err, errDiskFull)
		}
		if st := ref.Stats(); st.Unprocessable != 0 {
			t.Errorf("Stats().Unprocessable = %d, want 0", st.Unprocessable)
		}
	})
}

// TestTwoRepliesToOneAddress: two answers to one address in one message
// ("standings" on two lines) get two Message-IDs; they used to share one,
// which the outbox refused, and the message was retried for ever. The
// standings of a Swiss of more rounds than entrants, before it starts,
// are answered too.
func TestTwoRepliesToOneAddress(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		h.send("from: Dora <dora@example.org>\n\ntournament new \"Open\" castles swiss rounds=9\n")
		h.send("from: Dora <dora@example.org>\nsubject: Re: [pbem T1 {ttoken 1 director}] tournament: confirm\n\ntournament confirm T1\n")
		out := h.send("from: Mallory <mallory@example.org>\n\ntournament standings T1\ntournament standings T1\n")
		if n := strings.Count(out, "has not started; 0 players joined"); n != 2 {
			t.Fatalf("two standings, %d answers:\n%s", n, out)
		}
		var ids []string
		for _, l := range strings.Split(out, "\n") {
			if id, ok := strings.CutPrefix(l, "Message-ID: "); ok {
				ids = append(ids, id)
			}
		}
		if len(ids) != 2 || ids[0] == ids[1] {
			t.Errorf("Message-IDs %q, want two different", ids)
		}
	})
}

// tournamentOf starts a confirmed tournament T1 directed by
// dora@example.org.
func tournamentOf(t *testing.T, db store, format string) *harness {
	t.Helper()
	h := newHarness(t, db, map[string]string{"rate-limit-total": "100000"})
	h.send("from: Dora <dora@example.org>\n\ntournament new \"Open\" castles " + format + "\n")
	out := h.send("from: Dora <dora@example.org>\nsubject: Re: [pbem T1 {ttoken 1 director}] tournament: confirm\n\ntournament confirm T1\n")
	if !strings.Contains(out, "You direct tournament T1") {
		t.Fatalf("confirm:\n%s", out)
	}
	return h
}

// join has addr join T1 and confirm with the token mailed to it.
func (h *harness) join(addr string) string {
	h.t.Helper()
	h.send("from: " + addr + "\n\njoin T1\n")
	return h.send("from: " + addr + "\nsubject: Re: [pbem T1 {ttoken 1 " + addr + "}] Open: join\n\njoin T1\n")
}

// TestForgedJoinsDoNotFillTournament: 200 forged joins (never confirmed)
// do not fill a tournament: only confirmed entries count against its
// cap of 200.
func TestForgedJoinsDoNotFillTournament(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := tournamentOf(t, db, "roundrobin")
		for i := range referee.MaxEntries {
			h.send(fmt.Sprintf("from: victim%d@example.org\n\njoin T1\n", i))
		}
		h.mails()
		if out := h.join("ann@example.org"); !strings.Contains(out, "You joined tournament T1") {
			t.Fatalf("a real join after %d forged ones:\n%s", referee.MaxEntries, out)
		}
	})
}

// TestTablesEntriesBounded: a tables tournament of tables of 4 takes at
// most MaxTablesSeats/4 players (its draw, a search that grows with the
// field, runs on the mail that opens a round); the next join is refused
// with what the limit is.
func TestTablesEntriesBounded(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		most := referee.MaxTablesSeats / 4
		h := newHarness(t, db, map[string]string{"rate-limit-total": "100000"})
		h.send("from: Dora <dora@example.org>\n\ntournament new \"Open\" toy tables rounds=3 players=4\n")
		h.send("from: Dora <dora@example.org>\nsubject: Re: [pbem T1 {ttoken 1 director}] tournament: confirm\n\ntournament confirm T1\n")
		for i := range most {
			if out := h.join(fmt.Sprintf("p%d@example.org", i)); !strings.Contains(out, "You joined tournament T1") {
				t.Fatalf("join %d:\n%s", i, out)
			}
		}
		out := h.send("from: late@example.org\n\njoin T1\n")
		want := fmt.Sprintf("Tournament T1 is full: %d players joined, as many as it may have.", most)
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Fatalf("join past the cap:\n%s\nwant %q", out, want)
		}
	})
}

// TestMessageIDsKeyed (issue 42): the Message-ID of a reply cannot be
// computed from the request, which its sender chooses: it is keyed with
// the referee's secret, and carries a mark (OwnMessageID) that only the
// secret makes, so that a forged "copy" of a reply is not taken for one.
func TestMessageIDsKeyed(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		ids := func(secret string) (*harness, []string) {
			h := newHarness(t, db, map[string]string{"secret": secret})
			out := h.send("from: Alice <alice@example.org>\nmessage-id: <chosen@example.org>\n\nhelp\n")
			var got []string
			for _, l := range strings.Split(out, "\n") {
				if id, ok := strings.CutPrefix(l, "Message-ID: "); ok {
					got = append(got, strings.Trim(id, "<>"))
				}
			}
			if len(got) == 0 {
				t.Fatalf("no reply to help:\n%s", out)
			}
			return h, got
		}
		h1, a := ids("one secret")
		h2, b := ids("another secret")
		if a[0] == b[0] {
			t.Errorf("the reply to one request has the Message-ID %s under two secrets; want it to depend on the secret", a[0])
		}
		if !h1.ref.OwnMessageID(a[0]) || !h1.ref.OwnMessageID("<"+a[0]+">") {
			t.Errorf("OwnMessageID(%q) = false for the referee that wrote it", a[0])
		}
		local, _, _ := strings.Cut(a[0], "@")
		for _, forged := range []string{
			b[0],                         // another secret's
			local + "@elsewhere.example", // another domain
			"pbem.0.0123456789abcdef0123@pbem.example",   // as ids were, unmarked
			local[:len(local)-1] + "0@pbem.example",      // the mark changed
			strings.Replace(a[0], "pbem.0", "pbem.1", 1), // another base, same mark
			"x@pbem.example", "", "@pbem.example",
		} {
			if forged != a[0] && h1.ref.OwnMessageID(forged) {
				t.Errorf("OwnMessageID(%q) = true; want only ids the referee's secret marked", forged)
			}
		}
		_ = h2
	})
}

// TestTokenMailIsLimited (issue 42): mail with a player's valid token was
// never limited, and anyone has a token after two mails (a game with a
// bot): 200 "show" mails got 200 replies. It counts against a window of
// its own (TokenRateLimit, default 120 an hour), which forged mail,
// without the token, cannot fill.
func TestTokenMailIsLimited(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, map[string]string{"token-rate-limit": "4"})
		show := "from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nshow\n"
		send := func(text string) string {
			h.now = h.now.Add(time.Second) // another request
			return h.send(text)
		}
		h.now = h.now.Add(time.Hour) // a fresh window: accepting counted
		for i := range 4 {
			if out := send(show); !strings.Contains(out, "A to move") {
				t.Fatalf("show %d of 4 allowed was not answered with the board:\n%s", i+1, out)
			}
		}
		if out := send(show); !strings.Contains(out, "more than 4 messages with a game's token") {
			t.Errorf("the first show over the limit was not told so:\n%s", out)
		}
		if out := send(show); out != "(no mail)\n" {
			t.Errorf("the second show over the limit was answered:\n%s", out)
		}
		// Bob's window is his own; forged mail "from" Alice has no token
		// and counts elsewhere.
		if out := send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\nshow\n"); !strings.Contains(out, "A to move") {
			t.Errorf("Bob's show was limited by Alice's mail:\n%s", out)
		}
		h.now = h.now.Add(time.Hour)
		if out := send(show); !strings.Contains(out, "A to move") {
			t.Errorf("a show an hour later was not answered:\n%s", out)
		}
	})
}
