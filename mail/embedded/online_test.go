package embedded

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A running journal compacts itself once it is onlineMin and onlineRatio
// times its mail: while deliveries arrive from many goroutines and the
// referee's client moves and expunges what it read, the file stays
// bounded; the mailboxes are those a start replays from it, whether the
// servers stop (the file as it is left) or crash (the file as it stands);
// deliveries go on after the UIDs given, and Delivered still knows the
// last deliveries.
func TestCompactWhileRunning(t *testing.T) {
	defer func(m, s int64) { onlineMin, onlineStep = m, s }(onlineMin, onlineStep)
	onlineMin, onlineStep = 64<<10, 16<<10
	dir := t.TempDir()
	players := []string{"alice", "bob", "carol", "dave"}
	opts := &Options{Dir: dir, Players: players, MaxBytes: 40 << 10, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s, err := Start(opts)
	require.NoError(t, err)
	path := filepath.Join(dir, journalName)

	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	require.NoError(t, c.Login("referee@pbem.local", "referee").Wait())
	require.NoError(t, c.Create("Processed", nil).Wait())
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)

	var written int64
	largest := int64(0)
	const rounds, perRound = 100, 8
	for round := range rounds {
		var wg sync.WaitGroup
		for k := range perRound {
			wg.Go(func() {
				i := round*perRound + k
				to := players[i%len(players)]
				body := strings.Repeat(fmt.Sprintf("reply %d ", i), 120)
				raw := fmt.Sprintf("From: referee@pbem.local\r\nTo: %s@pbem.local\r\nMessage-ID: <r%d@pbem.local>\r\n\r\n%s\r\n", to, i, body)
				assert.NoError(t, s.Deliver("referee@pbem.local", []string{to + "@pbem.local"}, []byte(raw)))
				raw = fmt.Sprintf("From: %s@pbem.local\r\nTo: referee@pbem.local\r\nMessage-ID: <m%d@pbem.local>\r\n\r\nmove %d\r\n", to, i, i)
				assert.NoError(t, s.Deliver(to+"@pbem.local", []string{"referee@pbem.local"}, []byte(raw)))
			})
		}
		// the referee reads its mail meanwhile: some kept, most gone
		require.NoError(t, c.Noop().Wait())
		var all imap.SeqSet
		all.AddRange(1, 0)
		if round%30 == 0 && c.Mailbox().NumMessages > 0 {
			_, err := c.Copy(all, "Processed").Wait()
			require.NoError(t, err)
		}
		require.NoError(t, c.Store(all, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close())
		require.NoError(t, c.Expunge().Close())
		wg.Wait()
		written += perRound * (1000 + 100)
		st, err := os.Stat(path)
		require.NoError(t, err)
		largest = max(largest, st.Size())
	}
	c.Close()
	end := s.journal.end.Load()
	t.Logf("%d bytes journaled, the file at most %d bytes, base %d", end, largest, s.journal.base.Load())
	require.Greater(t, s.journal.base.Load(), int64(0), "the journal was never compacted while running")
	assert.Less(t, largest, end/4, "the file grew with everything journaled")

	raw := "From: bob@pbem.local\r\nTo: referee@pbem.local\r\nMessage-ID: <last@pbem.local>\r\n\r\nlast\r\n"
	require.NoError(t, s.Deliver("bob@pbem.local", []string{"referee@pbem.local"}, []byte(raw)))
	want := dumpAll(t, s)
	assert.True(t, s.Delivered("bob@pbem.local", "referee@pbem.local", "last@pbem.local"))

	// a crash: the file as it stands, started elsewhere
	crashed := t.TempDir()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(crashed, journalName), data, 0o600))
	s.Close()
	for _, d := range []string{dir, crashed} {
		o := *opts
		o.Dir = d
		s, err := Start(&o)
		require.NoError(t, err)
		assert.Equal(t, want, dumpAll(t, s), "the mailboxes after a start in %s", d)
		assert.True(t, s.Delivered("bob@pbem.local", "referee@pbem.local", "last@pbem.local"), "Delivered forgot the last delivery")
		st, err := s.Status("referee", "INBOX")
		require.NoError(t, err)
		next := st.UIDNext
		require.NoError(t, s.Deliver("bob@pbem.local", []string{"referee@pbem.local"}, []byte(strings.Replace(raw, "last@", "after@", 1))))
		st, err = s.Status("referee", "INBOX")
		require.NoError(t, err)
		assert.Equal(t, next+1, st.UIDNext)
		s.Close()
	}
}
