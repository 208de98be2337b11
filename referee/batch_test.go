package referee_test

import (
	"context"
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
	one, all := started(t, nil), started(t, nil)
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
	h := started(t, nil)
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
}
