package elevation

import (
	"reflect"
	"testing"
)

// FuzzSplitMatchesGrammar: reading a ply part by part (the cached path)
// gives exactly what the whole-ply grammar gives, errors included, and so
// does reading the canonical shape straight from its bytes whenever it
// accepts the text.
func FuzzSplitMatchesGrammar(f *testing.F) {
	for _, s := range []string{"Sa1:b2>a2,-b2", "Fe1:-c3,b4>b3", "Sb5:xc4,b4>d3", "Dd1:-d2", "a1:-b2"} {
		var acts [maxFast]action
		p := parsed{actions: acts[:0]}
		if !parseFast(s, &p) {
			f.Fatalf("parseFast(%q) refused a canonical ply", s)
		}
	}
	for _, s := range []string{"Sa1:b2>a2,-b2", "Fe1:-c3,b4>b3", "Sb5:xc4,b4>d3", "Dd1:-d2", "a1: b2>a2, -b2", "a1:", ":", "Sa1:b2>a2,,-b2", "Sa1::b2", "S1:-a2", "Sx1:-a2", "s1:x1>b2", "Da1:xb2,-c3", "a1:-b2,-c2,-d2,-e2,-f2", "Fa1:-b2,", "Fa10:-b2", "Fa1:b2>c3x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, werr := parse(text)
		got, gerr := New().parseParts(text)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("parseParts(%q) error = %v, whole-ply grammar says %v", text, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("parseParts(%q) = %+v, whole-ply grammar says %+v", text, got, want)
		}
		var acts [maxFast]action
		fast := parsed{actions: acts[:0]}
		if parseFast(text, &fast) && (werr != nil || !reflect.DeepEqual(&fast, want)) {
			t.Fatalf("parseFast(%q) = %+v, whole-ply grammar says %+v, %v", text, fast, want, werr)
		}
	})
}
