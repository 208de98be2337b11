package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/textproto"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Outbox is the durable queue of replies, implemented by the application on
// its store. Replies are added to it in the same transaction as the effect
// that caused them; the [Sender] only reads and updates it.
type Outbox interface {
	// Due returns up to limit replies whose next attempt is at or before
	// now, oldest first, with Attempts set.
	Due(ctx context.Context, now time.Time, limit int) ([]Outgoing, error)
	// Sent records that the SMTP server accepted the reply: it is never
	// returned by Due again.
	Sent(ctx context.Context, id string) error
	// Retry records a failed attempt: the store increments Attempts, keeps
	// lastErr, and returns the reply from Due again from at on. When the
	// Sender gives up on a reply and the Outbox has no Failed method, at is
	// [Never].
	Retry(ctx context.Context, id string, at time.Time, lastErr string) error
}

// FailedOutbox is an optional extension of [Outbox]. When the Sender gives
// up on a reply after repeated permanent errors it calls Failed instead of
// Retry(…, Never, …), if the Outbox has it.
type FailedOutbox interface {
	Outbox
	Failed(ctx context.Context, id string, lastErr string) error
}

// NextDueOutbox is an optional extension of [Outbox]. NextDue returns the
// earliest next attempt of any reply still to be delivered (ok is false when
// none waits). The Sender then wakes when that reply falls due, whoever
// scheduled it: a retry set by a process that has since stopped, or by
// another Sender, goes out on time instead of at the next poll.
type NextDueOutbox interface {
	Outbox
	NextDue(ctx context.Context) (at time.Time, ok bool, err error)
}

// markLinger is how long the Sender gathers replies the server accepted
// (and the accepted log holds) before it records them in the Outbox.
const markLinger = 50 * time.Millisecond

// BatchSentOutbox is an optional extension of [Outbox]: SentBatch records
// several replies as sent at once (one transaction, one sync to disk). The
// Sender then records the replies the server accepted in batches, each
// batch as soon as the one before is stored. A reply that no longer exists
// is skipped, not an error.
type BatchSentOutbox interface {
	Outbox
	SentBatch(ctx context.Context, ids []string) error
}

// Never is the retry time given to [Outbox.Retry] for a reply the Sender has
// given up on (when the Outbox is not a [FailedOutbox]): a date so far ahead
// that Due never returns the reply again, while the row is kept for a person
// to look at.
var Never = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// SenderOptions configures a [Sender]. Addr is required; other zero fields
// take the defaults given.
type SenderOptions struct {
	// Addr is the SMTP server's host:port.
	Addr string
	// Security defaults to SecurityTLS. SecurityPlain is refused unless
	// Addr is a loopback address or AllowInsecure is set.
	Security      Security
	AllowInsecure bool
	// TLSConfig for tls and starttls; nil means the system roots and the
	// host name from Addr.
	TLSConfig *tls.Config
	// Username and Password, if Username is set, are used for AUTH PLAIN.
	Username, Password string
	// Helo is the name given in EHLO (default "localhost").
	Helo string

	// BackoffMin and BackoffMax bound the delay before retrying a failed
	// reply: BackoffMin·2^attempts, capped (defaults 30s and 1h).
	BackoffMin, BackoffMax time.Duration
	// PollInterval is how often the outbox is checked when nothing wakes
	// the Sender (default 30s).
	PollInterval time.Duration
	// MaxPermanentAttempts is how many times a reply that fails with a
	// permanent SMTP error (5xx) is tried before the Sender gives up on it
	// (default 3). Temporary errors (4xx, connection failures) are retried
	// for ever, with backoff.
	MaxPermanentAttempts int
	// BatchSize is the most replies taken from the outbox at once
	// (default 50).
	BatchSize int
	// Connections is how many SMTP connections deliver a batch in
	// parallel (default 1). The replies to one recipient go over one of
	// them, in the outbox's order.
	Connections int
	// Timeout bounds one SMTP conversation's network reads and writes
	// (default 2m).
	Timeout time.Duration
	// AcceptedLog, if set, is a file in which the Sender notes, fsynced,
	// each reply the server accepted, the moment it did, before it calls
	// Outbox.Sent (a store's write may wait for other transactions). A
	// Sender started after a crash reads it and records those replies as
	// sent instead of sending them again. It also notes each reply (its
	// sender, Message-ID and recipients) before it sends it, for
	// Delivered. The file is emptied whenever every reply noted in it is
	// recorded in the Outbox and none is being sent.
	AcceptedLog string
	// Direct, if set, delivers each reply instead of SMTP: for a mail
	// server in the same process (the embedded servers), which takes the
	// message as its SMTP server would, without a connection, the dot
	// stuffing and the parsing of a conversation. It returns once the
	// message is durable in every recipient's mailbox, or an error:
	// temporary unless marked Permanent. Lanes (Connections) still send
	// in parallel.
	Direct func(from string, rcpts []string, raw []byte) error
	// Delivered, if set, tells whether the SMTP server holds the message
	// with this Message-ID, from this envelope sender, for rcpt (the
	// embedded servers can: embedded.Servers.Delivered). A Sender started
	// after a crash asks it about each reply the AcceptedLog shows it was
	// sending without a note of its acceptance (the process died between
	// the server's 250 and the note), and every Sender asks it about each
	// reply before sending it: a reply every recipient holds is recorded
	// as sent, and one some hold goes to the others only. So with it, a
	// crash doubles no reply, and the AcceptedLog's notes need no fsync of
	// their own (they are written, which a process's death does not undo;
	// after a crash of the machine the server's answer stands in for a
	// note lost with the page cache).
	Delivered func(from, rcpt, messageID string) bool

	// CopyTo, if set, is an address of the Sender's own mailbox (for
	// example referee+sent@example.org) added as one more envelope
	// recipient of every reply, in the same SMTP transaction: a copy
	// lands in that mailbox if and only if the server accepted the
	// reply. The copy is the reply's bytes, so its recipients see no
	// trace of it (a Bcc). Copies, if set, reports which Message-IDs have
	// such a copy in the mailbox (Poller.FindCopies). A Sender started
	// after a crash, without Delivered, asks it about each reply the
	// AcceptedLog shows sent up to its final dot without a note of its
	// acceptance, waiting up to CopyWait (default 30s) for copies still
	// on their way, before it sends any of them again; a reply noted as
	// being sent but never past its final dot cannot have been accepted
	// and goes again at once. So any SMTP server that delivers into the
	// mailbox doubles no reply after a crash, unless a copy takes longer
	// than CopyWait. Settled tells the Poller when a copy may go
	// (PollerOptions.CopySettled).
	CopyTo   string
	Copies   func(ctx context.Context, messageIDs []string) (map[string]bool, error)
	CopyWait time.Duration

	// Accepted, if set, is called with the id of each reply the server
	// accepted, once it is marked (in the AcceptedLog, or else in the
	// Outbox); for measurements.
	Accepted func(id string)

	// Now is the clock, for tests (default time.Now).
	Now func() time.Time
	// Metrics, if set, is updated.
	Metrics *Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Sender delivers the replies in an [Outbox] over SMTP.
//
// A reply is marked sent right after the server accepts it (250 after
// DATA), before its connection sends the next one: in the AcceptedLog if
// there is one (the Outbox then records it as soon as it can, in batches
// with the replies other connections had accepted meanwhile), else in the
// Outbox. The note is written at once, which a process's death does not
// undo; its fsync, against a crash of the machine, runs while the
// connection sends the next reply's MAIL, RCPT, DATA and text, and ends
// before that reply's final dot. Connections mark together: one fsync or
// one transaction covers every reply accepted while the one before ran. If the
// process dies between the server's 250 and that first mark, the reply
// goes out again on the next attempt with the same bytes and Message-ID:
// that duplicate, at most one reply per connection, is the one window
// exactly-once delivery cannot close over SMTP alone. A server that can
// say what it holds closes it (SenderOptions.Delivered): each reply is
// looked up there before it is sent, and the replies the log shows under
// way at a crash as soon as the Sender starts. Any other server closes it
// through the Sender's own mailbox (SenderOptions.CopyTo and Copies):
// each reply also goes there in the same transaction, and after a crash
// the replies past their final dot are looked up among the copies. Within
// one process, a reply whose Sent failed is remembered and not sent again.
type Sender struct {
	outbox Outbox
	opts   SenderOptions
	sec    Security
	log    *slog.Logger
	wake   chan struct{}

	mu       sync.Mutex
	accepted map[string]bool // accepted by the server, Sent not yet recorded
	// marked are the replies recorded as sent since the current Due call
	// began: that call may still return them.
	marked      map[string]bool
	logOpen     bool     // AcceptedLog read and open (or not used)
	acceptedLog *os.File // AcceptedLog
	sending     int      // replies noted in the AcceptedLog as being sent, not yet settled
	// partial are the replies some of whose recipients held them after
	// a crash: the recipients still to send them to.
	partial map[string][]string

	idle     []*smtp.Client // connections kept between SendDue calls
	idleFrom time.Time      // when they were last used

	// copyMu guards what Settled reads: whether the AcceptedLog has been
	// read (copiesReady) and the Message-IDs of the replies being sent
	// (flying), which the Poller must not expunge the copies of.
	copyMu      sync.Mutex
	copiesReady bool
	flying      map[string]int

	logSync group // fsyncs of the AcceptedLog, shared by the connections
	marks   group // Outbox.Sent(Batch) calls, shared by the connections
	markErr error // the last failure of marks, for SendDue to return
}

// NewSender checks opts and returns a Sender for outbox. It does no I/O.
func NewSender(outbox Outbox, opts *SenderOptions) (*Sender, error) {
	o := *opts
	if o.Addr == "" {
		return nil, errors.New("mail: SenderOptions.Addr is empty")
	}
	sec, err := checkSecurity(o.Security, o.Addr, o.AllowInsecure)
	if err != nil {
		return nil, err
	}
	if o.Helo == "" {
		o.Helo = "localhost"
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = 30 * time.Second
	}
	if o.BackoffMax < o.BackoffMin {
		o.BackoffMax = max(time.Hour, o.BackoffMin)
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 30 * time.Second
	}
	if o.MaxPermanentAttempts <= 0 {
		o.MaxPermanentAttempts = 3
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 50
	}
	if o.Connections <= 0 {
		o.Connections = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.CopyWait <= 0 {
		o.CopyWait = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Metrics == nil {
		o.Metrics = &Metrics{} // counted but not shown
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Sender{
		outbox:   outbox,
		opts:     o,
		sec:      sec,
		log:      log.With("component", "smtp", "addr", o.Addr),
		wake:     make(chan struct{}, 1),
		accepted: make(map[string]bool),
		marked:   make(map[string]bool),
		partial:  make(map[string][]string),
		flying:   make(map[string]int),
	}
	s.logSync.fn = func(context.Context, []string) error { return s.syncLog() }
	s.marks.fn = s.markSentBatch
	// The accepted log holds what the Outbox does not have yet: its
	// records can wait a moment to be gathered into fewer transactions.
	s.marks.linger, s.marks.hurry = markLinger, make(chan struct{}, 1)
	return s, nil
}

// Wake makes the Sender check the outbox at once; call it after committing
// a transaction that queued replies. It never blocks.
func (s *Sender) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run delivers due replies until ctx is done, then returns ctx.Err(). It
// checks the outbox when woken, every PollInterval, when the earliest retry
// it scheduled falls due and, with a [NextDueOutbox], when the earliest
// reply in the outbox falls due.
func (s *Sender) Run(ctx context.Context) error {
	defer s.closeIdle(0)
	for {
		next, err := s.SendDue(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if nd, ok := s.outbox.(NextDueOutbox); ok && err == nil {
			var at time.Time
			var found bool
			at, found, err = nd.NextDue(ctx)
			if now := s.opts.Now(); found && !at.After(now) {
				// Due did not return it just now (a reply queued since
				// comes with a Wake): look again after a pause, not in
				// a busy loop.
				at = now.Add(s.opts.BackoffMin)
			}
			if err != nil {
				err = fmt.Errorf("mail: outbox next due: %w", err)
			} else if found && (next.IsZero() || at.Before(next)) {
				next = at
			}
		}
		wait := s.opts.PollInterval
		if err != nil {
			s.log.Error("outbox", "err", err)
			wait = min(wait, s.opts.BackoffMin)
		}
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(s.opts.Now()), time.Millisecond))
		}
		t := time.NewTimer(wait)
		var idle <-chan time.Time
		var it *time.Timer
		if at, ok := s.idleUntil(); ok {
			it = time.NewTimer(max(time.Until(at), 0))
			idle = it.C
		}
	waiting:
		select {
		case <-ctx.Done():
			t.Stop()
			if it != nil {
				it.Stop()
			}
			return ctx.Err()
		case <-s.wake:
		case <-t.C:
		case <-idle:
			s.closeIdle(keepAlive)
			idle = nil
			goto waiting
		}
		t.Stop()
		if it != nil {
			it.Stop()
		}
	}
}

// keepAlive is how long the Sender keeps its SMTP connections open after
// their last reply, so that the next replies need no new connection.
const keepAlive = 20 * time.Second

// idleUntil is when the idle connections are to be closed; ok is false
// when there are none.
func (s *Sender) idleUntil() (at time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idleFrom.Add(keepAlive), len(s.idle) > 0
}

// closeIdle closes the idle connections unused for at least d.
func (s *Sender) closeIdle(d time.Duration) {
	s.mu.Lock()
	var cs []*smtp.Client
	if time.Since(s.idleFrom) >= d {
		cs, s.idle = s.idle, nil
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.Quit()
		c.Close()
	}
}

// takeIdle returns an idle connection, or nil.
func (s *Sender) takeIdle() *smtp.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.idle) == 0 {
		return nil
	}
	c := s.idle[len(s.idle)-1]
	s.idle = s.idle[:len(s.idle)-1]
	return c
}

// keepIdle keeps c for the next SendDue.
func (s *Sender) keepIdle(c *smtp.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle = append(s.idle, c)
	s.idleFrom = time.Now()
}

// SendDue delivers every reply that is due now, batch after batch, and
// returns the earliest retry time it scheduled (zero if none). Errors from
// the SMTP server are recorded in the outbox, not returned; an error from
// the outbox itself is returned. The connections it opens last until it
// returns.
func (s *Sender) SendDue(ctx context.Context) (next time.Time, err error) {
	if err := s.openLog(ctx); err != nil {
		return next, err
	}
	lanes := make([]*lane, s.opts.Connections)
	for i := range lanes {
		lanes[i] = &lane{s: s, ctx: ctx, c: s.takeIdle()}
		lanes[i].reused = lanes[i].c != nil
	}
	defer func() {
		for _, l := range lanes {
			if l.c != nil && ctx.Err() == nil {
				s.keepIdle(l.c)
				l.c = nil
			}
			l.close()
		}
		// Replies noted in the log but not yet in the Outbox: record
		// them now, so that SendDue leaves the Outbox up to date.
		if err2 := s.flushMarks(ctx); err == nil && err2 != nil {
			err = err2
		}
	}()
	for ctx.Err() == nil {
		s.mu.Lock()
		clear(s.marked)
		s.mu.Unlock()
		items, err := s.outbox.Due(ctx, s.opts.Now(), s.opts.BatchSize)
		if err != nil {
			return next, fmt.Errorf("mail: outbox due: %w", err)
		}
		if len(items) == 0 {
			return next, nil
		}
		parts, cut := s.split(items, len(lanes))
		var wg sync.WaitGroup
		for i, part := range parts {
			if len(part) == 0 {
				continue
			}
			l := lanes[i]
			l.items = part
			wg.Go(l.run)
		}
		wg.Wait()
		progress := false
		for _, l := range lanes {
			if !l.next.IsZero() && (next.IsZero() || l.next.Before(next)) {
				next = l.next
			}
			progress = progress || l.progress
			if err == nil {
				err = l.err
			}
			l.next, l.progress, l.err, l.items = time.Time{}, false, nil, nil
		}
		if err != nil {
			return next, err
		}
		if (len(items) < s.opts.BatchSize && !cut) || !progress {
			return next, nil
		}
	}
	return next, ctx.Err()
}

// split shares items among n connections: the replies to one recipient
// all go to one connection, in order. When a reply's recipients are
// already given to two connections, the batch is cut before it (cut is
// true): it goes in the next batch, after these.
func (s *Sender) split(items []Outgoing, n int) (parts [][]Outgoing, cut bool) {
	parts = make([][]Outgoing, n)
	if n == 1 {
		parts[0] = items
		return parts, false
	}
	laneOf := map[string]int{}
	for _, o := range items {
		l := -1
		for _, r := range o.Recipients() {
			if k, ok := laneOf[strings.ToLower(r)]; ok && k != l {
				if l >= 0 {
					return parts, true
				}
				l = k
			}
		}
		if l < 0 {
			l = 0
			for k := range parts {
				if len(parts[k]) < len(parts[l]) {
					l = k
				}
			}
		}
		for _, r := range o.Recipients() {
			laneOf[strings.ToLower(r)] = l
		}
		parts[l] = append(parts[l], o)
	}
	return parts, false
}

// lane is one SMTP connection of SendDue, and what it did with its part of
// a batch.
type lane struct {
	s        *Sender
	ctx      context.Context
	c        *smtp.Client
	reused   bool // c was kept from an earlier SendDue: check it first
	items    []Outgoing
	next     time.Time // the earliest retry it scheduled
	progress bool      // some item left the due set
	err      error     // from the outbox
	// synced is the fsync of the AcceptedLog that covers the note of
	// the lane's last reply (nil: none runs), and noted that reply.
	synced <-chan error
	noted  string
}

// composeAhead composes the lane's mails (Compose: their pictures drawn)
// in order, up to two ahead of the one being sent, so that drawing the
// next overlaps the server's wait for the disk: next returns each in
// turn; stop ends the composing (call it when the lane ends).
func (l *lane) composeAhead() (next func() []byte, stop func()) {
	out := make(chan []byte, 2)
	quit := make(chan struct{})
	items := l.items
	go func() {
		defer close(out)
		for i := range items {
			raw := Compose(&items[i])
			select {
			case out <- raw:
			case <-quit:
				return
			}
		}
	}()
	return func() []byte { return <-out }, sync.OnceFunc(func() { close(quit) })
}

// accept marks a reply the server accepted (Sender.accept); the fsync of
// its note, if one is needed, is waited for by settle, before the lane's
// next reply is committed.
func (l *lane) accept(id string) error {
	l.settle()
	synced, err := l.s.accept(l.ctx, id)
	l.synced, l.noted = synced, id
	if synced == nil && err == nil {
		l.s.accepted1(id)
	}
	return err
}

// settle waits for the fsync of the note of the lane's last reply: it is
// called before the next reply's final dot (the server's moment of
// acceptance), so that a crash of the machine can cost at most one reply
// a connection, and when the lane ends.
func (l *lane) settle() {
	if l.synced == nil {
		return
	}
	if err := <-l.synced; err != nil {
		l.s.log.Error("accepted log: a crash of the machine now would send this reply again", "id", l.noted, "err", err)
	}
	l.synced = nil
	l.s.accepted1(l.noted)
}

func (l *lane) close() {
	if l.c != nil {
		l.c.Quit()
		l.c.Close()
		l.c = nil
	}
}

// run sends the lane's items over its connection, dialling it if needed
// (once per batch: when the server is down, every reply of the lane is
// rescheduled with that error).
func (l *lane) run() {
	s, ctx := l.s, l.ctx
	defer l.settle()
	next, stop := l.composeAhead()
	defer stop()
	var connErr error
	for i := range l.items {
		o := &l.items[i]
		raw := next()
		if ctx.Err() != nil {
			return
		}
		marked, accepted := s.state(o.ID)
		if marked {
			continue // recorded as sent after Due read it
		}
		if accepted {
			if err := s.markSent(ctx, o.ID); err != nil {
				l.err = err
				return
			}
			l.progress = true
			continue
		}
		rcpts := s.recipients(o)
		if len(rcpts) == 0 {
			// Every recipient holds it already (a crash's note lost, or
			// an attempt that failed after the server took it).
			s.log.Info("reply found delivered; not sent again", "id", o.ID, "message_id", o.MessageID)
			s.setAccepted(o.ID)
			if err := l.accept(o.ID); err != nil {
				l.err = err
				return
			}
			l.progress = true
			continue
		}
		if l.reused && l.c != nil {
			// A connection kept idle may have been closed by the
			// server meanwhile: check it, else dial afresh.
			l.reused = false
			if err := l.c.Noop(); err != nil {
				l.c.Close()
				l.c = nil
			}
		}
		sendErr := connErr
		if l.c == nil && connErr == nil && s.opts.Direct == nil {
			l.c, connErr = s.connect()
			sendErr = connErr
		}
		if sendErr == nil {
			s.fly(o.MessageID, 1)
			s.noteSending(o, rcpts)
			commit := func() { l.settle(); s.noteDot(o) }
			if s.opts.Direct != nil {
				sendErr = s.sendDirect(o, raw, rcpts, commit)
			} else {
				sendErr = s.send(l.c, o, raw, rcpts, commit)
			}
			if sendErr == nil {
				s.setAccepted(o.ID)
			}
			s.sent()
		}
		if sendErr == nil {
			s.opts.Metrics.Sent.Add(1)
			s.log.Debug("reply sent", "id", o.ID, "message_id", o.MessageID, "to", o.Recipients())
			err := l.accept(o.ID)
			s.fly(o.MessageID, -1) // noted as accepted: its copy may go
			if err != nil {
				l.err = err
				return
			}
			l.progress = true
			continue
		}
		if connErr == nil {
			s.fly(o.MessageID, -1)
		}
		at, err := s.failed(ctx, o, sendErr)
		if err != nil {
			l.err = err
			return
		}
		l.progress = true
		if at != Never && (l.next.IsZero() || at.Before(l.next)) {
			l.next = at
		}
		var smtpErr *smtp.SMTPError
		if errors.As(sendErr, &smtpErr) && l.c != nil {
			// The server refused this reply; the connection is still good.
			if err := l.c.Reset(); err == nil {
				continue
			}
		}
		if l.c != nil {
			l.c.Close()
			l.c = nil
		}
	}
}

// accept marks a reply the server accepted, before its connection sends
// another: with an AcceptedLog, noted there (written at once; the Outbox
// records it later in a batch) and an fsync of the log started, shared
// with what the other connections noted meanwhile, whose end synced
// reports; without, recorded in the Outbox. With Delivered the note needs
// no fsync (the server's record stands in for a note lost with the
// machine): synced is nil.
func (s *Sender) accept(ctx context.Context, id string) (synced <-chan error, err error) {
	if s.noteAccepted(id) {
		s.marks.add(id)
		if s.opts.Delivered == nil {
			synced = s.logSync.start()
		}
		return synced, nil
	}
	return nil, s.markSent(ctx, id)
}

// accepted1 tells SenderOptions.Accepted that id is marked.
func (s *Sender) accepted1(id string) {
	if s.opts.Accepted != nil {
		s.opts.Accepted(id)
	}
}

// flushMarks records in the Outbox the accepted replies still waiting, and
// returns the last failure to record some since it was last called.
func (s *Sender) flushMarks(ctx context.Context) error {
	err := s.marks.do(ctx, "")
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		err = s.markErr
	}
	s.markErr = nil
	return err
}

func (s *Sender) connect() (*smtp.Client, error) {
	var c *smtp.Client
	var err error
	switch s.sec {
	case SecurityTLS:
		c, err = smtp.DialTLS(s.opts.Addr, s.opts.TLSConfig)
	case SecurityStartTLS:
		c, err = smtp.DialStartTLS(s.opts.Addr, s.opts.TLSConfig)
	default:
		c, err = smtp.Dial(s.opts.Addr)
	}
	if err != nil {
		return nil, err
	}
	c.CommandTimeout = s.opts.Timeout
	c.SubmissionTimeout = s.opts.Timeout
	if err := c.Hello(s.opts.Helo); err != nil {
		c.Close()
		return nil, err
	}
	if s.opts.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", s.opts.Username, s.opts.Password)); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// send submits o over c to rcpts. commit is called before the final dot,
// the server's moment of acceptance, once MAIL, RCPT and DATA are
// answered and the message is written.
func (s *Sender) send(c *smtp.Client, o *Outgoing, raw []byte, rcpts []string, commit func()) error {
	if len(rcpts) == 0 {
		return Permanent(errors.New("no recipients"))
	}
	if o.From.Addr == "" {
		return Permanent(errors.New("no From address"))
	}
	var opts *smtp.MailOptions
	if !ascii(o.From.Addr) || slices.ContainsFunc(rcpts, func(r string) bool { return !ascii(r) }) {
		opts = &smtp.MailOptions{UTF8: true}
	}
	if err := c.Mail(o.From.Addr, opts); err != nil {
		return err
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	if s.opts.CopyTo != "" {
		// The copy is the Sender's own record of the server's
		// acceptance: a refusal of it (a full mailbox) must not hold the
		// reply back.
		if err := c.Rcpt(s.opts.CopyTo, nil); err != nil {
			var smtpErr *smtp.SMTPError
			if !errors.As(err, &smtpErr) {
				return err
			}
			s.log.Warn("the server refused the copy of a reply; a crash now could send it twice", "copy_to", s.opts.CopyTo, "message_id", o.MessageID, "err", err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	commit()
	return w.Close()
}

// sendDirect hands o to SenderOptions.Direct for rcpts; commit is called
// just before, where send calls it before the final dot.
func (s *Sender) sendDirect(o *Outgoing, raw []byte, rcpts []string, commit func()) error {
	if len(rcpts) == 0 {
		return Permanent(errors.New("no recipients"))
	}
	if o.From.Addr == "" {
		return Permanent(errors.New("no From address"))
	}
	commit()
	return s.opts.Direct(o.From.Addr, rcpts, raw)
}

// ascii reports whether s is plain ASCII (else MAIL asks for SMTPUTF8, as
// smtp.Client.SendMail does).
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// failed records a failed attempt and returns when the reply is due again
// (Never if the Sender gave up on it).
func (s *Sender) failed(ctx context.Context, o *Outgoing, sendErr error) (time.Time, error) {
	perm := SMTPPermanent(sendErr)
	msg := sendErr.Error()
	log := s.log.With("id", o.ID, "message_id", o.MessageID, "attempt", o.Attempts+1, "err", sendErr)
	if perm && o.Attempts+1 >= s.opts.MaxPermanentAttempts {
		log.Error("giving up on reply after permanent errors")
		s.opts.Metrics.Failed.Add(1)
		var err error
		if f, ok := s.outbox.(FailedOutbox); ok {
			err = f.Failed(ctx, o.ID, msg)
		} else {
			err = s.outbox.Retry(ctx, o.ID, Never, msg)
		}
		if err != nil {
			return Never, fmt.Errorf("mail: outbox: %w", err)
		}
		return Never, nil
	}
	at := s.opts.Now().Add(backoff(o.Attempts, s.opts.BackoffMin, s.opts.BackoffMax))
	log.Warn("reply not delivered; will retry", "permanent", perm, "at", at)
	s.opts.Metrics.Retried.Add(1)
	if err := s.outbox.Retry(ctx, o.ID, at, msg); err != nil {
		return at, fmt.Errorf("mail: outbox retry: %w", err)
	}
	return at, nil
}

// markSent records id in the Outbox (with whatever else waits to be) and
// returns once it is.
func (s *Sender) markSent(ctx context.Context, id string) error {
	return s.marks.do(ctx, id)
}

// markSentBatch records ids in the Outbox, in one call when it is a
// [BatchSentOutbox]. A failure is returned; the ids stay remembered as
// accepted (never sent again by this process).
func (s *Sender) markSentBatch(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var err error
	if b, ok := s.outbox.(BatchSentOutbox); ok && len(ids) > 1 {
		err = b.SentBatch(ctx, ids)
	} else {
		for _, id := range ids {
			if err = s.outbox.Sent(ctx, id); err != nil {
				break
			}
			s.forget(id)
		}
	}
	if err != nil {
		s.log.Warn("recording replies as sent failed; they are remembered and not sent again", "replies", len(ids), "err", err)
		err = fmt.Errorf("mail: outbox sent: %w", err)
		s.mu.Lock()
		s.markErr = err
		s.mu.Unlock()
		return err
	}
	for _, id := range ids {
		s.forget(id)
	}
	return nil
}

// forget drops id from the accepted replies once the Outbox has it.
func (s *Sender) forget(id string) {
	s.mu.Lock()
	delete(s.accepted, id)
	delete(s.partial, id)
	s.marked[id] = true
	s.settleLog()
	s.mu.Unlock()
}

// settleLog empties the AcceptedLog when everything noted in it is in the
// Outbox and nothing is being sent; s.mu is held. Not synced: should this
// be lost, the ids are recorded again, which changes nothing.
func (s *Sender) settleLog() {
	if len(s.accepted) == 0 && s.sending == 0 && len(s.partial) == 0 && s.acceptedLog != nil {
		if err := s.acceptedLog.Truncate(0); err != nil {
			s.log.Warn("accepted log", "err", err)
		}
	}
}

// recipients returns the recipients to send o to: all of o's, or those
// that did not hold it after a crash, less those that hold it now if
// Delivered says.
func (s *Sender) recipients(o *Outgoing) []string {
	s.mu.Lock()
	rcpts, ok := s.partial[o.ID]
	s.mu.Unlock()
	if !ok {
		rcpts = o.Recipients()
	}
	if s.opts.Delivered == nil || len(rcpts) == 0 {
		return rcpts
	}
	left := rcpts[:0:0]
	for _, r := range rcpts {
		if !s.opts.Delivered(o.From.Addr, r, o.MessageID) {
			left = append(left, r)
		}
	}
	return left
}

// noteSending notes in the AcceptedLog, unsynced (a write survives the
// process), that o is about to be sent to rcpts, with what Delivered
// needs to look it up after a crash. Each call is followed by one of
// sent.
func (s *Sender) noteSending(o *Outgoing, rcpts []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.acceptedLog == nil {
		return
	}
	s.sending++
	note := "? " + o.ID
	if fields := append([]string{o.From.Addr, o.MessageID}, rcpts...); !slices.ContainsFunc(fields, hasSpace) {
		note += " " + strings.Join(fields, " ")
	}
	if _, err := s.acceptedLog.WriteString(note + "\n"); err != nil {
		s.log.Error("accepted log: a crash now could send this reply again", "id", o.ID, "err", err)
	}
}

// noteDot notes in the AcceptedLog, unsynced, that o's text is written
// and its final dot about to go: only from then on can the server have
// accepted it. Noted only when copies can tell (SenderOptions.Copies).
func (s *Sender) noteDot(o *Outgoing) {
	if s.opts.Copies == nil || s.opts.Delivered != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.acceptedLog == nil {
		return
	}
	if _, err := s.acceptedLog.WriteString("! " + o.ID + "\n"); err != nil {
		s.log.Error("accepted log: a crash now could send this reply again", "id", o.ID, "err", err)
	}
}

// fly counts the replies with messageID being sent (d is 1 when one
// starts, -1 when it is noted as accepted or has failed).
func (s *Sender) fly(messageID string, d int) {
	s.copyMu.Lock()
	defer s.copyMu.Unlock()
	if s.flying[messageID] += d; s.flying[messageID] <= 0 {
		delete(s.flying, messageID)
	}
}

// Settled reports whether the copy of the reply with messageID in the
// Sender's own mailbox (SenderOptions.CopyTo) is no longer needed: the
// replies a crash left in doubt have been looked up (the AcceptedLog is
// read), and no reply with that Message-ID is being sent without a note
// of its acceptance. It is PollerOptions.CopySettled.
func (s *Sender) Settled(messageID string) bool {
	s.copyMu.Lock()
	defer s.copyMu.Unlock()
	return s.copiesReady && s.flying[messageID] == 0
}

// sent ends a noteSending: the reply is accepted (setAccepted was called)
// or failed.
func (s *Sender) sent() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.acceptedLog == nil {
		return
	}
	s.sending--
	s.settleLog()
}

// hasSpace reports whether f is empty or holds a space or a control
// character: it cannot be a field of a note in the AcceptedLog.
func hasSpace(f string) bool {
	return f == "" || strings.ContainsFunc(f, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// openLog reads the AcceptedLog once: the replies a crashed process saw
// accepted are recorded as sent (or, if that fails now, remembered and
// never sent again by this process). It then keeps the file open.
func (s *Sender) openLog(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logOpen || s.opts.AcceptedLog == "" {
		s.copyMu.Lock()
		s.copiesReady = true
		s.copyMu.Unlock()
		return nil
	}
	f, err := os.OpenFile(s.opts.AcceptedLog, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("mail: accepted log: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("mail: accepted log %s: %w", s.opts.AcceptedLog, err)
	}
	lines := strings.Split(string(data), "\n")
	// The text after the last newline is a note cut short by a crash
	// (a prefix of an id, which could name another reply): not used,
	// and cut off so that the next note starts on a line of its own.
	if cut := len(lines[len(lines)-1]); cut > 0 {
		if err := f.Truncate(int64(len(data) - cut)); err != nil {
			f.Close()
			return fmt.Errorf("mail: accepted log %s: %w", s.opts.AcceptedLog, err)
		}
	}
	// A reply noted as being sent ("? id from message-id rcpt...") and
	// not as accepted (its id alone) may or may not have reached the
	// server: Delivered, if set, says; else Copies, if set, for those
	// whose final dot went ("! id").
	var ids []string
	doubt := map[string][]string{}
	dotted := map[string]bool{}
	for _, line := range lines[:len(lines)-1] {
		if note, ok := strings.CutPrefix(line, "? "); ok {
			fields := strings.Fields(note)
			if len(fields) > 0 {
				doubt[fields[0]] = fields[1:]
			}
			continue
		}
		if id, ok := strings.CutPrefix(line, "! "); ok {
			dotted[id] = true
			continue
		}
		if line != "" {
			ids = append(ids, line)
		}
	}
	for _, id := range ids {
		delete(doubt, id)
	}
	if s.opts.Delivered == nil && s.opts.Copies != nil && len(doubt) > 0 {
		found, err := s.findCopies(ctx, doubt, dotted)
		if err != nil {
			f.Close()
			return err
		}
		for _, id := range found {
			if _, err := f.WriteString(id + "\n"); err != nil {
				s.log.Warn("accepted log", "err", err)
			}
			delete(doubt, id)
			ids = append(ids, id)
		}
	}
	s.acceptedLog, s.logOpen = f, true
	for _, id := range slices.Sorted(maps.Keys(doubt)) {
		f := doubt[id]
		if s.opts.Delivered == nil || len(f) < 3 {
			continue // sent again
		}
		from, mid, rcpts := f[0], f[1], f[2:]
		var left []string
		for _, r := range rcpts {
			if !s.opts.Delivered(from, r, mid) {
				left = append(left, r)
			}
		}
		switch {
		case len(left) == 0:
			s.log.Info("reply under way at a restart found delivered; not sent again", "id", id, "message_id", mid)
			if _, err := s.acceptedLog.WriteString(id + "\n"); err != nil {
				s.log.Warn("accepted log", "err", err)
			}
			ids = append(ids, id)
		case len(left) < len(rcpts):
			s.log.Info("reply under way at a restart found delivered to some recipients; sent to the others only", "id", id, "message_id", mid, "to", left)
			s.partial[id] = left
		}
	}
	for _, id := range ids {
		if s.accepted[id] {
			continue
		}
		if err := s.outbox.Sent(ctx, id); err != nil {
			s.log.Warn("reply accepted before a restart; recording it as sent failed", "id", id, "err", err)
			s.accepted[id] = true
			continue
		}
		s.log.Info("reply accepted before a restart recorded as sent", "id", id)
	}
	if len(s.accepted) == 0 && len(s.partial) == 0 {
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("mail: accepted log %s: %w", s.opts.AcceptedLog, err)
		}
	}
	s.copyMu.Lock()
	s.copiesReady = true
	s.copyMu.Unlock()
	return nil
}

// copyPoll is how often findCopies looks again for copies on their way.
const copyPoll = 500 * time.Millisecond

// findCopies looks up in the Sender's own mailbox (SenderOptions.Copies)
// the replies in doubt (id -> from, Message-ID, recipients) whose final
// dot went (dotted), for up to CopyWait, and returns the ids of those
// whose copy it found: the server took them. The others are sent again.
func (s *Sender) findCopies(ctx context.Context, doubt map[string][]string, dotted map[string]bool) ([]string, error) {
	byMID := map[string]string{}
	for id, f := range doubt {
		if dotted[id] && len(f) >= 2 {
			byMID[f[1]] = id
		}
	}
	var found []string
	deadline := s.opts.Now().Add(s.opts.CopyWait)
	for len(byMID) > 0 {
		held, err := s.opts.Copies(ctx, slices.Sorted(maps.Keys(byMID)))
		if err != nil {
			return nil, fmt.Errorf("mail: looking for the copies of the replies under way at a restart: %w", err)
		}
		for mid := range held {
			if id, ok := byMID[mid]; ok {
				s.log.Info("reply under way at a restart found in the copies; not sent again", "id", id, "message_id", mid)
				found = append(found, id)
				delete(byMID, mid)
			}
		}
		if len(byMID) == 0 || !s.opts.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(copyPoll):
		}
	}
	for mid, id := range byMID {
		s.opts.Metrics.Resent.Add(1)
		s.log.Warn("reply under way at a restart has no copy after the wait; sent again (its recipients may get it twice)", "id", id, "message_id", mid, "waited", s.opts.CopyWait)
	}
	return found, nil
}

// noteAccepted appends id to the AcceptedLog, unsynced (accept syncs
// it). It reports whether there is a log.
func (s *Sender) noteAccepted(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.acceptedLog == nil {
		return false
	}
	if _, err := s.acceptedLog.WriteString(id + "\n"); err != nil {
		s.log.Error("accepted log: a crash now would send this reply again", "id", id, "err", err)
	}
	return true
}

// syncLog fsyncs the AcceptedLog.
func (s *Sender) syncLog() error {
	s.mu.Lock()
	f := s.acceptedLog
	s.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.Sync()
}

// state says whether id was recorded as sent since Due began, or accepted
// and not yet recorded.
func (s *Sender) state(id string) (marked, accepted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marked[id], s.accepted[id]
}

func (s *Sender) setAccepted(id string) {
	s.mu.Lock()
	s.accepted[id] = true
	s.mu.Unlock()
}

// SMTPPermanent reports whether err is a permanent delivery failure: an
// SMTP 5xx reply, or an error marked [Permanent]. Connection failures,
// timeouts and 4xx replies are temporary.
func SMTPPermanent(err error) bool {
	var smtpErr *smtp.SMTPError
	if errors.As(err, &smtpErr) {
		return smtpErr.Code/100 == 5
	}
	var tpErr *textproto.Error
	if errors.As(err, &tpErr) {
		return tpErr.Code/100 == 5
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return false
	}
	return IsPermanent(err)
}

// group runs fn over what several goroutines ask for, together: a call of
// do whose item arrives while fn runs waits for the next run, which takes
// every item that arrived meanwhile (group commit: one fsync or one
// transaction for many). add leaves an item for the next run without
// waiting; do with an empty item only waits for a run to cover what was
// added before.
type group struct {
	fn func(ctx context.Context, items []string) error
	// linger is how long a run started by add waits for more items
	// before it starts; a do cuts the wait short.
	linger time.Duration
	hurry  chan struct{}

	mu      sync.Mutex
	pending []string
	waiters []chan error
	running bool
}

func (g *group) add(item string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, item)
	if !g.running {
		g.running = true
		go func() {
			if g.linger > 0 {
				t := time.NewTimer(g.linger)
				select {
				case <-t.C:
				case <-g.hurry:
					t.Stop()
				}
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			g.loop(context.Background())
		}()
	}
}

// start asks for a run that covers what was added before, as do("")
// does, without waiting: the channel gets the run's result.
func (g *group) start() <-chan error {
	ch := make(chan error, 1)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waiters = append(g.waiters, ch)
	if !g.running {
		g.running = true
		go func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.loop(context.Background())
		}()
	}
	return ch
}

func (g *group) do(ctx context.Context, item string) error {
	ch := make(chan error, 1)
	g.mu.Lock()
	if item != "" {
		g.pending = append(g.pending, item)
	}
	g.waiters = append(g.waiters, ch)
	if g.hurry != nil {
		select {
		case g.hurry <- struct{}{}:
		default:
		}
	}
	if !g.running {
		g.running = true
		g.loop(ctx)
	}
	g.mu.Unlock()
	return <-ch
}

// loop runs fn until nothing waits; g.mu is held, and released while fn
// runs.
func (g *group) loop(ctx context.Context) {
	for len(g.waiters) > 0 || len(g.pending) > 0 {
		items, ws := g.pending, g.waiters
		g.pending, g.waiters = nil, nil
		g.mu.Unlock()
		err := g.fn(ctx, items)
		for _, w := range ws {
			w <- err
		}
		g.mu.Lock()
		if err != nil && len(g.waiters) == 0 {
			break // failed: what was added meanwhile waits for the next do
		}
	}
	g.running = false
}
