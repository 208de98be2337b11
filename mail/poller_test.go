package mail_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
	"pbem/mail/embedded"
)

// recorder is a Handler that records what it is given.
type recorder struct {
	mu   sync.Mutex
	got  []*mail.Inbound
	at   []time.Time
	fn   func(n int, in *mail.Inbound) error // n counts calls from 1
	wait chan struct{}
}

func newRecorder(fn func(n int, in *mail.Inbound) error) *recorder {
	return &recorder{fn: fn, wait: make(chan struct{}, 100)}
}

func (r *recorder) Handle(_ context.Context, in *mail.Inbound) error {
	r.mu.Lock()
	r.got = append(r.got, in)
	r.at = append(r.at, time.Now())
	n := len(r.got)
	r.mu.Unlock()
	r.wait <- struct{}{}
	if r.fn != nil {
		return r.fn(n, in)
	}
	return nil
}

func (r *recorder) calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func (r *recorder) last() *mail.Inbound {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[len(r.got)-1]
}

// waitCall waits for the next Handle call.
func (r *recorder) waitCall(t *testing.T, timeout time.Duration) {
	t.Helper()
	select {
	case <-r.wait:
	case <-time.After(timeout):
		t.Fatalf("handler not called within %v", timeout)
	}
}

// A message delivered over SMTP reaches the handler through IDLE (the poll
// interval is an hour), and is then marked \Seen and moved to Processed.
func TestPollerIdleDelivery(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(nil)
	opts := fastPoller(t, s)
	runPoller(t, opts, rec)

	_, raw := playerMove("referee@pbem.local", "warm-up")
	submit(t, s, "alice@pbem.local", []string{"referee@pbem.local"}, raw)
	rec.waitCall(t, 5*time.Second)
	eventually(t, 2*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "first message not moved")

	// Now the poller is idling: the next one can only come through IDLE.
	id, raw := playerMove("Referee <referee+12.k7x9q@pbem.local>", "1. e4")
	start := time.Now()
	submit(t, s, "alice@pbem.local", []string{"referee+12.k7x9q@pbem.local"}, raw)
	rec.waitCall(t, 2*time.Second)
	t.Logf("delivery to handler: %v", time.Since(start))

	in := rec.last()
	assert.Equal(t, id, in.MessageID)
	assert.Equal(t, "referee+12.k7x9q@pbem.local", in.DeliveredTo)
	assert.Equal(t, mail.Address{Name: "Alice", Addr: "alice@pbem.local"}, in.From)
	assert.Equal(t, "1. e4\n", in.Text)
	assert.NotZero(t, in.UID)
	assert.NotZero(t, in.UIDValidity)
	assert.Equal(t, "INBOX", in.Mailbox)

	eventually(t, 2*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 2 }, "not moved to Processed")
	n, unseen := count(t, s, "referee", "Processed")
	assert.Equal(t, uint32(2), n)
	assert.Equal(t, uint32(0), unseen, "processed messages must be \\Seen")
	n, _ = count(t, s, "referee", "INBOX")
	assert.Equal(t, uint32(0), n)
	assert.Equal(t, int64(2), opts.Metrics.Processed.Load())
	assert.Equal(t, int64(2), opts.Metrics.Latency.Count())
}

// Messages already waiting when the poller starts are processed in order.
func TestPollerBacklog(t *testing.T) {
	s := startServers(t, nil)
	ids := deliverMoves(t, s, 7)
	rec := newRecorder(nil)
	opts := fastPoller(t, s)
	opts.BatchSize = 3
	runPoller(t, opts, rec)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 7 }, "backlog not processed")
	var got []string
	for _, in := range rec.got {
		got = append(got, in.MessageID)
	}
	assert.Equal(t, ids, got)
}

// A temporary handler error leaves the message unseen in the inbox; it is
// handed over again after a backoff, and processed once the handler copes.
func TestPollerTemporaryError(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(func(n int, in *mail.Inbound) error {
		if n <= 2 {
			return errors.New("database is locked")
		}
		return nil
	})
	opts := fastPoller(t, s)
	runPoller(t, opts, rec)
	id, raw := playerMove("referee@pbem.local", "e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))

	rec.waitCall(t, 5*time.Second)
	n, unseen := count(t, s, "referee", "INBOX")
	assert.Equal(t, uint32(1), n, "message must stay in the inbox")
	assert.Equal(t, uint32(1), unseen, "message must stay unseen")

	rec.waitCall(t, 5*time.Second)
	rec.waitCall(t, 5*time.Second)
	eventually(t, 2*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "not processed after retries")
	for _, in := range rec.got {
		assert.Equal(t, id, in.MessageID)
	}
	assert.Equal(t, 3, rec.calls())
	assert.Equal(t, int64(2), opts.Metrics.TempFailures.Load())
	assert.Equal(t, int64(1), opts.Metrics.Processed.Load())
	// The retries were spaced by the backoff, not a busy loop.
	assert.GreaterOrEqual(t, rec.at[2].Sub(rec.at[0]), 50*time.Millisecond)
}

// rejections records the Rejecter calls.
type rejections struct {
	mu      sync.Mutex
	got     []*mail.Inbound
	reasons []error
	fail    int // fail this many calls first
}

func (r *rejections) Reject(_ context.Context, in *mail.Inbound, reason error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail > 0 {
		r.fail--
		return errors.New("store down")
	}
	r.got = append(r.got, in)
	r.reasons = append(r.reasons, reason)
	return nil
}

func (r *rejections) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func TestPollerPermanentError(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(func(int, *mail.Inbound) error {
		return mail.Permanent(errors.New("not a player in any game"))
	})
	rej := &rejections{fail: 1} // the first Reject fails: retried later
	opts := fastPoller(t, s)
	opts.Rejecter = rej
	runPoller(t, opts, rec)
	id, raw := playerMove("referee@pbem.local", "e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))

	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Rejected"); return n == 1 }, "not moved to Rejected")
	require.Equal(t, 1, rej.len())
	assert.Equal(t, id, rej.got[0].MessageID)
	assert.EqualError(t, rej.reasons[0], "not a player in any game")
	n, unseen := count(t, s, "referee", "Rejected")
	assert.Equal(t, uint32(1), n)
	assert.Equal(t, uint32(1), unseen, "rejected messages stay unseen for a person to notice")
	n, _ = count(t, s, "referee", "INBOX")
	assert.Equal(t, uint32(0), n)
	n, _ = count(t, s, "referee", "Processed")
	assert.Equal(t, uint32(0), n)
	assert.Equal(t, int64(1), opts.Metrics.Rejected.Load())
	assert.Equal(t, 2, rec.calls(), "handler called again after the Rejecter failed")
}

func TestPollerBrokenMIME(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(nil)
	rej := &rejections{}
	opts := fastPoller(t, s)
	opts.Rejecter = rej
	opts.Metrics = nil // optional
	runPoller(t, opts, rec)
	broken := crlf(`
From: Bob <bob@pbem.local>
To: referee@pbem.local
Subject: my move
Message-ID: <broken-1@pbem.local>
Content-Type: multipart/mixed; boundary="sep"

--sep
Content-Type: text/plain
Content-Transfer-Encoding: base64

this is %%% not base64
--sep--
`)
	submit(t, s, "bob@pbem.local", []string{"referee@pbem.local"}, broken)

	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Rejected"); return n == 1 }, "not moved to Rejected")
	assert.Equal(t, 0, rec.calls(), "handler must not see an unparsable message")
	require.Equal(t, 1, rej.len())
	var perr *mail.ParseError
	require.ErrorAs(t, rej.reasons[0], &perr)
	assert.Equal(t, "bob@pbem.local", rej.got[0].From.Addr, "the sender is known, so a reply can be sent")
	assert.Equal(t, "broken-1@pbem.local", rej.got[0].MessageID)
	assert.Contains(t, string(rej.got[0].Raw), "not base64")
}

func TestPollerHandlerPanic(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(func(int, *mail.Inbound) error { panic("index out of range") })
	rej := &rejections{}
	opts := fastPoller(t, s)
	opts.Rejecter = rej
	runPoller(t, opts, rec)
	_, raw := playerMove("referee@pbem.local", "e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Rejected"); return n == 1 }, "not moved to Rejected")
	assert.Equal(t, int64(1), opts.Metrics.Panics.Load())
	require.Equal(t, 1, rej.len())
	assert.Contains(t, rej.reasons[0].Error(), "index out of range")
	assert.True(t, mail.IsPermanent(rej.reasons[0]))
}

// The server drops the connection while the poller is in IDLE: it
// reconnects with backoff and goes on delivering.
func TestPollerReconnectAfterDrop(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(nil)
	opts := fastPoller(t, s)
	runPoller(t, opts, rec)

	_, raw := playerMove("referee@pbem.local", "one")
	submit(t, s, "alice@pbem.local", []string{"referee@pbem.local"}, raw)
	rec.waitCall(t, 5*time.Second)
	eventually(t, 2*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "first message not moved")
	time.Sleep(20 * time.Millisecond) // let it enter IDLE

	for round := 0; round < 3; round++ {
		require.Positive(t, s.DropIMAPConnections(), "no IMAP connection to drop")
		_, raw = playerMove("referee@pbem.local", "after drop")
		submit(t, s, "alice@pbem.local", []string{"referee@pbem.local"}, raw)
		rec.waitCall(t, 5*time.Second)
		eventually(t, 2*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == uint32(round+2) }, "not moved after drop %d", round)
	}
	assert.GreaterOrEqual(t, opts.Metrics.Reconnects.Load(), int64(3))
	assert.Equal(t, 4, rec.calls())
}

// Without IDLE the poller finds new mail on its poll.
func TestPollerWithoutIdle(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(nil)
	opts := fastPoller(t, s)
	opts.DisableIdle = true
	opts.PollInterval = 30 * time.Millisecond
	runPoller(t, opts, rec)
	_, raw := playerMove("referee@pbem.local", "e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))
	rec.waitCall(t, 5*time.Second)
	eventually(t, 2*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "not moved")
}

func TestPollerStartTLS(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(nil)
	opts := fastPoller(t, s)
	opts.Security = mail.SecurityStartTLS
	opts.TLSConfig = s.TLSConfig()
	runPoller(t, opts, rec)
	_, raw := playerMove("referee@pbem.local", "e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))
	rec.waitCall(t, 5*time.Second)
}

// A wrong password is retried with backoff (the operator may fix the
// account), and Run still returns when its context ends.
func TestPollerBadLoginKeepsTrying(t *testing.T) {
	s := startServers(t, nil)
	opts := fastPoller(t, s)
	opts.Password = "wrong"
	cancel, done := runPoller(t, opts, newRecorder(nil))
	eventually(t, 5*time.Second, func() bool { return opts.Metrics.Reconnects.Load() >= 2 }, "no reconnect attempts")
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
}

func TestNewPollerOptions(t *testing.T) {
	_, err := mail.NewPoller(&mail.PollerOptions{Addr: "mail.example.org:143", Security: mail.SecurityPlain})
	assert.ErrorContains(t, err, "only on loopback")
	_, err = mail.NewPoller(&mail.PollerOptions{Addr: "mail.example.org:143", Security: mail.SecurityPlain, AllowInsecure: true})
	assert.NoError(t, err)
	_, err = mail.NewPoller(&mail.PollerOptions{Addr: "[::1]:143", Security: mail.SecurityPlain})
	assert.NoError(t, err)
	_, err = mail.NewPoller(&mail.PollerOptions{Addr: "localhost:143", Security: "ssl"})
	assert.ErrorContains(t, err, "unknown security")
	_, err = mail.NewPoller(&mail.PollerOptions{})
	assert.Error(t, err)
}

// The process dies after the handler committed but before the message was
// marked \Seen: the restarted poller hands it over again, the store sees
// the key and applies nothing, and the single reply is sent once.
func TestCrashBetweenCommitAndSeen(t *testing.T) {
	s := startServers(t, nil)
	st := newStore()
	id, raw := playerMove("referee@pbem.local", "1. e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))

	// First life: commit, then "crash" (the connection dies and Run ends)
	// before the poller can mark the message.
	var ctx1Cancel context.CancelFunc
	var calls atomic.Int32
	crashing := mail.HandlerFunc(func(ctx context.Context, in *mail.Inbound) error {
		calls.Add(1)
		st.apply(in, "Move 1. e4 accepted.")
		s.DropIMAPConnections()
		ctx1Cancel()
		return nil
	})
	p1, err := mail.NewPoller(fastPoller(t, s))
	require.NoError(t, err)
	var ctx1 context.Context
	ctx1, ctx1Cancel = context.WithCancel(context.Background())
	defer ctx1Cancel()
	require.ErrorIs(t, p1.Run(ctx1, crashing), context.Canceled)
	n, unseen := count(t, s, "referee", "INBOX")
	require.Equal(t, uint32(1), n, "the message must still be in the inbox after the crash")
	require.Equal(t, uint32(1), unseen)

	// Second life.
	handler := mail.HandlerFunc(func(ctx context.Context, in *mail.Inbound) error {
		calls.Add(1)
		st.apply(in, "Move 1. e4 accepted.")
		return nil
	})
	runPoller(t, fastPoller(t, s), handler)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "not processed after restart")
	assert.Equal(t, int32(2), calls.Load(), "handler sees the message twice")
	assert.Equal(t, 1, st.appliedCount("<"+id+">"), "effect applied once")

	// The reply queued in the first life goes out once.
	snd := newSender(t, s, st, nil)
	_, err = snd.SendDue(context.Background())
	require.NoError(t, err)
	pw, _ := s.Password("alice")
	got := fetchAll(t, s.IMAPAddr(), "alice@pbem.local", pw, "INBOX")
	require.Len(t, got, 1)
	assert.Contains(t, string(got[0]), "Move 1. e4 accepted.")
	assert.Contains(t, string(got[0]), "In-Reply-To: <"+id+">")
}

func TestEmbeddedInstructionsAndAuth(t *testing.T) {
	s := startServers(t, &embedded.Options{Passwords: map[string]string{"alice": "s3cret"}, DefaultPassword: "demo"})
	text := s.Instructions()
	for _, want := range []string{s.IMAPAddr()[strings.LastIndexByte(s.IMAPAddr(), ':')+1:], "referee@pbem.local", "alice@pbem.local", "s3cret", "dave@pbem.local"} {
		assert.Contains(t, text, want)
	}
	accounts := s.Accounts()
	require.Len(t, accounts, 5)
	assert.Equal(t, embedded.Account{Address: "referee@pbem.local", Password: "demo"}, accounts[0])

	// Mail to an unknown domain is refused; to a local plus-address it is
	// delivered with Delivered-To kept.
	err := trySubmit(s, "alice@pbem.local", "someone@example.org")
	var code interface{ Error() string }
	require.ErrorAs(t, err, &code)
	assert.Contains(t, err.Error(), "550")
	require.NoError(t, trySubmit(s, "alice@pbem.local", "bob+chess@pbem.local"))
	got := fetchAll(t, s.IMAPAddr(), "bob@pbem.local", "demo", "INBOX")
	require.Len(t, got, 1)
	assert.Contains(t, string(got[0]), "Delivered-To: bob+chess@pbem.local\r\n")

	// AUTH PLAIN: a wrong password gets 535.
	err = tryAuth(s.SMTPAddr(), "alice@pbem.local", "wrong")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "535")
	require.NoError(t, tryAuth(s.SMTPAddr(), "alice@pbem.local", "s3cret"))
}

// Messages sent one at a time, each as soon as the previous one was
// handled, all arrive through IDLE: none waits for the (hour-long) poll.
// This catches lost wake-ups between the poller's last command and IDLE.
func TestPollerNoLostWakeup(t *testing.T) {
	s := startServers(t, nil)
	rec := newRecorder(nil)
	runPoller(t, fastPoller(t, s), rec)
	for i := 0; i < 100; i++ {
		_, raw := playerMove("referee@pbem.local", "move")
		submit(t, s, "alice@pbem.local", []string{"referee@pbem.local"}, raw)
		rec.waitCall(t, 3*time.Second)
	}
	eventually(t, 2*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 100 }, "not all moved")
}

// The IMAP server goes away for a while (connections refused) and comes
// back on the same port: the poller keeps retrying with backoff and then
// delivers.
func TestPollerServerRestart(t *testing.T) {
	s := startServers(t, nil)
	port := s.IMAPAddr()[strings.LastIndexByte(s.IMAPAddr(), ':')+1:]
	rec := newRecorder(nil)
	opts := fastPoller(t, s)
	runPoller(t, opts, rec)
	_, raw := playerMove("referee@pbem.local", "one")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))
	rec.waitCall(t, 5*time.Second)

	s.Close()
	eventually(t, 5*time.Second, func() bool { return opts.Metrics.Reconnects.Load() >= 3 }, "no reconnect attempts while down")
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	s2 := startServers(t, &embedded.Options{IMAPPort: p})
	_, raw = playerMove("referee@pbem.local", "two")
	require.NoError(t, s2.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))
	rec.waitCall(t, 5*time.Second)
	eventually(t, 2*time.Second, func() bool { n, _ := count(t, s2, "referee", "Processed"); return n == 1 }, "not moved after the restart")
}

// A message that keeps failing temporarily is retried for as long as it
// fails, never rejected for that alone; once it has failed more than
// StuckAfter times it counts as stuck (Metrics.Stuck, Poller.Stuck) until
// it goes through.
func TestPollerStuckMessage(t *testing.T) {
	s := startServers(t, nil)
	var failing atomic.Bool
	failing.Store(true)
	rec := newRecorder(func(int, *mail.Inbound) error {
		if failing.Load() {
			return errors.New("database is locked")
		}
		return nil
	})
	rej := &rejections{}
	opts := fastPoller(t, s)
	opts.StuckAfter = 3
	opts.Rejecter = rej
	p, err := mail.NewPoller(opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, rec) }()
	t.Cleanup(func() { cancel(); <-done })

	_, raw := playerMove("referee@pbem.local", "e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))
	for range 3 {
		rec.waitCall(t, 5*time.Second)
	}
	n, after := p.Stuck()
	if rec.calls() == 3 { // read before a fourth failure
		assert.Equal(t, 0, n, "stuck after 3 failures")
	}
	assert.Equal(t, 3, after)

	eventually(t, 5*time.Second, func() bool { n, _ := p.Stuck(); return n == 1 }, "not counted as stuck")
	assert.Equal(t, int64(1), opts.Metrics.Stuck.Load())
	assert.GreaterOrEqual(t, rec.calls(), 4)
	var b strings.Builder
	require.NoError(t, opts.Metrics.WritePrometheus(&b, "pbem_"))
	assert.Contains(t, b.String(), "# TYPE pbem_messages_stuck gauge\npbem_messages_stuck 1\n")
	inbox, unseen := count(t, s, "referee", "INBOX")
	assert.Equal(t, uint32(1), inbox, "a stuck message stays in the inbox")
	assert.Equal(t, uint32(1), unseen)
	assert.Zero(t, rej.len(), "a stuck message is not rejected")

	failing.Store(false)
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "not processed once the handler copes")
	eventually(t, 5*time.Second, func() bool { n, _ := p.Stuck(); return n == 0 }, "still counted as stuck")
	assert.Zero(t, opts.Metrics.Stuck.Load())
}
