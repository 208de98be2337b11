package castles

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"pbem/engine"
	"pbem/engine/castles"
	"pbem/engine/enginetest"
	"pbem/notation"
)

// Positions are castles.FromDiagram diagrams: rank 4 to rank 1 (F S
// castles, f s units), then heap/supply/points of First and Second, then
// the side to move (S* for the setup).
func pos(t testing.TB, d string) *castles.State {
	t.Helper()
	s, err := castles.FromDiagram(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sq(t testing.TB, text string) castles.Square {
	t.Helper()
	q, ok := castles.ParseSquare(text)
	if !ok {
		t.Fatalf("no square %q", text)
	}
	return q
}

const (
	start = "...S/..../..../F... 5/0/0 5/0/0 S*"
	// example: First's castle on a1, its unit on a2, Second's on b3.
	example = "...S/.s../f.../F... 4/0/0 4/0/0 F"
	// ramming: Second's castle on c4 next to First's unit on b3.
	ramming = "..S./.f../..../F... 4/0/0 5/0/0 S"
	// entering: First's unit on d3 next to Second's castle on d4.
	entering = "...S/...f/..../F... 4/0/0 5/0/0 F"
	// twoPoints: First has 2 points and a unit next to d4.
	twoPoints = "...S/..f./.f../F... 3/0/2 5/0/0 F"
	// ownOnB2: First's castle on a1 next to its own unit on b2.
	ownOnB2 = "...S/..s./.f../F... 4/0/0 4/0/0 F"
)

func TestConformance(t *testing.T) {
	c := New()
	enginetest.Run(t, enginetest.Config{
		Rules:  castles.Rules{},
		Encode: c.Encode,
		Decode: c.Decode,
		Seed:   11,
	})
}

// TestNotationExamples decodes the castles examples of NOTATION.md.
func TestNotationExamples(t *testing.T) {
	c := New()
	tests := []struct {
		diagram, text string
		want          castles.Move
	}{
		{example, "Ca1-b2,a2xb3,@c1", castles.Move{
			Castle: [2]castles.Square{sq(t, "a1"), sq(t, "b2")},
			Steps:  []castles.Step{{From: sq(t, "a2"), To: sq(t, "b3")}},
			Places: []castles.Square{sq(t, "c1")},
		}},
		{ramming, "Cc4xb3", castles.Move{Castle: [2]castles.Square{sq(t, "c4"), sq(t, "b3")}}},
		// d3xd4 is an action: a turn still opens with the castle step.
		{entering, "Ca1-b1,d3xd4", castles.Move{
			Castle: [2]castles.Square{sq(t, "a1"), sq(t, "b1")},
			Steps:  []castles.Step{{From: sq(t, "d3"), To: sq(t, "d4")}},
		}},
		{start, "@c3", castles.Move{Setup: true, Places: []castles.Square{sq(t, "c3")}}},
	}
	for _, tc := range tests {
		s := pos(t, tc.diagram)
		got, err := c.Decode(s, tc.text)
		if err != nil {
			t.Errorf("Decode(%s, %q) = %v", tc.diagram, tc.text, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Decode(%s, %q) = %#v, want %#v", tc.diagram, tc.text, got, tc.want)
		}
		if _, err := s.Apply(got); err != nil {
			t.Errorf("Apply(Decode(%q)) = %v", tc.text, err)
		}
		if e := c.Encode(s, got); e != tc.text {
			t.Errorf("Encode(Decode(%q)) = %q, want it back", tc.text, e)
		}
	}
	// d3xd4 alone is not a turn.
	if _, err := c.Decode(pos(t, entering), "d3xd4"); err == nil || err.Error() != "illegal: a turn starts with the castle step" {
		t.Errorf(`Decode("d3xd4") = %v, want "illegal: a turn starts with the castle step"`, err)
	}
}

// TestLenient: what players may write and the canonical form.
func TestLenient(t *testing.T) {
	c := New()
	tests := []struct{ diagram, text, want string }{
		{example, "Ca1-b2,a2xb3,@c1", "Ca1-b2,a2xb3,@c1"},
		{example, "ca1-B2,A2XB3,@C1", "Ca1-b2,a2xb3,@c1"},
		{example, "a1-b2,a2xb3,@c1", "Ca1-b2,a2xb3,@c1"}, // castle letter left out
		{example, "Ca1-b2, a2xb3, @c1", "Ca1-b2,a2xb3,@c1"},
		{example, " Ca1-b2 ,a2xb3 ", "Ca1-b2,a2xb3"},
		{example, "Ca1-b2,a2-b3,@c1", "Ca1-b2,a2xb3,@c1"}, // - for a capture
		{ramming, "c4-b3", "Cc4xb3"},
		{ramming, "CC4Xb3", "Cc4xb3"},
		{entering, "Ca1-b1,d3-d4", "Ca1-b1,d3xd4"},
		{ownOnB2, "Ca1-b2", "Ca1-b2"}, // onto an own unit: not a capture
		{ownOnB2, "Ca1-b2,@a1,@c1", "Ca1-b2,@a1,@c1"},
		{ownOnB2, "Ca1-a2,b2xc3", "Ca1-a2,b2xc3"},
		{start, "@C3", "@c3"},
		{start, "@d3", "@d3"},
		{twoPoints, "Ca1-a2,c3xd4", "Ca1-a2,c3xd4"},
	}
	for _, tc := range tests {
		s := pos(t, tc.diagram)
		m, err := c.Decode(s, tc.text)
		if err != nil {
			t.Errorf("Decode(%s, %q) = %v, want %q", tc.diagram, tc.text, err, tc.want)
			continue
		}
		if got := c.Encode(s, m); got != tc.want {
			t.Errorf("Encode(Decode(%s, %q)) = %q, want %q", tc.diagram, tc.text, got, tc.want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	c := New()
	s := pos(t, example)
	tests := []struct {
		text   string
		offset int
		msg    string
	}{
		{"", 0, `unexpected end of ply at column 1; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"   ", 3, `unexpected end of ply at column 4; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"pass", 0, `unexpected "p" at column 1; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"Ca1-z", 4, `unexpected "z" at column 5; expected a square such as c4`},
		{"Cc", 1, `unexpected "c" at column 2; expected a square such as c4`},
		{"Ca1b2", 3, `unexpected "b2" at column 4; expected "-" or "x"`},
		{"Ca1", 3, `unexpected end of ply at column 4; expected "-" or "x"`},
		{"Ca1-b2,", 7, `unexpected end of ply at column 8; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"Ca1-b2;a2-a3", 6, `unexpected ";" at column 7; expected "," or the end of the ply`},
		{"Ca1-b2 a2-a3", 7, `unexpected "a2" at column 8; expected "," or the end of the ply`},
		{"Ca1-b2,@", 8, `unexpected end of ply at column 9; expected a square such as c4`},
		{"Ca1-b2,@Cc1", 8, `unexpected "C" at column 9; expected a square such as c4`},
		{"Ca1-b2,Xa2-b3", 7, `unexpected "X" at column 8; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"Ca1-b2,,", 7, `unexpected "," at column 8; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"Ca1—b2", 3, `unexpected "—" at column 4; expected "-" or "x"`},
		{"é,Ca1-b2", 0, `unexpected "é" at column 1; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"Ca1-b2,é", 7, `unexpected "é" at column 8; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"Ca1-b2,@c1é", 10, `unexpected "é" at column 11; expected "," or the end of the ply`},
		{"Ca1-b2x", 6, `unexpected "x" at column 7; expected "," or the end of the ply`},
		{"1. Ca1-b2", 0, `unexpected "1" at column 1; expected an action such as Ca1-b2, a2xb3 or @c1`},
		{"Ca1-b2,a123456789012345x", 24, `unexpected end of ply at column 25; expected a square such as c4`},
		{"Ca1-b2,a2-" + strings.Repeat("9", 40), 10, `unexpected "9" at column 11; expected a square such as c4`},
		{"Ca1-b2,@" + strings.Repeat("z", 40), 8, `unexpected "z" at column 9; expected a square such as c4`},
	}
	for _, tc := range tests {
		_, err := c.Decode(s, tc.text)
		var se *notation.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%q) = %v, want a *notation.SyntaxError", tc.text, err)
			continue
		}
		if se.Offset != tc.offset || se.Msg != tc.msg {
			t.Errorf("Decode(%q) = {%d, %q}, want {%d, %q}", tc.text, se.Offset, se.Msg, tc.offset, tc.msg)
		}
	}
}

func TestIllegal(t *testing.T) {
	c := New()
	tests := []struct{ diagram, text, want string }{
		{example, "Ca1-e5", "no such square e5"},
		{example, "Ca1-b2,a2-a9", "no such square a9"},
		{example, "Ca1-b2,z1-a2", "no such square z1"},
		{example, "Ca1-b2,a0-a1", "no such square a0"},
		{example, "Ca1-b2,@a10", "no such square a10"},
		{example, "Ca1-b123456789012345", "no such square b123456789..."},
		{example, "Ca1-b2,a2xa3", "x asserts a capture, but a2-a3 captures nothing"},
		{ownOnB2, "Ca1xb2", "x asserts a capture, but Ca1-b2 captures nothing"},
		{example, "a1xa2", "x asserts a capture, but Ca1-a2 captures nothing"},
		{example, "Cb1-b2", "no castle of yours on b1"},
		{example, "Ca1-b2,b3-c3", "the unit on b3 is not yours"},
		{example, "Ca1-b2,c1-c2", "no unit on c1"},
		{example, "Ca1-b2,d4-c4", "the castle on d4 is not yours"},
		{example, "@c1", "a turn starts with the castle step"},
		{example, "a2-a3", "a turn starts with the castle step"},
		{example, "Ca1-b2,@c1,a2-a3", "unit steps come before placements"},
		{example, "Ca1-b2,@c1,c1-c2", "units placed this turn cannot step"},
		{example, "Ca1-b2,a2-a3,Cb2-b1", "the castle steps exactly once per turn"},
		{example, "Ca1-b2,b2-b3", "the castle steps exactly once per turn"},
		{example, "Ca1-c3", "the castle steps exactly one square"},
		{example, "Ca1-b2,a2-a3,a3-a4", "each unit steps at most once per turn"},
		{example, "Ca1-b2,a2-b2", "units never step onto their own castle"},
		{ownOnB2, "Ca1-a2,@b2", "units are placed on an empty cell"},
		{ownOnB2, "Ca1-a2,@d1", "units are placed next to the castle or to a unit chained to it"},
		{ownOnB2, "Ca1-a2,@a1,@a3", "no unit left in your supply"},
		{"...S/..F./..../.... 5/0/0 5/0/0 F", "Cc3-d4", "the castle never steps onto the enemy castle"},
		{twoPoints, "Ca1-a2,c3xd4,b2-b3", "the game ended with the third point; no action may follow"},
		{twoPoints, "Ca1-a2,c3xd4,@a1", "the game ended with the third point; no action may follow"},
		{"...S/..../.s../F... 5/0/0 3/1/2 F", "Ca1xb2,@a1", "the game ended with the third point; no action may follow"},
		{"...S/..../.F../.... 4/1/0 4/1/3 S", "Cd4-c4", "the game is over (three points)"},
		{start, "Cd4-c3", "the game opens with Second's setup placement (@c3, @c4 or @d3)"},
		{start, "d4-c3", "the game opens with Second's setup placement (@c3, @c4 or @d3)"},
		{start, "@b2", "the setup unit goes on a cell next to Second's castle (c3, c4 or d3)"},
		{start, "@c3,@c4", "the setup is a single placement"},
	}
	for _, tc := range tests {
		s := pos(t, tc.diagram)
		_, err := c.Decode(s, tc.text)
		want := "illegal: " + tc.want
		if err == nil || err.Error() != want {
			t.Errorf("Decode(%s, %q) = %v, want %q", tc.diagram, tc.text, err, want)
			continue
		}
		if !errors.Is(err, engine.ErrIllegalMove) {
			t.Errorf("Decode(%q) error %v does not wrap ErrIllegalMove", tc.text, err)
		}
	}
}

// TestDecodeAnyOrder: a legal turn written in another order than Legal
// lists decodes as written, and applies to the same position.
func TestDecodeAnyOrder(t *testing.T) {
	c := New()
	s := pos(t, "...S/f.s./f.../F... 2/1/0 4/0/0 F")
	a, err := c.Decode(s, "Ca1-b1,a3-a4,a2-a3,@c1,@a2")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Decode(s, "a1-b1,a3-a4,a2-a3,@a2,@c1")
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, b) {
		t.Errorf("Decode kept no order: %v", a)
	}
	na, err1 := s.Apply(a)
	nb, err2 := s.Apply(b)
	if err1 != nil || err2 != nil || na.Key() != nb.Key() {
		t.Errorf("the two orders reach %v (%v) and %v (%v)", na, err1, nb, err2)
	}
	if got := c.Encode(s, b); got != "Ca1-b1,a3-a4,a2-a3,@a2,@c1" {
		t.Errorf("Encode keeps the order: got %q", got)
	}
}

func TestNotationText(t *testing.T) {
	c := New()
	for i, l := range strings.Split(c.Notation(), "\n") {
		if len(l) > 72 {
			t.Errorf("Notation() line %d is %d columns, want <= 72", i+1, len(l))
		}
	}
	for _, ex := range []string{"Ca1-b2,a2xb3,@c1", "Cc4xb3", "d3xd4", "@c3"} {
		if !strings.Contains(c.Notation(), ex) {
			t.Errorf("Notation() lacks the example %q", ex)
		}
	}
	if c.Rules().ID() != "castles" {
		t.Errorf("Rules().ID() = %q", c.Rules().ID())
	}
	if _, err := c.Decode(nil, "Ca1-b2"); err == nil || err.Error() != "castles: not a castles position: <nil>" {
		t.Errorf("Decode(nil) = %v", err)
	}
}

func TestCacheBounded(t *testing.T) {
	c := New()
	s := pos(t, example)
	for i := range notation.CacheLimit + 10 {
		c.Decode(s, fmt.Sprintf("Ca1-b2,@c%d", i))
	}
	if n := c.actions.Len(); n > notation.CacheLimit {
		t.Errorf("cache holds %d texts, want <= %d", n, notation.CacheLimit)
	}
	before := c.actions.Len()
	c.Decode(s, "Ca1-b2,"+strings.Repeat(" ", notation.CacheMaxText)+"@c1")
	if c.actions.Len() > before {
		t.Errorf("an overlong text was cached")
	}
}

func TestConcurrentDecode(t *testing.T) {
	c := New()
	s := pos(t, example)
	texts := []string{"Ca1-b2,a2xb3,@c1", "Ca1-b1", "a1-a3", "Ca1-b2,@c1", "bad!"}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				text := texts[(g+i)%len(texts)]
				if i%50 == 0 {
					text = fmt.Sprintf("Ca1-b2,@c%d", g*1000+i)
				}
				c.Decode(s, text)
			}
		}()
	}
	wg.Wait()
	m, err := c.Decode(s, texts[0])
	if err != nil || c.Encode(s, m) != texts[0] {
		t.Errorf("Decode after concurrent use = %v, %v", m, err)
	}
}

func BenchmarkDecodeApply(b *testing.B) {
	c := New()
	s := pos(b, "f.sS/.fs./.f.s/F..f 1/0/1 1/1/1 F")
	plies := []string{"Ca1-b1,b3-a3,d1-c1,@a1", "Ca1-a2", "Ca1-b1,b2xc3"}
	for _, p := range plies {
		m, err := c.Decode(s, p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m, _ := c.Decode(s, plies[i%len(plies)])
		s.Apply(m)
		i++
	}
}

func BenchmarkDecodeUncached(b *testing.B) {
	s := pos(b, "f.sS/.fs./.f.s/F..f 1/0/1 1/1/1 F")
	b.ReportAllocs()
	for b.Loop() {
		c := New()
		c.Decode(s, "Ca1-b1,b3-a3,d1-c1,@a1")
	}
}

func BenchmarkEncode(b *testing.B) {
	c := New()
	s := pos(b, "f.sS/.fs./.f.s/F..f 1/0/1 1/1/1 F")
	m, err := c.Decode(s, "Ca1-b1,b3-a3,d1-c1,@a1")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Encode(s, m)
	}
}
