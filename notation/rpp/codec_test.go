package rpp

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/engine/rpp"
	"pbem/notation"
)

func TestConformance(t *testing.T) {
	c := New()
	playouts := 12
	if testing.Short() {
		playouts = 3
	}
	enginetest.Run(t, enginetest.Config{
		Rules: c.Rules(),
		Options: []engine.Options{
			{Players: 2}, {Players: 3, First: 1}, {Players: 4}, {Players: 6, First: 5}, {Players: 8},
		},
		Playouts: playouts,
		MaxPlies: 400,
		Seed:     8,
		Encode:   c.Encode,
		Decode:   c.Decode,
	})
}

// play decodes and applies plies from the start of o, and returns the
// position reached.
func play(t testing.TB, o engine.Options, plies string) *rpp.State {
	t.Helper()
	c := New()
	s, err := rpp.Rules{}.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(plies) {
		m, err := c.Decode(s, p)
		if err != nil {
			t.Fatalf("Decode(%q) = %v\n%s", p, err, s.Render(-1))
		}
		if s, err = s.Apply(m); err != nil {
			t.Fatalf("Apply(%q) = %v", p, err)
		}
	}
	return s.(*rpp.State)
}

// Positions in a 2-player game on square5 (R south, Y north, R first).
const (
	// R's L on c3 faces Y's M on c4: R:Lc3xc4.
	takeM = "Lc1-c2 Lc5-d4 Lc2-c3 Mc5-c4"
	// R's S on c3 faces Y's M on c4: R:Sc3-c4*.
	intoM = "Lc1-b2 Lc5-d4 Mc1-d2 Mc5-c4 Sc1-c2 pass Sc2-c3 pass"
	// R's L returned to b1 beside its M-S nest: L and M can leave b1.
	twoOnB1 = "Lb1-b2 pass Lb2-b1 pass"
	// R's L on c3 tops a stack: Y's M was captured entering it.
	stackTop = "Lc1-c2 Lc5-b4 Lc2-c3 Mc5-c4 pass Mc4-c3"
)

func TestDecode(t *testing.T) {
	two := engine.Options{}
	four := engine.Options{Players: 4}
	cases := []struct {
		name  string
		o     engine.Options
		plies string // played from the start first
		in    string
		want  string // canonical Encode of the decoded move
	}{
		{"canonical step", two, "", "R:Lc1-c2", "R:Lc1-c2"},
		{"no label with 2 seats", two, "", "Lc1-c2", "R:Lc1-c2"},
		{"lower case", two, "", "r:lc1-c2", "R:Lc1-c2"},
		{"upper-case squares", two, "", "R:LC1-C2", "R:Lc1-c2"},
		{"piece letter omitted", two, "", "c1-c2", "R:Lc1-c2"},
		{"spaces between tokens", two, "", "R: L c1 - c2", "R:Lc1-c2"},
		{"pass", two, "", "pass", "R:pass"},
		{"PASS with label", two, "", "R:PASS", "R:pass"},
		{"capture", two, takeM, "R:Lc3xc4", "R:Lc3xc4"},
		{"capture written with -", two, takeM, "Lc3-c4", "R:Lc3xc4"},
		{"capture with upper-case X", two, takeM, "lc3Xc4", "R:Lc3xc4"},
		{"captured on arrival", two, intoM, "R:Sc3-c4*", "R:Sc3-c4*"},
		{"captured on arrival, * left out", two, intoM, "Sc3-c4", "R:Sc3-c4*"},
		{"piece letter needed beside a nest", two, twoOnB1, "Mb1-c2", "R:Mb1-c2"},
		{"4 seats: label", four, "", "R:Lc1-c2", "R:Lc1-c2"},
		{"4 seats: B passes", four, "R:Lc1-c2 Y:La4-b4 G:Le7-e6", "b:pass", "B:pass"},
	}
	c := New()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := play(t, tc.o, tc.plies)
			m, err := c.Decode(s, tc.in)
			if err != nil {
				t.Fatalf("Decode(%q) = %v", tc.in, err)
			}
			if got := c.Encode(s, m); got != tc.want {
				t.Errorf("Encode(Decode(%q)) = %q, want %q", tc.in, got, tc.want)
			}
			if _, err := s.Apply(m); err != nil {
				t.Errorf("Apply(Decode(%q)) = %v", tc.in, err)
			}
		})
	}
}

func TestDecodeIllegal(t *testing.T) {
	two := engine.Options{}
	cases := []struct {
		name  string
		o     engine.Options
		plies string
		in    string
		err   string
	}{
		{"x on a plain step", two, "", "Lc1xc2", "illegal: x asserts a capture, but R:Lc1-c2 captures nothing"},
		{"x on a mover captured on arrival", two, intoM, "Sc3xc4", "illegal: x asserts a capture, but R:Sc3-c4* is captured on arrival"},
		{"* on a plain step", two, "", "Lc1-c2*", "illegal: * says the mover is captured on arrival, but R:Lc1-c2 is not"},
		{"* on a capture", two, takeM, "Lc3xc4*", "illegal: * says the mover is captured on arrival, but R:Lc3xc4 is not"},
		{"label of another seat", two, "", "Y:Lc5-c4", "illegal: it is R's turn, not Y's"},
		{"label of a seat not in the game", two, "", "G:pass", "illegal: no seat G in this game (seats R Y)"},
		{"no such square", two, "", "Lc1-j9", "illegal: no such square j9"},
		{"rank 0", two, "", "Lc0-c1", "illegal: no such square c0"},
		{"no such square, upper case", two, "", "LC1-C6", "illegal: no such square c6"},
		{"no such square, long", two, "", "Lc1-c" + strings.Repeat("0", 30), "illegal: no such square c000000000000000..."},
		{"no piece", two, "", "c3-c4", "illegal: no piece on c3"},
		{"not your piece", two, "", "c5-c4", "illegal: not your piece: c5 holds Y's pieces"},
		{"nested piece", two, "", "Mc1-c2", "illegal: the M on c1 is nested: a nest un-nests L, then M, then S"},
		{"ambiguous piece", two, twoOnB1, "b1-c2", "illegal: ambiguous: L and M can move from b1; write the piece letter"},
		{"stack top, piece omitted", two, stackTop, "c3-d3", "illegal: the L on c3 tops an unresolved capture stack and may not move"},
		{"blocked", two, "Lc1-c2 Lc5-c4 Lc2-c3", "Lc4-c3", "illegal: blocked: R's L on c3 (pieces of the same size block)"},
		{"not adjacent", two, "", "Lc1-c3", "illegal: c3 is not adjacent to c1: a piece moves one step"},
		{"game over", two, "pass pass", "pass", "illegal: the game is over (standoff)"},
		{"game over, a move", two, "pass pass", "Lc1-c2", "illegal: the game is over (standoff)"},
	}
	c := New()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := play(t, tc.o, tc.plies)
			m, err := c.Decode(s, tc.in)
			if err == nil || err.Error() != tc.err {
				t.Fatalf("Decode(%q) = %v, %v, want error %q", tc.in, m, err, tc.err)
			}
			if !errors.Is(err, engine.ErrIllegalMove) {
				t.Errorf("Decode(%q) error %v does not wrap ErrIllegalMove", tc.in, err)
			}
		})
	}
}

func TestDecodeSyntax(t *testing.T) {
	cases := []struct {
		o      engine.Options
		in     string
		offset int
		msg    string
	}{
		{engine.Options{}, "", 0, "unexpected end of move at column 1; expected a seat label such as R:, a piece letter (L, M, S), a square such as c4, or pass"},
		{engine.Options{}, "Q", 0, `unexpected "Q" at column 1; expected a seat label such as R:, a piece letter (L, M, S), a square such as c4, or pass`},
		{engine.Options{}, "R:", 2, "unexpected end of move at column 3; expected a piece letter (L, M, S), a square such as c4, or pass"},
		{engine.Options{}, "R:Qc1-c2", 2, `unexpected "Q" at column 3; expected a piece letter (L, M, S), a square such as c4, or pass`},
		{engine.Options{}, "Lz", 1, `unexpected "z" at column 2; expected a square such as c4`},
		{engine.Options{}, "Lc1", 3, "unexpected end of move at column 4; expected - or x"},
		{engine.Options{}, "c1c2", 2, `unexpected "c2" at column 3; expected - or x`},
		{engine.Options{}, "Lc1+c2", 3, `unexpected "+" at column 4; expected - or x`},
		{engine.Options{}, "Lc1-", 4, "unexpected end of move at column 5; expected a square such as c4"},
		{engine.Options{}, "Lc1-é", 4, `unexpected "é" at column 5; expected a square such as c4`},
		{engine.Options{}, "Lc1-c2x", 6, `unexpected "x" at column 7; expected * or the end of the move`},
		{engine.Options{}, "pass!", 4, `unexpected "!" at column 5; expected the end of the move`},
		{engine.Options{}, "Z:pass", 0, "unexpected \"Z\" at column 1; expected a seat label (R Y G B K W O P) followed by :"},
		{engine.Options{Players: 3}, "Lc1-c2", 0, "missing seat label at column 1; expected R: before Lc1-c2 (required with more than 2 seats)"},
		{engine.Options{Players: 3}, "pass", 0, "missing seat label at column 1; expected R: before pass (required with more than 2 seats)"},
		{engine.Options{}, "pass c" + strings.Repeat("9", 40), 5, `unexpected "c999999999999999..." at column 6; expected the end of the move`},
		{engine.Options{}, "Lc1c" + strings.Repeat("9", 30), 3, `unexpected "c999999999999999..." at column 4; expected - or x`},
	}
	c := New()
	for _, tc := range cases {
		s, _ := rpp.Rules{}.Start(tc.o)
		_, err := c.Decode(s, tc.in)
		var se *notation.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%q) = %v, want a *notation.SyntaxError", tc.in, err)
			continue
		}
		if se.Offset != tc.offset || se.Msg != tc.msg {
			t.Errorf("Decode(%q) = {%d, %q}, want {%d, %q}", tc.in, se.Offset, se.Msg, tc.offset, tc.msg)
		}
	}
}

// TestNotationExamples decodes every rpp example of NOTATION.md where it
// is legal and checks the canonical spelling.
func TestNotationExamples(t *testing.T) {
	c := New()
	for _, tc := range []struct{ plies, in, want string }{
		{"", "Lc1-c2", "R:Lc1-c2"},
		{takeM, "Lc3xc4", "R:Lc3xc4"},
		{intoM, "Sc3-c4*", "R:Sc3-c4*"},
		{"", "pass", "R:pass"},
		{"", "R:Lc1-c2", "R:Lc1-c2"},
		{stackTop[:len(stackTop)-len(" Mc4-c3")], "Y:Mc4-c3*", "Y:Mc4-c3*"},
		{"pass", "Y:pass", "Y:pass"},
	} {
		s := play(t, engine.Options{}, tc.plies)
		m, err := c.Decode(s, tc.in)
		if err != nil {
			t.Errorf("Decode(%q) = %v", tc.in, err)
			continue
		}
		if got := c.Encode(s, m); got != tc.want {
			t.Errorf("Encode(Decode(%q)) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCodecText(t *testing.T) {
	c := New()
	if c.Rules().ID() != "rpp" || !c.RankedResults() {
		t.Errorf("Rules().ID() = %q, RankedResults() = %v", c.Rules().ID(), c.RankedResults())
	}
	for i, l := range strings.Split(c.Notation(), "\n") {
		if len(l) > 72 {
			t.Errorf("Notation() line %d is %d columns, want <= 72", i+1, len(l))
		}
	}
	for _, ex := range []string{"R:Lc1-c2", "Y:Lc3xc4", "G:Sc3-c4*", "B:pass"} {
		if !strings.Contains(c.Notation(), ex) {
			t.Errorf("Notation() lacks the example %s", ex)
		}
	}
}

func TestCacheBounded(t *testing.T) {
	c := New()
	s, _ := rpp.Rules{}.Start(engine.Options{})
	for i := range notation.CacheLimit + 10 {
		_, _ = c.Decode(s, fmt.Sprintf("Lc1-c%d", i))
	}
	if n := c.cache.Len(); n > notation.CacheLimit {
		t.Errorf("cache holds %d plies, want <= %d", n, notation.CacheLimit)
	}
}

// TestConcurrentDecode runs Decode from several goroutines (go test -race
// checks the cache).
func TestConcurrentDecode(t *testing.T) {
	c := New()
	s := play(t, engine.Options{}, takeM)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				in := []string{"Lc3xc4", "Lc3-c4", "pass", "Lc3-b4", fmt.Sprintf("Lc3-c%d", i%9)}[(g+i)%5]
				m, err := c.Decode(s, in)
				if err == nil && in == "Lc3xc4" && !reflect.DeepEqual(m, rpp.Move{Piece: rpp.Large, From: 12, To: 17}) {
					t.Errorf("Decode(%q) = %v", in, m)
				}
			}
		}()
	}
	wg.Wait()
}
