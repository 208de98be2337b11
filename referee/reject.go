package referee

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"pbem/archive"
)

// Reject answers a message the mail transport could not read (a broken
// MIME structure, say): its sender is told what was wrong and that nothing
// was applied, unless the message is automatic (a bounce, an auto-reply) or
// has no usable sender. Like Handle, it commits the reply and the message's
// id in one transaction and does nothing for a message already processed.
// req carries what could be read; reason says what could not.
func (r *Referee) Reject(ctx context.Context, req Request, reason string) error {
	key := req.key()
	seen, err := r.store.Seen(ctx, key)
	if err != nil {
		return fmt.Errorf("referee: %w", err)
	}
	if seen {
		r.stats.duplicates.Add(1)
		return nil
	}
	s := r.newSession(ctx, &req, key)
	ch := &archive.Change{MessageID: key, At: s.now}
	if r.automatic(&req) == "" && validAddr(req.From.Addr) {
		// Unreadable mail carries no token we could trust: it counts
		// against the limits of unauthenticated mail.
		ok, err := s.rateLimit()
		if err != nil {
			return fmt.Errorf("referee: %w", err)
		}
		if ok {
			s.mine.add(fmt.Sprintf("Sorry: the referee could not read your message: %s. Nothing of it was applied; send help for the commands.", strings.TrimSuffix(reason, ".")))
			s.mine.label = "message not read"
		}
		ch.Senders = s.senders
		if s.mine != nil && len(s.mine.paras) > 0 {
			ch.Outbox = append(ch.Outbox, s.compose(s.mine))
		}
	} else {
		r.stats.ignored.Add(1)
		if r.unverified(&req) {
			r.stats.unverified.Add(1)
		}
	}
	err = r.store.Commit(ctx, ch)
	if err == nil {
		r.stats.queued.Add(int64(len(ch.Outbox)))
	}
	if err == nil || errors.Is(err, archive.ErrDuplicate) {
		r.stats.handled.Add(1)
		return nil
	}
	return fmt.Errorf("referee: %s: %w", key, err)
}
