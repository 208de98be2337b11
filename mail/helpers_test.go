package mail_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"pbem/mail"
	"pbem/mail/embedded"
)

// testLogger writes into t.Log until the test ends.
func testLogger(t testing.TB) *slog.Logger {
	w := &tWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *tWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && testing.Verbose() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func startServers(t testing.TB, opts *embedded.Options) *embedded.Servers {
	t.Helper()
	if opts == nil {
		opts = &embedded.Options{}
	}
	opts.Logger = testLogger(t)
	s, err := embedded.Start(opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// fastPoller returns options for a poller on the referee's mailbox with
// short backoffs and a poll interval long enough that only IDLE can explain
// a quick delivery.
func fastPoller(t testing.TB, s *embedded.Servers) *mail.PollerOptions {
	pw, _ := s.Password("referee")
	return &mail.PollerOptions{
		Addr:         s.IMAPAddr(),
		Security:     mail.SecurityPlain,
		Username:     s.RefereeAddress(),
		Password:     pw,
		PollInterval: time.Hour,
		BackoffMin:   20 * time.Millisecond,
		BackoffMax:   200 * time.Millisecond,
		Metrics:      &mail.Metrics{},
		Logger:       testLogger(t),
	}
}

// runPoller runs a poller until the test ends (or the returned cancel is
// called) and returns Run's result channel.
func runPoller(t testing.TB, opts *mail.PollerOptions, h mail.Handler) (context.CancelFunc, <-chan error) {
	t.Helper()
	p, err := mail.NewPoller(opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	stopped := make(chan struct{})
	go func() {
		done <- p.Run(ctx, h)
		close(stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Errorf("poller did not stop")
		}
	})
	return cancel, done
}

// submit sends raw over SMTP, logged in as from, as a player's client
// would.
func submit(t testing.TB, s *embedded.Servers, from string, to []string, raw []byte) {
	t.Helper()
	c := login(t, s, from)
	defer c.Close()
	require.NoError(t, c.SendMail(from, to, bytes.NewReader(raw)))
	require.NoError(t, c.Quit())
}

// login opens an SMTP session on s logged in as the account addr.
func login(t testing.TB, s *embedded.Servers, addr string) *smtp.Client {
	t.Helper()
	c, err := smtp.Dial(s.SMTPAddr())
	require.NoError(t, err)
	pw, ok := s.Password(addr)
	require.True(t, ok, "no account %s", addr)
	require.NoError(t, c.Auth(sasl.NewPlainClient("", addr, pw)))
	return c
}

var msgSeq struct {
	sync.Mutex
	n int
}

// playerMove returns a small message from alice to the referee.
func playerMove(to, body string) (id string, raw []byte) {
	msgSeq.Lock()
	msgSeq.n++
	n := msgSeq.n
	msgSeq.Unlock()
	id = fmt.Sprintf("move-%d@pbem.local", n)
	raw = crlf(fmt.Sprintf(`
From: Alice <alice@pbem.local>
To: %s
Subject: game 12
Message-ID: <%s>
Date: Fri, 01 Mar 2024 12:00:00 +0000
Content-Type: text/plain; charset=utf-8

%s
`, to, id, body))
	return id, raw
}

// deliverMoves delivers n moves from alice into the referee's INBOX, as
// the embedded SMTP server would, and returns their Message-IDs in order.
func deliverMoves(t *testing.T, s *embedded.Servers, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		id, raw := playerMove("referee@pbem.local", "move")
		ids = append(ids, id)
		require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))
	}
	return ids
}

// eventually waits for cond, failing the test after timeout.
func eventually(t testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v: "+format, append([]any{timeout}, args...)...)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func count(t testing.TB, s *embedded.Servers, user, mailbox string) (messages, unseen uint32) {
	t.Helper()
	st, err := s.Status(user, mailbox)
	if err != nil && strings.Contains(err.Error(), "No such mailbox") {
		return 0, 0 // not created yet
	}
	require.NoError(t, err)
	return *st.NumMessages, *st.NumUnseen
}

// fetchAll returns the raw messages in a mailbox, in UID order.
func fetchAll(t testing.TB, addr, user, pass, mailbox string) [][]byte {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Login(user, pass).Wait())
	sel, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	require.NoError(t, err)
	if sel.NumMessages == 0 {
		return nil
	}
	msgs, err := c.Fetch(allSeq(), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
	require.NoError(t, err)
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].UID < msgs[j].UID })
	var out [][]byte
	for _, m := range msgs {
		out = append(out, m.BodySection[0].Bytes)
	}
	return out
}

// store is an in-memory stand-in for the application's store: it applies
// each inbound message once (dedup by Key) and queues replies in an outbox
// in the same "transaction".
type store struct {
	mu      sync.Mutex
	applied map[string]int // key -> times the effect was applied
	outbox  []*row
	now     func() time.Time

	failSent  int // Sent fails this many more times
	retries   []retryCall
	failed    []string
	sentCalls int
}

type row struct {
	o       mail.Outgoing
	at      time.Time
	sent    bool
	failed  bool
	errs    []string // of the Retry calls
	failErr string   // of the Failed call
}

type retryCall struct {
	id  string
	at  time.Time
	err string
}

func newStore() *store {
	return &store{applied: make(map[string]int), now: time.Now}
}

// apply is a Handler body: record the key and queue a reply, atomically.
func (s *store) apply(in *mail.Inbound, reply string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.applied[in.Key()] > 0 {
		return // already applied: a re-delivery after a crash
	}
	s.applied[in.Key()]++
	s.queueLocked(in, reply)
}

func (s *store) queueLocked(in *mail.Inbound, text string) {
	id := fmt.Sprintf("r%d", len(s.outbox)+1)
	s.outbox = append(s.outbox, &row{o: mail.Outgoing{
		ID:         id,
		From:       mail.Address{Name: "pbem referee", Addr: "referee@pbem.local"},
		To:         []mail.Address{in.From},
		Subject:    "Re: " + in.Subject,
		Date:       s.now(),
		MessageID:  mail.NewMessageID("pbem.local"),
		InReplyTo:  in.MessageID,
		References: append(append([]string(nil), in.References...), in.MessageID),
		Text:       text,
	}})
}

func (s *store) queue(to string, text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queueLocked(&mail.Inbound{From: mail.Address{Addr: to}, Subject: "test", MessageID: "q@h"}, text)
	return s.outbox[len(s.outbox)-1].o.ID
}

func (s *store) appliedCount(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied[key]
}

func (s *store) Due(_ context.Context, now time.Time, limit int) ([]mail.Outgoing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []mail.Outgoing
	for _, r := range s.outbox {
		if !r.sent && !r.failed && !r.at.After(now) && len(out) < limit {
			o := r.o
			o.Attempts = len(r.errs)
			out = append(out, o)
		}
	}
	return out, nil
}

func (s *store) Sent(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sentCalls++
	if s.failSent > 0 {
		s.failSent--
		return fmt.Errorf("database is locked")
	}
	s.row(id).sent = true
	return nil
}

// SentBatch records ids as sent in one "transaction": it fails whole, as
// Sent does, while failSent says so; an id no longer in the outbox is
// skipped.
func (s *store) SentBatch(_ context.Context, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sentCalls++
	if s.failSent > 0 {
		s.failSent--
		return fmt.Errorf("database is locked")
	}
	for _, r := range s.outbox {
		if slices.Contains(ids, r.o.ID) {
			r.sent = true
		}
	}
	return nil
}

// NextDue is the earliest next attempt of a reply still to be delivered,
// as the application's database tells it.
func (s *store) NextDue(context.Context) (time.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, r := range s.outbox {
		if !r.sent && !r.failed && (next.IsZero() || r.at.Before(next)) {
			next = r.at
		}
	}
	return next, !next.IsZero(), nil
}

func (s *store) Retry(_ context.Context, id string, at time.Time, lastErr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.row(id)
	r.at = at
	r.errs = append(r.errs, lastErr)
	s.retries = append(s.retries, retryCall{id, at, lastErr})
	return nil
}

func (s *store) row(id string) *row {
	for _, r := range s.outbox {
		if r.o.ID == id {
			return r
		}
	}
	panic("no row " + id)
}

func (s *store) isSent(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.row(id).sent
}

func (s *store) retryCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.retries)
}

func (s *store) Failed(_ context.Context, id string, lastErr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.row(id)
	r.failed, r.failErr = true, lastErr
	s.failed = append(s.failed, id)
	return nil
}

func allSeq() imap.SeqSet {
	var s imap.SeqSet
	s.AddRange(1, 0) // 1:*
	return s
}

func trySubmit(s *embedded.Servers, from, to string) error {
	c, err := smtp.Dial(s.SMTPAddr())
	if err != nil {
		return err
	}
	defer c.Close()
	pw, _ := s.Password(from)
	if err := c.Auth(sasl.NewPlainClient("", from, pw)); err != nil {
		return err
	}
	_, raw := playerMove(to, "hello")
	return c.SendMail(from, []string{to}, bytes.NewReader(raw))
}

func tryAuth(addr, user, pass string) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Auth(sasl.NewPlainClient("", user, pass))
}

// newSender returns a Sender for the embedded SMTP server with short
// backoffs.
func newSender(t testing.TB, s *embedded.Servers, ob mail.Outbox, opts *mail.SenderOptions) *mail.Sender {
	t.Helper()
	if opts == nil {
		opts = &mail.SenderOptions{}
	}
	if opts.Addr == "" {
		opts.Addr = s.SMTPAddr()
	}
	if opts.Security == "" {
		opts.Security = mail.SecurityPlain
	}
	if opts.Username == "" {
		opts.Username = s.RefereeAddress()
		opts.Password, _ = s.Password(opts.Username)
	}
	if opts.BackoffMin == 0 {
		opts.BackoffMin = 20 * time.Millisecond
		opts.BackoffMax = 100 * time.Millisecond
	}
	opts.Logger = testLogger(t)
	snd, err := mail.NewSender(ob, opts)
	require.NoError(t, err)
	return snd
}
