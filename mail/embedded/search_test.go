package embedded

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail/embedded/internal/imapmemserver"
)

// The poller's work on the referee's INBOX (UID SEARCH UNSEEN, UID STORE,
// UID MOVE, UID EXPUNGE, all journaled by UID) and the evictions past the
// players' bound parse no message: a message whose header is garbage is
// found by UNSEEN like the others. A search on a header field still
// parses them, and finds the message.
func TestFlagSearchesParseNoMessage(t *testing.T) {
	s, err := Start(&Options{Dir: t.TempDir(), Players: []string{"p0", "p1", "p2"}, MaxBytes: 4000, MaxMessages: 3,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	defer s.Close()
	before := imapmemserver.SearchReads()
	for i := range 10 {
		raw := fmt.Appendf(nil, "From: p0@pbem.local\r\nSubject: move %d\r\nMessage-ID: <m%d@pbem.local>\r\n\r\n%0500d\r\n", i, i, i)
		if i == 4 {
			raw = []byte("\x00garbage: \xff\r\n no header\r\n")
		}
		to := fmt.Sprintf("p%d", i%3)
		_, err := s.accts[to].deliver("INBOX", raw, nil, time.Time{}, "")
		require.NoError(t, err)
		_, err = s.accts["referee"].deliver("INBOX", raw, nil, time.Time{}, "")
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, s.accts["p0"].ledger.bytes(), int64(4000))

	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Login("referee@pbem.local", "referee").Wait())
	require.NoError(t, c.Create("Processed", nil).Wait())
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)
	unseen := &imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}
	data, err := c.UIDSearch(unseen, nil).Wait()
	require.NoError(t, err)
	assert.Equal(t, []imap.UID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, data.AllUIDs())
	first := imap.UIDSetNum(1, 2, 5)
	require.NoError(t, c.Store(first, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close())
	_, err = c.Move(first, "Processed").Wait()
	require.NoError(t, err)
	require.NoError(t, c.Store(imap.UIDSetNum(3), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close())
	require.NoError(t, c.UIDExpunge(imap.UIDSetNum(3)).Close())
	data, err = c.UIDSearch(unseen, nil).Wait()
	require.NoError(t, err)
	assert.Equal(t, []imap.UID{4, 6, 7, 8, 9, 10}, data.AllUIDs())
	assert.Equal(t, int64(0), imapmemserver.SearchReads()-before, "messages parsed by flag-only searches")

	data, err = c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: "<m7@pbem.local>"}}}, nil).Wait()
	require.NoError(t, err)
	assert.Equal(t, []imap.UID{8}, data.AllUIDs())
	assert.NotZero(t, imapmemserver.SearchReads()-before, "a header search parses")
}
