package embedded

import (
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openAccount opens bob's journal in dir into a fresh account, as a start
// of the servers does, and returns how many messages its INBOX holds.
func openAccount(t *testing.T, dir string) (*account, uint32) {
	t.Helper()
	u := imapmemserver.NewUser("bob@pbem.local", "bob")
	require.NoError(t, u.Create("INBOX", nil))
	acct := &account{user: u, addr: "bob@pbem.local"}
	_, err := acct.openJournal(dir, "bob", nil)
	require.NoError(t, err)
	t.Cleanup(func() { acct.close() })
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
		_, err := acct.deliver("INBOX", []byte("Subject: one\r\n\r\nacked\r\n"), nil, time.Now())
		require.NoError(t, err)
		acct.mu.Lock()
		require.NoError(t, acct.log(&record{Op: "append", Mailbox: "INBOX", Time: time.Now(), raw: []byte("Subject: two\r\n\r\nnot acked\r\n")}))
		acct.mu.Unlock()
		acct.close()

		acct, n := openAccount(t, dir)
		assert.Equal(t, uint32(1), n, "the delivery without ack is dropped")
		_, err = acct.deliver("INBOX", []byte("Subject: three\r\n\r\nacked\r\n"), nil, time.Now())
		require.NoError(t, err)
		acct.close()
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
		acct.close()

		acct, n := openAccount(t, dir)
		assert.Equal(t, uint32(1), n, "kept after a reboot")
		acct.close()
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
		acct.close()

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
	t.Run("older format", func(t *testing.T) {
		// Acks that name no offset follow their delivery.
		dir := t.TempDir()
		acct, _ := openAccount(t, dir)
		acct.mu.Lock()
		for range 2 {
			require.NoError(t, acct.log(&record{Op: "append", Mailbox: "INBOX", raw: []byte("Subject: old\r\n\r\nacked\r\n")}))
			require.NoError(t, acct.log(&record{Op: "ack"}))
		}
		require.NoError(t, acct.log(&record{Op: "append", Mailbox: "INBOX", raw: []byte("Subject: old\r\n\r\nnot acked\r\n")}))
		acct.mu.Unlock()
		acct.close()
		_, n := openAccount(t, dir)
		assert.Equal(t, uint32(2), n)
	})
}
