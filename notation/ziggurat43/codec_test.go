package ziggurat43

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	z "pbem/engine/ziggurat43"
	"pbem/notation"
)

// exampleRecord is the movetext of the NOTATION.md example.
var exampleRecord = strings.Fields("Se3-e4 Si3-h4 Sd3-d4 Sh4-g4 Se1-f2 Sg4-f4 Ad2^f4")

// after plays the canonical plies from the start.
func after(t testing.TB, plies ...string) *z.State {
	t.Helper()
	c := New()
	var s engine.State = z.StartState()
	for _, p := range plies {
		m, err := c.Decode(s, p)
		if err != nil {
			t.Fatalf("Decode(%q) = %v", p, err)
		}
		if s, err = s.Apply(m); err != nil {
			t.Fatalf("Apply(%q) = %v", p, err)
		}
	}
	return s.(*z.State)
}

// position builds a State from piece lists such as "Kf4 Ad2" (Red) and
// "Km1 Sf4" (Gold): a piece letter and a square each.
func position(t testing.TB, toMove int, red, gold string) *z.State {
	t.Helper()
	pieces := map[z.Square]z.Piece{}
	for side, list := range []string{red, gold} {
		for _, f := range strings.Fields(list) {
			k := z.Kind(strings.IndexByte(z.Letters, f[0]))
			q := z.MakeSquare(int(f[1]-'a'), int(f[2]-'1'))
			if k <= z.NoKind || len(f) != 3 || !q.IsCell() {
				t.Fatalf("bad piece %q", f)
			}
			pieces[q] = z.MakePiece(side, k)
		}
	}
	s, err := z.NewState(pieces, toMove)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDecode(t *testing.T) {
	start := z.StartState()
	shot := after(t, exampleRecord[:6]...)
	horse := position(t, z.Red, "Ka1 Hc1", "Km1 Sd3")
	chariot := position(t, z.Red, "Ka1 Cc2 Ad2", "Km1")
	temple := position(t, z.Red, "Kf4", "Km1")
	goldTurn := after(t, "Se3-e4")
	tests := []struct {
		name  string
		s     *z.State
		texts []string
		want  string
		move  z.Move
	}{
		{"a Spearman step", start, []string{"Se3-e4", "se3-e4", "SE3-E4", "e3-e4", "E3-e4", " Se3-e4\t"}, "Se3-e4",
			z.Move{From: sq("e3"), To: sq("e4")}},
		{"a Horse capture", horse, []string{"Hc1xd3", "Hc1-d3", "hc1Xd3", "c1xd3", "c1-d3"}, "Hc1xd3",
			z.Move{From: sq("c1"), To: sq("d3")}},
		{"a Chariot jump", chariot, []string{"Cc2-e2", "cc2-e2", "c2-e2"}, "Cc2-e2",
			z.Move{From: sq("c2"), To: sq("e2")}},
		{"an Archer shot", shot, []string{"Ad2^f4", "ad2^F4", "d2^f4", "D2^F4"}, "Ad2^f4",
			z.Move{From: sq("d2"), To: sq("f4"), Shot: true}},
		{"the Priest-King to the temple", temple, []string{"Kf4-g5", "kf4-g5", "f4-g5", "KF4-G5"}, "Kf4-g5",
			z.Move{From: sq("f4"), To: sq("g5")}},
		{"Gold moves", goldTurn, []string{"Si3-h4", "i3-h4", "sI3-H4"}, "Si3-h4",
			z.Move{From: sq("i3"), To: sq("h4")}},
	}
	c := New()
	for _, tc := range tests {
		for _, text := range tc.texts {
			t.Run(tc.name+"/"+text, func(t *testing.T) {
				m, err := c.Decode(tc.s, text)
				if err != nil {
					t.Fatalf("Decode(%q) = %v", text, err)
				}
				if !reflect.DeepEqual(m, tc.move) {
					t.Fatalf("Decode(%q) = %#v, want %#v", text, m, tc.move)
				}
				if got := c.Encode(tc.s, m); got != tc.want {
					t.Fatalf("Encode(Decode(%q)) = %q, want %q", text, got, tc.want)
				}
				if _, err := tc.s.Apply(m); err != nil {
					t.Fatalf("Apply(Decode(%q)) = %v", text, err)
				}
			})
		}
	}
}

func sq(s string) z.Square { return z.MakeSquare(int(s[0]-'a'), int(s[1]-'1')) }

func TestDecodeErrors(t *testing.T) {
	start := z.StartState()
	shot := after(t, exampleRecord[:6]...)
	over := position(t, z.Gold, "Ka1", "Sb1") // Gold's Priest-King is captured
	tests := []struct {
		name   string
		s      *z.State
		text   string
		want   string
		offset int // of a syntax error, -1 for an illegal move
	}{
		// Syntax: what was found, where, and what was expected.
		{"unknown piece letter", start, "Qe3-e4", `unexpected "Q" at column 1; expected a piece letter (K H A C S) or a square such as c4`, 0},
		{"bad square", start, "Sez-e4", `unexpected "e" at column 2; expected a square such as c4`, 1},
		{"missing sign", start, "Se3e4", `unexpected "e4" at column 4; expected "-", "x" or "^"`, 3},
		{"a space inside", start, "Se3 -e4", `unexpected " " at column 4; expected "-", "x" or "^"`, 3},
		{"missing target", start, "Se3-", `unexpected end of move at column 5; expected a square such as c4`, 4},
		{"bad target", start, "Se3-z", `unexpected "z" at column 5; expected a square such as c4`, 4},
		{"no sign", start, "Se3", `unexpected end of move at column 4; expected "-", "x" or "^"`, 3},
		{"trailing text", start, "Se3-e4+", `unexpected "+" at column 7; expected the end of the move`, 6},
		{"empty", start, "", `unexpected end of move at column 1; expected a piece letter (K H A C S) or a square such as c4`, 0},
		{"blank", start, "  ", `unexpected end of move at column 3; expected a piece letter (K H A C S) or a square such as c4`, 2},
		{"offset counts leading spaces", start, "  Se3=e4", `unexpected "=" at column 6; expected "-", "x" or "^"`, 5},
		{"x alone", start, "x", `unexpected "x" at column 1; expected a piece letter (K H A C S) or a square such as c4`, 0},
		{"a pass", start, "pass", `unexpected "p" at column 1; expected a piece letter (K H A C S) or a square such as c4`, 0},
		{"a long square", start, "Se3e4123456789012345", `unexpected "e412345678..." at column 4; expected "-", "x" or "^"`, 3},
		{"a long tail", start, "Se3-e4-123456789012345", `unexpected "-123456789..." at column 7; expected the end of the move`, 6},
		{"a non-ASCII dash", start, "Se3–e4", `unexpected "–" at column 4; expected "-", "x" or "^"`, 3},

		// Squares outside the 43 cells.
		{"no such target j9", start, "Se3-j9", "illegal: no such square j9", -1},
		{"no such target e5 (in the grid, no cell)", start, "Se3-e5", "illegal: no such square e5", -1},
		{"no such source a5", start, "Sa5-b5", "illegal: no such square a5", -1},
		{"no such square z1", start, "z1-a1", "illegal: no such square z1", -1},
		{"no such square a0", start, "a0-a1", "illegal: no such square a0", -1},
		{"no leading zero", start, "Se03-e4", "illegal: no such square e03", -1},
		{"no such square with a long number", start, "Se3-e10000000000000000000000", "illegal: no such square e100000000...", -1},
		{"no such square, upper case", start, "SE3-N1", "illegal: no such square n1", -1},

		// The position.
		{"no piece there", start, "Sf3-f4", "illegal: no piece on f3", -1},
		{"not your piece", start, "Si3-h4", "illegal: the Spearman on i3 is not yours", -1},
		{"wrong piece letter", start, "Cc1-d3", "illegal: the piece on c1 is a Horse, not a Chariot", -1},
		{"x on a move that captures nothing", start, "Se3xe4", "illegal: x asserts a capture, but Se3-e4 captures nothing", -1},
		{"own piece", start, "Hc1xd3", "illegal: cannot capture your own piece on d3", -1},
		{"Spearmen never move down", start, "Se2-e1", "illegal: Spearmen never move down", -1},
		{"an Archer never captures by moving", shot, "Ad2xf4", "illegal: Archers never capture by moving (an Archer shoots with ^)", -1},
		{"a shot written with -", shot, "Ad2-f4", "illegal: Archers never capture by moving (an Archer shoots with ^)", -1},
		{"only Archers shoot", shot, "Se4^f5", "illegal: only Archers shoot", -1},
		{"a shot at nothing", start, "Ad1^c2", "illegal: an Archer never shoots a friendly piece", -1},
		{"the game is over", over, "Sb1-a1", "illegal: the game is over (Priest-King captured)", -1},
	}
	c := New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := c.Decode(tc.s, tc.text)
			if err == nil {
				t.Fatalf("Decode(%q) = %v, want error %q", tc.text, m, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("Decode(%q) = %q, want %q", tc.text, err, tc.want)
			}
			var se *notation.SyntaxError
			switch {
			case tc.offset >= 0 && !errors.As(err, &se):
				t.Fatalf("Decode(%q) = %#v, want a *notation.SyntaxError", tc.text, err)
			case tc.offset >= 0 && se.Offset != tc.offset:
				t.Fatalf("Decode(%q) offset = %d, want %d", tc.text, se.Offset, tc.offset)
			case tc.offset < 0 && !errors.Is(err, engine.ErrIllegalMove):
				t.Fatalf("Decode(%q) = %#v, want an error wrapping ErrIllegalMove", tc.text, err)
			}
		})
	}
}

// TestExampleRecord plays the movetext of the NOTATION.md example.
func TestExampleRecord(t *testing.T) {
	c := New()
	line := engine.NewLine(z.StartState())
	for _, p := range exampleRecord {
		m, err := c.Decode(line.State(), p)
		if err != nil {
			t.Fatalf("Decode(%q) = %v", p, err)
		}
		if got := c.Encode(line.State(), m); got != p {
			t.Fatalf("Encode(Decode(%q)) = %q", p, got)
		}
		if line, err = line.Play(m); err != nil {
			t.Fatalf("Play(%q) = %v", p, err)
		}
	}
	s := line.State().(*z.State)
	if s.At(sq("f4")) != z.Empty || s.At(sq("d2")) != z.MakePiece(z.Red, z.Archer) {
		t.Fatalf("after Ad2^f4 the Archer stays on d2 and f4 is empty:\n%s", s.Render(-1))
	}
}

func TestConformance(t *testing.T) {
	c := New()
	enginetest.Run(t, enginetest.Config{
		Rules:  c.Rules(),
		Encode: c.Encode,
		Decode: c.Decode,
		Seed:   7,
	})
}

func TestNotation(t *testing.T) {
	c := New()
	text := c.Notation()
	for i, l := range strings.Split(text, "\n") {
		if len(l) > 72 {
			t.Errorf("Notation() line %d is %d columns, want <= 72", i+1, len(l))
		}
	}
	for _, ex := range []string{"Se3-e4", "Hc1xd3", "Cc2-e2", "Ad2^f4", "Kf4-g5"} {
		if !strings.Contains(text, ex) {
			t.Errorf("Notation() lacks the example %s", ex)
		}
	}
	if c.Rules().ID() != "ziggurat43" {
		t.Errorf("Rules().ID() = %q", c.Rules().ID())
	}
}

// TestConcurrentDecode shares one codec (and its cache) between goroutines;
// run it with -race.
func TestConcurrentDecode(t *testing.T) {
	c := New()
	s := z.StartState()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				text := []string{"Se3-e4", "e2-f3", fmt.Sprintf("Se3-e%d", 4+i%3+g%2)}[i%3]
				if _, err := c.Decode(s, text); err != nil && !errors.Is(err, engine.ErrIllegalMove) {
					t.Errorf("Decode(%q) = %v", text, err)
				}
			}
		})
	}
	wg.Wait()
}

func TestCacheIsBounded(t *testing.T) {
	c := New()
	s := z.StartState()
	for i := range notation.CacheLimit + 100 {
		c.Decode(s, fmt.Sprintf("Se3-e%d", i))
	}
	if n := c.cache.Len(); n > notation.CacheLimit {
		t.Fatalf("cache holds %d plies, want <= %d", n, notation.CacheLimit)
	}
}

// typical is a mix of plies as records hold them, with their positions.
func typical(b *testing.B) ([]*z.State, []string) {
	var states []*z.State
	var texts []string
	for i := range exampleRecord {
		states = append(states, after(b, exampleRecord[:i]...))
		texts = append(texts, exampleRecord[i])
	}
	return states, texts
}

func BenchmarkDecodeApply(b *testing.B) {
	states, texts := typical(b)
	c := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s := states[i]
		m, err := c.Decode(s, texts[i])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Apply(m); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % len(texts)
	}
}

// BenchmarkDecodeUncached parses every time (the participle path).
func BenchmarkDecodeUncached(b *testing.B) {
	states, texts := typical(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := New().Decode(states[i], texts[i]); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % len(texts)
	}
}

func BenchmarkEncode(b *testing.B) {
	states, texts := typical(b)
	c := New()
	moves := make([]engine.Move, len(texts))
	for i := range texts {
		moves[i], _ = c.Decode(states[i], texts[i])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = c.Encode(states[i], moves[i])
		i = (i + 1) % len(texts)
	}
}

// TestLongInput: a long text is refused with what was expected after the
// ply (a text longer than notation.MaxPly is refused before it is read).
func TestLongInput(t *testing.T) {
	c := New()
	text := "Se3-e4" + strings.Repeat("x", 200)
	_, err := c.Decode(z.StartState(), text)
	if err == nil || err.Error() != `unexpected "xxxxxxxxxx..." at column 7; expected the end of the move` {
		t.Fatalf("Decode(long) = %v", err)
	}
}
