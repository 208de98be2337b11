package ziggurat43

import (
	"testing"

	"pbem/notation/notationtest"
)

// FuzzFastMatchesGrammar: whenever parseFast accepts a text, the grammar
// reads the same ply from it.
func FuzzFastMatchesGrammar(f *testing.F) {
	seeds := []string{
		"Se3-e4", "Hc1xd3", "Cc2-e2", "Ad2^f4", "Kf4-g5", "e3-e4", "Se30-e4", "Se03-e4", "Sz9-a1",
		"K1-e4", "Se3x4", "Se3-e4 ", " Se3-e4", "SE3-e4", "Se3X", "se3-e4", "Se3--e4", "Se3-e4x",
	}
	notationtest.FastMatchesGrammar(f, seeds, parseFast, parse)
}

// TestFastReadsCanonical: the plies of the notation's examples take the
// fast path.
func TestFastReadsCanonical(t *testing.T) {
	for _, text := range []string{"Se3-e4", "Hc1xd3", "Cc2-e2", "Ad2^f4", "Kf4-g5"} {
		var p ply
		if !parseFast(text, &p) {
			t.Errorf("parseFast(%q) refused a canonical ply", text)
		}
	}
}
