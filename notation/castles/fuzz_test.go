package castles

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
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
			applied, err := s.Apply(m)
			if err != nil {
				t.Fatalf("Decode(%q) = %#v, which does not apply: %v\n%s", text, m, err, s.Render(-1))
			}
			agreePlayed(t, c, s, text, m, applied)
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

// agreePlayed: DecodePlay returns Decode's move, and a position only when
// it is the one Apply reaches.
func agreePlayed(t *testing.T, c *Codec, s *castles.State, text string, m engine.Move, applied engine.State) {
	t.Helper()
	m2, next, err := c.DecodePlay(s, text)
	if err != nil || !reflect.DeepEqual(m2, m) {
		t.Fatalf("DecodePlay(%q) = %#v, %v; Decode gave %#v", text, m2, err, m)
	}
	if next != nil && next.Key() != applied.Key() {
		t.Fatalf("DecodePlay(%q) reaches\n%s\nApply reaches\n%s", text, next.Render(-1), applied.Render(-1))
	}
}

// TestDecodePlayAgrees: over random games, each ply written in Play's order
// and with its actions reversed, DecodePlay agrees with Decode and Apply,
// returns a position for Play's order, and none for a reversed turn of more
// than one action. An illegal ply gets the same error from both.
func TestDecodePlayAgrees(t *testing.T) {
	c := New()
	played, reversed := 0, 0
	for g := range 40 {
		r := rand.New(rand.NewPCG(7, uint64(g)))
		s := castles.NewState()
		for !s.Outcome().Over {
			m := s.RandomMove(r)
			text := c.Encode(s, m)
			applied, err := s.Apply(m)
			if err != nil {
				t.Fatal(err)
			}
			dm, err := c.Decode(s, text)
			if err != nil {
				t.Fatalf("Decode(Encode) = %v", err)
			}
			agreePlayed(t, c, s, text, dm, applied)
			if _, next, _ := c.DecodePlay(s, text); next == nil {
				t.Fatalf("DecodePlay(%q) in Play's order reached no position", text)
			}
			played++
			parts := strings.Split(text, ",")
			if len(parts) > 1 {
				slices.Reverse(parts)
				rev := strings.Join(parts, ",")
				rm, derr := c.Decode(s, rev)
				rm2, next, perr := c.DecodePlay(s, rev)
				if fmt.Sprint(derr) != fmt.Sprint(perr) || !reflect.DeepEqual(rm, rm2) {
					t.Fatalf("%q: Decode %v, %v; DecodePlay %v, %v", rev, rm, derr, rm2, perr)
				}
				if next != nil {
					t.Fatalf("DecodePlay(%q), out of Play's order, reached a position", rev)
				}
				if derr == nil {
					if ra, err := s.Apply(rm); err == nil {
						agreePlayed(t, c, s, rev, rm, ra)
					}
				}
				reversed++
			}
			s = applied.(*castles.State)
		}
	}
	if played < 500 || reversed < 100 {
		t.Fatalf("only %d plies and %d reversed turns were tried", played, reversed)
	}
}
