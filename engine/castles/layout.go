package castles

import (
	"fmt"

	"pbem/engine"
)

var _ engine.Layouter = (*State)(nil)

// Layout implements engine.Layouter: the 4x4 board with each side's castle
// (a mark owned by the side) and units, and per side its points, supply
// and scrap heap (counts); Second's view turns the board round, as Render
// does.
func (s *State) Layout(view int) *engine.Layout {
	l := &engine.Layout{
		Width: Size, Height: Size,
		Sides:   s.Sides(),
		Colours: []string{"white", "black"},
		ToMove:  int(s.toMove),
	}
	switch o := s.Outcome(); {
	case o.Over:
		l.ToMove = -1
		l.Status = fmt.Sprintf("Game over: %s wins (%s)", s.Sides()[o.Winner()], o.Reason)
	case s.setup:
		l.Status = "Second to move: setup, place one unit on c3, c4 or d3"
	default:
		l.Status = s.Sides()[s.toMove] + " to move"
	}
	l.Cells = make([]engine.Cell, 0, Cells)
	for i := range Cells {
		q := Square(i)
		c := engine.Cell{
			Name:  q.String(),
			X:     float64(q.File()) + 0.5,
			Y:     float64(Size-1-q.Rank()) + 0.5,
			Shape: engine.SquareCell,
			Owner: -1,
		}
		for p := range 2 {
			if s.castle[p] == q {
				c.Mark, c.Owner = "castle", p
			}
			if s.units[p]&(1<<uint(q)) != 0 {
				c.Pieces = append(c.Pieces, engine.Piece{Side: p, Letter: string("fs"[p]), Name: "unit"})
			}
		}
		l.Cells = append(l.Cells, c)
	}
	l.AddSquareLabels(Size, Size)
	for p := range 2 {
		l.Holdings = append(l.Holdings,
			engine.Holding{Side: p, Name: "points", Count: int(s.points[p])},
			engine.Holding{Side: p, Name: "supply", Count: int(s.supply[p])},
			engine.Holding{Side: p, Name: "scrap heap", Count: int(s.heap[p])})
	}
	if view == Second {
		l.Turn()
	}
	return l
}
