package elevation

import (
	"strings"
	"testing"
)

// Diagrams (ParseDiagram, State.Diagram): a position is written as six lines, rank 6 first, of six cells
// each separated by blanks. A cell is the square's height followed by its
// piece letter (S F D White, s f d Black) or '.' for no piece, e.g.
//
//	3s 3f 3d 3d 3f 3s
//	3. 3. 3. 3. 3. 3.
//	3. 3. 3. 3. 3. 3.
//	3. 3. 3. 3. 3. 3.
//	4. 2S 3. 3. 3. 3.
//	3. 3F 3D 3D 3F 3S
//	Black
//
// An optional seventh line, "White" or "Black", names the side to move
// (White when absent). Blank lines and indentation are ignored. The heights
// must sum to 108, as in every real position.

// pos builds the State a diagram shows.
func pos(t testing.TB, d string) *State {
	t.Helper()
	s, err := ParseDiagram(d)
	if err != nil {
		t.Fatalf("bad diagram: %v\n%s", err, d)
	}
	return s
}

// normal rewrites a diagram in the form diagram writes.
func normal(t testing.TB, d string) string {
	t.Helper()
	return diagram(pos(t, d))
}

// turn builds a move from the square of its piece and its actions written
// as "a>b" (dig), "-q" or "xq" (step).
func turn(t testing.TB, at string, actions ...string) Move {
	t.Helper()
	m := Move{At: sq(t, at)}
	for i, a := range actions {
		switch {
		case strings.Contains(a, ">"):
			from, to, _ := strings.Cut(a, ">")
			m.Actions[i] = DigAction(sq(t, from), sq(t, to))
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "x"):
			m.Actions[i] = StepAction(sq(t, a[1:]))
		default:
			t.Fatalf("bad action %q", a)
		}
	}
	return m
}

func sq(t testing.TB, name string) Square {
	t.Helper()
	q, ok := ParseSquare(name)
	if !ok {
		t.Fatalf("bad square %q", name)
	}
	return q
}

func diagram(s *State) string { return s.Diagram() }

func TestDiagramRoundTrip(t *testing.T) {
	s := StartState()
	back := pos(t, diagram(s))
	if back.Key() != s.Key() {
		t.Fatalf("pos(diagram(start)) = \n%s\nwant\n%s", diagram(back), diagram(s))
	}
	for _, bad := range []string{
		"3. 3. 3. 3. 3. 3.",
		strings.Repeat("3. 3. 3. 3. 3. 3.\n", 5) + "4. 3. 3. 3. 3. 3.",
		strings.Repeat("3. 3. 3. 3. 3. 3.\n", 6) + "Red",
		strings.Repeat("3. 3. 3. 3. 3. 3.\n", 5) + "3. 3. 3. 3. 3. 3K",
	} {
		if _, err := ParseDiagram(bad); err == nil {
			t.Errorf("ParseDiagram(%q) = nil error, want one", bad)
		}
	}
}
