package mail

import (
	"errors"
	"fmt"
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
