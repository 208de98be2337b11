package engine

import "slices"

// Layouter is implemented by states that describe their position as a
// Layout: the cells of the board with their geometry and contents, and the
// pieces off the board. The ASCII board a state renders and the SVG board of
// the web pages are two drawings of the same Layout.
type Layouter interface {
	// Layout describes the position seen from side view (-1: the default
	// orientation), turned as Render(view) turns it.
	Layout(view int) *Layout
}

// Cell shapes.
const (
	SquareCell = "square"
	HexCell    = "hex" // a hexagon with a vertex up (rows run across)
)

// Layout is a position as cells with geometry and contents. Coordinates are
// in cell widths: a square cell is 1 x 1 around its centre, a hex cell is 1
// wide; X grows to the right and Y downwards, as drawn from the view.
type Layout struct {
	// Width and Height bound every cell (0 <= X-0.5, X+0.5 <= Width, and
	// the same for Y).
	Width  float64 `json:"w"`
	Height float64 `json:"h"`
	// Cells in the board's own order.
	Cells []Cell `json:"cells"`
	// Labels are the coordinates drawn around the board.
	Labels []Label `json:"labels,omitempty"`
	// Holdings are the pieces and counts off the board (reserves, exited
	// pieces, capture piles and stacks, scrap heaps, supplies, points), in
	// the order the ASCII board lists them.
	Holdings []Holding `json:"holdings,omitempty"`
	// Sides names the sides in seat order; Colours gives each a colour
	// name ("red", "white") or "" for the drawing's choice.
	Sides   []string `json:"sides"`
	Colours []string `json:"colours,omitempty"`
	// ToMove is the side to move, -1 once the game is over.
	ToMove int `json:"to_move"`
	// Status is the last line of the ASCII board: whose turn or the result.
	Status string `json:"status,omitempty"`
}

// Cell is one cell of the board.
type Cell struct {
	// Name is the cell's coordinate as the notation writes it, e.g. "c4".
	Name  string  `json:"name"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Shape string  `json:"shape,omitempty"` // SquareCell or HexCell
	// Height is the cell's terrain height (elevation tiles) or its tier of
	// a stepped board (ziggurat43: 1 at the base); 0 on a flat board.
	Height int `json:"height,omitempty"`
	// Mark is what the cell is besides its pieces ("castle", "temple",
	// "home"); Owner is the side it belongs to, -1 for none.
	Mark  string `json:"mark,omitempty"`
	Owner int    `json:"owner"`
	// Pieces stand on the cell, bottom (or outermost) first; Stacked says
	// they stand one on another (a stack) rather than side by side.
	Pieces  []Piece `json:"pieces,omitempty"`
	Stacked bool    `json:"stacked,omitempty"`
	// Under are the captured pieces under a capture stack whose top is on
	// the cell (rpp), in no particular order.
	Under []Piece `json:"under,omitempty"`
}

// Piece is one piece as the ASCII board writes it.
type Piece struct {
	// Side owns the piece.
	Side int `json:"side"`
	// Letter is the piece's letter on the ASCII board (case included,
	// e.g. "Q" or "q").
	Letter string `json:"letter"`
	// Name is the kind of piece, e.g. "Queen", "large".
	Name string `json:"name,omitempty"`
	// Size is the pyramid size (1 small to 3 large) for Icehouse pieces, 0
	// for others.
	Size int `json:"size,omitempty"`
	// State says more about a piece: "nested" (inside a larger one),
	// "stack-top" (tops a capture stack), "" for nothing more.
	State string `json:"state,omitempty"`
}

// Label is a coordinate drawn at X, Y (labels lie at most one cell outside
// the board's bounds).
type Label struct {
	Text string  `json:"text"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
}

// Holding is a place off the board: the pieces in it, or a count.
type Holding struct {
	// Side it belongs to, -1 for none.
	Side int `json:"side"`
	// Name is what it is, e.g. "reserve", "scrap heap", "points",
	// "capture stack on c3".
	Name   string  `json:"name"`
	Pieces []Piece `json:"pieces,omitempty"`
	// Count is the number of things held when they are counted rather
	// than listed (supply, points); len(Pieces) otherwise.
	Count int `json:"count,omitempty"`
}

// Cell returns the cell named name, or nil.
func (l *Layout) Cell(name string) *Cell {
	for i := range l.Cells {
		if l.Cells[i].Name == name {
			return &l.Cells[i]
		}
	}
	return nil
}

// Turn turns the layout half round (180 degrees), cells and labels: what a
// side whose home is at the top of the default view sees.
func (l *Layout) Turn() {
	for i := range l.Cells {
		l.Cells[i].X, l.Cells[i].Y = l.Width-l.Cells[i].X, l.Height-l.Cells[i].Y
	}
	for i := range l.Labels {
		l.Labels[i].X, l.Labels[i].Y = l.Width-l.Labels[i].X, l.Height-l.Labels[i].Y
	}
}

// Mirror reflects the layout, cells and labels, left to right.
func (l *Layout) Mirror() {
	for i := range l.Cells {
		l.Cells[i].X = l.Width - l.Cells[i].X
	}
	for i := range l.Labels {
		l.Labels[i].X = l.Width - l.Labels[i].X
	}
}

// AddSquareLabels labels a board of files x ranks square cells of side 1
// from the top left, rank 1 at the bottom: file letters above and below,
// rank numbers on both sides.
func (l *Layout) AddSquareLabels(files, ranks int) {
	l.Labels = slices.Grow(l.Labels, 2*(files+ranks))
	for f := range files {
		name := string(rune('a' + f))
		x := float64(f) + 0.5
		l.Labels = append(l.Labels, Label{Text: name, X: x, Y: -0.5}, Label{Text: name, X: x, Y: float64(ranks) + 0.5})
	}
	for r := 1; r <= ranks; r++ {
		name := itoa(r)
		y := float64(ranks-r) + 0.5
		l.Labels = append(l.Labels, Label{Text: name, X: -0.5, Y: y}, Label{Text: name, X: float64(files) + 0.5, Y: y})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
