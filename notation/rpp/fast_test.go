package rpp

import (
	"testing"

	"pbem/notation/notationtest"
)

// FuzzFastMatchesGrammar: whenever parseFast accepts a text, the grammar
// reads the same ply from it.
func FuzzFastMatchesGrammar(f *testing.F) {
	seeds := []string{
		"R:Lc1-c2", "Y:Lc3xc4", "G:Sc3-c4*", "B:pass", "K:Mb10-c11", "W:Lq19xr20*",
		"R:Lc01-c2", "R:Lc100-c2", "R:lc1-c2", "r:Lc1-c2", "Z:Lc1-c2", "R:Lc1-c2**", "R:Lc1-", "R:pass*",
		"R:Lx1-c2", "R:Lc1xx2", "R:LC1-c2", "R:Lc1-c2 ", "R:Lp1-a2", "R:passs",
	}
	notationtest.FastMatchesGrammar(f, seeds, parseFast, parse)
}

// TestFastReadsCanonical: every canonical ply of the examples takes the
// fast path.
func TestFastReadsCanonical(t *testing.T) {
	for _, text := range []string{"R:Lc1-c2", "Y:Lc3xc4", "G:Sc3-c4*", "B:pass", "K:Mb10-c11"} {
		var p ply
		if !parseFast(text, &p) {
			t.Errorf("parseFast(%q) refused a canonical ply", text)
		}
	}
}
