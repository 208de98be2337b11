package elevation_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"pbem/engine"
	game "pbem/engine/elevation"
	"pbem/engine/enginetest"
	"pbem/notation"
	"pbem/notation/elevation"
)

// Positions, in the diagram form of game.ParseDiagram: rank 6 first, each
// square its height and piece (S F D White, s f d Black, '.' none).
const (
	start = `
		3s 3f 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3S 3F 3D 3D 3F 3S`
	startBlack = start + "\nBlack"
	// White's Samurai on b5 stands two above Black's Fish on c4.
	above = `
		3s 3f 3d 3d 3. 3s
		2. 5S 3. 3. 3. 3.
		2. 3. 3f 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3F 3D 3D 3F 3S`
)

func pos(t testing.TB, d string) *game.State {
	t.Helper()
	s, err := game.ParseDiagram(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sq(t testing.TB, name string) game.Square {
	t.Helper()
	q, ok := game.ParseSquare(name)
	if !ok {
		t.Fatalf("bad square %q", name)
	}
	return q
}

func TestConformance(t *testing.T) {
	c := elevation.New()
	enginetest.Run(t, enginetest.Config{
		Rules:  c.Rules(),
		Encode: c.Encode,
		Decode: c.Decode,
		Seed:   2026,
	})
}

// TestExamples decodes, plays and re-encodes the examples of NOTATION.md.
func TestExamples(t *testing.T) {
	c := elevation.New()
	for _, x := range []struct {
		pos, text string
		want      func(t testing.TB) game.Move
	}{
		{start, "Sa1:b2>a2,-b2", func(t testing.TB) game.Move {
			return game.Turn(sq(t, "a1"), game.DigAction(sq(t, "b2"), sq(t, "a2")), game.StepAction(sq(t, "b2")))
		}},
		{start, "Fe1:-c3,b4>b3", func(t testing.TB) game.Move {
			return game.Turn(sq(t, "e1"), game.StepAction(sq(t, "c3")), game.DigAction(sq(t, "b4"), sq(t, "b3")))
		}},
		{above, "Sb5:xc4,b4>d3", func(t testing.TB) game.Move {
			return game.Turn(sq(t, "b5"), game.StepAction(sq(t, "c4")), game.DigAction(sq(t, "b4"), sq(t, "d3")))
		}},
		{startBlack, "Dd6:c5>e5,d5>c5", func(t testing.TB) game.Move {
			return game.Turn(sq(t, "d6"), game.DigAction(sq(t, "c5"), sq(t, "e5")), game.DigAction(sq(t, "d5"), sq(t, "c5")))
		}},
		{start, "Dd1:-d2", func(t testing.TB) game.Move {
			return game.Turn(sq(t, "d1"), game.StepAction(sq(t, "d2")))
		}},
	} {
		t.Run(x.text, func(t *testing.T) {
			s := pos(t, x.pos)
			m, err := c.Decode(s, x.text)
			if err != nil {
				t.Fatalf("Decode(%q) = %v", x.text, err)
			}
			if want := x.want(t); !reflect.DeepEqual(m, want) {
				t.Errorf("Decode(%q) = %v, want %v", x.text, m, want)
			}
			if _, err := s.Apply(m); err != nil {
				t.Errorf("Apply(Decode(%q)) = %v", x.text, err)
			}
			if got := c.Encode(s, m); got != x.text {
				t.Errorf("Encode(Decode(%q)) = %q", x.text, got)
			}
		})
	}
}

// TestLenient: what players may write, and the canonical form.
func TestLenient(t *testing.T) {
	c := elevation.New()
	for _, x := range []struct{ pos, in, want string }{
		{start, "Sa1:b2>a2,-b2", "Sa1:b2>a2,-b2"},
		{start, "sa1:b2>a2,-b2", "Sa1:b2>a2,-b2"},
		{start, "SA1:B2>A2,-B2", "Sa1:b2>a2,-b2"},
		{start, "a1:b2>a2,-b2", "Sa1:b2>a2,-b2"},
		{start, "Sa1:b2>a2, -b2", "Sa1:b2>a2,-b2"},
		{start, "  Sa1 : b2 > a2 ,\t- b2  ", "Sa1:b2>a2,-b2"},
		{start, "e1:-c3,b4>b3", "Fe1:-c3,b4>b3"},
		{start, "fE1:-C3,B4>b3", "Fe1:-c3,b4>b3"},
		{start, "dd1:-d2", "Dd1:-d2"},
		{start, "d1:-d2", "Dd1:-d2"},
		{above, "Sb5:-c4,b4>d3", "Sb5:xc4,b4>d3"},
		{above, "b5:Xc4,b4>d3", "Sb5:xc4,b4>d3"},
		{above, "b5:xC4, B4>D3", "Sb5:xc4,b4>d3"},
		{startBlack, "d6:c5>e5,d5>c5", "Dd6:c5>e5,d5>c5"},
	} {
		s := pos(t, x.pos)
		m, err := c.Decode(s, x.in)
		if err != nil {
			t.Errorf("Decode(%q) = %v", x.in, err)
			continue
		}
		if got := c.Encode(s, m); got != x.want {
			t.Errorf("Encode(Decode(%q)) = %q, want %q", x.in, got, x.want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	c := elevation.New()
	s := game.StartState()
	for _, x := range []struct {
		in     string
		offset int
		msg    string
	}{
		{"", 0, `unexpected end of text at column 1; expected a piece letter or a square such as a1`},
		{"pass", 0, `unexpected "pass" at column 1; expected a piece letter or a square such as a1`},
		{"Xa1:-b2", 0, `unexpected "X" at column 1; expected a piece letter or a square such as a1`},
		{"S:-b2", 1, `unexpected ":" at column 2; expected a square such as a1`},
		{"Sa1", 3, `unexpected end of text at column 4; expected ":"`},
		{"Sa1-b2", 3, `unexpected "-" at column 4; expected ":"`},
		{"Sa1:", 4, `unexpected end of text at column 5; expected an action such as b2>a2, -b2 or xb2`},
		{"Sa1:z", 4, `unexpected "z" at column 5; expected an action such as b2>a2, -b2 or xb2`},
		{"Sa1:?", 4, `unexpected "?" at column 5; expected an action such as b2>a2, -b2 or xb2`},
		{"Sa1:b2", 6, `unexpected end of text at column 7; expected ">"`},
		{"Sa1:b2-a2", 6, `unexpected "-" at column 7; expected ">"`},
		{"Sa1:b2>", 7, `unexpected end of text at column 8; expected a square such as a2`},
		{"Sa1:b2>a2,", 10, `unexpected end of text at column 11; expected an action such as b2>a2, -b2 or xb2`},
		{"Sa1:b2>a2;-b2", 9, `unexpected ";" at column 10; expected "," or the end of the turn`},
		{"Sa1:b2>a2,-", 11, `unexpected end of text at column 12; expected a square such as b2`},
		{"Sa1:b2>a2,xx", 11, `unexpected "x" at column 12; expected a square such as b2`},
		{"Sa1:b2>a2,-b2 junk", 14, `unexpected "junk" at column 15; expected "," or the end of the turn`},
		{"Sa1:b2>a2é,-b2", 9, `unexpected "é" at column 10; expected "," or the end of the turn`},
		{"é:-b2", 0, `unexpected "é" at column 1; expected a piece letter or a square such as a1`},
	} {
		_, err := c.Decode(s, x.in)
		var se *notation.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%q) = %v, want a *notation.SyntaxError", x.in, err)
			continue
		}
		if se.Msg != x.msg || se.Offset != x.offset {
			t.Errorf("Decode(%q) = %d: %q, want %d: %q", x.in, se.Offset, se.Msg, x.offset, x.msg)
		}
	}
}

// TestIllegal: errors that need the position wrap engine.ErrIllegalMove.
func TestIllegal(t *testing.T) {
	c := elevation.New()
	for _, x := range []struct{ pos, in, err string }{
		{start, "Sa9:-b2", "illegal: no such square a9"},
		{start, "Sg1:-b2", "illegal: no such square g1"},
		{start, "Sa1:b2>a0,-b2", "illegal: no such square a0"},
		{start, "Sa1:j9>a2,-b2", "illegal: no such square j9"},
		{start, "Sa1:b2>a2,-a10", "illegal: no such square a10"},
		{start, "c3:-c4,b4>b3", "illegal: no piece on c3"},
		{start, "a6:-a5,b4>b5", "illegal: the piece on a6 is not yours"},
		{start, "Fa1:b2>a2,-b2", "illegal: the piece on a1 is a Samurai, not a Fish"},
		{start, "Sa1:b2>a2,xb2", "illegal: xb2 asserts a capture, but b2 holds no enemy piece"},
		{start, "Dc1:xb1", "illegal: xb1 asserts a capture, but b1 holds no enemy piece"},
		{start, "Dc1:-c2,-c3,-c4", "illegal: a turn has at most two actions, not 3"},
	} {
		_, err := c.Decode(pos(t, x.pos), x.in)
		if err == nil || err.Error() != x.err {
			t.Errorf("Decode(%q) = %v, want %q", x.in, err, x.err)
		}
		if !errors.Is(err, engine.ErrIllegalMove) {
			t.Errorf("Decode(%q) = %v, which does not wrap ErrIllegalMove", x.in, err)
		}
	}
	// A turn that reads well but breaks a rule is refused by Apply, with the
	// rule named.
	s := game.StartState()
	m, err := c.Decode(s, "Sa1:b2>a2,a2>b2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(m); err == nil || err.Error() != "illegal: only a Dragon digs twice" {
		t.Errorf("Apply(Sa1:b2>a2,a2>b2) = %v, want the two-digs rule", err)
	}
}

func TestNotation(t *testing.T) {
	c := elevation.New()
	text := c.Notation()
	for i, l := range strings.Split(text, "\n") {
		if len(l) > 72 {
			t.Errorf("Notation() line %d is %d columns, want <= 72", i+1, len(l))
		}
	}
	for _, ex := range []string{"Sa1:b2>a2,-b2", "Fe1:-c3,b4>b3", "Sb5:xc4,b4>d3", "Dd6:c5>e5,d5>c5", "Dd1:-d2"} {
		if !strings.Contains(text, ex) {
			t.Errorf("Notation() lacks the example %s", ex)
		}
	}
	if c.Rules().ID() != "elevation" {
		t.Errorf("Rules().ID() = %q, want elevation", c.Rules().ID())
	}
}

// TestConcurrent decodes from many goroutines at once (run with -race).
func TestConcurrent(t *testing.T) {
	c := elevation.New()
	s := game.StartState()
	texts := []string{"Sa1:b2>a2,-b2", "Fe1:-c3,b4>b3", "Dd1:-d2", "Sa1:z", "Dc1:-c2,-c3"}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				text := texts[(g+i)%len(texts)]
				m, err := c.Decode(s, text)
				if err == nil && c.Encode(s, m) != text {
					t.Errorf("Encode(Decode(%q)) = %q", text, c.Encode(s, m))
				}
			}
		}()
	}
	wg.Wait()
}

// fuzzPositions are the start and positions a few random plies later.
func fuzzPositions() []*game.State {
	r := rand.New(rand.NewPCG(5, 6))
	out := []*game.State{game.StartState()}
	s := game.StartState()
	for ply := 1; ply <= 12; ply++ {
		n, err := s.Play(s.RandomMove(r).(game.Move))
		if err != nil {
			panic(err)
		}
		s = n
		if ply%3 == 0 {
			out = append(out, s)
		}
	}
	return out
}

// FuzzDecode: whatever the text, Decode does not panic and fails with a
// syntax error or an illegal-move error; when it succeeds and the move
// applies, the move round-trips through its canonical form.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		"Sa1:b2>a2,-b2", "Fe1:-c3,b4>b3", "Sb5:xc4,b4>d3", "Dd6:c5>e5,d5>c5", "Dd1:-d2",
		"a1:b2>a2, -b2", "SA1:B2>A2,-B2", "Dc1:-c2,-c3", "Dc1:b2>c2,c2>d2", "Fb1:-d3,e4>c2",
		"", "Sa1", "Sa1:", "Sa1:b2>", "Sa9:-b2", "Xa1:-b2", "é:-b2", "Dc1:-c2,-c3,-c4",
	} {
		f.Add(seed)
	}
	c := elevation.New()
	positions := fuzzPositions()
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range positions {
			m, err := c.Decode(s, text)
			if err != nil {
				var se *notation.SyntaxError
				if errors.As(err, &se) {
					if se.Offset < 0 || se.Offset > len(text) {
						t.Fatalf("Decode(%q): offset %d outside the text", text, se.Offset)
					}
				} else if !errors.Is(err, engine.ErrIllegalMove) {
					t.Fatalf("Decode(%q) = %v, neither a syntax error nor an illegal move", text, err)
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
				t.Fatalf("Decode(%q) = %v, want %v (from %q)", enc, back, m, text)
			}
			if again := c.Encode(s, back); again != enc {
				t.Fatalf("Encode is not stable: %q then %q", enc, again)
			}
		}
	})
}

// BenchmarkDecodeApply decodes and plays typical plies, as the record
// checker does (the parse cache is warm after the first round).
func BenchmarkDecodeApply(b *testing.B) {
	c := elevation.New()
	type ply struct {
		s    engine.State
		text string
	}
	var plies []ply
	s := engine.State(game.StartState())
	r := rand.New(rand.NewPCG(8, 9))
	for i := 0; i < 40 && !s.Outcome().Over; i++ {
		m := s.(engine.Sampler).RandomMove(r)
		plies = append(plies, ply{s, c.Encode(s, m)})
		s, _ = s.Apply(m)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := plies[i%len(plies)]
		i++
		m, err := c.Decode(p.s, p.text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse decodes text never seen before (no cache hit).
func BenchmarkParse(b *testing.B) {
	s := game.StartState()
	b.ReportAllocs()
	for b.Loop() {
		c := elevation.New()
		if _, err := c.Decode(s, "Sa1:b2>a2,-b2"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	c := elevation.New()
	s := game.StartState()
	m, _ := c.Decode(s, "Sa1:b2>a2,-b2")
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Encode(s, m)
	}
}
