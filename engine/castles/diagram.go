package castles

import (
	"fmt"
	"strconv"
	"strings"
)

// FromDiagram builds a position from a compact diagram, the form Diagram
// writes and tests use:
//
//	"...S/..s./.f../F... 4/0/0 4/0/0 F"
//
// Four rows, rank 4 first, joined by '/'; each row gives files a to d: F
// and S are the castles, f and s units of First and Second, '.' an empty
// cell. Then First's and Second's counts as heap/supply/points, then the
// side to move: F, S, or S* for Second's setup ply. The position must
// pass Check.
func FromDiagram(d string) (*State, error) {
	f := strings.Fields(d)
	if len(f) != 4 {
		return nil, fmt.Errorf("castles: diagram: want 4 fields, got %d", len(f))
	}
	rows := strings.Split(f[0], "/")
	if len(rows) != Size {
		return nil, fmt.Errorf("castles: diagram: want %d rows", Size)
	}
	var s State
	seen := [2]bool{}
	for i, row := range rows {
		if len(row) != Size {
			return nil, fmt.Errorf("castles: diagram: row %q: want %d cells", row, Size)
		}
		for file := range Size {
			q := Sq(file, Size-1-i)
			switch row[file] {
			case 'F':
				s.castle[0], seen[0] = q, true
			case 'S':
				s.castle[1], seen[1] = q, true
			case 'f':
				s.units[0] |= bit(q)
			case 's':
				s.units[1] |= bit(q)
			case '.':
			default:
				return nil, fmt.Errorf("castles: diagram: bad cell %q", row[file])
			}
		}
	}
	if !seen[0] || !seen[1] {
		return nil, fmt.Errorf("castles: diagram: a castle is missing")
	}
	for p := range 2 {
		c := strings.Split(f[1+p], "/")
		if len(c) != 3 {
			return nil, fmt.Errorf("castles: diagram: counts %q: want heap/supply/points", f[1+p])
		}
		var n [3]int
		for i := range c {
			v, err := strconv.Atoi(c[i])
			if err != nil || v < 0 || v > Units {
				return nil, fmt.Errorf("castles: diagram: bad count %q", c[i])
			}
			n[i] = v
		}
		s.heap[p], s.supply[p], s.points[p] = int8(n[0]), int8(n[1]), int8(n[2])
	}
	switch f[3] {
	case "F":
		s.toMove = First
	case "S":
		s.toMove = Second
	case "S*":
		s.toMove, s.setup = Second, true
	default:
		return nil, fmt.Errorf("castles: diagram: bad side %q", f[3])
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("castles: diagram: %w", err)
	}
	return &s, nil
}

// Diagram writes s in the form FromDiagram reads.
func (s *State) Diagram() string {
	var b strings.Builder
	for r := Size - 1; r >= 0; r-- {
		for f := range Size {
			b.WriteByte(s.cellChar(Sq(f, r)))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	for p := range 2 {
		fmt.Fprintf(&b, " %d/%d/%d", s.heap[p], s.supply[p], s.points[p])
	}
	b.WriteString([]string{" F", " S"}[s.toMove])
	if s.setup {
		b.WriteByte('*')
	}
	return b.String()
}
