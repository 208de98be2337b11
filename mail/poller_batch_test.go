package mail_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

// batcher is a BatchHandler: it records the batches it is given and answers
// each message with fn's error.
type batcher struct {
	mu      sync.Mutex
	batches [][]string // Message-IDs
	singles []string   // Message-IDs handed to Handle
	fn      func(in *mail.Inbound) error
	panics  bool
}

func (b *batcher) Handle(_ context.Context, in *mail.Inbound) error {
	b.mu.Lock()
	b.singles = append(b.singles, in.MessageID)
	b.mu.Unlock()
	return b.fn(in)
}

func (b *batcher) HandleBatch(_ context.Context, ins []*mail.Inbound) []error {
	b.mu.Lock()
	var ids []string
	for _, in := range ins {
		ids = append(ids, in.MessageID)
	}
	b.batches = append(b.batches, ids)
	b.mu.Unlock()
	if b.panics {
		panic("batch bug")
	}
	errs := make([]error, len(ins))
	for i, in := range ins {
		errs[i] = b.fn(in)
	}
	return errs
}

// TestPollerBatchHandler: a fetched batch goes to HandleBatch in one call,
// in UID order, and each message's error counts for that message alone: the
// committed ones are moved to Processed, a temporary failure is retried, a
// permanent one rejected.
func TestPollerBatchHandler(t *testing.T) {
	s := startServers(t, nil)
	ids := deliverMoves(t, s, 7)
	var mu sync.Mutex
	tries := map[string]int{}
	b := &batcher{fn: func(in *mail.Inbound) error {
		mu.Lock()
		defer mu.Unlock()
		tries[in.MessageID]++
		switch {
		case in.MessageID == ids[1] && tries[in.MessageID] == 1:
			return errors.New("database is locked")
		case in.MessageID == ids[5]:
			return mail.Permanent(errors.New("no such game"))
		}
		return nil
	}}
	rej := &rejections{}
	opts := fastPoller(t, s)
	opts.BatchSize = 4
	opts.Rejecter = rej
	runPoller(t, opts, b)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 6 }, "batches not processed")
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Rejected"); return n == 1 }, "not rejected")
	n, _ := count(t, s, "referee", "INBOX")
	assert.Equal(t, uint32(0), n)
	_, unseen := count(t, s, "referee", "Processed")
	assert.Equal(t, uint32(0), unseen, "processed messages must be \\Seen")

	b.mu.Lock()
	defer b.mu.Unlock()
	require.GreaterOrEqual(t, len(b.batches), 2)
	assert.Equal(t, ids[:4], b.batches[0], "the first fetch, in UID order")
	assert.Equal(t, ids[4:], b.batches[1], "the rest")
	assert.Equal(t, []string{ids[1]}, b.singles, "the retried message alone goes to Handle")
	require.Equal(t, 1, rej.len())
	assert.Equal(t, ids[5], rej.got[0].MessageID)
	assert.Equal(t, 2, tries[ids[1]])
	for _, id := range []string{ids[0], ids[2], ids[3], ids[4], ids[6]} {
		assert.Equal(t, 1, tries[id], "%s handled once", id)
	}
	assert.Equal(t, int64(6), opts.Metrics.Processed.Load())
}

// TestPollerBatchHandlerPanic: a panicking HandleBatch hands the batch to
// Handle message by message, so that only the message at fault (none
// here) would be rejected.
func TestPollerBatchHandlerPanic(t *testing.T) {
	s := startServers(t, nil)
	deliverMoves(t, s, 3)
	b := &batcher{fn: func(*mail.Inbound) error { return nil }, panics: true}
	opts := fastPoller(t, s)
	runPoller(t, opts, b)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 3 }, "not processed")
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Len(t, b.batches, 1)
	assert.Len(t, b.singles, 3)
	assert.Equal(t, int64(1), opts.Metrics.Panics.Load())
}

// TestPollerBatchInFlight: a batch is decided while the poller fetches the
// next, but the Handler never gets two batches at once, the next only
// once the one before returned (it sees what that one did), and a message
// being decided is never fetched into another batch, though it is still
// unseen in the mailbox meanwhile.
func TestPollerBatchInFlight(t *testing.T) {
	s := startServers(t, nil)
	ids := deliverMoves(t, s, 12)
	hold := make(chan struct{})
	var active, most atomic.Int32
	var once sync.Once
	b := &batcher{fn: func(in *mail.Inbound) error { return nil }}
	h := &holdingBatcher{b: b, before: func() {
		if n := active.Add(1); n > most.Load() {
			most.Store(n)
		}
	}, after: func() {
		once.Do(func() { <-hold }) // the first batch, recorded, waits
		active.Add(-1)
	}}
	proxy := newIMAPProxy(t, s.IMAPAddr())
	opts := fastPoller(t, s)
	opts.Addr = proxy.Addr()
	opts.BatchSize = 4
	runPoller(t, opts, h)
	eventually(t, 5*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.batches) == 1
	}, "no first batch")
	// the poller goes on while the first is held: the next batch's
	// bodies are fetched meanwhile
	eventually(t, 5*time.Second, func() bool { cmds, _ := proxy.bodyFetches(); return len(cmds) >= 2 },
		"the next batch was not fetched while the first was decided")
	b.mu.Lock()
	assert.Len(t, b.batches, 1, "a second batch was handed before the first returned")
	b.mu.Unlock()
	n, _ := count(t, s, "referee", "INBOX")
	assert.Equal(t, uint32(12), n, "nothing is moved before its batch is decided")
	close(hold)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 12 }, "batches not processed")
	b.mu.Lock()
	defer b.mu.Unlock()
	var all []string
	for _, batch := range b.batches {
		all = append(all, batch...)
	}
	assert.Equal(t, ids, all, "every message once, in UID order")
	assert.Equal(t, int32(1), most.Load(), "two batches at once")
	assert.Empty(t, b.singles)
}

// holdingBatcher calls before and after around each batch b records.
type holdingBatcher struct {
	b             *batcher
	before, after func()
}

func (h *holdingBatcher) Handle(ctx context.Context, in *mail.Inbound) error {
	return h.b.Handle(ctx, in)
}

func (h *holdingBatcher) HandleBatch(ctx context.Context, ins []*mail.Inbound) []error {
	h.before()
	defer h.after()
	return h.b.HandleBatch(ctx, ins)
}

// TestPollerCopiesTakeNoPlaceInABatch: the copies of the referee's replies
// (PollerOptions.Copies), known by their envelope and expunged, do not
// count towards BatchSize: with every move followed by the copies of its
// two replies, as under load, a batch still holds BatchSize moves, not a
// third of them.
func TestPollerCopiesTakeNoPlaceInABatch(t *testing.T) {
	s := startServers(t, nil)
	var ids []string
	for i := range 8 {
		id, raw := playerMove(s.RefereeAddress(), "move")
		ids = append(ids, id)
		require.NoError(t, s.Deliver("alice@pbem.local", []string{s.RefereeAddress()}, raw))
		for j := range 2 {
			copyRaw := crlf(fmt.Sprintf(`
From: pbem referee <%s>
To: bob@pbem.local
Subject: Re: game %d
Message-ID: <copy-%d-%d@pbem.local>
Content-Type: text/plain

Your move.
`, s.RefereeAddress(), i, i, j))
			require.NoError(t, s.Deliver(s.RefereeAddress(), []string{copyTo}, copyRaw))
		}
	}
	copies, err := mail.NewCopies(mail.CopiesOptions{To: copyTo, From: s.RefereeAddress()})
	require.NoError(t, err)
	opts := fastPoller(t, s)
	opts.Copies = copies
	opts.BatchSize = 4
	b := &batcher{fn: func(*mail.Inbound) error { return nil }}
	runPoller(t, opts, b)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, s.RefereeAddress(), "Processed"); return n == 8 }, "moves not processed")
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, s.RefereeAddress(), "INBOX"); return n == 0 }, "copies not expunged")
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Equal(t, [][]string{ids[:4], ids[4:]}, b.batches, "batches of BatchSize moves, in UID order")
	assert.Empty(t, b.singles)
	assert.Equal(t, int64(16), opts.Metrics.Copies.Load())
}
