package rpp

import (
	"math"

	"pbem/engine"
)

var _ engine.Layouter = (*State)(nil)

// hexRow is the distance between the centres of two rows of hex cells of
// width 1.
var hexRow = math.Sqrt(3) / 2

var sizeNames = [4]string{"", "small", "medium", "large"}

// Layout implements engine.Layouter: the board's cells (squares, or hexes
// on the hex boards) where Render draws them, each seat's home edge marked
// as its "home", the live pieces of each cell largest first (a nest's inner
// pieces "nested", the top of a capture stack "stack-top" with the
// captured pieces Under it), and per seat its live pieces and capture pile.
// A seat whose home edge is in the upper half sees the board turned round,
// as Render does.
func (s *State) Layout(view int) *engine.Layout {
	b := s.board()
	seats := int(s.seats)
	l := &engine.Layout{
		Width:   float64(b.width-1)/2 + 1,
		Height:  float64(b.rows),
		Sides:   s.Sides(),
		Colours: append([]string(nil), seatColours[:seats]...),
		ToMove:  int(s.toMove),
		Status:  s.status(),
	}
	if s.Outcome().Over {
		l.ToMove = -1
	}
	shape, rowStep := engine.SquareCell, 1.0
	if b.hex {
		shape, rowStep = engine.HexCell, hexRow
		l.Height = float64(b.rows-1)*hexRow + 1
	}
	x := func(half int) float64 { return float64(half)/2 + 0.5 }
	y := func(row int) float64 { return float64(b.rows-1-row)*rowStep + 0.5 }
	home := make([]int, len(b.names))
	for i := range home {
		home[i] = -1
	}
	for seat := range seats {
		for _, c := range b.homes[seat] {
			home[c] = seat
		}
	}
	l.Cells = make([]engine.Cell, 0, len(b.names))
	for i, name := range b.names {
		c := engine.Cell{Name: name, X: x(b.x[i]), Y: y(b.y[i]), Shape: shape, Owner: home[i]}
		if c.Owner >= 0 {
			c.Mark = "home"
		}
		cs := s.cells()[i]
		for z := Large; z >= Small && cs.owner != 0; z-- {
			p := engine.Piece{Side: int(cs.owner) - 1, Letter: string(z.Letter()), Name: sizeNames[z], Size: int(z)}
			switch cs.get(z) {
			case absent:
				continue
			case nested:
				p.State = "nested"
			case top:
				p.State, p.Letter = "stack-top", string(z.Letter()|0x20)
			}
			c.Pieces = append(c.Pieces, p)
		}
		l.Cells = append(l.Cells, c)
	}
	for i := range seats {
		st := &s.stacks[i]
		if !st.on {
			continue
		}
		c := &l.Cells[st.cell]
		for o := range seats {
			for z := Large; z >= Small; z-- {
				for range st.under[o].n(int(z - 1)) {
					c.Under = append(c.Under, engine.Piece{Side: o, Letter: string(z.Letter()), Name: sizeNames[z], Size: int(z)})
				}
			}
		}
	}
	s.layoutLabels(l, x, y)
	for i := range seats {
		l.Holdings = append(l.Holdings, engine.Holding{Side: i, Name: "live", Count: int(s.live[i])})
		h := engine.Holding{Side: i, Name: "capture pile"}
		for o := range seats {
			for z := Large; z >= Small; z-- {
				for range s.piles[i][o].n(int(z - 1)) {
					h.Pieces = append(h.Pieces, engine.Piece{Side: o, Letter: string(z.Letter()), Name: sizeNames[z], Size: int(z)})
				}
			}
		}
		h.Count = len(h.Pieces)
		l.Holdings = append(l.Holdings, h)
	}
	if s.flipped(view) {
		l.Turn()
	}
	return l
}

// layoutLabels adds the coordinates: on square and octagon boards file
// letters above and below and rank numbers on both sides; on hex boards
// row letters at both ends of each row and the cell numbers of the top and
// bottom rows beyond them.
func (s *State) layoutLabels(l *engine.Layout, x func(int) float64, y func(int) float64) {
	b := s.board()
	if !b.hex {
		n := b.width/2 + 1
		l.AddSquareLabels(n, b.rows)
		return
	}
	first := make([]int, b.rows)
	last := make([]int, b.rows)
	for i := range first {
		first[i], last[i] = b.width, -1
	}
	for c := range b.names {
		r := b.y[c]
		first[r], last[r] = min(first[r], b.x[c]), max(last[r], b.x[c])
		if r == 0 || r == b.rows-1 {
			dy := -0.75
			if r == 0 {
				dy = 0.75
			}
			l.Labels = append(l.Labels, engine.Label{Text: b.names[c][1:], X: x(b.x[c]), Y: y(r) + dy})
		}
	}
	for r := range b.rows {
		name := string(rune('a' + r))
		l.Labels = append(l.Labels, engine.Label{Text: name, X: x(first[r]) - 1, Y: y(r)},
			engine.Label{Text: name, X: x(last[r]) + 1, Y: y(r)})
	}
}
