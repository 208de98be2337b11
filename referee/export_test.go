package referee

import "context"

// CommandLines returns the lines of q that the referee reads as command
// attempts, in order.
func CommandLines(ctx context.Context, r *Referee, q *Request) ([]string, error) {
	s := r.newSession(ctx, q, "test")
	s.readCreds()
	return s.commandLines()
}
