package referee

import (
	"time"
)

// Direct is the referee's answer to a request whose sender reads it from
// the caller rather than by mail: the web API (cmd/pbem joins it), whose
// request is otherwise read exactly as a mail with the same words, token
// and sender, and commits the same change with the same mails to the
// others. Only the reply to the sender is not queued: it is written here.
type Direct struct {
	// Answered reports that the request was read (false: not read, as a
	// blocked sender's, or over the rate limit).
	Answered bool
	// Text is what the reply mail's paragraphs would say (no board and
	// no footer), every player of the games it names by public name,
	// never by address.
	Text string
	// Refused and Expected are the player's mistake that stopped the
	// request ("" when none): what was wrong and what was expected.
	Refused, Expected string
	// Stale is set when a ply was refused for its ply number; Next is
	// the number of the ply the game expects.
	Stale bool
	Next  int
	// LimitedUntil is when the sender's rate-limit window ends, if the
	// request was over the limit (zero otherwise).
	LimitedUntil time.Time
}

// answerDirect writes the reply draft d into the request's Direct answer
// instead of an outbox mail, and reports whether it did (false: the
// request is answered by mail).
func (s *session) answerDirect(d *draft) bool {
	if s.req == nil || s.req.Direct == nil {
		return false
	}
	out := s.req.Direct
	if d == nil {
		return true
	}
	out.Answered = true
	text := d.prose()
	for _, g := range s.games {
		text = g.redact(text)
	}
	out.Text = text
	if e := s.refused; e != nil {
		out.Refused, out.Expected = upperFirst(e.reason), e.expected
		out.Stale, out.Next = e.next > 0, e.next
	}
	return true
}

// resetDirect clears the Direct answer before a request is processed
// (again, after a conflict).
func resetDirect(req *Request) {
	if req != nil && req.Direct != nil {
		*req.Direct = Direct{}
	}
}

// limited notes, for a Direct answer, that the request was over a rate
// limit whose window ends at until.
func (s *session) limited(until time.Time) {
	if s.req != nil && s.req.Direct != nil {
		s.req.Direct.LimitedUntil = until
	}
}
