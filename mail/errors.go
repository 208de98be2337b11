package mail

import (
	"errors"
	"fmt"

	"pbem/internal/english"
)

// Permanent marks err as permanent: retrying the same input will fail the
// same way. A [Handler] returns Permanent(err) for a message it can never
// apply, which the [Poller] then moves to the Rejected folder. Permanent(nil)
// is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string   { return e.err.Error() }
func (e *permanentError) Unwrap() error   { return e.err }
func (e *permanentError) Permanent() bool { return true }

// IsPermanent reports whether err, or an error it wraps, is permanent: one
// made by [Permanent], a [*ParseError], or any error with a method
// Permanent() bool that returns true (an SMTP 5xx reply, for example).
func IsPermanent(err error) bool {
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}

// ParseError reports a message that cannot be parsed. It is permanent.
type ParseError struct {
	Reason string // what was wrong, e.g. "missing From"
	Err    error  // the underlying error, if any
}

func (e *ParseError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("mail: cannot parse message: %s: %v", e.Reason, e.Err)
	}
	return "mail: cannot parse message: " + e.Reason
}

func (e *ParseError) Unwrap() error { return e.Err }

// Permanent reports true: a message that cannot be parsed never will be.
func (e *ParseError) Permanent() bool { return true }

// ForSender says in plain words what was wrong with the message, for the
// reply to its sender: "your message is larger than 10 MiB, the most the
// referee reads". It never shows an internal message or a Go error.
func ForSender(err error) string {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return "the referee could not read it as a mail message"
	}
	var n, limit int64
	r := pe.Reason
	switch {
	case scan(r, "message of %d bytes is larger than %d bytes", &n, &limit):
		return fmt.Sprintf("your message is %s, larger than %s, the most the referee reads; send your commands in a short plain-text mail", english.ByteSize(n), english.ByteSize(limit))
	case scan(r, "message larger than %d bytes", &n):
		return fmt.Sprintf("your message is larger than %s, the most the referee reads; send your commands in a short plain-text mail", english.ByteSize(n))
	case scan(r, "text longer than %d bytes", &n):
		return fmt.Sprintf("the text of your message is longer than %s, the most the referee reads; send your commands in a short plain-text mail", english.ByteSize(n))
	case scan(r, "more than %d MIME parts", &n):
		return fmt.Sprintf("your message has more than %d parts (attachments); send your commands in a plain-text mail without attachments", n)
	case scan(r, "MIME parts nested deeper than %d", &n):
		return fmt.Sprintf("your message nests parts (forwards or attachments) more than %d deep; send your commands in a plain-text mail", n)
	case r == "missing From" || len(r) > 14 && r[:14] == "malformed From":
		return "its From line is missing or not a mail address, so the referee cannot tell who sent it"
	case r == "malformed header":
		return "its header is damaged, so the referee cannot read it"
	}
	return "its structure or encoding is damaged (" + r + "), so the referee cannot read its text; send your commands in a plain-text mail"
}

// scan reports whether s has the form format (with a %d for each of ns)
// and stores the numbers.
func scan(s, format string, ns ...*int64) bool {
	var rest string
	args := make([]any, 0, len(ns)+1)
	for _, n := range ns {
		args = append(args, n)
	}
	k, _ := fmt.Sscanf(s+" .", format+" %s", append(args, &rest)...)
	return k == len(ns)+1 && rest == "."
}
