package mail

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// The accepted log (SenderOptions.AcceptedLog, smtp-accepted.log): what
// the Sender notes of each reply it sends and the server accepts, so that
// a Sender started after a crash knows which replies went, and the
// recording of accepted replies in the Outbox.

// markLinger is how long the Sender gathers replies the server accepted
// (and the accepted log holds) before it records them in the Outbox.
const markLinger = 50 * time.Millisecond

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

// markSent records id in the Outbox (with whatever else waits to be) and
// returns once it is.
func (s *Sender) markSent(ctx context.Context, id string) error {
	return s.marks.do(ctx, id)
}

// markSentBatch records ids in the Outbox, in one call ([Outbox.Sent] for
// one, [Outbox.SentBatch] for more). A failure is returned; the ids stay
// remembered as accepted (never sent again by this process).
func (s *Sender) markSentBatch(ctx context.Context, ids []string) error {
	var err error
	switch len(ids) {
	case 0:
		return nil
	case 1:
		err = s.outbox.Sent(ctx, ids[0])
	default:
		err = s.outbox.SentBatch(ctx, ids)
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
	if !s.opts.Copies.lookups() || s.opts.Delivered != nil {
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
	if s.opts.Delivered == nil && s.opts.Copies.lookups() && len(doubt) > 0 {
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
