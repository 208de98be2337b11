package embedded

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldFile is a journal file that counts its fsyncs and the records
// written to it by operation, and can hold an fsync until given records
// are written: a disk whose fsync takes as long as the test wants.
type heldFile struct {
	journalFile

	mu      sync.Mutex
	syncs   int
	ops     map[string]int
	want    map[string]int // while held: the counts that release the fsync
	release chan struct{}
}

func (h *heldFile) Write(p []byte) (int, error) {
	var ops []string // a write may hold several records
	_, _ = readRecords(bytes.NewReader(p), func(_, _ int64, rec *record) error {
		ops = append(ops, rec.Op)
		return nil
	})
	h.mu.Lock()
	for _, op := range ops {
		h.ops[op]++
	}
	if h.want != nil && h.reached() {
		close(h.release)
		h.want = nil
	}
	h.mu.Unlock()
	return h.journalFile.Write(p)
}

// reached reports whether every wanted count is written. Call it with
// h.mu held.
func (h *heldFile) reached() bool {
	for op, n := range h.want {
		if h.ops[op] < n {
			return false
		}
	}
	return true
}

func (h *heldFile) Sync() error {
	h.mu.Lock()
	h.syncs++
	release := h.release
	h.mu.Unlock()
	if release != nil {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
			// The records never came (their writers wait for this
			// fsync): hold no more, the counts tell.
			h.mu.Lock()
			h.want, h.release = nil, nil
			h.mu.Unlock()
		}
	}
	return h.journalFile.Sync()
}

// hold makes the next fsyncs wait until more records of each operation
// are written, as many as more says.
func (h *heldFile) hold(more map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.want = map[string]int{}
	for op, n := range more {
		h.want[op] = h.ops[op] + n
	}
	h.release = make(chan struct{})
}

func (h *heldFile) counts() (syncs int, ops map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.syncs, maps.Clone(h.ops)
}

// Many SMTP sessions delivering at once, to the referee and to players,
// share fsyncs: while one fsync is held, every other delivery and an IMAP
// STORE on the referee's account write their records (none waits for an
// account's lock behind the fsync), and one more fsync covers them all.
// Every delivery is then in its mailbox once, and a restart gives the same
// mailbox.
func TestConcurrentDeliveriesShareFsyncs(t *testing.T) {
	dir := t.TempDir()
	var files []*heldFile
	s, err := Start(&Options{Dir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		wrapJournal: func(f journalFile) journalFile {
			h := &heldFile{journalFile: f, ops: map[string]int{}}
			files = append(files, h)
			return h
		}})
	require.NoError(t, err)
	defer s.Close()
	ref := files[0]
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, []byte("From: alice@pbem.local\r\nSubject: first\r\n\r\nfirst\r\n")))

	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Login("referee@pbem.local", "referee").Wait())
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)

	const senders, others = 64, 16 // to the referee, to bob and carol
	syncsBefore, _ := ref.counts()
	ref.hold(map[string]int{"append": senders + others, "store": 1})
	var wg sync.WaitGroup
	errs := make([]error, senders+others+1)
	for i := range senders + others {
		to := "referee@pbem.local"
		if i >= senders {
			to = []string{"bob@pbem.local", "carol@pbem.local"}[i%2]
		}
		wg.Go(func() {
			errs[i] = sendOne(s.SMTPAddr(), to, fmt.Appendf(nil, "From: alice@pbem.local\r\nSubject: move %d\r\n\r\nmove %d\r\n", i, i))
		})
	}
	wg.Go(func() {
		var first imap.UIDSet
		first.AddNum(1)
		errs[senders+others] = c.Store(first, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close()
	})
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "session %d", i)
	}
	syncs, ops := ref.counts()
	t.Logf("%d deliveries and a STORE at once: %d fsyncs, records %v", senders+others, syncs-syncsBefore, ops)
	assert.LessOrEqual(t, syncs-syncsBefore, 2, "one fsync held while all %d records were written, one more for them all", senders+others+1)
	assert.Equal(t, senders+others+1, ops["ack"], "each delivery acknowledged once")
	for _, user := range []string{"bob", "carol"} {
		st, err := s.Status(user, "INBOX")
		require.NoError(t, err)
		assert.Equal(t, uint32(others/2), *st.NumMessages, user)
	}

	want := mailboxOf(t, s)
	require.Len(t, want, senders+1)
	subjects := map[string]bool{}
	for i, m := range want {
		assert.Equal(t, imap.UID(i+1), m.uid, "UIDs in order without gaps")
		subjects[m.subject] = true
	}
	assert.Len(t, subjects, senders+1, "every delivery once")
	assert.Equal(t, []imap.Flag{imap.FlagSeen}, want[0].flags)
	c.Close()
	s.Close()

	s2, err := Start(&Options{Dir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	defer s2.Close()
	assert.Equal(t, want, mailboxOf(t, s2), "the same mailbox after a restart")
}

// sendOne sends raw from alice to to over its own SMTP session.
func sendOne(addr, to string, raw []byte) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Auth(sasl.NewPlainClient("", "alice@pbem.local", "alice")); err != nil {
		return err
	}
	if err := c.SendMail("alice@pbem.local", []string{to}, bytes.NewReader(raw)); err != nil {
		return err
	}
	return c.Quit()
}

type stored struct {
	uid     imap.UID
	flags   []imap.Flag
	subject string
}

// mailboxOf lists the referee's INBOX over IMAP, by UID.
func mailboxOf(t *testing.T, s *Servers) []stored {
	t.Helper()
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Login("referee@pbem.local", "referee").Wait())
	sel, err := c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait()
	require.NoError(t, err)
	if sel.NumMessages == 0 {
		return nil
	}
	var all imap.SeqSet
	all.AddRange(1, 0)
	fetched, err := c.Fetch(all, &imap.FetchOptions{UID: true, Flags: true, Envelope: true}).Collect()
	require.NoError(t, err)
	out := make([]stored, 0, len(fetched))
	for _, m := range fetched {
		out = append(out, stored{m.UID, m.Flags, m.Envelope.Subject})
	}
	slices.SortFunc(out, func(a, b stored) int { return cmp.Compare(a.uid, b.uid) })
	return out
}
