package elevation

import (
	"fmt"

	"pbem/engine"
)

var _ engine.Layouter = (*State)(nil)

// Layout implements engine.Layouter: the 6x6 board, each square with its
// height in tiles and its piece; Black's view turns it round, as Render
// does.
func (s *State) Layout(view int) *engine.Layout {
	l := &engine.Layout{
		Width: Size, Height: Size,
		Sides:   []string{sideNames[White], sideNames[Black]},
		Colours: []string{"white", "black"},
		ToMove:  int(s.toMove),
	}
	if o := s.Outcome(); o.Over {
		w := o.Winner()
		l.ToMove = -1
		l.Status = fmt.Sprintf("%s wins: %s has %s.", sideNames[w], sideNames[w^1], o.Reason)
	} else {
		l.Status = sideNames[s.toMove] + " to move."
	}
	l.Cells = make([]engine.Cell, 0, NumSquares)
	for i := range NumSquares {
		q := Square(i)
		c := engine.Cell{
			Name:   q.String(),
			X:      float64(q.File()) + 0.5,
			Y:      float64(Size-1-q.Rank()) + 0.5,
			Shape:  engine.SquareCell,
			Height: int(s.h[i]),
			Owner:  -1,
		}
		if p := s.cell[i]; p != NoPiece {
			c.Pieces = []engine.Piece{{Side: p.Side(), Letter: string(p.Letter()), Name: p.Kind().String()}}
		}
		l.Cells = append(l.Cells, c)
	}
	l.AddSquareLabels(Size, Size)
	if view == Black {
		l.Turn()
	}
	return l
}
