package mail

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Handler applies an inbound message.
//
// Contract: Handle returns nil only once the message's effect, including
// every reply it queues in the outbox, is durably committed. Only then does
// the Poller mark the message \Seen and move it to the Processed folder. If
// the process dies between the commit and the move, the message is handed
// to Handle again after the restart, so Handle must be idempotent: record
// [Inbound.Key] in the same transaction as the effect, and when the key is
// already recorded, apply nothing, queue nothing and return nil.
//
// An error made with [Permanent] means the message can never be applied:
// the Poller moves it to the Rejected folder and tells the [Rejecter]. Any
// other error is temporary: the message stays unseen in the inbox and is
// handed over again after a backoff. A panic is recovered and treated as a
// permanent error (a bug: the message would fail the same way forever).
type Handler interface {
	Handle(ctx context.Context, m *Inbound) error
}

// BatchHandler is an optional extension of [Handler], found by a type
// assertion. The Poller gives a BatchHandler the readable messages of each
// fetched batch (of each part of it, when their sizes add up to more than
// PollerOptions.MaxBatchBytes) in one call, in UID order, so that it can
// commit their effects together (one transaction, one sync to disk).
// HandleBatch returns one error per message, each with the meaning Handle's
// error has for that message: nil only once that message's effect is
// durably committed, and only then is it marked \Seen and moved. The same
// idempotence is asked for. A panic is recovered and the batch handed to
// Handle message by message, so that only the message at fault is rejected.
// HandleBatch runs in a goroutine of its own while the poller fetches the
// next batch and moves the one before, but never beside another call of
// Handle, HandleBatch or the Rejecter: each batch is given once the one
// before has returned, and sees what it did.
type BatchHandler interface {
	Handler
	HandleBatch(ctx context.Context, ms []*Inbound) []error
}

// HandlerFunc adapts a function to a [Handler].
type HandlerFunc func(ctx context.Context, m *Inbound) error

// Handle calls f(ctx, m).
func (f HandlerFunc) Handle(ctx context.Context, m *Inbound) error { return f(ctx, m) }

// Rejecter is told about a message before it is moved to the Rejected
// folder: one that cannot be parsed (reason is a [*ParseError] and m holds
// Raw plus whatever header fields could be read; m.From.Addr is empty when
// there is nobody to reply to), or one the Handler rejected permanently.
// It typically queues a reply to the sender. Like a Handler, it must be
// idempotent (a crash before the move calls it again) and return nil only
// once its effect is committed; an error leaves the message in the inbox
// for a later retry.
type Rejecter interface {
	Reject(ctx context.Context, m *Inbound, reason error) error
}

// RejecterFunc adapts a function to a [Rejecter].
type RejecterFunc func(ctx context.Context, m *Inbound, reason error) error

// Reject calls f(ctx, m, reason).
func (f RejecterFunc) Reject(ctx context.Context, m *Inbound, reason error) error {
	return f(ctx, m, reason)
}

// PollerOptions configures a [Poller]. Addr is required; other zero fields
// take the defaults given.
type PollerOptions struct {
	// Addr is the IMAP server's host:port.
	Addr string
	// Security defaults to SecurityTLS. SecurityPlain is refused unless
	// Addr is a loopback address or AllowInsecure is set.
	Security      Security
	AllowInsecure bool
	// TLSConfig for tls and starttls; nil means the system roots and the
	// host name from Addr.
	TLSConfig *tls.Config

	Username, Password string

	// Mailbox is watched for new messages (default "INBOX").
	Mailbox string
	// ProcessedMailbox receives committed messages (default "Processed");
	// RejectedMailbox receives rejected ones (default "Rejected"). Both are
	// created if missing.
	ProcessedMailbox string
	RejectedMailbox  string
	// ExpungeProcessed deletes committed messages (\Deleted, expunged)
	// instead of moving them to ProcessedMailbox: the application's store
	// holds what they did, and the mailbox does not grow with every
	// message (the embedded servers keep it in memory).
	ExpungeProcessed bool

	// PollInterval is how often the mailbox is searched even when IDLE
	// reports nothing, and the only trigger when the server has no IDLE
	// (default 60s).
	PollInterval time.Duration
	// DisableIdle polls only, even when the server offers IDLE.
	DisableIdle bool
	// BackoffMin and BackoffMax bound the exponential backoff used for
	// reconnecting and for re-trying a message after a temporary Handler
	// error (defaults 1s and 5m).
	BackoffMin, BackoffMax time.Duration
	// StuckAfter is how many temporary failures make a message in the
	// inbox count as stuck (default 10): [Metrics].Stuck and
	// [Poller.Stuck] count the messages that failed more often. A stuck
	// message is still retried, never rejected for its failures alone: an
	// outage of the store must not lose mail.
	StuckAfter int
	// BatchSize is the most messages fetched and handed over at once
	// (default 50); the copies of the referee's replies (Copies), known
	// by their envelope and never fetched, are not counted.
	BatchSize int
	// MaxMessageBytes rejects larger messages (default 10 MiB), by the
	// size the server reports (RFC822.SIZE), without fetching their body.
	MaxMessageBytes int64
	// MaxBatchBytes bounds the bytes of the bodies fetched at once
	// (default 4 × MaxMessageBytes, at least MaxMessageBytes): a batch
	// whose sizes add up to more is fetched and handled in parts.
	MaxBatchBytes int64

	// Copies, if set, recognises the copies of the referee's own replies
	// that the Sender sends to its own mailbox ([Copies]): a copy is
	// never handed to the Handler nor rejected. Once its reply is
	// settled (the Sender no longer needs the copy to learn whether the
	// server took that reply), the copy is deleted and expunged; until
	// then it stays in the mailbox, looked at again after BackoffMin.
	Copies *Copies

	// Rejecter, if set, is told about rejected messages.
	Rejecter Rejecter
	// Metrics, if set, is updated.
	Metrics *Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Poller watches an IMAP mailbox and hands each new message to a Handler.
type Poller struct {
	opts PollerOptions
	sec  Security
	log  *slog.Logger

	// State kept across connections. Retry and done marks are only valid
	// for the UIDVALIDITY they were recorded under.
	uidValidity uint32
	retries     map[imap.UID]retry
	done        map[imap.UID]doneMark // handled but not yet moved
	flight      *flight               // the batch the Handler is deciding, if any
	connNum     int                   // counts connections

	wake  chan struct{}
	ready bool // the current session selected the mailbox

	// downSince is when the mailbox last stopped being selected (Unix
	// nanoseconds), 0 while a session has it selected.
	downSince atomic.Int64
	// stuck counts the messages in retries that failed more than
	// StuckAfter times.
	stuck atomic.Int64
}

// Down reports whether the poller is without a selected mailbox, and since
// when: before its first session is ready and from the moment a session
// fails until the next one is ready.
func (p *Poller) Down() (since time.Time, down bool) {
	n := p.downSince.Load()
	if n == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, n), true
}

// Stuck returns how many messages in the inbox failed temporarily more
// than after times (PollerOptions.StuckAfter) and are still retried.
func (p *Poller) Stuck() (messages int, after int) {
	return int(p.stuck.Load()), p.opts.StuckAfter
}

// countStuck updates the count of stuck messages after p.retries changed.
func (p *Poller) countStuck() {
	var n int64
	for _, r := range p.retries {
		if r.attempts > p.opts.StuckAfter {
			n++
		}
	}
	if old := p.stuck.Swap(n); old != n {
		p.opts.Metrics.Stuck.Add(n - old)
	}
}

func (p *Poller) markDown() {
	p.downSince.CompareAndSwap(0, time.Now().UnixNano())
}

// doneMark records a handled message that still has to be moved.
type doneMark struct {
	processed bool   // false: rejected
	copy      bool   // a copy of a reply of the referee's: expunged
	key       string // Inbound.Key, to recognise the message after a reconnect
	head      bool   // key is of the message's head only (it was too large)
	session   int    // the connection it was handled on
}

type retry struct {
	attempts int
	next     time.Time
}

// NewPoller checks opts and returns a Poller. It does no I/O.
func NewPoller(opts *PollerOptions) (*Poller, error) {
	o := *opts
	if o.Addr == "" {
		return nil, errors.New("mail: PollerOptions.Addr is empty")
	}
	sec, err := checkSecurity(o.Security, o.Addr, o.AllowInsecure)
	if err != nil {
		return nil, err
	}
	if o.Mailbox == "" {
		o.Mailbox = "INBOX"
	}
	if o.ProcessedMailbox == "" {
		o.ProcessedMailbox = "Processed"
	}
	if o.RejectedMailbox == "" {
		o.RejectedMailbox = "Rejected"
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 60 * time.Second
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = time.Second
	}
	if o.BackoffMax < o.BackoffMin {
		o.BackoffMax = max(5*time.Minute, o.BackoffMin)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 50
	}
	if o.StuckAfter <= 0 {
		o.StuckAfter = 10
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 10 << 20
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = 4 * o.MaxMessageBytes
	}
	o.MaxBatchBytes = max(o.MaxBatchBytes, o.MaxMessageBytes)
	if o.Metrics == nil {
		o.Metrics = &Metrics{} // counted but not shown
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	p := &Poller{
		opts:    o,
		sec:     sec,
		log:     log.With("component", "imap", "addr", o.Addr, "mailbox", o.Mailbox),
		retries: make(map[imap.UID]retry),
		done:    make(map[imap.UID]doneMark),
		wake:    make(chan struct{}, 1),
	}
	if o.Copies != nil {
		o.Copies.poller = p
	}
	p.markDown() // until the first session selects the mailbox
	return p, nil
}

// Wake makes the poller search the mailbox at once, as if IDLE had
// reported a new message.
func (p *Poller) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run connects, processes every unseen message and then waits for more,
// with IDLE when the server offers it and a poll every PollInterval. It
// reconnects with exponential backoff whenever the connection fails, and
// returns only when ctx is done (with ctx.Err()). Run must not be called
// twice at the same time.
func (p *Poller) Run(ctx context.Context, h Handler) error {
	failures := 0
	for {
		p.ready = false
		err := p.session(ctx, h)
		p.markDown()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p.ready {
			failures = 0 // it worked: start the backoff afresh
		}
		d := backoff(failures, p.opts.BackoffMin, p.opts.BackoffMax)
		failures++
		p.log.Warn("imap connection lost; reconnecting", "err", err, "in", d)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		p.opts.Metrics.Reconnects.Add(1)
	}
}

func (p *Poller) dial(updates chan<- struct{}) (*imapclient.Client, error) {
	notify := func() {
		select {
		case updates <- struct{}{}:
		default:
		}
	}
	opts := &imapclient.Options{
		TLSConfig: p.opts.TLSConfig,
		Dialer:    &net.Dialer{Timeout: 30 * time.Second},
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{
			Mailbox: func(data *imapclient.UnilateralDataMailbox) {
				// Do not trust the count itself (imapmemserver gets it
				// wrong after MOVE): any EXISTS means "search again".
				if data.NumMessages != nil {
					notify()
				}
			},
		},
	}
	switch p.sec {
	case SecurityTLS:
		return imapclient.DialTLS(p.opts.Addr, opts)
	case SecurityStartTLS:
		return imapclient.DialStartTLS(p.opts.Addr, opts)
	default:
		return imapclient.DialInsecure(p.opts.Addr, opts)
	}
}

// session runs one connection until it fails or ctx is done. It sets
// p.ready once the mailbox is selected.
func (p *Poller) session(ctx context.Context, h Handler) error {
	updates := make(chan struct{}, 1)
	c, err := p.dial(updates)
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	// A batch still in flight is recorded when the session ends, however
	// it ends: its marks are checked by the next session (verifyDone).
	defer p.land(ctx)
	p.connNum++
	// Unblock any command if ctx ends while we wait on the server.
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(5*time.Second, func() { c.Close() })
	})
	defer stop()

	if err := c.Login(p.opts.Username, p.opts.Password).Wait(); err != nil {
		return fmt.Errorf("login as %q: %w", p.opts.Username, err)
	}
	for _, name := range []string{p.opts.ProcessedMailbox, p.opts.RejectedMailbox} {
		if err := ensureMailbox(c, name); err != nil {
			return err
		}
	}
	sel, err := c.Select(p.opts.Mailbox, nil).Wait()
	if err != nil {
		return fmt.Errorf("select %s: %w", p.opts.Mailbox, err)
	}
	if sel.UIDValidity != p.uidValidity {
		if p.uidValidity != 0 {
			p.log.Warn("UIDVALIDITY changed; forgetting retry state", "old", p.uidValidity, "new", sel.UIDValidity)
		}
		p.uidValidity = sel.UIDValidity
		clear(p.retries)
		clear(p.done)
		p.countStuck()
	}
	p.ready = true
	p.downSince.Store(0)
	idle := !p.opts.DisableIdle && c.Caps().Has(imap.CapIdle)
	p.log.Debug("imap session ready", "idle", idle, "uidvalidity", sel.UIDValidity)

	for {
		if ctx.Err() != nil {
			p.logout(c)
			return ctx.Err()
		}
		// Anything reported before this search is covered by it.
		select {
		case <-updates:
		default:
		}
		more, next, err := p.process(ctx, c, h)
		if err != nil {
			return err
		}
		if more {
			continue
		}
		if p.flight != nil {
			// Nothing more to fetch meanwhile: the batch in flight is
			// recorded and moved before the poller waits for mail.
			p.land(ctx)
			if err := p.finish(c); err != nil {
				return err
			}
			continue
		}
		wait := p.opts.PollInterval
		if !next.IsZero() {
			wait = min(wait, max(time.Until(next), time.Millisecond))
		}
		if err := p.wait(ctx, c, idle, wait, updates); err != nil {
			return err
		}
	}
}

func (p *Poller) logout(c *imapclient.Client) {
	done := make(chan struct{})
	go func() {
		c.Logout().Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}

// wait blocks until there may be new mail: an update from the server, a
// Wake, the poll timer, or the end of ctx (which returns nil; the caller
// checks ctx). It returns an error if the connection fails.
func (p *Poller) wait(ctx context.Context, c *imapclient.Client, idle bool, d time.Duration, updates <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	var cmd *imapclient.IdleCommand
	if idle {
		var err error
		if cmd, err = c.Idle(); err != nil {
			return fmt.Errorf("idle: %w", err)
		}
	}
	var closed bool
	select {
	case <-updates:
	case <-p.wake:
	case <-t.C:
	case <-ctx.Done():
	case <-c.Closed():
		closed = true
	}
	if cmd == nil {
		if closed {
			return errors.New("connection closed")
		}
		// Polling: a NOOP also checks that the connection is alive.
		if err := c.Noop().Wait(); err != nil {
			return fmt.Errorf("noop: %w", err)
		}
		return nil
	}
	if closed {
		cmd.Close()
		return errors.New("connection closed during IDLE")
	}
	if err := cmd.Close(); err != nil {
		return fmt.Errorf("idle done: %w", err)
	}
	// A dead peer would never answer DONE: do not wait forever.
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			return fmt.Errorf("idle: %w", err)
		}
		return nil
	case <-time.After(30 * time.Second):
		c.Close()
		return errors.New("idle: no answer to DONE")
	}
}

func ensureMailbox(c *imapclient.Client, name string) error {
	list, err := c.List("", name, nil).Collect()
	if err != nil {
		return fmt.Errorf("list %s: %w", name, err)
	}
	if len(list) > 0 {
		return nil
	}
	err = c.Create(name, nil).Wait()
	var ierr *imap.Error
	if errors.As(err, &ierr) && ierr.Code == imap.ResponseCodeAlreadyExists {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	return nil
}

// process handles one batch of unseen messages. It reports whether more are
// waiting, and the earliest time a message waiting for a retry is due.
func (p *Poller) process(ctx context.Context, c *imapclient.Client, h Handler) (more bool, next time.Time, err error) {
	// Finish moves left over from a broken connection.
	if err := p.finish(c); err != nil {
		return false, time.Time{}, err
	}

	data, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, nil).Wait()
	if err != nil {
		return false, time.Time{}, fmt.Errorf("search: %w", err)
	}
	uids := data.AllUIDs()
	slices.Sort(uids)

	now := time.Now()
	present := make(map[imap.UID]bool, len(uids))
	var due []imap.UID
	for _, uid := range uids {
		present[uid] = true
		if p.flight != nil && p.flight.uids[uid] {
			continue // being decided
		}
		if r, ok := p.retries[uid]; ok && r.next.After(now) {
			if next.IsZero() || r.next.Before(next) {
				next = r.next
			}
			continue
		}
		due = append(due, uid)
	}
	for uid := range p.retries {
		if !present[uid] {
			delete(p.retries, uid) // gone: handled elsewhere
		}
	}
	p.countStuck()
	if len(due) == 0 {
		return false, next, nil
	}

	// Sizes first: a message over the limit is rejected from its head, and
	// the bodies fetched together stay under MaxBatchBytes. Copies of the
	// referee's replies are known by their envelope: their bodies are
	// never fetched, and they take no place in the batch (under load every
	// move is followed by the copies of its replies), so the sizes are
	// read BatchSize at a time until the batch holds BatchSize messages
	// that are not copies, or copyScans reads were made.
	var sizes []msgSize
	for scans := 0; len(due) > 0 && len(sizes) < p.opts.BatchSize; scans++ {
		if scans == copyScans {
			break
		}
		var chunk imap.UIDSet
		k := min(p.opts.BatchSize-len(sizes), len(due))
		if scans > 0 {
			k = min(p.opts.BatchSize, len(due)) // the rest may be copies again
		}
		for _, uid := range due[:k] {
			chunk.AddNum(uid)
		}
		due = due[k:]
		got, err := fetchSizes(c, chunk, p.opts.Copies != nil)
		if err != nil {
			return false, time.Time{}, err
		}
		sizes = append(sizes, slices.DeleteFunc(got, p.copiedEnvelope)...)
	}
	if len(sizes) > p.opts.BatchSize {
		sizes = sizes[:p.opts.BatchSize] // the rest in the next batch
		more = true
	}
	if len(due) > 0 {
		more = true
	}
	var large imap.UIDSet
	for _, m := range sizes {
		if m.size > p.opts.MaxMessageBytes {
			large.AddNum(m.uid)
		}
	}
	if len(large) > 0 {
		p.land(ctx) // the Rejecter answers as the Handler does: one at a time
		if err := p.rejectLarge(ctx, c, large, sizes); err != nil {
			return false, time.Time{}, err
		}
	}
	var part imap.UIDSet
	var partBytes int64
	for _, m := range sizes {
		if m.size > p.opts.MaxMessageBytes || ctx.Err() != nil {
			continue
		}
		size := m.size
		if size <= 0 {
			size = p.opts.MaxMessageBytes // not reported: assume the worst
		}
		if len(part) > 0 && partBytes+size > p.opts.MaxBatchBytes {
			left, err := p.handlePart(ctx, c, h, part)
			if err != nil {
				return false, time.Time{}, err
			}
			more = more || left
			part, partBytes = nil, 0
		}
		part.AddNum(m.uid)
		partBytes += size
	}
	if len(part) > 0 && ctx.Err() == nil {
		left, err := p.handlePart(ctx, c, h, part)
		if err != nil {
			return false, time.Time{}, err
		}
		more = more || left
	}
	p.countStuck()
	if err := p.finish(c); err != nil {
		return false, time.Time{}, err
	}
	for _, r := range p.retries {
		if next.IsZero() || r.next.Before(next) {
			next = r.next
		}
	}
	return more, next, nil
}

// copyScans is the most reads of sizes and envelopes a batch makes to
// fill itself past the copies of replies.
const copyScans = 8

// headBytes is how much of a message too large to read is fetched, to
// find whom to tell.
const headBytes = 64 << 10

// msgSize is a message's RFC822.SIZE.
type msgSize struct {
	uid  imap.UID
	size int64
	env  *imap.Envelope // when asked for
}

// fetchSizes returns the sizes of the messages in uids, in UID order, and
// their envelopes if envelope is set.
func fetchSizes(c *imapclient.Client, uids imap.UIDSet, envelope bool) ([]msgSize, error) {
	msgs, err := c.Fetch(uids, &imap.FetchOptions{UID: true, RFC822Size: true, Envelope: envelope}).Collect()
	if err != nil {
		return nil, fmt.Errorf("fetch sizes: %w", err)
	}
	out := make([]msgSize, 0, len(msgs))
	for _, m := range msgs {
		if m.UID != 0 {
			out = append(out, msgSize{m.UID, m.RFC822Size, m.Envelope})
		}
	}
	slices.SortFunc(out, func(a, b msgSize) int { return cmp.Compare(a.uid, b.uid) })
	return out, nil
}

// fetchedBody is a message's body as fetched.
type fetchedBody struct {
	uid      imap.UID
	received time.Time
	raw      []byte // the body, or its first headBytes if it is too large
	size     int64  // the body's size as sent
	ok       bool   // the server sent a body
	left     bool   // the body was dropped to keep within the budget
}

// fetchBodies fetches the bodies of uids, in UID order, reading them as
// they stream in: a body longer than limit (a server reporting a wrong
// size) is cut to its head, the rest read and dropped. Once the bodies
// kept would pass budget (sizes the server reported wrong, again), the
// next ones are read and dropped, marked left; the first is always kept.
// With head set, only the first headBytes of each body are asked for.
func fetchBodies(c *imapclient.Client, uids imap.UIDSet, limit, budget int64, head bool) ([]fetchedBody, error) {
	section := &imap.FetchItemBodySection{Peek: true}
	if head {
		section.Partial = &imap.SectionPartial{Offset: 0, Size: headBytes}
	}
	cmd := c.Fetch(uids, &imap.FetchOptions{UID: true, InternalDate: true, BodySection: []*imap.FetchItemBodySection{section}})
	var out []fetchedBody
	var kept int64
	for {
		msg := cmd.Next()
		if msg == nil {
			break
		}
		var f fetchedBody
		for {
			item := msg.Next()
			if item == nil {
				break
			}
			switch item := item.(type) {
			case imapclient.FetchItemDataUID:
				f.uid = item.UID
			case imapclient.FetchItemDataInternalDate:
				f.received = item.Time
			case imapclient.FetchItemDataBodySection:
				if item.Literal == nil || f.ok || f.left {
					continue
				}
				if kept > 0 && kept+keptBytes(item.Literal.Size(), limit) > budget {
					if _, err := io.Copy(io.Discard, item.Literal); err != nil {
						cmd.Close()
						return nil, fmt.Errorf("fetch: %w", err)
					}
					f.left = true
					continue
				}
				var err error
				if f.raw, f.size, err = readBody(item.Literal, limit); err != nil {
					cmd.Close()
					return nil, fmt.Errorf("fetch: %w", err)
				}
				kept += int64(len(f.raw))
				f.ok = true
			}
		}
		if f.uid != 0 {
			out = append(out, f)
		}
	}
	if err := cmd.Close(); err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	slices.SortFunc(out, func(a, b fetchedBody) int { return cmp.Compare(a.uid, b.uid) })
	return out, nil
}

// readBody reads a literal of at most limit bytes whole; of a longer one it
// keeps the first headBytes and drops the rest.
func readBody(lit imap.LiteralReader, limit int64) (raw []byte, size int64, err error) {
	size = lit.Size()
	raw = make([]byte, keptBytes(size, limit))
	if _, err := io.ReadFull(lit, raw); err != nil {
		return nil, 0, err
	}
	if _, err := io.Copy(io.Discard, lit); err != nil {
		return nil, 0, err
	}
	return raw, size, nil
}

// keptBytes is how much readBody keeps of a body of size bytes.
func keptBytes(size, limit int64) int64 {
	if size > limit {
		return min(size, headBytes)
	}
	return size
}

// handlePart fetches the bodies of uids, hands the readable messages to
// the Handler and moves the handled ones out of the inbox. It reports
// whether some were left for the next batch, their bodies larger than
// the server said.
func (p *Poller) handlePart(ctx context.Context, c *imapclient.Client, h Handler, uids imap.UIDSet) (left bool, err error) {
	bodies, err := fetchBodies(c, uids, p.opts.MaxMessageBytes, p.opts.MaxBatchBytes, false)
	if err != nil {
		return false, err
	}
	var readable []*parsed
	for _, b := range bodies {
		if ctx.Err() != nil {
			break
		}
		if b.left {
			left = true
			continue
		}
		if !b.ok {
			// The server sent no body (expunged meanwhile, or a glitch):
			// not the message's fault, so try again later.
			p.tempFailure(b.uid, p.log.With("uid", b.uid), errors.New("server returned no body"))
			continue
		}
		m := p.parse(b)
		if p.copied(m) {
			continue
		}
		if m.reason != nil {
			p.land(ctx) // the Rejecter answers as the Handler does: one at a time
			p.reject(ctx, m)
			continue
		}
		readable = append(readable, m)
	}
	// The batch before is decided first: this one sees what it did.
	p.land(ctx)
	if bh, ok := h.(BatchHandler); ok && len(readable) > 1 && ctx.Err() == nil {
		// Decided while the poller moves the batch before and fetches
		// the next: the Handler's work and the IMAP round trips overlap.
		p.launch(ctx, bh, readable)
	} else {
		for _, m := range readable {
			if ctx.Err() != nil {
				break
			}
			start := time.Now()
			err, stack := callHandler(ctx, h, m.in)
			p.outcome(ctx, m, err, stack, start)
		}
	}
	return left, p.finish(c)
}

// copied reports whether m is a copy of one of the referee's replies
// (PollerOptions.Copies), and if so marks it to be expunged when its reply
// is settled, else to be looked at again later.
func (p *Poller) copied(m *parsed) bool {
	if p.opts.Copies == nil || m.head || !p.opts.Copies.IsCopy(m.in) {
		return false
	}
	if p.opts.Copies.settled(m.in.MessageID) {
		delete(p.retries, m.uid)
		p.done[m.uid] = doneMark{copy: true, key: m.in.Key(), session: p.connNum}
		p.opts.Metrics.Copies.Add(1)
		return true
	}
	// Its reply is being sent, or being looked up after a restart: keep
	// the copy, without counting it as a failure.
	p.retries[m.uid] = retry{next: time.Now().Add(p.opts.BackoffMin)}
	m.log.Debug("copy of a reply kept until the reply is settled")
	return true
}

// copiedEnvelope is copied for a message known by its envelope only (From
// and Message-ID): it reports whether the message is a copy of one of the
// referee's replies, and if so marks it as copied does.
func (p *Poller) copiedEnvelope(m msgSize) bool {
	if m.env == nil || len(m.env.From) == 0 || m.env.MessageID == "" {
		return false
	}
	in := &Inbound{From: Address{Name: m.env.From[0].Name, Addr: m.env.From[0].Addr()}, MessageID: m.env.MessageID}
	return p.copied(&parsed{uid: m.uid, in: in, log: p.log.With("uid", m.uid, "message_id", in.MessageID)})
}

// FindCopies reports which of messageIDs have a copy in the watched
// mailbox, searched by Message-ID over a connection of its own: a Sender
// started after a crash asks it, through [Copies], which of the replies it
// was sending the server took.
func (p *Poller) FindCopies(ctx context.Context, messageIDs []string) (map[string]bool, error) {
	c, err := p.dial(make(chan struct{}, 1))
	if err != nil {
		return nil, fmt.Errorf("mail: find copies: dial: %w", err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := c.Login(p.opts.Username, p.opts.Password).Wait(); err != nil {
		return nil, fmt.Errorf("mail: find copies: login as %q: %w", p.opts.Username, err)
	}
	if _, err := c.Select(p.opts.Mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return nil, fmt.Errorf("mail: find copies: select %s: %w", p.opts.Mailbox, err)
	}
	found := make(map[string]bool)
	for _, id := range messageIDs {
		data, err := c.UIDSearch(&imap.SearchCriteria{
			Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: "<" + id + ">"}},
		}, nil).Wait()
		if err != nil {
			return nil, fmt.Errorf("mail: find copies: search: %w", err)
		}
		if len(data.AllUIDs()) > 0 {
			found[id] = true
		}
	}
	p.logout(c)
	return found, nil
}

// rejectLarge rejects the messages in uids, too large to read, from their
// heads.
func (p *Poller) rejectLarge(ctx context.Context, c *imapclient.Client, uids imap.UIDSet, sizes []msgSize) error {
	heads, err := fetchBodies(c, uids, headBytes, math.MaxInt64, true) // at most BatchSize × headBytes
	if err != nil {
		return err
	}
	for _, b := range heads {
		if ctx.Err() != nil {
			break
		}
		i := slices.IndexFunc(sizes, func(m msgSize) bool { return m.uid == b.uid })
		if i < 0 || !b.ok {
			p.tempFailure(b.uid, p.log.With("uid", b.uid), errors.New("server returned no body"))
			continue
		}
		b.size = sizes[i].size
		p.reject(ctx, p.parse(b))
	}
	return nil
}

// parsed is a fetched message, read.
type parsed struct {
	uid    imap.UID
	in     *Inbound
	head   bool  // in holds only the head of a message too large to read
	reason error // why it cannot be read, or nil
	log    *slog.Logger
}

// parse reads a fetched message.
func (p *Poller) parse(b fetchedBody) *parsed {
	var in *Inbound
	var reason error
	head := b.size > p.opts.MaxMessageBytes
	if head {
		in = headInbound(b.raw)
		reason = &ParseError{Reason: fmt.Sprintf("message of %d bytes is larger than %d bytes", b.size, p.opts.MaxMessageBytes)}
	} else {
		in, reason = Parse(b.raw)
	}
	in.UID, in.UIDValidity, in.Mailbox, in.Received = uint32(b.uid), p.uidValidity, p.opts.Mailbox, b.received
	log := p.log.With("uid", b.uid, "message_id", in.MessageID, "from", in.From.Addr)
	return &parsed{uid: b.uid, in: in, head: head, reason: reason, log: log}
}

// headInbound reads the head of a message too large to read: Raw is the
// head, and the sender, Message-ID, Subject and Authentication-Results are
// read from it so that a reply can say why (to a sender not known forged).
func headInbound(head []byte) *Inbound {
	in := &Inbound{Raw: head}
	if e, _ := Parse(head); e != nil {
		in.From, in.MessageID, in.Subject, in.AuthResults = e.From, e.MessageID, e.Subject, e.AuthResults
	}
	return in
}

// flight is a batch the Handler decides in a goroutine of its own while
// the poller goes on with IMAP: every record of what it decided (done
// marks, retries, rejections) is made by the poller when it lands.
type flight struct {
	h     BatchHandler
	ms    []*parsed
	uids  map[imap.UID]bool
	start time.Time
	errs  []error
	stack []byte
	done  chan struct{}
}

// launch hands ms to h in a goroutine; land waits for it.
func (p *Poller) launch(ctx context.Context, h BatchHandler, ms []*parsed) {
	f := &flight{h: h, ms: ms, uids: make(map[imap.UID]bool, len(ms)), start: time.Now(), done: make(chan struct{})}
	ins := make([]*Inbound, len(ms))
	for i, m := range ms {
		f.uids[m.uid] = true
		ins[i] = m.in
	}
	go func() {
		defer close(f.done)
		f.errs, f.stack = callBatchHandler(ctx, h, ins)
	}()
	p.flight = f
}

// land waits for the batch in flight, if any, and records each message's
// outcome.
func (p *Poller) land(ctx context.Context) {
	f := p.flight
	if f == nil {
		return
	}
	<-f.done
	p.flight = nil
	p.settleBatch(ctx, f.h, f.ms, f.errs, f.stack, f.start)
}

// settleBatch records the outcome of each message of a batch the Handler
// decided (errs), or, when it panicked (errs nil), hands them to Handle
// one by one.
func (p *Poller) settleBatch(ctx context.Context, h BatchHandler, ms []*parsed, errs []error, stack []byte, start time.Time) {
	if errs == nil {
		p.log.Error("batch handler panicked; handling the batch message by message", "stack", string(stack))
		p.opts.Metrics.Panics.Add(1)
		for _, m := range ms {
			s := time.Now()
			err, stack := callHandler(ctx, h, m.in)
			p.outcome(ctx, m, err, stack, s)
		}
		return
	}
	for i, m := range ms {
		var err error
		if i < len(errs) {
			err = errs[i]
		} else {
			err = errors.New("batch handler returned no result for the message")
		}
		p.outcome(ctx, m, err, nil, start)
	}
}

// callBatchHandler calls h; errs is nil if it panicked.
func callBatchHandler(ctx context.Context, h BatchHandler, ins []*Inbound) (errs []error, stack []byte) {
	defer func() {
		if r := recover(); r != nil {
			errs, stack = nil, debug.Stack()
		}
	}()
	errs = h.HandleBatch(ctx, ins)
	if errs == nil {
		errs = make([]error, len(ins))
	}
	return errs, nil
}

// outcome records what the Handler said of a readable message in p.done
// or p.retries; a permanent error rejects it.
func (p *Poller) outcome(ctx context.Context, msg *parsed, err error, stack []byte, start time.Time) {
	m := p.opts.Metrics
	switch {
	case err == nil:
		delete(p.retries, msg.uid)
		p.done[msg.uid] = doneMark{processed: true, key: msg.in.Key(), session: p.connNum}
		m.Processed.Add(1)
		m.Latency.Observe(time.Since(start))
		msg.log.Debug("message processed", "took", time.Since(start))
		return
	case errors.Is(err, errPanic):
		m.Panics.Add(1)
		msg.log.Error("handler panicked", "err", err, "stack", string(stack))
	case IsPermanent(err):
	default:
		p.tempFailure(msg.uid, msg.log, err)
		return
	}
	msg.reason = err
	p.reject(ctx, msg)
}

// reject tells the Rejecter about a message that cannot be applied and
// marks it to be moved to the Rejected folder.
func (p *Poller) reject(ctx context.Context, msg *parsed) {
	if r := p.opts.Rejecter; r != nil {
		if err := r.Reject(ctx, msg.in, msg.reason); err != nil {
			p.tempFailure(msg.uid, msg.log, fmt.Errorf("rejecter: %w", err))
			return
		}
	}
	msg.log.Info("message rejected", "reason", msg.reason)
	delete(p.retries, msg.uid)
	p.done[msg.uid] = doneMark{processed: false, key: msg.in.Key(), head: msg.head, session: p.connNum}
	p.opts.Metrics.Rejected.Add(1)
}

func (p *Poller) tempFailure(uid imap.UID, log *slog.Logger, err error) {
	p.opts.Metrics.TempFailures.Add(1)
	r := p.retries[uid]
	d := backoff(r.attempts, p.opts.BackoffMin, p.opts.BackoffMax)
	r.attempts++
	r.next = time.Now().Add(d)
	p.retries[uid] = r
	log.Warn("handler failed; will retry", "err", err, "attempt", r.attempts, "in", d)
}

var errPanic = errors.New("mail: handler panicked")

// callHandler calls h, turning a panic into a permanent error (and the
// stack, for the log).
func callHandler(ctx context.Context, h Handler, in *Inbound) (err error, stack []byte) {
	defer func() {
		if r := recover(); r != nil {
			err, stack = Permanent(fmt.Errorf("%w: %v", errPanic, r)), debug.Stack()
		}
	}()
	return h.Handle(ctx, in), nil
}

// finish marks handled messages and moves them out of the inbox: processed
// ones \Seen into ProcessedMailbox, rejected ones into RejectedMailbox (left
// unseen there, so that a person notices them).
func (p *Poller) finish(c *imapclient.Client) error {
	if len(p.done) == 0 {
		return nil
	}
	if err := p.verifyDone(c); err != nil {
		return err
	}
	var processed, rejected, copies imap.UIDSet
	for uid, d := range p.done {
		switch {
		case d.copy, d.processed && p.opts.ExpungeProcessed:
			copies.AddNum(uid)
		case d.processed:
			processed.AddNum(uid)
		default:
			rejected.AddNum(uid)
		}
	}
	if len(copies) > 0 {
		err := c.Store(copies, &imap.StoreFlags{
			Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen, imap.FlagDeleted},
		}, nil).Close()
		if err != nil {
			return fmt.Errorf("store \\Deleted: %w", err)
		}
		if c.Caps().Has(imap.CapUIDPlus) {
			err = c.UIDExpunge(copies).Close()
		} else {
			err = c.Expunge().Close()
		}
		if err != nil {
			return fmt.Errorf("expunge: %w", err)
		}
	}
	if len(processed) > 0 {
		err := c.Store(processed, &imap.StoreFlags{
			Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen},
		}, nil).Close()
		if err != nil {
			return fmt.Errorf("store \\Seen: %w", err)
		}
		if _, err := c.Move(processed, p.opts.ProcessedMailbox).Wait(); err != nil {
			return fmt.Errorf("move to %s: %w", p.opts.ProcessedMailbox, err)
		}
	}
	if len(rejected) > 0 {
		if _, err := c.Move(rejected, p.opts.RejectedMailbox).Wait(); err != nil {
			return fmt.Errorf("move to %s: %w", p.opts.RejectedMailbox, err)
		}
	}
	clear(p.done)
	return nil
}

// verifyDone checks the marks left by an earlier connection: a mark is kept
// only if its UID still holds the same message (same Key), so that a server
// that reused UIDs without changing UIDVALIDITY (a restarted in-memory
// server does) never gets an unhandled message moved. A dropped mark only
// means the message is handed to the Handler again, which dedups it.
func (p *Poller) verifyDone(c *imapclient.Client) error {
	var old, heads imap.UIDSet
	for uid, d := range p.done {
		switch {
		case d.session == p.connNum:
		case d.head:
			heads.AddNum(uid)
		default:
			old.AddNum(uid)
		}
	}
	same := make(map[imap.UID]bool)
	for _, f := range []struct {
		set  imap.UIDSet
		head bool
	}{{old, false}, {heads, true}} {
		if len(f.set) == 0 {
			continue
		}
		head := f.head
		bodies, err := fetchBodies(c, f.set, p.opts.MaxMessageBytes, p.opts.MaxBatchBytes, head)
		if err != nil {
			return err
		}
		for _, b := range bodies {
			if !b.ok {
				continue
			}
			var in *Inbound
			if head {
				in = headInbound(b.raw)
			} else {
				in, _ = Parse(b.raw)
			}
			if d, ok := p.done[b.uid]; ok && d.head == head && in.Key() == d.key {
				same[b.uid] = true
			}
		}
	}
	for uid, d := range p.done {
		if d.session != p.connNum && !same[uid] {
			delete(p.done, uid)
		} else {
			d.session = p.connNum
			p.done[uid] = d
		}
	}
	return nil
}
