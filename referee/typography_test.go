package referee_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTypographicPlyByMail: a ply written with the characters a word
// processor or a phone puts in (an en dash for "-", × for a capture, a
// no-break space) is read as what it stands for and played, as pbem check
// reads it in a record; the reply gives it in its canonical spelling.
func TestTypographicPlyByMail(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		h.send("from: Alice <alice@example.org>\nsubject: new ziggurat43 with bob@example.org\n")
		h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n")
		h.send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\naccept\n")

		out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nSe2\u2013f3\n")
		assert.Contains(t, out, "You played Se2-f3 (ply 1).")
		assert.Equal(t, "1. Se2-f3 *", h.record(1))

		// The same by the move command, with a no-break space after it.
		out = h.send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\nmove\u00a01 Sk3\u2014j4 #2\n")
		assert.NotContains(t, out, "not a command", "the no-break space after move")
		assert.Contains(t, out, "You played Sk3-j4 (ply 2).")
	})
}
