package castles

import (
	"fmt"
	"strings"

	"pbem/engine"
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
	case s.heap[s.toMove] > 0:
		// RULES.md step 1 happens before the player acts: say so, or
		// "supply 0" reads as a rule that stops a placement.
		fmt.Fprintf(&b, "%s to move\n(a unit comes from the scrap heap first: supply %d this turn)\n",
			s.Sides()[s.toMove], s.supply[s.toMove]+1)
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

// Narrate implements engine.Narrator: it says what the turn m, which led
// from s to after, scored, e.g. "First scores 1 point (a unit entered the
// enemy castle): 2 of 3."
func (s *State) Narrate(m engine.Move, after engine.State) string {
	a, ok := after.(*State)
	if !ok {
		return ""
	}
	var lines []string
	for p, name := range s.Sides() {
		if d := int(a.points[p]) - int(s.points[p]); d > 0 {
			why := "a unit entered the enemy castle"
			if p != int(s.toMove) {
				why = "the enemy castle rammed its unit"
			}
			lines = append(lines, fmt.Sprintf("%s scores %d %s (%s): %d of %d.", name, d, pointWord(d), why, a.points[p], WinPoints))
		}
	}
	return strings.Join(lines, " ")
}

func pointWord(n int) string {
	if n == 1 {
		return "point"
	}
	return "points"
}
