package ziggurat

import (
	"testing"

	"pbem/notation/notationtest"
)

// FuzzFastMatchesGrammar: whenever parseFast accepts a text, the grammar
// reads the same ply from it.
func FuzzFastMatchesGrammar(f *testing.F) {
	seeds := []string{
		"Qa1-d4", "Qd4xb6", "Tb3-c5", "Kb6-b4", "Qc4-off", "Kb6-off", "W@d1", "@d1", "pass", "a1-d4", "c4-off",
		"T@d1", "K@a1", "Q@g9", "Qa0-d4", "Qa01-d4", "Qa12-d4", "Qz9xa1", "Qd4xoff", "Qc4-of", "Qc4-offx",
		"Qa1-d4 ", " Qa1-d4", "qa1-D4", "Qa1--d4", "Qa1-d4x", "Q1-d4", "QQa1-d4", "Qx1xx1", "Pass", "pass ",
		"W@", "@", "Qa1", "Qa1-", "Qa1x", "Xa1-d4", "Qa1@d4", "Q@d1-d2",
	}
	notationtest.FastMatchesGrammar(f, seeds, parseFast, parse)
}

// TestFastReadsCanonical: the plies of the notation's examples take the
// fast path.
func TestFastReadsCanonical(t *testing.T) {
	for _, text := range []string{"Qa1-d4", "Qd4xb6", "Tb3-c5", "Kb6-b4", "Qc4-off", "Kb6-off", "W@d1", "pass"} {
		var p ply
		if !parseFast(text, &p) {
			t.Errorf("parseFast(%q) refused a canonical ply", text)
		}
	}
}
