package elevation

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseDiagram reads a position written as six lines, rank 6 first, of six
// cells separated by blanks: a cell is the square's height followed by its
// piece letter (S F D White, s f d Black) or '.' for none, e.g. "3S" or
// "0.". An optional seventh line, "White" or "Black", names the side to
// move (White when absent). Blank lines and indentation are ignored. The
// heights must sum to TotalTiles. Diagram writes this form.
func ParseDiagram(d string) (*State, error) {
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
			return nil, fmt.Errorf("elevation: side to move %q, want White or Black", lines[Size])
		}
		lines = lines[:Size]
	}
	if len(lines) != Size {
		return nil, fmt.Errorf("elevation: %d ranks, want %d", len(lines), Size)
	}
	var heights [NumSquares]int
	var pieces [NumSquares]Piece
	for i, l := range lines {
		r := Size - 1 - i
		cells := strings.Fields(l)
		if len(cells) != Size {
			return nil, fmt.Errorf("elevation: rank %d has %d cells, want %d", r+1, len(cells), Size)
		}
		for f, c := range cells {
			q := Sq(f, r)
			h, err := strconv.Atoi(c[:len(c)-1])
			if err != nil {
				return nil, fmt.Errorf("elevation: cell %q on %v: bad height", c, q)
			}
			heights[q] = h
			switch l := c[len(c)-1]; l {
			case '.':
			default:
				k, ok := KindOf(l)
				if !ok {
					return nil, fmt.Errorf("elevation: cell %q on %v: no piece %q", c, q, l)
				}
				side := White
				if l >= 'a' {
					side = Black
				}
				pieces[q] = MakePiece(side, k)
			}
		}
	}
	return NewState(heights, pieces, toMove)
}

// Diagram writes s in the form ParseDiagram reads, with the side to move.
func (s *State) Diagram() string {
	var b strings.Builder
	for r := Size - 1; r >= 0; r-- {
		for f := 0; f < Size; f++ {
			if f > 0 {
				b.WriteByte(' ')
			}
			q := Sq(f, r)
			b.WriteString(strconv.Itoa(int(s.h[q])))
			b.WriteByte(s.cell[q].Letter())
		}
		b.WriteByte('\n')
	}
	b.WriteString(sideNames[s.toMove])
	return b.String()
}

func (k ActionKind) String() string {
	switch k {
	case NoAction:
		return "none"
	case Dig:
		return "dig"
	case Step:
		return "step"
	}
	return "ActionKind(" + strconv.Itoa(int(k)) + ")"
}

// String writes a dig as "a>b" and a step as "-q".
func (a Action) String() string {
	switch a.Kind {
	case Dig:
		return a.From.String() + ">" + a.To.String()
	case Step:
		return "-" + a.To.String()
	}
	return a.Kind.String()
}

// String writes m as "a1:b2>a2,-b2" (the notation without piece letter or
// capture mark, which need the position).
func (m Move) String() string {
	s := m.At.String() + ":" + m.Actions[0].String()
	if m.Actions[1].Kind != NoAction {
		s += "," + m.Actions[1].String()
	}
	return s
}
