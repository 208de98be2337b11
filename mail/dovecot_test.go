package mail_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
	"pbem/mail/dovecottest"
)

// imapStatus asks a server for a mailbox's counts; a missing mailbox counts
// as empty.
func imapStatus(t *testing.T, addr, user, pass, mailbox string) (messages, unseen uint32) {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Login(user, pass).Wait())
	st, err := c.Status(mailbox, &imap.StatusOptions{NumMessages: true, NumUnseen: true}).Wait()
	if err != nil {
		return 0, 0
	}
	return *st.NumMessages, *st.NumUnseen
}

// TestDovecot runs the poller against a real Dovecot 2.3, with mail
// delivered over LMTP: IDLE delivery, the move to Processed, a broken
// message to Rejected, and a server-side disconnect mid-IDLE.
func TestDovecot(t *testing.T) {
	dc := dovecottest.Start(t, "referee", "alice")
	referee := "referee@" + dovecottest.Domain
	pw := dc.Password(referee)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dc.Log())
		}
	})

	rec := newRecorder(nil)
	rej := &rejections{}
	m := &mail.Metrics{}
	opts := &mail.PollerOptions{
		Addr:         dc.IMAPAddr,
		Security:     mail.SecurityPlain,
		Username:     referee,
		Password:     pw,
		PollInterval: time.Hour, // only IDLE can explain a quick delivery
		BackoffMin:   20 * time.Millisecond,
		BackoffMax:   200 * time.Millisecond,
		Rejecter:     rej,
		Metrics:      m,
		Logger:       testLogger(t),
	}
	runPoller(t, opts, rec)
	processed := func() uint32 {
		n, _ := imapStatus(t, dc.IMAPAddr, referee, pw, "Processed")
		return n
	}

	// Warm up: the poller connects, creates its folders and goes idle.
	_, raw := playerMove("referee@"+dovecottest.Domain, "warm-up")
	dc.Deliver(t, "alice@pbem.test", []string{referee}, raw)
	rec.waitCall(t, 10*time.Second)
	eventually(t, 5*time.Second, func() bool { return processed() == 1 }, "warm-up not moved to Processed")
	time.Sleep(50 * time.Millisecond)

	// Through IDLE, to a plus-address.
	plus := "referee+12.k7x9q@" + dovecottest.Domain
	id, raw := playerMove(plus, "1. e4")
	start := time.Now()
	dc.Deliver(t, "alice@pbem.test", []string{plus}, raw)
	rec.waitCall(t, 5*time.Second)
	t.Logf("Dovecot delivery to handler: %v", time.Since(start))
	in := rec.last()
	assert.Equal(t, id, in.MessageID)
	assert.Equal(t, plus, in.DeliveredTo)
	assert.Equal(t, "1. e4\n", in.Text)
	eventually(t, 5*time.Second, func() bool { return processed() == 2 }, "not moved to Processed")
	n, unseen := imapStatus(t, dc.IMAPAddr, referee, pw, "Processed")
	assert.Equal(t, uint32(2), n)
	assert.Equal(t, uint32(0), unseen)
	n, _ = imapStatus(t, dc.IMAPAddr, referee, pw, "INBOX")
	assert.Equal(t, uint32(0), n)

	// A broken message goes to Rejected.
	dc.Deliver(t, "bob@pbem.test", []string{referee}, crlf("From: bob@pbem.test\nContent-Type: multipart/mixed\n\nno boundary\n"))
	eventually(t, 5*time.Second, func() bool { n, _ := imapStatus(t, dc.IMAPAddr, referee, pw, "Rejected"); return n == 1 }, "not moved to Rejected")
	require.Equal(t, 1, rej.len())
	assert.Equal(t, "bob@pbem.test", rej.got[0].From.Addr)

	// The server kicks the connection mid-IDLE.
	time.Sleep(50 * time.Millisecond)
	kick := exec.Command("doveadm", "-c", filepath.Join(dc.Dir, "dovecot.conf"), "kick", referee)
	out, err := kick.CombinedOutput()
	require.NoError(t, err, "doveadm kick: %s", out)
	_, raw = playerMove(referee, "after kick")
	dc.Deliver(t, "alice@pbem.test", []string{referee}, raw)
	rec.waitCall(t, 10*time.Second)
	eventually(t, 5*time.Second, func() bool { return processed() == 3 }, "not processed after the kick")
	assert.GreaterOrEqual(t, m.Reconnects.Load(), int64(1))
	assert.Equal(t, int64(3), m.Processed.Load())
	assert.Equal(t, 3, rec.calls())
}
