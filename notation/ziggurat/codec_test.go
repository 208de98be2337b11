package ziggurat

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/engine/ziggurat"
	"pbem/notation"
)

// play returns the position after the plies (any accepted spelling) from
// the start with South first.
func play(t testing.TB, plies ...string) engine.State {
	t.Helper()
	s, err := ziggurat.Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := New()
	for _, p := range plies {
		m, err := c.Decode(s, p)
		if err != nil {
			t.Fatalf("Decode(%q) = %v\n%s", p, err, s.Render(-1))
		}
		if s, err = s.Apply(m); err != nil {
			t.Fatalf("Apply(%q) = %v", p, err)
		}
	}
	return s
}

// Positions for the NOTATION.md examples.
var (
	// South's Queen on d4 may take the Drone on b6.
	queenOnD4 = []string{"Qa1-d4", "Qf6-e5"}
	// South's Keep [d Q] stands on b6, North's home rank.
	keepOnB6 = []string{"Qa1-d4", "Qf6-e5", "Qd4xb6", "Wd6-c5"}
	// South's Tower [d W] stands on c4; d1 is empty and a Worker in reserve.
	towerOnC4 = []string{"Wd1-e2", "De6-c4", "We2-d3", "Qa6-b5", "Wd3xc4", "Qb5-a4"}
	// South's Queen on c4 has a clear path past f7.
	queenOnC4 = []string{"Qf1-c4", "De6-f5"}
)

// decodeApply decodes text in the position after plies, applies it and
// returns its canonical form, or the first error.
func decodeApply(t *testing.T, plies []string, text string) (string, error) {
	t.Helper()
	s := play(t, plies...)
	c := New()
	m, err := c.Decode(s, text)
	if err != nil {
		return "", err
	}
	if _, err := s.Apply(m); err != nil {
		return "", err
	}
	canon := c.Encode(s, m)
	back, err := c.Decode(s, canon)
	if err != nil || !reflect.DeepEqual(back, m) {
		t.Errorf("Decode(Encode(%q) = %q) = %#v, %v; want %#v", text, canon, back, err, m)
	}
	return canon, nil
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		plies []string
		text  string
		want  string // canonical form, or the exact error
	}{
		// The NOTATION.md examples, in positions where they are legal.
		{nil, "Qa1-d4", "Qa1-d4"},
		{queenOnD4, "Qd4xb6", "Qd4xb6"},
		{towerOnC4, "Tc4-e5", "Tc4-e5"},
		{keepOnB6, "Kb6-b4", "Kb6-b4"},
		{queenOnC4, "Qc4-off", "Qc4-off"},
		{keepOnB6, "Kb6-off", "Kb6-off"},
		{towerOnC4, "W@d1", "W@d1"},

		// Lenient input.
		{nil, "qa1-d4", "Qa1-d4"},
		{nil, "QA1-D4", "Qa1-d4"},
		{nil, "a1-d4", "Qa1-d4"},
		{nil, " Qa1 - d4\t", "Qa1-d4"},
		{queenOnD4, "Qd4-b6", "Qd4xb6"},
		{queenOnD4, "d4XB6", "Qd4xb6"},
		{towerOnC4, "c4-e5", "Tc4-e5"},
		{towerOnC4, "t C4-E5", "Tc4-e5"},
		{keepOnB6, "b6-b4", "Kb6-b4"},
		{keepOnB6, "KB6-OFF", "Kb6-off"},
		{keepOnB6, "b6-off", "Kb6-off"},
		{queenOnC4, "c4-Off", "Qc4-off"},
		{towerOnC4, "@d1", "W@d1"},
		{towerOnC4, "w@D1", "W@d1"},

		// Errors that need the position.
		{nil, "Qa1xd4", "illegal: x asserts a capture, but d4 is empty"},
		{towerOnC4, "Tc4xe5", "illegal: x asserts a capture, but e5 is empty"},
		{nil, "Qa1-j9", "illegal: no such square j9"},
		{nil, "Qa1-g7", "illegal: no such square g7"},
		{nil, "QA0-b1", "illegal: no such square a0"},
		{nil, "Qa1-a10", "illegal: no such square a10"},
		{nil, "Qa1-a1000", "illegal: no such square a1000"},
		{nil, "W@d7", "illegal: no such square d7"},
		{nil, "W@d" + strings.Repeat("9", 100), "illegal: no such square d999999999999999..."},
		{nil, "j9-off", "illegal: no such square j9"},
		{nil, "Qc3-d4", "illegal: no piece on c3"},
		{nil, "c3-d4", "illegal: no piece on c3"},
		{nil, "Qa6-b5", "illegal: a6 is North's: a side moves only units it owns"},
		{nil, "Kb6-off", "illegal: b6 is North's: a side moves only units it owns"},

		// Errors from the rules (Apply).
		{nil, "Da1-b2", "illegal: the unit on a1 is a Queen, not a Drone"},
		{keepOnB6, "Tb6-off", "illegal: the unit on b6 is a Keep, not a Tower"},
		{keepOnB6, "Kb6-c6", "illegal: Keeps never capture"},
		{nil, "W@d1", "illegal: reinforcements go only on empty squares (d1 is occupied)"},
		{towerOnC4, "Q@d1", "illegal: a Queen goes only where a Queen started (a1 or f1)"},
		{nil, "pass", "illegal: a side may pass only when it has no legal move"},
		{nil, "PASS", "illegal: a side may pass only when it has no legal move"},
		{nil, "Qa1-a4", "illegal: a zig moves only diagonally"},
		{nil, "Wc1-b2-", `unexpected "-" at column 7; expected the end of the move`},
	} {
		name := strings.Join(c.plies, " ") + " " + c.text
		got, err := decodeApply(t, c.plies, c.text)
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", name, got, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "unexpected") && !errors.Is(err, engine.ErrIllegalMove) {
			t.Errorf("%s: error %v does not wrap ErrIllegalMove", name, err)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	s := play(t)
	for _, c := range []struct {
		text   string
		offset int
		msg    string
	}{
		{"", 0, "unexpected end of move at column 1; expected a move such as Qa1-d4, W@d1 or pass"},
		{"   ", 3, "unexpected end of move at column 4; expected a move such as Qa1-d4, W@d1 or pass"},
		{"z", 0, `unexpected "z" at column 1; expected a move such as Qa1-d4, W@d1 or pass`},
		{"Queen", 1, `unexpected "ueen" at column 2; expected a square such as c4, or @`},
		{"passes", 0, `unexpected "passes" at column 1; expected a move such as Qa1-d4, W@d1 or pass`},
		{"11-22", 0, `unexpected "11" at column 1; expected a move such as Qa1-d4, W@d1 or pass`},
		{"Q", 1, "unexpected end of move at column 2; expected a square such as c4, or @"},
		{"Qxd4", 1, `unexpected "x" at column 2; expected a square such as c4, or @`},
		{"QQa1-d4", 1, `unexpected "Q" at column 2; expected a square such as c4, or @`},
		{"Q@", 2, "unexpected end of move at column 3; expected a square such as d1"},
		{"Q@off", 2, `unexpected "off" at column 3; expected a square such as d1`},
		{"Qa1", 3, "unexpected end of move at column 4; expected - or x"},
		{"Qa1d4", 3, `unexpected "d4" at column 4; expected - or x`},
		{"Qa1–d4", 3, `unexpected "–" at column 4; expected - or x`},
		{"Qa1-", 4, "unexpected end of move at column 5; expected a square such as d4, or off"},
		{"Qa1-@", 4, `unexpected "@" at column 5; expected a square such as d4, or off`},
		{"Qa1x", 4, "unexpected end of move at column 5; expected a square such as d4"},
		{"Qc4xoff", 4, `unexpected "off" at column 5; expected a square such as d4`},
		{"Qa1-d4!", 6, `unexpected "!" at column 7; expected the end of the move`},
		{"Qa1-d4 d5", 7, `unexpected "d5" at column 8; expected the end of the move`},
		{"pass pass", 5, `unexpected "pass" at column 6; expected the end of the move`},
		{"W@d1x", 4, `unexpected "x" at column 5; expected the end of the move`},
		{"Qa1-d4" + strings.Repeat("z", 200), 6, `unexpected "zzzzzzzzzzzzzzzz..." at column 7; expected the end of the move`},
		{"é", 0, `unexpected "é" at column 1; expected a move such as Qa1-d4, W@d1 or pass`},
		{"T@d1", 0, `unexpected "T" at column 1; expected a piece letter Q, D or W before @`},
		{"k@d1", 0, `unexpected "k" at column 1; expected a piece letter Q, D or W before @`},
	} {
		_, err := New().Decode(s, c.text)
		var se *notation.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%q) = %v, want a *notation.SyntaxError", c.text, err)
			continue
		}
		if se.Offset != c.offset || se.Msg != c.msg {
			t.Errorf("Decode(%q) = {%d, %q}, want {%d, %q}", c.text, se.Offset, se.Msg, c.offset, c.msg)
		}
	}
}

// TestEncode checks the canonical form of every legal move in a few
// positions: one spelling each, and it reads back as the same move.
func TestEncode(t *testing.T) {
	c := New()
	for _, plies := range [][]string{nil, queenOnD4, keepOnB6, towerOnC4, queenOnC4} {
		s := play(t, plies...)
		seen := map[string]bool{}
		var all []string
		for _, m := range s.Legal() {
			text := c.Encode(s, m)
			if seen[text] {
				t.Errorf("%v: two moves encode as %q", plies, text)
			}
			seen[text] = true
			all = append(all, text)
			back, err := c.Decode(s, text)
			if err != nil || !reflect.DeepEqual(back, m) {
				t.Errorf("%v: Decode(%q) = %#v, %v; want %#v", plies, text, back, err, m)
			}
		}
		t.Logf("%v: %s", plies, strings.Join(all, " "))
	}
	s := play(t)
	for _, x := range []struct {
		m    engine.Move
		want string
	}{
		{ziggurat.Move{}, "pass"},
		{ziggurat.Move{Kind: ziggurat.Place, Unit: ziggurat.Queen, To: ziggurat.SquareAt(5, 6)}, "Q@f6"},
		{ziggurat.Move{Kind: ziggurat.Exit, Unit: ziggurat.Tower, From: ziggurat.SquareAt(1, 6)}, "Tb6-off"},
		{ziggurat.Move{Kind: ziggurat.Step, Unit: ziggurat.Keep, From: ziggurat.SquareAt(1, 6), To: ziggurat.SquareAt(1, 4)}, "Kb6-b4"},
		{ziggurat.Move{Kind: ziggurat.Step, Unit: ziggurat.Drone, From: ziggurat.SquareAt(1, 1), To: ziggurat.SquareAt(1, 6)}, "Db1xb6"},
	} {
		if got := c.Encode(s, x.m); got != x.want {
			t.Errorf("Encode(%v) = %q, want %q", x.m, got, x.want)
		}
	}
}

func TestCodec(t *testing.T) {
	c := New()
	if _, ok := c.Rules().(ziggurat.Rules); !ok {
		t.Errorf("Rules() = %T, want ziggurat.Rules", c.Rules())
	}
	for i, l := range strings.Split(c.Notation(), "\n") {
		if len(l) > 72 {
			t.Errorf("Notation() line %d is %d columns: %q", i+1, len(l), l)
		}
	}
	for _, ex := range []string{"Qa1-d4", "Qd4xb6", "Tb3-c5", "Kb6-b4", "Qc4-off", "Kb6-off", "W@d1", "pass"} {
		if !strings.Contains(c.Notation(), ex) {
			t.Errorf("Notation() lacks the example %s", ex)
		}
	}
	type other struct{ engine.State }
	if _, err := c.Decode(other{}, "Qa1-d4"); err == nil || err.Error() != "ziggurat: not a ziggurat position" {
		t.Errorf("Decode(foreign state) = %v, want an error", err)
	}
}

// TestCache checks that the cache stays bounded and that cached plies
// still resolve against each position.
func TestCache(t *testing.T) {
	c := New()
	s := play(t)
	for i := range notation.CacheLimit + 10 {
		if _, err := c.Decode(s, fmt.Sprintf("Qa1-a%d", i+7)); !errors.Is(err, engine.ErrIllegalMove) {
			t.Fatalf("Decode(Qa1-a%d) = %v", i+7, err)
		}
	}
	if n := c.cache.Len(); n > notation.CacheLimit {
		t.Errorf("the cache holds %d plies, want at most %d", n, notation.CacheLimit)
	}
	north := play(t, "Qa1-d4")
	for _, x := range []struct {
		s    engine.State
		want string
	}{{s, "Wc1-d2"}, {north, "illegal: c1 is South's: a side moves only units it owns"}, {s, "Wc1-d2"}} {
		m, err := c.Decode(x.s, "c1-d2")
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = c.Encode(x.s, m)
		}
		if got != x.want {
			t.Errorf("Decode(c1-d2) = %q, want %q", got, x.want)
		}
	}
}

// TestConcurrent decodes from many goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	c := New()
	s := play(t)
	texts := []string{"Qa1-d4", "a1-c3", "Wc1-d2", "De1-f2", "Qf1-c4", "Qa1xd4", "bad"}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				text := texts[(g+i)%len(texts)]
				if i%50 == 0 {
					text = fmt.Sprintf("Qa1-b%d", i)
				}
				_, _ = c.Decode(s, text)
			}
		}()
	}
	wg.Wait()
}

func TestConformance(t *testing.T) {
	c := New()
	enginetest.Run(t, enginetest.Config{
		Rules:   ziggurat.Rules{},
		Options: []engine.Options{{}, {First: 1}, {Players: 2}},
		Encode:  c.Encode,
		Decode:  c.Decode,
		Seed:    5,
	})
}

// fuzzPositions are the start positions and positions reached by random
// plies, where fuzzed text is decoded.
func fuzzPositions(t testing.TB) []engine.State {
	var out []engine.State
	for first := range 2 {
		s, err := ziggurat.Rules{}.Start(engine.Options{First: first})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
		r := rand.New(rand.NewPCG(11, uint64(first)))
		for ply := 1; ply <= 40 && !s.Outcome().Over; ply++ {
			ms := s.Legal()
			if s, err = s.Apply(ms[r.IntN(len(ms))]); err != nil {
				t.Fatal(err)
			}
			if ply%8 == 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// FuzzDecode checks the round trip: text that decodes to a move that
// applies encodes canonically, and the canonical text decodes to the same
// move and encodes the same again. Errors are syntax errors within the
// text or illegal-move errors.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"Qa1-d4", "Qd4xb6", "Tb3-c5", "Kb6-b4", "Qc4-off", "Kb6-off", "W@d1", "pass",
		"qa1-D4", "a1-d4", "Qd4-b6", "@d1", "c4-off", "PASS", "Qa1-j9", "Qa1xoff", "T@d1",
		"Wc1-b2", "De1xd2", " Qf1 - c4 ", "", "Qa1–d4", "Queen",
	} {
		f.Add(s)
	}
	positions := fuzzPositions(f)
	c := New()
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range positions {
			m, err := c.Decode(s, text)
			if err != nil {
				var se *notation.SyntaxError
				if errors.As(err, &se) {
					if se.Offset < 0 || se.Offset > len(text) || se.Msg == "" {
						t.Fatalf("Decode(%q) = syntax error at %d: %q", text, se.Offset, se.Msg)
					}
				} else if !errors.Is(err, engine.ErrIllegalMove) {
					t.Fatalf("Decode(%q) = %v, neither a syntax error nor an illegal move", text, err)
				}
				continue
			}
			if _, err := s.Apply(m); err != nil {
				if !errors.Is(err, engine.ErrIllegalMove) {
					t.Fatalf("Apply(Decode(%q)) = %v", text, err)
				}
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
				t.Fatalf("Encode is unstable: %q then %q", enc, again)
			}
		}
	})
}
