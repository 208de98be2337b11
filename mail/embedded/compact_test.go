package embedded

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dumpAll lists every mailbox of every account as a client sees it:
// UIDVALIDITY, UIDNEXT, subscription, and each message's UID, flags,
// date and text.
func dumpAll(t *testing.T, s *Servers) string {
	t.Helper()
	var b strings.Builder
	for _, a := range s.accounts {
		c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
		require.NoError(t, err)
		require.NoError(t, c.Login(a.Address, a.Password).Wait())
		list, err := c.List("", "*", &imap.ListOptions{ReturnSubscribed: true}).Collect()
		require.NoError(t, err)
		slices.SortFunc(list, func(x, y *imap.ListData) int { return strings.Compare(x.Mailbox, y.Mailbox) })
		for _, l := range list {
			sel, err := c.Select(l.Mailbox, &imap.SelectOptions{ReadOnly: true}).Wait()
			require.NoError(t, err)
			fmt.Fprintf(&b, "%s %s validity %d next %d attrs %v\n", a.Address, l.Mailbox, sel.UIDValidity, sel.UIDNext, l.Attrs)
			if sel.NumMessages == 0 {
				continue
			}
			var all imap.SeqSet
			all.AddRange(1, 0)
			msgs, err := c.Fetch(all, &imap.FetchOptions{UID: true, Flags: true, InternalDate: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
			require.NoError(t, err)
			for _, m := range msgs {
				fmt.Fprintf(&b, "  %d %v %s %q\n", m.UID, m.Flags, m.InternalDate.UTC().Format("2006-01-02T15:04:05.000"), m.BodySection[0].Bytes)
			}
		}
		c.Close()
	}
	return b.String()
}

// A journal much larger than the mail it holds is rewritten when the
// servers close, or at start after a crash, as a snapshot: smaller, and every mailbox as before, with the same UIDs,
// UIDVALIDITY, UIDNEXT, flags, dates and subscriptions; Delivered still
// knows the last deliveries, and delivery goes on after the UIDs given.
func TestCompactKeepsMailboxes(t *testing.T) {
	t.Run("at close", func(t *testing.T) { testCompact(t, false) })
	t.Run("at start, after a crash", func(t *testing.T) { testCompact(t, true) })
}

func testCompact(t *testing.T, atStart bool) {
	defer func(m int64) { compactMin = m }(compactMin)
	compactMin = 0
	dir := t.TempDir()
	opts := &Options{Dir: dir, MaxMessages: 3, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s, err := Start(opts)
	require.NoError(t, err)
	for i := range 40 {
		body := strings.Repeat(fmt.Sprintf("reply %d ", i), 50)
		raw := fmt.Sprintf("From: referee@pbem.local\r\nTo: alice@pbem.local\r\nMessage-ID: <r%d@pbem.local>\r\n\r\n%s\r\n", i, body)
		require.NoError(t, s.Deliver("referee@pbem.local", []string{"alice@pbem.local"}, []byte(raw)))
		raw = fmt.Sprintf("From: alice@pbem.local\r\nTo: referee@pbem.local\r\nMessage-ID: <m%d@pbem.local>\r\n\r\nmove %d\r\n", i, i)
		require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, []byte(raw)))
	}
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	require.NoError(t, c.Login("referee@pbem.local", "referee").Wait())
	for _, name := range []string{"Processed", "Gone", "Kept"} {
		require.NoError(t, c.Create(name, nil).Wait())
	}
	require.NoError(t, c.Subscribe("Kept").Wait())
	require.NoError(t, c.Delete("Gone").Wait())
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)
	var first, some imap.UIDSet
	first.AddRange(1, 30)
	some.AddRange(31, 33)
	require.NoError(t, c.Store(first, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close())
	_, err = c.Move(first, "Processed").Wait()
	require.NoError(t, err)
	_, err = c.Copy(some, "Kept").Wait()
	require.NoError(t, err)
	require.NoError(t, c.Store(some, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted, "$Played"}}, nil).Close())
	require.NoError(t, c.Expunge().Close())
	_, err = c.Select("Processed", nil).Wait()
	require.NoError(t, err)
	var most imap.UIDSet
	most.AddRange(1, 28)
	require.NoError(t, c.Store(most, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close())
	require.NoError(t, c.Expunge().Close())
	c.Close()
	want := dumpAll(t, s)
	path := filepath.Join(dir, journalName)
	before, err := os.Stat(path)
	require.NoError(t, err)
	if atStart {
		// A crash: the journal as it was, not compacted by Close.
		big, err := os.ReadFile(path)
		require.NoError(t, err)
		s.Close()
		require.NoError(t, os.WriteFile(path, big, 0o600))
	} else {
		s.Close()
	}
	s, err = Start(opts)
	require.NoError(t, err)
	defer s.Close()
	after, err := os.Stat(path)
	require.NoError(t, err)
	assert.Less(t, after.Size(), before.Size()/2, "journal size after compaction (before %d)", before.Size())
	assert.Equal(t, want, dumpAll(t, s), "mailboxes after compaction")
	assert.True(t, s.Delivered("referee@pbem.local", "alice@pbem.local", "r0@pbem.local"), "Delivered forgot a delivery since expunged")

	raw := "From: alice@pbem.local\r\nTo: referee@pbem.local\r\nMessage-ID: <after@pbem.local>\r\n\r\nafter\r\n"
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, []byte(raw)))
	st, err := s.Status("referee", "INBOX")
	require.NoError(t, err)
	assert.Equal(t, imap.UID(42), st.UIDNext, "UIDNEXT after one more delivery")

	// A second start finds nothing more to compact, and the same mail.
	want = dumpAll(t, s)
	s.Close()
	s, err = Start(opts)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, want, dumpAll(t, s))
}
