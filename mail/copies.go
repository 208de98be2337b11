package mail

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Copies is the protocol by which the [Sender] and the [Poller] use the
// copies of the replies in the referee's own mailbox: the Sender adds its
// address (CopiesOptions.To) as one more envelope recipient of every
// reply, in the same SMTP transaction, so that a copy lands in the
// mailbox if and only if the server accepted the reply; after a crash it
// looks up there the replies it may have sent (through the Poller's
// connection details, [Poller.FindCopies]); the Poller never hands a copy
// to the Handler, and expunges it once the Sender no longer needs it
// ([Sender.Settled]). Give one Copies to [NewSender] and to [NewPoller]
// (SenderOptions.Copies, PollerOptions.Copies); each binds itself to it.
type Copies struct {
	opts   CopiesOptions
	sender *Sender
	poller *Poller
}

// CopiesOptions configures [Copies]. To and From are required.
type CopiesOptions struct {
	// To is the address of the referee's own mailbox the copies go to,
	// for example referee+sent@example.org. The copy is the reply's
	// bytes, so its recipients see no trace of it (a Bcc).
	To string
	// From is the address the replies are sent from: a copy is a
	// message from it (with any +detail, in any case).
	From string
	// Own, if set, reports whether a Message-ID (without angle brackets)
	// carries the application's mark: only such a message is taken for a
	// copy, and only such ids are looked up among the copies, so that
	// mail forged with a reply's Message-ID never makes the reply count
	// as sent. Nil takes every Message-ID for the application's own.
	Own func(messageID string) bool
	// Wait is how long a Sender started after a crash waits for copies
	// still on their way before it sends their replies again (default
	// 30s).
	Wait time.Duration
	// Sent, if set, reports which of messageIDs the store records as
	// sent: with several instances on one store, a reply the next leader
	// sent meanwhile needs no wait and no sending. Asked after each look
	// among the copies.
	Sent func(ctx context.Context, messageIDs []string) (map[string]bool, error)
	// Unsettled, if set, reports whether the store still holds the reply
	// with messageID as not sent: its copy is then kept. With several
	// instances, another cannot read this Sender's AcceptedLog, and a
	// leader killed between its note and the store's record leaves the
	// copy as the only trace that the server took the reply.
	Unsettled func(ctx context.Context, messageID string) (bool, error)
}

// NewCopies checks opts and returns the copy protocol. It does no I/O.
func NewCopies(opts CopiesOptions) (*Copies, error) {
	if !strings.Contains(opts.To, "@") {
		return nil, fmt.Errorf("mail: CopiesOptions.To %q: expected an address", opts.To)
	}
	if !strings.Contains(opts.From, "@") {
		return nil, fmt.Errorf("mail: CopiesOptions.From %q: expected an address", opts.From)
	}
	if opts.Wait <= 0 {
		opts.Wait = 30 * time.Second
	}
	return &Copies{opts: opts}, nil
}

// IsCopy reports whether m is a copy of one of the referee's replies: mail
// from CopiesOptions.From (any +detail) with a Message-ID of its own.
func (c *Copies) IsCopy(m *Inbound) bool {
	local, domain, _ := strings.Cut(strings.ToLower(c.opts.From), "@")
	fl, fd, _ := strings.Cut(strings.ToLower(m.From.Addr), "@")
	base, _, _ := strings.Cut(fl, "+")
	return base == local && fd == domain && c.own(m.MessageID)
}

func (c *Copies) own(messageID string) bool { return c.opts.Own == nil || c.opts.Own(messageID) }

// Marked keeps of messageIDs those that carry the application's mark
// (CopiesOptions.Own): the ones a look among the copies may find.
func (c *Copies) Marked(messageIDs []string) []string {
	return slices.DeleteFunc(slices.Clone(messageIDs), func(id string) bool { return !c.own(id) })
}

// Find reports which of messageIDs (those Marked) have a copy in the
// Poller's mailbox: the server took their replies. A new leader asks it
// about the replies waiting in the outbox, which the former leader may
// have sent.
func (c *Copies) Find(ctx context.Context, messageIDs []string) (map[string]bool, error) {
	if c.poller == nil {
		return nil, errors.New("mail: copies: no Poller was given them (PollerOptions.Copies)")
	}
	return c.poller.FindCopies(ctx, c.Marked(messageIDs))
}

// held is what a Sender started after a crash asks about the replies in
// doubt: Find, and those the store records as sent (CopiesOptions.Sent).
func (c *Copies) held(ctx context.Context, messageIDs []string) (map[string]bool, error) {
	held, err := c.Find(ctx, messageIDs)
	if err != nil || c.opts.Sent == nil {
		return held, err
	}
	sent, err := c.opts.Sent(ctx, messageIDs)
	if err != nil {
		return nil, err
	}
	for id := range sent {
		held[id] = true
	}
	return held, nil
}

// lookups reports whether a Sender can look up its replies among the
// copies: a Poller was given them.
func (c *Copies) lookups() bool { return c != nil && c.poller != nil }

// settled reports whether the copy of the reply with messageID may be
// expunged: the Sender no longer needs it ([Sender.Settled]) and the store
// does not hold the reply as unsent (CopiesOptions.Unsettled).
func (c *Copies) settled(messageID string) bool {
	if c.sender != nil && !c.sender.Settled(messageID) {
		return false
	}
	if c.opts.Unsettled == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	unsettled, err := c.opts.Unsettled(ctx, messageID)
	return err == nil && !unsettled
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
// Sender's own mailbox ([Copies]) is no longer needed: the replies a
// crash left in doubt have been looked up (the AcceptedLog is read), and
// no reply with that Message-ID is being sent without a note of its
// acceptance. The Poller asks it through the Copies both were given.
func (s *Sender) Settled(messageID string) bool {
	s.copyMu.Lock()
	defer s.copyMu.Unlock()
	return s.copiesReady && s.flying[messageID] == 0
}

// copyPoll is how often findCopies looks again for copies on their way.
const copyPoll = 500 * time.Millisecond

// findCopies looks up in the Sender's own mailbox (SenderOptions.Copies)
// the replies in doubt (id -> from, Message-ID, recipients) whose final
// dot went (dotted), for up to CopiesOptions.Wait, and returns the ids of those
// whose copy it found: the server took them. The others are sent again.
func (s *Sender) findCopies(ctx context.Context, doubt map[string][]string, dotted map[string]bool) ([]string, error) {
	byMID := map[string]string{}
	for id, f := range doubt {
		if dotted[id] && len(f) >= 2 {
			byMID[f[1]] = id
		}
	}
	var found []string
	deadline := s.opts.Now().Add(s.opts.Copies.opts.Wait)
	for len(byMID) > 0 {
		held, err := s.opts.Copies.held(ctx, slices.Sorted(maps.Keys(byMID)))
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
		s.log.Warn("reply under way at a restart has no copy after the wait; sent again (its recipients may get it twice)", "id", id, "message_id", mid, "waited", s.opts.Copies.opts.Wait)
	}
	return found, nil
}
