package castles

import (
	"reflect"
	"testing"
)

// FuzzSplitMatchesGrammar: reading a ply action by action (plain actions
// straight from their bytes, the others through the cache) gives exactly
// what the whole-ply grammar gives, errors included.
func FuzzSplitMatchesGrammar(f *testing.F) {
	for _, s := range []string{"Ca1-b2,a2xb3,@c1", "@c3", "a1-b2, c1xc2", "a1-b2,,@c1", ",", "Ca1-b2,", " @c3 ", "C a1 - b2", "ca1-b2", "c1-b2", "a2x3", "a2xb3x", "@c10", "@C1", "Cx1-b2", "a01-b2", "CA1-b2", "a1X b2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, werr := parse(text)
		got, gerr := New().parseActions(text)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("parseActions(%q) error = %v, whole-ply grammar says %v", text, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("parseActions(%q) = %v, whole-ply grammar says %v", text, got, want)
		}
	})
}
