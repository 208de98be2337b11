package mail_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

const copyTo = "referee+sent@pbem.local"

// Every reply also goes, in the same transaction, to the Sender's own
// copy address: a copy lands in the referee's mailbox, and the recipients
// see no trace of it.
func TestSenderSendsACopy(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	id := st.queue("alice@pbem.local", "Your move.")
	mid := st.row(id).o.MessageID
	cp, err := mail.NewCopies(mail.CopiesOptions{To: copyTo, From: s.RefereeAddress()})
	require.NoError(t, err)
	_, err = newSender(t, s, st, &mail.SenderOptions{Copies: cp}).SendDue(context.Background())
	require.NoError(t, err)
	require.True(t, st.isSent(id))
	pw, _ := s.Password("alice")
	got := fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX")
	require.Len(t, got, 1)
	assert.NotContains(t, string(got[0]), "+sent", "the recipient sees the copy address")
	rpw, _ := s.Password("referee")
	copies := fetchAll(t, s.IMAPAddr(), s.RefereeAddress(), rpw, "INBOX")
	require.Len(t, copies, 1, "copies in the referee's mailbox")
	assert.Contains(t, string(copies[0]), "<"+mid+">")
}

// The process died with a reply under way: the AcceptedLog notes it as
// being sent, and perhaps its final dot. The new Sender looks for the copy
// of each reply whose dot went, waiting for copies still on their way, and
// sends again only the replies the server cannot have taken or of which no
// copy turned up within CopyWait.
func TestSenderAfterCrashFindsCopies(t *testing.T) {
	for _, c := range []struct {
		name      string
		delivered bool // the server took the reply before the crash
		late      bool // its copy arrives only after the first look
		dot       bool // the log notes its final dot
		wait      time.Duration
		want      int   // replies alice holds in the end
		resent    int64 // Metrics.Resent
		asked     bool  // Copies was asked
	}{
		{"copy there", true, false, true, time.Minute, 1, 0, true},
		{"copy late", true, true, true, time.Minute, 1, 0, true},
		{"no copy", false, false, true, time.Nanosecond, 1, 1, true},
		{"copy too late", true, true, true, time.Nanosecond, 2, 1, true},
		{"dot not sent", false, false, false, time.Minute, 1, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startServers(t, nil)
			st := newStore()
			id := st.queue("alice@pbem.local", "Your move.")
			o := &st.row(id).o
			deliver := func() { submit(t, s, o.From.Addr, []string{"alice@pbem.local", copyTo}, mail.Compose(o)) }
			if c.delivered && !c.late {
				deliver()
			}
			log := filepath.Join(t.TempDir(), "accepted.log")
			note := fmt.Sprintf("? %s %s %s alice@pbem.local\n", id, o.From.Addr, o.MessageID)
			if c.dot {
				note += "! " + id + "\n"
			}
			require.NoError(t, os.WriteFile(log, []byte(note), 0o600))

			var asked atomic.Int32
			copies, err := mail.NewCopies(mail.CopiesOptions{To: copyTo, From: s.RefereeAddress(), Wait: c.wait,
				// asked after each look among the copies
				Sent: func(ctx context.Context, ids []string) (map[string]bool, error) {
					if asked.Add(1) == 1 && c.late {
						deliver() // after the first look: late
					}
					return nil, nil
				}})
			require.NoError(t, err)
			po := fastPoller(t, s)
			po.Copies = copies
			_, err = mail.NewPoller(po)
			require.NoError(t, err)
			m := &mail.Metrics{}
			snd := newSender(t, s, st, &mail.SenderOptions{AcceptedLog: log, Copies: copies, Metrics: m})
			assert.False(t, snd.Settled(o.MessageID), "a copy is settled before the log is read")
			_, err = snd.SendDue(context.Background())
			require.NoError(t, err)
			assert.True(t, st.isSent(id))
			assert.True(t, snd.Settled(o.MessageID), "the copy is not settled once the reply is")
			pw, _ := s.Password("alice")
			assert.Len(t, fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX"), c.want, "replies alice holds")
			assert.Equal(t, c.resent, m.Resent.Load(), "Metrics.Resent")
			assert.Equal(t, c.asked, asked.Load() > 0, "Copies asked")
			data, err := os.ReadFile(log)
			require.NoError(t, err)
			assert.Empty(t, data, "the log is emptied once the Outbox has everything")
		})
	}
}

// The Poller never hands a copy of the referee's reply to the Handler: it
// keeps it while the Sender still needs it, then expunges it.
func TestPollerExpungesSettledCopies(t *testing.T) {
	s := startServers(t, nil)
	var settled atomic.Bool
	var asked atomic.Int32
	opts := fastPoller(t, s)
	copies, err := mail.NewCopies(mail.CopiesOptions{To: copyTo, From: s.RefereeAddress(),
		Unsettled: func(context.Context, string) (bool, error) { asked.Add(1); return !settled.Load(), nil }})
	require.NoError(t, err)
	opts.Copies = copies
	var handled atomic.Int32
	runPoller(t, opts, mail.HandlerFunc(func(ctx context.Context, m *mail.Inbound) error {
		handled.Add(1)
		return nil
	}))
	raw := crlf(`
From: pbem referee <referee@pbem.local>
To: alice@pbem.local
Subject: Re: game 12
Message-ID: <copy-1@pbem.local>
Content-Type: text/plain

Your move.
`)
	submit(t, s, s.RefereeAddress(), []string{copyTo}, raw)
	_, move := playerMove(s.RefereeAddress(), "e4")
	submit(t, s, "alice@pbem.local", []string{s.RefereeAddress()}, move)
	eventually(t, 5*time.Second, func() bool { return handled.Load() == 1 && asked.Load() >= 2 }, "the move handled and the copy looked at twice")
	n, _ := count(t, s, s.RefereeAddress(), "INBOX")
	assert.Equal(t, uint32(1), n, "the copy is kept while not settled")
	settled.Store(true)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, s.RefereeAddress(), "INBOX"); return n == 0 }, "the copy expunged")
	assert.Equal(t, int32(1), handled.Load(), "the copy was handed to the Handler")
	p, _ := count(t, s, s.RefereeAddress(), "Processed")
	r, _ := count(t, s, s.RefereeAddress(), "Rejected")
	assert.Equal(t, [2]uint32{1, 0}, [2]uint32{p, r}, "Processed and Rejected hold only the move")
	assert.Equal(t, int64(1), opts.Metrics.Copies.Load())
}

// With ExpungeProcessed a committed message leaves the mailbox instead of
// filling the Processed folder; a rejected one is still set aside.
func TestPollerExpungesProcessed(t *testing.T) {
	s := startServers(t, nil)
	opts := fastPoller(t, s)
	opts.ExpungeProcessed = true
	var handled atomic.Int32
	runPoller(t, opts, mail.HandlerFunc(func(ctx context.Context, m *mail.Inbound) error {
		handled.Add(1)
		return nil
	}))
	for range 3 {
		_, move := playerMove(s.RefereeAddress(), "e4")
		submit(t, s, "alice@pbem.local", []string{s.RefereeAddress()}, move)
	}
	submit(t, s, "alice@pbem.local", []string{s.RefereeAddress()}, crlf("From: alice@pbem.local\nContent-Type: multipart/mixed\n\nbroken\n"))
	eventually(t, 5*time.Second, func() bool {
		n, _ := count(t, s, s.RefereeAddress(), "INBOX")
		return handled.Load() == 3 && n == 0
	}, "three moves handled and the inbox emptied")
	p, _ := count(t, s, s.RefereeAddress(), "Processed")
	r, _ := count(t, s, s.RefereeAddress(), "Rejected")
	assert.Equal(t, [2]uint32{0, 1}, [2]uint32{p, r}, "Processed and Rejected")
}
