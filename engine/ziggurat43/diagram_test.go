package ziggurat43

import (
	"slices"
	"strings"
	"testing"
)

// Board diagrams in tests.
//
// A diagram lists the 43 cells from the top of the pyramid down, each rank
// left to right (f5 g5 h5, then d4..j4, c3..k3, b2..l2, a1..m1), one
// character per cell: '.' (or 'X' on the temple g5) is an empty cell, an
// upper-case K H A C S is a Red piece, a lower-case letter a Gold piece.
// Spaces and line breaks are ignored, so a diagram may be drawn in the shape
// of the board. The last word is the side to move, "Red" or "Gold". The
// empty board, Red to move:
//
//	          . X .
//	      . . . . . . .
//	    . . . . . . . . .
//	  . . . . . . . . . . .
//	. . . . . . . . . . . . .   Red

// topDown lists the cells in diagram order.
func topDown() []Square {
	var out []Square
	for r := Ranks - 1; r >= 0; r-- {
		for _, q := range cells {
			if q.Rank() == r {
				out = append(out, q)
			}
		}
	}
	return out
}

// fromDiagram builds the State drawn by d.
func fromDiagram(t *testing.T, d string) *State {
	t.Helper()
	f := strings.Fields(d)
	if len(f) == 0 {
		t.Fatalf("empty diagram")
	}
	side := map[string]int{"Red": Red, "Gold": Gold}
	toMove, ok := side[f[len(f)-1]]
	if !ok {
		t.Fatalf("diagram %q does not end with Red or Gold", d)
	}
	body := strings.Join(f[:len(f)-1], "")
	if len(body) != NumCells {
		t.Fatalf("diagram has %d cells, want %d:\n%s", len(body), NumCells, d)
	}
	pieces := map[Square]Piece{}
	order := topDown()
	for i, c := range []byte(body) {
		q := order[i]
		switch {
		case c == '.' || c == 'X' && q == Temple:
		case strings.IndexByte(Letters[1:], c) >= 0:
			pieces[q] = MakePiece(Red, Kind(1+strings.IndexByte(Letters[1:], c)))
		case strings.IndexByte(strings.ToLower(Letters[1:]), c) >= 0:
			pieces[q] = MakePiece(Gold, Kind(1+strings.IndexByte(strings.ToLower(Letters[1:]), c)))
		default:
			t.Fatalf("diagram: bad character %q for %v", c, q)
		}
	}
	s, err := NewState(pieces, toMove)
	if err != nil {
		t.Fatalf("diagram: %v\n%s", err, d)
	}
	return s
}

// diagram draws s in the diagram format, in the shape of the board.
func diagram(s *State) string {
	var b strings.Builder
	for r := Ranks - 1; r >= 0; r-- {
		line := ""
		for f := 0; f < Files; f++ {
			g := s.glyph(MakeSquare(f, r))
			line += string(g) + " "
		}
		b.WriteString(strings.TrimRight(line, " "))
		if r > 0 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("   " + sideNames[s.toMove])
	return b.String()
}

// sameDiagram reports whether two diagrams draw the same position.
func sameDiagram(a, b string) bool {
	return strings.Join(strings.Fields(a), "") == strings.Join(strings.Fields(b), "")
}

// sq reads a square such as "f2" (in the grid, a cell or not).
func sq(t testing.TB, s string) Square {
	t.Helper()
	if len(s) != 2 {
		t.Fatalf("bad square %q", s)
	}
	q := MakeSquare(int(s[0]-'a'), int(s[1]-'1'))
	if q == NoSquare {
		t.Fatalf("square %q is outside the grid", s)
	}
	return q
}

// mv reads a move "f2-f3" (step or capture) or "f2^h4" (shot).
func mv(t testing.TB, s string) Move {
	t.Helper()
	if len(s) != 5 || (s[2] != '-' && s[2] != '^') {
		t.Fatalf("bad move %q", s)
	}
	return Move{From: sq(t, s[:2]), To: sq(t, s[3:]), Shot: s[2] == '^'}
}

// movesFrom lists the legal moves of the piece on from, sorted.
func movesFrom(s *State, from Square) []string {
	var out []string
	for _, m := range s.LegalMoves() {
		if m.From == from {
			out = append(out, m.String())
		}
	}
	slices.Sort(out)
	return out
}

func TestDiagramRoundTrip(t *testing.T) {
	s := StartState()
	want := `
          . X .
      . . . . . . .
    S S S . . . s s s
  C C A S . . . s a c c
K C H A S . . . s a h c k   Red`
	if got := diagram(s); !sameDiagram(got, want) {
		t.Fatalf("diagram(start) =\n%s\nwant\n%s", got, want)
	}
	if back := fromDiagram(t, want); *back != *s {
		t.Fatalf("fromDiagram(diagram(start)) = \n%s\nwant the start", diagram(back))
	}
}
