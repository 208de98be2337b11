package castles

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"pbem/engine"
	"pbem/engine/castles"
	"pbem/notation"
)

// fuzzPositions are the start and positions reached by a few random plies,
// plus the hand-made positions of the examples.
func fuzzPositions(t testing.TB) []*castles.State {
	out := []*castles.State{castles.NewState()}
	for g := range 4 {
		r := rand.New(rand.NewPCG(42, uint64(g)))
		s := castles.NewState()
		for ply := range 14 {
			if s.Outcome().Over {
				break
			}
			if ply%3 == 1 {
				out = append(out, s)
			}
			n, err := s.Apply(s.RandomMove(r))
			if err != nil {
				t.Fatal(err)
			}
			s = n.(*castles.State)
		}
	}
	for _, d := range []string{example, ramming, entering, twoPoints, ownOnB2} {
		out = append(out, pos(t, d))
	}
	return out
}

// FuzzDecode: whatever the text, Decode either refuses it with a syntax
// error or an illegal-move error, or returns a move that applies and
// round-trips: Decode(Encode(m)) == m, and Encode is stable.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		// NOTATION.md examples.
		"Ca1-b2,a2xb3,@c1", "Cc4xb3", "d3xd4", "@c3",
		// Lenient and mistaken forms.
		"ca1-B2,A2XB3,@C1", "a1-b2, a2-b3, @c1", "Ca1-a2,c3xd4", "Ca1-b2,@a1,@c1",
		"Cd4-c3", "@c4", "@d3", "Ca1xb2", "Ca1-e5", "", "pass", "Ca1-b2,,", "é",
		"Ca1-b1,d3-d4", "Ca1-b2,@c1,a2-a3", "Ca1-a2,c3xd4,b2-b3",
	} {
		f.Add(seed)
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
				t.Fatalf("Decode(%q) = %#v, which does not apply: %v\n%s", text, m, err, s.Render(-1))
			}
			e := c.Encode(s, m)
			back, err := c.Decode(s, e)
			if err != nil {
				t.Fatalf("Decode(Encode(Decode(%q)) = %q) = %v", text, e, err)
			}
			if !reflect.DeepEqual(back, m) {
				t.Fatalf("Decode(%q) = %#v, want %#v (from %q)", e, back, m, text)
			}
			if e2 := c.Encode(s, back); e2 != e {
				t.Fatalf("Encode is not stable: %q then %q", e, e2)
			}
		}
	})
}
