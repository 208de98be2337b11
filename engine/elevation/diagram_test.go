package elevation

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Diagrams: a position is written as six lines, rank 6 first, of six cells
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
	s, err := parseDiagram(d)
	if err != nil {
		t.Fatalf("bad diagram: %v\n%s", err, d)
	}
	return s
}

func parseDiagram(d string) (*State, error) {
	var lines []string
	for _, l := range strings.Split(d, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	toMove := White
	if len(lines) == Size+1 {
		switch lines[Size] {
		case "White":
		case "Black":
			toMove = Black
		default:
			return nil, fmt.Errorf("side to move %q", lines[Size])
		}
		lines = lines[:Size]
	}
	if len(lines) != Size {
		return nil, fmt.Errorf("%d ranks, want %d", len(lines), Size)
	}
	var heights [NumSquares]int
	var pieces [NumSquares]Piece
	sum := 0
	for i, l := range lines {
		r := Size - 1 - i
		cells := strings.Fields(l)
		if len(cells) != Size {
			return nil, fmt.Errorf("rank %d has %d cells, want %d", r+1, len(cells), Size)
		}
		for f, c := range cells {
			q := Sq(f, r)
			h, err := strconv.Atoi(c[:len(c)-1])
			if err != nil {
				return nil, fmt.Errorf("cell %q on %v: %v", c, q, err)
			}
			heights[q] = h
			sum += h
			switch l := c[len(c)-1]; l {
			case '.':
			default:
				k, ok := KindOf(l)
				if !ok {
					return nil, fmt.Errorf("cell %q on %v: no piece %q", c, q, l)
				}
				side := White
				if l >= 'a' {
					side = Black
				}
				pieces[q] = MakePiece(side, k)
			}
		}
	}
	if sum != TotalTiles {
		return nil, fmt.Errorf("heights sum to %d, want %d", sum, TotalTiles)
	}
	return NewState(heights, pieces, toMove)
}

// diagram writes s as pos reads it, always with the side to move.
func diagram(s *State) string {
	var b strings.Builder
	for r := Size - 1; r >= 0; r-- {
		for f := 0; f < Size; f++ {
			if f > 0 {
				b.WriteByte(' ')
			}
			q := Sq(f, r)
			fmt.Fprintf(&b, "%d%c", s.Height(q), s.At(q).Letter())
		}
		b.WriteByte('\n')
	}
	b.WriteString(sideNames[s.ToMove()])
	return b.String()
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
		if _, err := parseDiagram(bad); err == nil {
			t.Errorf("parseDiagram(%q) = nil error, want one", bad)
		}
	}
}
