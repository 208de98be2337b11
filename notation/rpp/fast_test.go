package rpp

import (
	"reflect"
	"testing"
)

// FuzzFastMatchesGrammar: whenever parseFast accepts a text, the grammar
// reads the same ply from it.
func FuzzFastMatchesGrammar(f *testing.F) {
	for _, s := range []string{
		"R:Lc1-c2", "Y:Lc3xc4", "G:Sc3-c4*", "B:pass", "K:Mb10-c11", "W:Lq19xr20*",
		"R:Lc01-c2", "R:Lc100-c2", "R:lc1-c2", "r:Lc1-c2", "Z:Lc1-c2", "R:Lc1-c2**", "R:Lc1-", "R:pass*",
		"R:Lx1-c2", "R:Lc1xx2", "R:LC1-c2", "R:Lc1-c2 ", "R:Lp1-a2", "R:passs",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var got ply
		if !parseFast(text, &got) {
			return
		}
		want, err := parse(text)
		if err != nil {
			t.Fatalf("parseFast(%q) = %+v, but the grammar says %v", text, got, err)
		}
		if !reflect.DeepEqual(&got, want) {
			t.Fatalf("parseFast(%q) = %+v, the grammar reads %+v", text, got, *want)
		}
	})
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
