package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"pbem/archive"
)

// Several pbem serve on one PostgreSQL store and one mailbox: one of them,
// the leader, reads the mailbox, runs the referee's writes (mail, clocks,
// bots) and sends the outbox; the others serve the web pages and stand by.
// The leader holds the store's lease (archive.Store.Acquire), renews it
// every leaseTTL/3 and stops leading the moment a renewal fails or is
// late; a standby tries to take it every leaseRetry, so that it takes
// over within leaseTTL+leaseRetry of the leader's death. Every write of
// the leader is fenced by its epoch (archive.Store.Fence): once another
// has taken over, none of its commits goes through, however late it
// wakes up.
const (
	// leaseTTL is how long a lease lasts unrenewed, by the database's
	// clock.
	leaseTTL = 6 * time.Second
	// leaseRetry is how often a standby tries to take the lease.
	leaseRetry = 500 * time.Millisecond
	// leaseMargin is how much earlier than the database a leader counts
	// its lease as run out (its clock may run a little faster): it stops
	// sending before anyone can take over.
	leaseMargin = leaseTTL / 6
	// takeoverLookups bounds the replies a new leader looks up among the
	// copies in its mailbox (settleTakeover).
	takeoverLookups = 1000
)

// elector takes and keeps the store's lease for this instance.
type elector struct {
	store  *archive.Store
	holder string // this process: host, pid and a random part
	log    *slog.Logger
	// ttl and retry are leaseTTL and leaseRetry unless set (tests).
	ttl, retry time.Duration

	leading atomic.Bool
	epoch   atomic.Int64  // of the current or last term
	terms   atomic.Int64  // terms begun
	fenced  chan struct{} // a write of this term was refused by the fence
}

func newElector(store *archive.Store, log *slog.Logger) *elector {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return &elector{store: store, holder: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b)), log: log,
		ttl: leaseTTL, retry: leaseRetry, fenced: make(chan struct{}, 1)}
}

// run takes the lease whenever it is free and, for each term, calls
// lead(work, leading): lead runs the leader's work until work ends (the
// process stops) or leading does (the leadership is lost), and returns
// once it has stopped. run returns when work has ended and the last
// term's lead has returned; a lease it still held is then given up, so
// that a standby takes over at once.
func (e *elector) run(work context.Context, lead func(work, leading context.Context)) {
	var lastErr string
	standing := false // said so in the log
	for work.Err() == nil {
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), e.ttl/3)
		epoch, ok, err := e.store.Acquire(ctx, e.holder, e.ttl)
		cancel()
		switch {
		case err != nil && err.Error() != lastErr:
			e.log.Warn("standby: the lease could not be read; trying again", "err", err)
			lastErr = err.Error()
		case err == nil:
			lastErr = ""
		}
		if ok {
			e.term(work, t0, epoch, lead)
			standing = false
			continue
		}
		if err == nil && !standing {
			e.log.Info("standby: another instance leads; serving the web pages and ready to take over", "holder", e.holder)
			standing = true
		}
		t := time.NewTimer(e.retry)
		select {
		case <-work.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// term is one term of leadership at epoch, taken by a statement sent at
// t0: it renews the lease until lead returns or the leadership is lost.
func (e *elector) term(work context.Context, t0 time.Time, epoch int64, lead func(work, leading context.Context)) {
	margin := e.ttl * leaseMargin / leaseTTL
	deadline := t0.Add(e.ttl - margin)
	select {
	case <-e.fenced: // a refusal of the term before
	default:
	}
	e.store.Fence(epoch)
	e.epoch.Store(epoch)
	e.leading.Store(true)
	e.terms.Add(1)
	e.log.Info("leading: this instance reads the mailbox and sends the replies", "epoch", epoch, "holder", e.holder)
	leading, lose := context.WithCancel(context.Background())
	defer lose()
	done := make(chan struct{})
	go func() {
		defer close(done)
		lead(work, leading)
	}()
	standDown := func() {
		e.store.Fence(0) // a standby writes nothing
		e.leading.Store(false)
		lose()
		<-done
	}
	renew := time.NewTicker(e.ttl / 3)
	defer renew.Stop()
	late := time.NewTimer(time.Until(deadline))
	defer late.Stop()
	for {
		select {
		case <-done:
			// The process stops and lead has drained the outbox.
			standDown()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := e.store.Release(ctx, e.holder, epoch); err != nil {
				e.log.Warn("stopping: the lease was not given up; a standby takes over when it runs out", "err", err)
			}
			return
		case <-e.fenced:
			e.log.Warn("leadership lost: a write was refused, another instance took over; standing by", "epoch", epoch)
			standDown()
			return
		case <-late.C:
			e.log.Warn("leadership lost: the lease was not renewed in time; standing by", "epoch", epoch)
			standDown()
			return
		case <-renew.C:
			t1 := time.Now()
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			ok, err := e.store.Renew(ctx, e.holder, epoch, e.ttl)
			cancel()
			if err != nil || !ok {
				e.log.Warn("leadership lost: the lease could not be renewed; standing by", "epoch", epoch, "taken_over", err == nil, "err", err)
				standDown()
				return
			}
			deadline = t1.Add(e.ttl - margin)
			late.Reset(time.Until(deadline))
		}
	}
}

// lead runs the leader's parts (sender, clocks, poller, bots) until work
// or leading ends; leading nil means leading for good (SQLite: one
// instance holds the data directory). When work ends first (the process
// stops) while it still leads, it sends what the outbox holds.
func (s *server) lead(work, leading context.Context) {
	if leading == nil {
		leading = context.Background()
	}
	ctx, cancel := context.WithCancel(leading)
	defer cancel()
	stop := context.AfterFunc(work, cancel)
	defer stop()
	if s.elect != nil {
		s.settleTakeover(ctx)
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.sender.Run(ctx) })
	wg.Go(func() { s.ticks(ctx) })
	wg.Go(func() { s.poller.Run(ctx, handler{s}) })
	wg.Go(func() { s.bots.Run(ctx) })
	wg.Go(func() { s.analyses(ctx) })
	s.bots.Wake() // bots to move since before a restart or a takeover
	wg.Wait()
	if work.Err() == nil || leading.Err() != nil {
		return // the leadership is lost: another sends
	}
	if s.elect == nil {
		s.drain()
		return
	}
	dctx, dcancel := context.WithTimeout(leading, drainBound)
	defer dcancel()
	if _, err := s.sender.SendDue(dctx); err != nil {
		s.log.Warn("stopping: the outbox was not drained; the next leader sends the rest", "err", err)
	}
}

// settleTakeover looks up, for a new leader, the replies waiting in the
// outbox among the copies in the referee's mailbox (smtp.copies): the
// former leader may have sent some of them, the server accepting them,
// without recording it (killed, or cut off from the store, in between).
// Those found are recorded as sent instead of being sent again. Its own
// AcceptedLog cannot tell: each instance keeps its own, in its own data
// directory. A copy still on its way (a server that delivers later than
// the lease runs out after the former leader's last send) is missed, and
// its reply sent again with its Message-ID.
func (s *server) settleTakeover(ctx context.Context) {
	if s.copies == nil {
		return
	}
	pending, err := s.store.PendingMessageIDs(ctx, takeoverLookups)
	if err != nil || len(pending) == 0 {
		if err != nil && ctx.Err() == nil {
			s.log.Warn("takeover: the outbox could not be read; replies the former leader sent may go again", "err", err)
		}
		return
	}
	found, err := s.copies.Find(ctx, slices.Sorted(maps.Values(pending)))
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("takeover: the copies could not be looked up; replies the former leader sent may go again", "err", err)
		}
		return
	}
	var ids []string
	for id, mid := range pending {
		if found[mid] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	slices.Sort(ids)
	if _, err := s.store.SentBatch(ctx, ids); err != nil {
		s.log.Warn("takeover: replies found among the copies could not be recorded as sent; they may go again", "replies", len(ids), "err", err)
		return
	}
	s.log.Info("takeover: replies the former leader had sent found among the copies; not sent again", "replies", len(ids), "pending", len(pending))
}

// refused passes err on; a write the fence refused (archive.ErrNotLeader)
// while this instance leads ends its leadership at once: another has
// taken the lease over, whatever this one's clock says.
func (s *server) refused(err error) error {
	if s.elect != nil && errors.Is(err, archive.ErrNotLeader) && s.elect.leading.Load() {
		select {
		case s.elect.fenced <- struct{}{}:
		default:
		}
	}
	return err
}

// leadership reports whether this instance leads and its epoch (0 without
// a lease: SQLite, where the one instance always leads).
func (s *server) leadership() (leading bool, epoch int64) {
	if s.elect == nil {
		return true, 0
	}
	return s.elect.leading.Load(), s.elect.epoch.Load()
}
