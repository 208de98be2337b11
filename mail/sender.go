package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// Outbox is the durable queue of replies, implemented by the application on
// its store. Replies are added to it in the same transaction as the effect
// that caused them; the [Sender] only reads and updates it.
type Outbox interface {
	// Due returns up to limit replies whose next attempt is at or before
	// now, oldest first, with Attempts set.
	Due(ctx context.Context, now time.Time, limit int) ([]Outgoing, error)
	// NextDue returns the earliest next attempt of any reply still to be
	// delivered (ok is false when none waits). The Sender wakes when that
	// reply falls due, whoever scheduled it: a retry set by a process that
	// has since stopped, or by another Sender, goes out on time instead of
	// at the next poll.
	NextDue(ctx context.Context) (at time.Time, ok bool, err error)
	// Sent records that the SMTP server accepted the reply: it is never
	// returned by Due again.
	Sent(ctx context.Context, id string) error
	// SentBatch records several replies as sent at once (one transaction,
	// one sync to disk). The Sender records the replies the server
	// accepted in batches, each batch as soon as the one before is
	// stored. A reply that no longer exists is skipped, not an error.
	SentBatch(ctx context.Context, ids []string) error
	// Retry records a failed attempt: the store increments Attempts, keeps
	// lastErr, and returns the reply from Due again from at on.
	Retry(ctx context.Context, id string, at time.Time, lastErr string) error
	// Failed records that the Sender gave up on the reply after repeated
	// permanent errors: it is never returned by Due again, and is kept
	// for a person to look at.
	Failed(ctx context.Context, id string, lastErr string) error
}

// never is the time failed gives for the next attempt of a reply the
// Sender has given up on (recorded with [Outbox.Failed]): a date so far
// ahead that no schedule waits for it.
var never = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

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

	// Copies, if set, sends a copy of every reply to the referee's own
	// mailbox, in the same SMTP transaction: a copy lands there if and
	// only if the server accepted the reply. A Sender started after a
	// crash, without Delivered, looks up among the copies each reply the
	// AcceptedLog shows sent up to its final dot without a note of its
	// acceptance, waiting up to CopiesOptions.Wait for copies still on
	// their way, before it sends any of them again; a reply noted as
	// being sent but never past its final dot cannot have been accepted
	// and goes again at once. So any SMTP server that delivers into the
	// mailbox doubles no reply after a crash, unless a copy takes longer
	// than the wait. The same Copies, given to the Poller, asks Settled
	// when a copy may go.
	Copies *Copies

	// Draw, if set, draws the bytes of an inline part that has no Data
	// from its Picture ([Inline]), as each reply is composed in the lane
	// that sends it, so that drawing is off the path that stores the
	// reply. It must give the same bytes for the same Picture. A reply
	// whose drawing fails is sent as text only (ComposeDrawing).
	Draw func(picture []byte) ([]byte, error)

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
// through the Sender's own mailbox (SenderOptions.Copies):
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
	if o.Copies != nil {
		o.Copies.sender = s
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
// it scheduled falls due and when the earliest reply in the outbox falls
// due ([Outbox.NextDue]).
func (s *Sender) Run(ctx context.Context) error {
	defer s.closeIdle(0)
	for {
		next, err := s.SendDue(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			var at time.Time
			var found bool
			at, found, err = s.outbox.NextDue(ctx)
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

// failed records a failed attempt and returns when the reply is due again
// (never if the Sender gave up on it).
func (s *Sender) failed(ctx context.Context, o *Outgoing, sendErr error) (time.Time, error) {
	perm := SMTPPermanent(sendErr)
	msg := sendErr.Error()
	log := s.log.With("id", o.ID, "message_id", o.MessageID, "attempt", o.Attempts+1, "err", sendErr)
	if perm && o.Attempts+1 >= s.opts.MaxPermanentAttempts {
		log.Error("giving up on reply after permanent errors")
		s.opts.Metrics.Failed.Add(1)
		if err := s.outbox.Failed(ctx, o.ID, msg); err != nil {
			return never, fmt.Errorf("mail: outbox: %w", err)
		}
		return never, nil
	}
	at := s.opts.Now().Add(backoff(o.Attempts, s.opts.BackoffMin, s.opts.BackoffMax))
	log.Warn("reply not delivered; will retry", "permanent", perm, "at", at)
	s.opts.Metrics.Retried.Add(1)
	if err := s.outbox.Retry(ctx, o.ID, at, msg); err != nil {
		return at, fmt.Errorf("mail: outbox retry: %w", err)
	}
	return at, nil
}
