package mail_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
	"pbem/mail/embedded"
)

func runSender(t *testing.T, snd *mail.Sender) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		snd.Run(ctx)
		close(stopped)
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
}

func TestSenderDelivers(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	m := &mail.Metrics{}
	snd := newSender(t, s, st, &mail.SenderOptions{PollInterval: time.Hour, Metrics: m})
	runSender(t, snd)

	id := st.queue("alice@pbem.local", "Your move.\n-- \npbem\n")
	snd.Wake()
	eventually(t, 5*time.Second, func() bool { return st.isSent(id) }, "reply not sent")
	pw, _ := s.Password("alice")
	got := fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX")
	require.Len(t, got, 1)
	in, err := mail.Parse(got[0])
	require.NoError(t, err)
	assert.Equal(t, "Your move.\n-- \npbem\n", in.Text)
	assert.Equal(t, st.row(id).o.MessageID, in.MessageID)
	assert.Equal(t, "referee@pbem.local", in.From.Addr)
	assert.Equal(t, int64(1), m.Sent.Load())
}

func TestSenderStartTLSAndAuth(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	pw, _ := s.Password("referee")
	snd := newSender(t, s, st, &mail.SenderOptions{
		Security:  mail.SecurityStartTLS,
		TLSConfig: s.TLSConfig(),
		Username:  "referee@pbem.local",
		Password:  pw,
	})
	id := st.queue("bob@pbem.local", "hello")
	_, err := snd.SendDue(context.Background())
	require.NoError(t, err)
	assert.True(t, st.isSent(id))

	// A wrong password is an SMTP 535: permanent, so it is retried a few
	// times only.
	st2 := newStore()
	snd = newSender(t, s, st2, &mail.SenderOptions{Username: "referee@pbem.local", Password: "wrong", MaxPermanentAttempts: 1})
	id = st2.queue("bob@pbem.local", "hello")
	_, err = snd.SendDue(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{id}, st2.failed)
}

// freePort returns a loopback port with nothing listening on it.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// The SMTP server is down for a while: the reply is retried with backoff
// and delivered exactly once when the server comes back.
func TestSenderSMTPDown(t *testing.T) {
	port := freePort(t)
	st := newStore()
	m := &mail.Metrics{}
	snd, err := mail.NewSender(st, &mail.SenderOptions{
		Addr:         "127.0.0.1:" + strconv.Itoa(port),
		Security:     mail.SecurityPlain,
		Username:     "referee@pbem.local",
		Password:     "referee",
		BackoffMin:   10 * time.Millisecond,
		BackoffMax:   80 * time.Millisecond,
		PollInterval: time.Hour, // only the scheduled retries wake it
		Metrics:      m,
		Logger:       testLogger(t),
	})
	require.NoError(t, err)
	id := st.queue("alice@pbem.local", "Your move.")
	runSender(t, snd)

	eventually(t, 5*time.Second, func() bool { return st.retryCount() >= 4 }, "no retries while the server is down")
	assert.False(t, st.isSent(id))
	st.mu.Lock()
	r := st.retries
	for i := range r {
		assert.Contains(t, r[i].err, "connection refused")
		if i > 0 {
			assert.True(t, r[i].at.After(r[i-1].at), "retry times must advance")
		}
	}
	st.mu.Unlock()

	s := startServers(t, &embedded.Options{SMTPPort: port})
	eventually(t, 5*time.Second, func() bool { return st.isSent(id) }, "not delivered after the server came back")
	time.Sleep(150 * time.Millisecond) // give a duplicate the chance to show
	pw, _ := s.Password("alice")
	got := fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX")
	assert.Len(t, got, 1, "delivered exactly once")
	assert.Equal(t, int64(1), m.Sent.Load())
	assert.GreaterOrEqual(t, m.Retried.Load(), int64(4))
}

// The server answers 5xx: the reply is tried MaxPermanentAttempts times,
// then given up on through Failed.
func TestSenderPermanentFailure(t *testing.T) {
	s := startServers(t, nil)
	t.Run("Failed", func(t *testing.T) {
		st := newStore()
		m := &mail.Metrics{}
		snd := newSender(t, s, st, &mail.SenderOptions{MaxPermanentAttempts: 2, Metrics: m})
		id := st.queue("nobody@example.org", "hello")
		ok := st.queue("alice@pbem.local", "hello")
		runSender(t, snd)
		eventually(t, 5*time.Second, func() bool {
			st.mu.Lock()
			defer st.mu.Unlock()
			return len(st.failed) == 1
		}, "not given up")
		assert.Equal(t, []string{id}, st.failed)
		assert.Len(t, st.row(id).errs, 1, "one Retry before giving up")
		assert.Contains(t, st.row(id).errs[0], "550")
		assert.True(t, st.isSent(ok), "a good reply after a refused one still goes out")
		assert.Equal(t, int64(1), m.Failed.Load())
	})
}

// The duplicate window: the server accepted a reply but Sent could not be
// recorded. The same process does not send it again; a restarted one does,
// with the same Message-ID and bytes, so the recipient can tell.
func TestSenderAcceptedButNotRecorded(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	st.failSent = 2
	id := st.queue("alice@pbem.local", "Your move.")
	snd := newSender(t, s, st, nil)

	_, err := snd.SendDue(context.Background())
	require.ErrorContains(t, err, "database is locked")
	_, err = snd.SendDue(context.Background())
	require.ErrorContains(t, err, "database is locked")
	pw, _ := s.Password("alice")
	assert.Len(t, fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX"), 1, "same process must not resend")
	_, err = snd.SendDue(context.Background())
	require.NoError(t, err)
	assert.True(t, st.isSent(id))
	assert.Len(t, fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX"), 1)

	// A crash in the window: a new Sender sends again.
	st2 := newStore()
	st2.failSent = 1
	id2 := st2.queue("bob@pbem.local", "Your move.")
	_, err = newSender(t, s, st2, nil).SendDue(context.Background())
	require.Error(t, err)
	_, err = newSender(t, s, st2, nil).SendDue(context.Background()) // "after the restart"
	require.NoError(t, err)
	assert.True(t, st2.isSent(id2))
	pw, _ = s.Password("bob")
	got := fetchAll(t, s.IMAPAddr(), "bob@pbem.local", pw, "INBOX")
	require.Len(t, got, 2, "the known duplicate window")
	a, _ := mail.Parse(got[0])
	b, _ := mail.Parse(got[1])
	assert.Equal(t, a.MessageID, b.MessageID, "a duplicate carries the same Message-ID")
	assert.Equal(t, a.Date, b.Date)
}

func TestSMTPPermanent(t *testing.T) {
	assert.True(t, mail.SMTPPermanent(&smtp.SMTPError{Code: 550}))
	assert.True(t, mail.SMTPPermanent(smtp.ErrAuthFailed))
	assert.False(t, mail.SMTPPermanent(&smtp.SMTPError{Code: 451}))
	assert.False(t, mail.SMTPPermanent(&net.OpError{Op: "dial", Err: errors.New("connection refused")}))
	assert.False(t, mail.SMTPPermanent(errors.New("EOF")))
	assert.True(t, mail.SMTPPermanent(mail.Permanent(errors.New("no recipients"))))
}

func TestNewSenderOptions(t *testing.T) {
	_, err := mail.NewSender(newStore(), &mail.SenderOptions{Addr: "smtp.example.org:25", Security: mail.SecurityPlain})
	assert.ErrorContains(t, err, "only on loopback")
	_, err = mail.NewSender(newStore(), &mail.SenderOptions{Addr: "smtp.example.org:465"})
	assert.NoError(t, err)
}

func TestMetricsPrometheus(t *testing.T) {
	var m mail.Metrics
	m.Processed.Add(3)
	m.Sent.Add(2)
	m.Latency.Observe(3 * time.Millisecond)
	m.Latency.Observe(2 * time.Second)
	var b strings.Builder
	require.NoError(t, m.WritePrometheus(&b, "pbem_mail_"))
	out := b.String()
	for _, want := range []string{
		"# TYPE pbem_mail_messages_processed_total counter\npbem_mail_messages_processed_total 3\n",
		"pbem_mail_replies_sent_total 2\n",
		"pbem_mail_messages_rejected_total 0\n",
		"pbem_mail_replies_retried_total 0\n",
		"# TYPE pbem_mail_processing_latency_seconds histogram\n",
		`pbem_mail_processing_latency_seconds_bucket{le="0.0025"} 0` + "\n",
		`pbem_mail_processing_latency_seconds_bucket{le="0.005"} 1` + "\n",
		`pbem_mail_processing_latency_seconds_bucket{le="2.5"} 2` + "\n",
		`pbem_mail_processing_latency_seconds_bucket{le="+Inf"} 2` + "\n",
		"pbem_mail_processing_latency_seconds_sum 2.003\n",
		"pbem_mail_processing_latency_seconds_count 2\n",
	} {
		assert.Contains(t, out, want)
	}
}

// A reply whose retry was scheduled by an earlier process (or whose send
// time lies ahead) goes out when it falls due, not at the next poll: the
// poll is an hour here, and nothing wakes the Sender.
func TestSenderWakesAtNextDue(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	id := st.queue("alice@pbem.local", "Your move.")
	due := time.Now().Add(300 * time.Millisecond)
	st.mu.Lock()
	st.row(id).at = due // as a stopped process left it after a failure
	st.mu.Unlock()
	snd := newSender(t, s, st, &mail.SenderOptions{PollInterval: time.Hour})
	runSender(t, snd)
	eventually(t, 10*time.Second, func() bool { return st.isSent(id) }, "the reply waited for the hourly poll")
	assert.False(t, time.Now().Before(due), "sent before it was due")
}

// The SMTP server is down for 2.5 s while replies are queued: with a
// backoff of 100 ms to 400 ms every reply is out soon after it comes back,
// long before the poll (an hour here) would have found it.
func TestSenderShortOutage(t *testing.T) {
	port := freePort(t)
	st := newStore()
	snd, err := mail.NewSender(st, &mail.SenderOptions{
		Addr: "127.0.0.1:" + strconv.Itoa(port), Security: mail.SecurityPlain,
		Username: "referee@pbem.local", Password: "referee",
		BackoffMin: 100 * time.Millisecond, BackoffMax: 400 * time.Millisecond,
		PollInterval: time.Hour, Logger: testLogger(t),
	})
	require.NoError(t, err)
	runSender(t, snd)
	var ids []string
	for range 5 {
		ids = append(ids, st.queue("alice@pbem.local", "Your move."))
		snd.Wake()
		time.Sleep(500 * time.Millisecond)
	}
	back := time.Now()
	startServers(t, &embedded.Options{SMTPPort: port})
	eventually(t, 10*time.Second, func() bool {
		for _, id := range ids {
			if !st.isSent(id) {
				return false
			}
		}
		return true
	}, "replies not delivered after the server came back")
	t.Logf("all 5 replies out %v after the server came back (backoff 100-400 ms)", time.Since(back).Round(time.Millisecond))
}

// The server accepted a reply and the process died before the Outbox
// recorded it (here: Sent fails, then a new Sender starts). With an
// AcceptedLog the new Sender records the reply as sent instead of sending
// it again; a note cut short by the crash is not read as an id.
func TestSenderAcceptedLog(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	st.failSent = 1
	id := st.queue("alice@pbem.local", "Your move.")
	log := filepath.Join(t.TempDir(), "accepted.log")

	_, err := newSender(t, s, st, &mail.SenderOptions{AcceptedLog: log}).SendDue(context.Background())
	require.ErrorContains(t, err, "database is locked")
	require.False(t, st.isSent(id))
	// The crash also cut a second note short.
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("r")
	require.NoError(t, err)
	f.Close()

	_, err = newSender(t, s, st, &mail.SenderOptions{AcceptedLog: log}).SendDue(context.Background()) // after the restart
	require.NoError(t, err)
	assert.True(t, st.isSent(id))
	pw, _ := s.Password("alice")
	assert.Len(t, fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX"), 1, "sent once")
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Empty(t, data, "the log is emptied once the Outbox has everything")

	// Replies after that are noted and the log emptied again.
	id2 := st.queue("bob@pbem.local", "Your move.")
	snd := newSender(t, s, st, &mail.SenderOptions{AcceptedLog: log})
	_, err = snd.SendDue(context.Background())
	require.NoError(t, err)
	assert.True(t, st.isSent(id2))
	data, _ = os.ReadFile(log)
	assert.Empty(t, data)
}

// The process died after the server's 250 and before the Sender noted it:
// the AcceptedLog holds only the note that the reply was being sent. With
// Delivered (the embedded servers can say what they hold) the new Sender
// records a reply every recipient holds as sent and sends a reply some
// hold to the others only; one nobody holds, or every one without
// Delivered, is sent again.
func TestSenderAfterCrashAsksTheServer(t *testing.T) {
	for _, c := range []struct {
		name      string
		delivered []string // the recipients who hold the reply at the crash
		ask       bool     // Delivered set
		want      map[string]int
	}{
		{"held by all", []string{"alice@pbem.local", "bob@pbem.local"}, true, map[string]int{"alice": 1, "bob": 1}},
		{"held by one", []string{"alice@pbem.local"}, true, map[string]int{"alice": 1, "bob": 1}},
		{"held by none", nil, true, map[string]int{"alice": 1, "bob": 1}},
		{"not asked", []string{"alice@pbem.local", "bob@pbem.local"}, false, map[string]int{"alice": 2, "bob": 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startServers(t, &embedded.Options{Dir: t.TempDir()})
			st := newStore()
			id := st.queue("alice@pbem.local", "Your move.")
			o := &st.row(id).o
			o.Cc = []mail.Address{{Addr: "bob@pbem.local"}}
			if len(c.delivered) > 0 {
				submit(t, s, o.From.Addr, c.delivered, mail.Compose(o))
			}
			log := filepath.Join(t.TempDir(), "accepted.log")
			note := fmt.Sprintf("? %s %s %s alice@pbem.local bob@pbem.local\n", id, o.From.Addr, o.MessageID)
			require.NoError(t, os.WriteFile(log, []byte(note), 0o600))

			opts := &mail.SenderOptions{AcceptedLog: log}
			if c.ask {
				opts.Delivered = s.Delivered
			}
			_, err := newSender(t, s, st, opts).SendDue(context.Background())
			require.NoError(t, err)
			assert.True(t, st.isSent(id))
			for _, who := range []string{"alice", "bob"} {
				pw, _ := s.Password(who)
				assert.Len(t, fetchAll(t, s.IMAPAddr(), who+"@pbem.local", pw, "INBOX"), c.want[who], who)
			}
			data, err := os.ReadFile(log)
			require.NoError(t, err)
			assert.Empty(t, data, "the log is emptied once the Outbox has everything")
		})
	}
}

// Every reply is noted in the AcceptedLog before it is sent, with what
// Delivered needs, and the log is emptied once everything is settled.
func TestSenderNotesWhatItSends(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	id := st.queue("alice@pbem.local", "Your move.")
	o := st.row(id).o
	log := filepath.Join(t.TempDir(), "accepted.log")
	var notes []string
	snd := newSender(t, s, st, &mail.SenderOptions{AcceptedLog: log, Accepted: func(string) {
		data, _ := os.ReadFile(log)
		notes = strings.Split(strings.TrimSpace(string(data)), "\n")
	}})
	_, err := snd.SendDue(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{fmt.Sprintf("? %s %s %s alice@pbem.local", id, o.From.Addr, o.MessageID), id}, notes)
	data, _ := os.ReadFile(log)
	assert.Empty(t, data)
}

// With Delivered the Sender looks each reply up before sending it: one a
// recipient holds already (an attempt that failed after the server took
// it, a note lost with the machine) does not reach that recipient again.
func TestSenderAsksBeforeSending(t *testing.T) {
	for _, c := range []struct {
		name      string
		delivered []string
	}{
		{"held by all", []string{"alice@pbem.local", "bob@pbem.local"}},
		{"held by one", []string{"bob@pbem.local"}},
		{"held by none", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startServers(t, &embedded.Options{Dir: t.TempDir()})
			st := newStore()
			id := st.queue("alice@pbem.local", "Your move.")
			o := &st.row(id).o
			o.Cc = []mail.Address{{Addr: "bob@pbem.local"}}
			if len(c.delivered) > 0 {
				submit(t, s, o.From.Addr, c.delivered, mail.Compose(o))
			}
			_, err := newSender(t, s, st, &mail.SenderOptions{Delivered: s.Delivered,
				AcceptedLog: filepath.Join(t.TempDir(), "accepted.log")}).SendDue(context.Background())
			require.NoError(t, err)
			assert.True(t, st.isSent(id))
			for _, who := range []string{"alice", "bob"} {
				pw, _ := s.Password(who)
				assert.Len(t, fetchAll(t, s.IMAPAddr(), who+"@pbem.local", pw, "INBOX"), 1, who)
			}
		})
	}
}

// With Direct, replies go to the mail server in the process without SMTP
// (the SMTP address here answers nobody): the same bytes arrive, a
// temporary failure is tried again, a recipient the server has not is
// given up as SMTP's 550 would be, and with Delivered a reply a recipient
// holds already is not handed over again.
func TestSenderDirect(t *testing.T) {
	s := startServers(t, &embedded.Options{Dir: t.TempDir()})
	st := newStore()
	var mu sync.Mutex
	calls, fail := 0, 1 // the first call fails for a reason of its own
	direct := func(from string, rcpts []string, raw []byte) error {
		mu.Lock()
		calls++
		failing := fail > 0
		fail--
		mu.Unlock()
		if failing {
			return errors.New("journal busy")
		}
		err := s.Deliver(from, rcpts, raw)
		if errors.Is(err, embedded.ErrNoMailbox) {
			return mail.Permanent(err)
		}
		return err
	}
	snd := newSender(t, s, st, &mail.SenderOptions{Addr: "127.0.0.1:1", PollInterval: 50 * time.Millisecond,
		MaxPermanentAttempts: 1, Direct: direct, Delivered: s.Delivered, Connections: 4})
	id := st.queue("alice@pbem.local", "Your move.\n-- \npbem\n")
	bad := st.queue("nobody@example.org", "hello")
	runSender(t, snd)
	eventually(t, 5*time.Second, func() bool { return st.isSent(id) }, "reply not sent")
	eventually(t, 5*time.Second, func() bool {
		st.mu.Lock()
		defer st.mu.Unlock()
		return slices.Contains(st.failed, bad)
	}, "a recipient the server has not is not given up")
	pw, _ := s.Password("alice")
	got := fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX")
	require.Len(t, got, 1)
	in, err := mail.Parse(got[0])
	require.NoError(t, err)
	assert.Equal(t, "Your move.\n-- \npbem\n", in.Text)
	assert.Equal(t, st.row(id).o.MessageID, in.MessageID)
	assert.Contains(t, st.row(bad).failErr, "no mailbox")

	// a reply alice holds already (its note lost) is recorded, not sent
	first := st.row(id).o.MessageID
	st.mu.Lock() // queued with that Message-ID at once: the Sender runs
	st.queueLocked(&mail.Inbound{From: mail.Address{Addr: "alice@pbem.local"}, Subject: "test", MessageID: "q@h"}, "Again.\n")
	st.outbox[len(st.outbox)-1].o.MessageID = first
	again := st.outbox[len(st.outbox)-1].o.ID
	st.mu.Unlock()
	mu.Lock()
	before := calls
	mu.Unlock()
	snd.Wake()
	eventually(t, 5*time.Second, func() bool { return st.isSent(again) }, "the held reply not recorded")
	mu.Lock()
	assert.Equal(t, before, calls, "a reply held already was handed over again")
	mu.Unlock()
	assert.Len(t, fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX"), 1)
}
