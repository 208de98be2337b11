package rpp

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"pbem/engine"
	"pbem/engine/rpp"
	"pbem/notation"
)

// fuzzPositions are the start positions of a few variants and the
// positions reached from them by a few random plies.
func fuzzPositions(tb testing.TB) []engine.State {
	var out []engine.State
	r := rand.New(rand.NewPCG(3, 5))
	for _, o := range []engine.Options{{}, {Players: 3}, {Players: 4}, {Players: 8}} {
		s, err := rpp.Rules{}.Start(o)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
		for _, n := range []int{4, 12, 40} {
			x := s
			for range n {
				ms := x.Legal()
				if len(ms) == 0 {
					break
				}
				if x, err = x.Apply(ms[r.IntN(len(ms))]); err != nil {
					tb.Fatal(err)
				}
			}
			out = append(out, x)
		}
	}
	return out
}

// FuzzDecode: whatever the text, Decode either fails with a syntax error or
// an illegal-move error, or returns a move; a move that applies
// round-trips: Decode(Encode(m)) == m, and Encode is stable.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		// NOTATION.md examples
		"Lc1-c2", "Lc3xc4", "Sc3-c4*", "pass",
		"R:Lc1-c2", "Y:Lc3xc4", "G:Sc3-c4*", "B:pass",
		// lenient forms
		"r:lc1-c2", "c1-c2", "R: L c1 - c2", "PASS", "Mb1-c2", "h1-h2", "R:Lh1-g2", "Y:La2-b3", "lC3Xc4",
		// nonsense
		"", "Z:", "R:Lc1-c2**", "c99999999999999999999-c1", "é", "Lc1-c2 ; x", "Rpass",
	} {
		f.Add(s)
	}
	c := New()
	positions := fuzzPositions(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range positions {
			m, err := c.Decode(s, text)
			if err != nil {
				var se *notation.SyntaxError
				if !errors.As(err, &se) && !errors.Is(err, engine.ErrIllegalMove) {
					t.Fatalf("Decode(%q) = %v, neither a syntax error nor an illegal move", text, err)
				}
				if se != nil && (se.Offset < 0 || se.Offset > len(text)) {
					t.Fatalf("Decode(%q): offset %d outside the text", text, se.Offset)
				}
				continue
			}
			if _, err := s.Apply(m); err != nil {
				continue
			}
			enc := c.Encode(s, m)
			back, err := c.Decode(s, enc)
			if err != nil {
				t.Fatalf("Decode(Encode(Decode(%q)) = %q) = %v", text, enc, err)
			}
			if !reflect.DeepEqual(back, m) {
				t.Fatalf("Decode(%q) = %#v, want %#v (from %q)", enc, back, m, text)
			}
			if again := c.Encode(s, back); again != enc {
				t.Fatalf("Encode is not stable: %q then %q", enc, again)
			}
		}
	})
}
