package ziggurat43

import "pbem/engine"

var _ engine.Layouter = (*State)(nil)

// Layout implements engine.Layouter: the 43 cells of the stepped pyramid
// in its Files x Ranks grid, each cell's tier (1 at the base rank, 5 at
// the temple) and piece, the temple g5 marked; Gold's view mirrors the
// files, as Render does.
func (s *State) Layout(view int) *engine.Layout {
	l := &engine.Layout{
		Width: Files, Height: Ranks,
		Sides:   []string{sideNames[Red], sideNames[Gold]},
		Colours: []string{"red", "gold"},
		ToMove:  int(s.toMove),
	}
	if o := s.Outcome(); o.Over {
		l.ToMove = -1
		l.Status = "Game over: " + sideNames[o.Winner()] + " wins (" + o.Reason + ")."
	} else {
		l.Status = sideNames[s.toMove] + " to move."
	}
	l.Cells = make([]engine.Cell, 0, len(cells))
	for _, q := range cells {
		c := engine.Cell{
			Name:   q.String(),
			X:      float64(q.File()) + 0.5,
			Y:      float64(Ranks-1-q.Rank()) + 0.5,
			Shape:  engine.SquareCell,
			Height: q.Rank() + 1,
			Owner:  -1,
		}
		if q == Temple {
			c.Mark = "temple"
		}
		if p := s.board[q]; p != Empty {
			letter := p.Kind().Letter()
			if p.Side() == Gold {
				letter += 'a' - 'A'
			}
			c.Pieces = []engine.Piece{{Side: p.Side(), Letter: string(letter), Name: p.Kind().String()}}
		}
		l.Cells = append(l.Cells, c)
	}
	l.AddSquareLabels(Files, Ranks)
	if view == Gold {
		l.Mirror()
	}
	return l
}
