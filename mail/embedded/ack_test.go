package embedded

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail/embedded/internal/imapmemserver"
)

// openAccount opens the journal in dir into a fresh account bob, as a
// start of the servers does, and returns how many messages its INBOX
// holds.
func openAccount(t *testing.T, dir string) (*account, uint32) {
	t.Helper()
	u := imapmemserver.NewUser("bob@pbem.local", "bob")
	require.NoError(t, u.Create("INBOX", nil))
	acct := &account{user: u, addr: "bob@pbem.local", local: "bob"}
	j, _, err := openJournal(dir, map[string]*account{"bob": acct}, nil)
	require.NoError(t, err)
	acct.j = j
	t.Cleanup(j.close)
	st, err := u.Status("INBOX", &imap.StatusOptions{NumMessages: true})
	require.NoError(t, err)
	return acct, *st.NumMessages
}

// The process dies after a delivery was fsynced but before its ack, so
// before the 250: the sender will send the message again, so it is
// dropped. After a reboot the ack may have been lost with the page cache
// after the 250 went out: the delivery is kept.
func TestDeliveryWithoutAck(t *testing.T) {
	t.Run("process crash", func(t *testing.T) {
		dir := t.TempDir()
		acct, _ := openAccount(t, dir)
		_, err := acct.deliver("INBOX", []byte("Subject: one\r\n\r\nacked\r\n"), nil, time.Now(), "")
		require.NoError(t, err)
		acct.mu.Lock()
		require.NoError(t, acct.log(&record{Op: "append", Mailbox: "INBOX", Time: time.Now(), raw: []byte("Subject: two\r\n\r\nnot acked\r\n")}))
		acct.mu.Unlock()
		acct.j.close()

		acct, n := openAccount(t, dir)
		assert.Equal(t, uint32(1), n, "the delivery without ack is dropped")
		_, err = acct.deliver("INBOX", []byte("Subject: three\r\n\r\nacked\r\n"), nil, time.Now(), "")
		require.NoError(t, err)
		acct.j.close()
		_, n = openAccount(t, dir)
		assert.Equal(t, uint32(2), n, "and stays dropped")
	})
	t.Run("reboot", func(t *testing.T) {
		dir := t.TempDir()
		acct, _ := openAccount(t, dir)
		acct.mu.Lock()
		require.NoError(t, acct.log(&record{Op: "boot", Mailbox: "an earlier boot"}))
		require.NoError(t, acct.log(&record{Op: "append", Mailbox: "INBOX", Time: time.Now(), raw: []byte("Subject: two\r\n\r\nnot acked\r\n")}))
		acct.mu.Unlock()
		acct.j.close()

		acct, n := openAccount(t, dir)
		assert.Equal(t, uint32(1), n, "kept after a reboot")
		acct.j.close()
		_, n = openAccount(t, dir)
		assert.Equal(t, uint32(1), n, "kept once")
	})
	t.Run("acks out of order", func(t *testing.T) {
		// Two deliveries written, then acked in the other order: the
		// second took UID 1 live, and takes it again.
		dir := t.TempDir()
		acct, _ := openAccount(t, dir)
		acct.mu.Lock()
		a, _, err := acct.write(&record{Op: "append", Mailbox: "INBOX", raw: []byte("Subject: a\r\n\r\nfirst written\r\n")})
		require.NoError(t, err)
		b, _, err := acct.write(&record{Op: "append", Mailbox: "INBOX", raw: []byte("Subject: b\r\n\r\nsecond written\r\n")})
		require.NoError(t, err)
		require.NoError(t, acct.log(&record{Op: "ack", At: &b}))
		require.NoError(t, acct.log(&record{Op: "ack", At: &a}))
		acct.mu.Unlock()
		acct.j.close()

		acct, n := openAccount(t, dir)
		require.Equal(t, uint32(2), n)
		sess := imapmemserver.NewUserSession(acct.user)
		defer sess.Close()
		_, err = sess.Select("INBOX", nil)
		require.NoError(t, err)
		for text, uid := range map[string]imap.UID{"second written": 1, "first written": 2} {
			data, err := sess.Search(imapserver.NumKindUID, &imap.SearchCriteria{Body: []string{text}}, &imap.SearchOptions{})
			require.NoError(t, err)
			assert.Equal(t, []imap.UID{uid}, data.AllUIDs(), text)
		}
	})
	t.Run("journal of one account", func(t *testing.T) {
		// An earlier version's bob.journal: no account named, each ack
		// right after its delivery and naming none. It is replayed
		// before the journal of all, and its last delivery, without an ack,
		// is dropped for good.
		dir := t.TempDir()
		f, err := os.OpenFile(filepath.Join(dir, "bob.journal"), os.O_RDWR|os.O_CREATE, 0o600)
		require.NoError(t, err)
		old := &journal{f: f, path: f.Name()}
		require.NoError(t, old.log(&record{Op: "boot", Mailbox: bootID()}))
		for i := range 2 {
			require.NoError(t, old.log(&record{Op: "append", Mailbox: "INBOX", raw: fmt.Appendf(nil, "Subject: old\r\n\r\nacked %d\r\n", i)}))
			require.NoError(t, old.log(&record{Op: "ack"}))
		}
		require.NoError(t, old.log(&record{Op: "append", Mailbox: "INBOX", raw: []byte("Subject: old\r\n\r\nnot acked\r\n")}))
		old.close()

		acct, n := openAccount(t, dir)
		assert.Equal(t, uint32(2), n)
		_, err = acct.deliver("INBOX", []byte("Subject: new\r\n\r\nacked\r\n"), nil, time.Now(), "")
		require.NoError(t, err)
		acct.j.close()
		_, n = openAccount(t, dir)
		assert.Equal(t, uint32(3), n)
	})
}
