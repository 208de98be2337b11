package elevation

import (
	"reflect"
	"testing"
)

// FuzzSplitMatchesGrammar: reading a ply part by part (the cached fast
// path) gives exactly what the whole-ply grammar gives, errors included.
func FuzzSplitMatchesGrammar(f *testing.F) {
	for _, s := range []string{"Sa1:b2>a2,-b2", "Fe1:-c3,b4>b3", "Sb5:xc4,b4>d3", "Dd1:-d2", "a1: b2>a2, -b2", "a1:", ":", "Sa1:b2>a2,,-b2", "Sa1::b2"} {
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
	})
}
