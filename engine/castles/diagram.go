package castles

import (
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
)

// FromDiagram builds a position from a compact diagram, the form Diagram
// writes, tests use and the position notation is (docs/NOTATION.md,
// "Positions"):
//
//	"...S/..s./.f../F... 4/0/0 4/0/0 F"
//
// Four rows, rank 4 first, joined by '/'; each row gives files a to d: F
// and S are the castles, f and s units of First and Second, '.' an empty
// cell. Then First's and Second's counts as heap/supply/points, then the
// side to move: F, S, or S* for Second's setup ply. The position must
// pass Check. Errors are *engine.PositionError values with the column of
// the fault.
func FromDiagram(d string) (*State, error) {
	fs, err := engine.SplitPosition(game, d, "cells", "First's heap/supply/points", "Second's heap/supply/points", "side to move")
	if err != nil {
		return nil, err
	}
	var s State
	seen := [2]bool{}
	f := fs[0]
	const wantCell = "F or S (a castle), f or s (a unit) or . (empty)"
	rank, file := Size-1, 0
	for k := 0; k < len(f.Text); k++ {
		c := f.Text[k]
		if c == '/' {
			if file != Size {
				return nil, f.Errorf(game, k, wantCell, "rank %d has %d cells, not %d", rank+1, Size, file)
			}
			if rank == 0 {
				return nil, f.Errorf(game, k, "the counts after rank 1", "a fifth rank")
			}
			rank, file = rank-1, 0
			continue
		}
		if file == Size {
			return nil, f.Errorf(game, k, "'/' between ranks", "a fifth cell on rank %d", rank+1)
		}
		q := Sq(file, rank)
		switch c {
		case 'F', 'S':
			p := First
			if c == 'S' {
				p = Second
			}
			if seen[p] {
				return nil, f.Errorf(game, k, "one castle per side", "a second %s castle", s.Sides()[p])
			}
			s.castle[p], seen[p] = q, true
		case 'f':
			s.units[0] |= bit(q)
		case 's':
			s.units[1] |= bit(q)
		case '.':
		default:
			return nil, f.Errorf(game, k, wantCell, "%q on %v is no cell content", c, q)
		}
		file++
	}
	if rank != 0 || file != Size {
		return nil, f.Errorf(game, len(f.Text), "4 ranks of 4 cells, rank 4 first", "the cells end at rank %d after %d cells", rank+1, file)
	}
	for p := range 2 {
		if !seen[p] {
			return nil, f.Errorf(game, 0, "one F and one S", "%s's castle is missing", s.Sides()[p])
		}
	}
	for p := range 2 {
		c := fs[1+p]
		const want = "heap/supply/points, three counts such as 4/0/0"
		parts := strings.Split(c.Text, "/")
		if len(parts) != 3 {
			return nil, c.Errorf(game, 0, want, "%d counts in %q", len(parts), c.Text)
		}
		var n [3]int
		off := 0
		for i, part := range parts {
			v, err := strconv.Atoi(part)
			if err != nil || v < 0 || v > Units || part != strconv.Itoa(v) {
				return nil, c.Errorf(game, off, fmt.Sprintf("a count 0 to %d", Units), "bad count %q", part)
			}
			n[i] = v
			off += len(part) + 1
		}
		s.heap[p], s.supply[p], s.points[p] = int8(n[0]), int8(n[1]), int8(n[2])
	}
	switch fs[3].Text {
	case "F":
		s.toMove = First
	case "S":
		s.toMove = Second
	case "S*":
		s.toMove, s.setup = Second, true
	default:
		return nil, fs[3].Errorf(game, 0, "F, S, or S* (Second's setup ply)", "no side %q", fs[3].Text)
	}
	if err := s.Check(); err != nil {
		return nil, &engine.PositionError{Game: game, Msg: strings.TrimPrefix(err.Error(), game+": ")}
	}
	return &s, nil
}

const game = "castles"

var (
	_ engine.Positioner     = (*State)(nil)
	_ engine.PositionReader = Rules{}
)

// Position writes the position as Diagram does.
func (s *State) Position() string { return s.Diagram() }

// ParsePosition reads a position written as Position writes it (see
// FromDiagram); the game has no options.
func (r Rules) ParsePosition(o engine.Options, text string) (engine.State, error) {
	if _, err := r.Sides(o); err != nil {
		return nil, err
	}
	return FromDiagram(text)
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
