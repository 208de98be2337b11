package ziggurat43

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"pbem/engine"
	z "pbem/engine/ziggurat43"
	"pbem/notation"
)

// fuzzPositions are the start, the positions of the NOTATION.md example, a
// few with a Horse capture and a Priest-King below the temple, and
// positions reached by random plies.
func fuzzPositions(t testing.TB) []*z.State {
	out := []*z.State{
		position(t, z.Red, "Ka1 Hc1", "Km1 Sd3"),
		position(t, z.Red, "Ka1 Cc2 Ad2", "Km1"),
		position(t, z.Red, "Kf4", "Km1"),
	}
	for i := range exampleRecord {
		out = append(out, after(t, exampleRecord[:i]...))
	}
	r := rand.New(rand.NewPCG(43, 43))
	for _, n := range []int{5, 12, 25, 40} {
		s := z.StartState()
		for range n {
			ms := s.Legal()
			if len(ms) == 0 {
				break
			}
			next, err := s.Apply(ms[r.IntN(len(ms))])
			if err != nil {
				t.Fatal(err)
			}
			s = next.(*z.State)
		}
		out = append(out, s)
	}
	return out
}

// FuzzDecode checks the round trip: whatever text decodes to a move in a
// position, that move applies, encodes to a canonical text that decodes to
// the same move, and encodes the same again. Errors are syntax errors with
// an offset inside the text or illegal-move errors, and the parse cache
// never changes an answer.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"Se3-e4", "Hc1xd3", "Cc2-e2", "Ad2^f4", "Kf4-g5", // NOTATION.md
		"Si3-h4", "Sd3-d4", "Sh4-g4", "Se1-f2", "Sg4-f4",
		"se3-E4", "e3-e4", " Se3-e4 ", "Hc1-d3", "hc1Xd3", "d2^f4",
		"Se3xe4", "Qe3-e4", "Se3-j9", "Se3-e5", "Se3", "", "Se3-e4+", "Ad2xf4",
	} {
		f.Add(s)
	}
	positions := fuzzPositions(f)
	shared := New()
	f.Fuzz(func(t *testing.T, text string) {
		fresh := New()
		for _, s := range positions {
			m, err := shared.Decode(s, text)
			m2, err2 := fresh.Decode(s, text)
			if !reflect.DeepEqual(m, m2) || (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
				t.Fatalf("Decode(%q) = %v, %v with the cache, %v, %v without", text, m, err, m2, err2)
			}
			if err != nil {
				var se *notation.SyntaxError
				switch {
				case errors.As(err, &se):
					if se.Offset < 0 || se.Offset > len(text) {
						t.Fatalf("Decode(%q): syntax error at offset %d, outside the text", text, se.Offset)
					}
				case !errors.Is(err, engine.ErrIllegalMove):
					t.Fatalf("Decode(%q) = %v, want a syntax error or an illegal move", text, err)
				}
				continue
			}
			if _, err := s.Apply(m); err != nil {
				t.Fatalf("Decode(%q) = %v, which Apply refuses: %v", text, m, err)
			}
			enc := shared.Encode(s, m)
			back, err := shared.Decode(s, enc)
			if err != nil {
				t.Fatalf("Decode(Encode(Decode(%q)) = %q) = %v", text, enc, err)
			}
			if !reflect.DeepEqual(back, m) {
				t.Fatalf("Decode(%q) = %#v, want %#v (from %q)", enc, back, m, text)
			}
			if again := shared.Encode(s, back); again != enc {
				t.Fatalf("Encode is not stable: %q then %q", enc, again)
			}
		}
	})
}
