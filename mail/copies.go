package mail

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// The copies of the replies in the Sender's own mailbox
// (SenderOptions.CopyTo): which ones may go, and finding them after a crash.

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
