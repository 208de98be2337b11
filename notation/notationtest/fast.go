package notationtest

import (
	"reflect"
	"testing"
)

// FastMatchesGrammar is the fuzz target that keeps a codec's fast ply
// reader equal to its grammar: whenever fast accepts a text, the grammar
// (slow) reads the same ply from it.
func FastMatchesGrammar[P any](f *testing.F, seeds []string, fast func(string, *P) bool, slow func(string) (*P, error)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var got P
		if !fast(text, &got) {
			return
		}
		want, err := slow(text)
		if err != nil {
			t.Fatalf("the fast reader accepts %q as %+v, but the grammar says %v", text, got, err)
		}
		if !reflect.DeepEqual(&got, want) {
			t.Fatalf("the fast reader reads %q as %+v, the grammar as %+v", text, got, *want)
		}
	})
}
