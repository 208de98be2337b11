package castles

import (
	"fmt"
	"strings"
)

// Render draws the board seen from view (Second sees it turned round; -1
// and First see rank 4 at the top), a legend with the scrap heaps,
// supplies and points, and whose turn it is or the result.
//
//	    a   b   c   d
//	  +---+---+---+---+
//	4 |   |   | s |[S]| 4
//	  +---+---+---+---+
//	...
func (s *State) Render(view int) string {
	flip := view == Second
	var b strings.Builder
	b.Grow(1024)
	files := "    a   b   c   d\n"
	if flip {
		files = "    d   c   b   a\n"
	}
	const rule = "  +---+---+---+---+\n"
	b.WriteString(files)
	b.WriteString(rule)
	for row := range Size {
		rank := Size - 1 - row
		if flip {
			rank = row
		}
		fmt.Fprintf(&b, "%d |", rank+1)
		for col := range Size {
			file := col
			if flip {
				file = Size - 1 - col
			}
			b.WriteString(cellPicture(s.cellChar(Sq(file, rank))))
			b.WriteByte('|')
		}
		fmt.Fprintf(&b, " %d\n", rank+1)
		b.WriteString(rule)
	}
	b.WriteString(files)
	b.WriteString("\n[F] First's castle   f First's unit\n")
	b.WriteString("[S] Second's castle  s Second's unit\n")
	for p, name := range []string{"First: ", "Second:"} {
		fmt.Fprintf(&b, "%s points %d, supply %d, scrap heap %d\n", name, s.points[p], s.supply[p], s.heap[p])
	}
	switch o := s.Outcome(); {
	case o.Over:
		fmt.Fprintf(&b, "Game over: %s wins (%s)\n", s.Sides()[o.Winner()], o.Reason)
	case s.setup:
		b.WriteString("Second to move: setup, place one unit on c3, c4 or d3\n")
	default:
		fmt.Fprintf(&b, "%s to move\n", s.Sides()[s.toMove])
	}
	return b.String()
}

func cellPicture(c byte) string {
	switch c {
	case 'F':
		return "[F]"
	case 'S':
		return "[S]"
	case 'f':
		return " f "
	case 's':
		return " s "
	}
	return "   "
}
