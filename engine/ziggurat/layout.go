package ziggurat

import "pbem/engine"

var _ engine.Layouter = (*State)(nil)

// Layout implements engine.Layouter: the 6x6 board (South at the bottom,
// turned round for North's view, as Render does), each square's stack
// bottom first, the reserves and the exited pieces.
func (s *State) Layout(view int) *engine.Layout {
	l := &engine.Layout{
		Width: Files, Height: Ranks,
		Sides:   []string{sideNames[South], sideNames[North]},
		Colours: []string{"white", "black"},
		ToMove:  int(s.toMove),
		Status:  s.status(),
	}
	if s.Outcome().Over {
		l.ToMove = -1
	}
	l.Cells = make([]engine.Cell, 0, NumSquares)
	for i := range NumSquares {
		q := sq(i)
		c := engine.Cell{
			Name:  q.String(),
			X:     float64(q.File()) + 0.5,
			Y:     float64(Ranks-q.Rank()) + 0.5,
			Shape: engine.SquareCell,
			Owner: -1,
		}
		st := s.board[i]
		for j := range st.Len() {
			c.Pieces = append(c.Pieces, layoutPiece(st.At(j)))
		}
		c.Stacked = st.Len() > 1
		l.Cells = append(l.Cells, c)
	}
	l.AddSquareLabels(Files, Ranks)
	for side := range 2 {
		h := engine.Holding{Side: side, Name: "reserve"}
		for _, u := range [3]Unit{Queen, Drone, Worker} {
			for range s.reserve[side][u] {
				h.Pieces = append(h.Pieces, layoutPiece(MakePiece(side, u)))
			}
		}
		h.Count = len(h.Pieces)
		l.Holdings = append(l.Holdings, h)
	}
	for side := range 2 {
		h := engine.Holding{Side: side, Name: "exited"}
		for _, u := range [3]Unit{Queen, Drone, Worker} {
			if s.exited[side][u] {
				h.Pieces = append(h.Pieces, layoutPiece(MakePiece(side, u)))
			}
		}
		h.Count = len(h.Pieces)
		l.Holdings = append(l.Holdings, h)
	}
	if view == North {
		l.Turn()
	}
	return l
}

func layoutPiece(p Piece) engine.Piece {
	return engine.Piece{Side: p.Side(), Letter: string(p.Letter()), Name: p.Size().String(), Size: int(p.Size())}
}
