package rpp

import (
	"fmt"
	"strconv"
	"strings"
)

// Cell is a cell of a board: an index into the board's cells, 0 to
// Board.Cells()-1. Its name (c4) depends on the board.
type Cell uint16

// maxCells is the number of cells of the largest board (octagon).
const maxCells = 277

// Board is one playing area: cells with names, adjacency, and the home
// edges in seat order. Boards are immutable values shared by all states.
type Board struct {
	idx     uint8 // index in boardList
	name    string
	shape   string // "square", "hex" or "octagon"
	names   []string
	y, x    []int // display row (0 = bottom) and column in half-cells
	rows    int   // display rows
	width   int   // display columns in half-cells (max x + 1)
	adj     [][]Cell
	byName  [26][20]int16 // [letter][number-1] -> cell+1, 0 = none
	homes   [][]Cell      // home edges in seat order
	edges   []string      // names of the home edges, in seat order
	compact bool          // render with compact (2-character) cells
	hex     bool          // hex rows: labels are row letters and cell numbers
}

// geometry is one board shape. It lays out the cells (display row and
// half-cell column, name), says which of them are adjacent, and lists the
// home edges in seat order. One geometry type per shape; the sizes are data.
type geometry interface {
	layout() (y, x []int, names []string)
	adjacent(dy, dx int) bool
	homeEdges(at func(y, x int) (Cell, bool)) (edges [][]Cell, names []string)
}

// squareGeom is an n x n square; home edges are the listed sides (clockwise
// from south: "south", "west", "north", "east") less trim cells at each end.
type squareGeom struct {
	n     int
	sides []string
	trim  int
}

func (g squareGeom) layout() (y, x []int, names []string) {
	for r := 0; r < g.n; r++ {
		for f := 0; f < g.n; f++ {
			y, x = append(y, r), append(x, 2*f)
			names = append(names, squareName(f, r))
		}
	}
	return y, x, names
}

func (g squareGeom) adjacent(dy, dx int) bool { return kingStep(dy, dx) }

func (g squareGeom) homeEdges(at func(y, x int) (Cell, bool)) ([][]Cell, []string) {
	n := g.n
	side := map[string]func(i int) (int, int){ // i along the side -> rank, file
		"south": func(i int) (int, int) { return 0, i },
		"west":  func(i int) (int, int) { return i, 0 },
		"north": func(i int) (int, int) { return n - 1, i },
		"east":  func(i int) (int, int) { return i, n - 1 },
	}
	var edges [][]Cell
	for _, s := range g.sides {
		var e []Cell
		for i := g.trim; i < n-g.trim; i++ {
			r, f := side[s](i)
			c, _ := at(r, 2*f)
			e = append(e, c)
		}
		edges = append(edges, e)
	}
	return edges, g.sides
}

// octagonGeom is an n x n square with its corners cut: a cell is removed
// when its distance along both axes from a corner adds up to less than cut.
// Its eight edges, clockwise from south, hold cut+1 cells each (the corner
// cells are shared); home edges are their middle cells (trim at each end).
type octagonGeom struct {
	n, cut, trim int
}

func (g octagonGeom) on(f, r int) bool {
	m := g.n - 1
	return f+r >= g.cut && m-f+r >= g.cut && f+m-r >= g.cut && m-f+m-r >= g.cut
}

func (g octagonGeom) layout() (y, x []int, names []string) {
	for r := 0; r < g.n; r++ {
		for f := 0; f < g.n; f++ {
			if g.on(f, r) {
				y, x = append(y, r), append(x, 2*f)
				names = append(names, squareName(f, r))
			}
		}
	}
	return y, x, names
}

func (g octagonGeom) adjacent(dy, dx int) bool { return kingStep(dy, dx) }

func (g octagonGeom) homeEdges(at func(y, x int) (Cell, bool)) ([][]Cell, []string) {
	m, k := g.n-1, g.cut
	// Each edge as its first cell and its step (file, rank), clockwise
	// from south.
	type line struct {
		name         string
		f, r, df, dr int
	}
	lines := []line{
		{"south", k, 0, 1, 0},
		{"south-west", 0, k, 1, -1},
		{"west", 0, k, 0, 1},
		{"north-west", 0, m - k, 1, 1},
		{"north", k, m, 1, 0},
		{"north-east", m - k, m, 1, -1},
		{"east", m, k, 0, 1},
		{"south-east", m - k, 0, 1, 1},
	}
	var edges [][]Cell
	var names []string
	for _, l := range lines {
		var e []Cell
		for i := g.trim; i <= k-g.trim; i++ {
			c, ok := at(l.r+i*l.dr, 2*(l.f+i*l.df))
			if !ok {
				panic(fmt.Sprintf("rpp: octagon edge %s leaves the board", l.name))
			}
			e = append(e, c)
		}
		edges = append(edges, e)
		names = append(names, l.name)
	}
	return edges, names
}

// hexGeom is a regular hexagon of side n with horizontal rows a, b, ...
// (bottom to top) of n, n+1, ..., 2n-1, ..., n cells numbered from 1 at the
// left. Its six edges, clockwise from the bottom, are "bottom",
// "lower-left", "upper-left", "top", "upper-right", "lower-right"; home
// edges are the listed ones less trim cells at each end.
type hexGeom struct {
	n     int
	sides []string
	trim  int
}

func (g hexGeom) rowLen(r int) int { return g.n + min(r, 2*g.n-2-r) }

func (g hexGeom) indent(r int) int { return abs(r - (g.n - 1)) }

func (g hexGeom) layout() (y, x []int, names []string) {
	for r := 0; r < 2*g.n-1; r++ {
		for i := 0; i < g.rowLen(r); i++ {
			y, x = append(y, r), append(x, g.indent(r)+2*i)
			names = append(names, string(rune('a'+r))+strconv.Itoa(i+1))
		}
	}
	return y, x, names
}

// adjacent: two cells in the same row, two in each adjacent row.
func (g hexGeom) adjacent(dy, dx int) bool {
	return (dy == 0 && abs(dx) == 2) || (abs(dy) == 1 && abs(dx) == 1)
}

func (g hexGeom) homeEdges(at func(y, x int) (Cell, bool)) ([][]Cell, []string) {
	n, top := g.n, 2*g.n-2
	last := func(r int) int { return g.rowLen(r) - 1 }
	side := map[string]func(i int) (int, int){ // i along the side -> row, index
		"bottom":      func(i int) (int, int) { return 0, i },
		"lower-left":  func(i int) (int, int) { return i, 0 },
		"upper-left":  func(i int) (int, int) { return n - 1 + i, 0 },
		"top":         func(i int) (int, int) { return top, i },
		"upper-right": func(i int) (int, int) { return n - 1 + i, last(n - 1 + i) },
		"lower-right": func(i int) (int, int) { return i, last(i) },
	}
	var edges [][]Cell
	for _, s := range g.sides {
		var e []Cell
		for i := g.trim; i < n-g.trim; i++ {
			r, k := side[s](i)
			c, ok := at(r, g.indent(r)+2*k)
			if !ok {
				panic("rpp: hex edge " + s + " leaves the board")
			}
			e = append(e, c)
		}
		edges = append(edges, e)
	}
	return edges, g.sides
}

func kingStep(dy, dx int) bool {
	return (dy != 0 || dx != 0) && abs(dy) <= 1 && (dx == 0 || abs(dx) == 2)
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

func squareName(f, r int) string { return string(rune('a'+f)) + strconv.Itoa(r+1) }

// newBoard builds a board from its geometry.
func newBoard(name string, g geometry, compact bool) *Board {
	y, x, names := g.layout()
	b := &Board{name: name, names: names, y: y, x: x, compact: compact}
	switch g.(type) {
	case squareGeom:
		b.shape = "square"
	case hexGeom:
		b.shape, b.hex = "hex", true
	case octagonGeom:
		b.shape = "octagon"
	}
	if len(names) > maxCells {
		panic("rpp: board " + name + " is larger than maxCells")
	}
	at := map[[2]int]Cell{}
	for i := range names {
		at[[2]int{y[i], x[i]}] = Cell(i)
		b.rows = max(b.rows, y[i]+1)
		b.width = max(b.width, x[i]+1)
		l, num := names[i][0]-'a', names[i][1:]
		k, _ := strconv.Atoi(num)
		b.byName[l][k-1] = int16(i + 1)
	}
	// Adjacency: king steps on square grids are (dy, dx/2) within 1; the
	// half-cell columns make the test one formula per shape.
	b.adj = make([][]Cell, len(names))
	for i := range names {
		for dy := -1; dy <= 1; dy++ {
			for dx := -2; dx <= 2; dx++ {
				if !g.adjacent(dy, dx) {
					continue
				}
				if j, ok := at[[2]int{y[i] + dy, x[i] + dx}]; ok {
					b.adj[i] = append(b.adj[i], j)
				}
			}
		}
	}
	b.homes, b.edges = g.homeEdges(func(y, x int) (Cell, bool) {
		c, ok := at[[2]int{y, x}]
		return c, ok
	})
	return b
}

// The boards of RULES.md section 4, by name.
var boards = map[string]*Board{
	"square5": newBoard("square5", squareGeom{n: 5, sides: []string{"south", "north"}}, false),
	"square7": newBoard("square7", squareGeom{n: 7, sides: []string{"south", "west", "north", "east"}, trim: 1}, false),
	"hex5":    newBoard("hex5", hexGeom{n: 5, sides: []string{"bottom", "upper-left", "upper-right"}}, false),
	"hex7": newBoard("hex7", hexGeom{n: 7, sides: []string{
		"bottom", "lower-left", "upper-left", "top", "upper-right", "lower-right"}, trim: 1}, false),
	"octagon": newBoard("octagon", octagonGeom{n: 19, cut: 6, trim: 1}, true),
}

// BoardNames lists the boards in order of size.
var BoardNames = []string{"square5", "square7", "hex5", "hex7", "octagon"}

// boardList holds the boards by index (State keeps the index).
var boardList = func() []*Board {
	var l []*Board
	for i, n := range BoardNames {
		boards[n].idx = uint8(i)
		l = append(l, boards[n])
	}
	return l
}()

// BoardPlayers is the range of player counts each board serves (RULES.md
// section 4: square5 2; square7 3-4; hex5 3; hex7 5-6; octagon 7-8). Any
// other pair of board and player count is refused.
var BoardPlayers = map[string][2]int{
	"square5": {2, 2},
	"square7": {3, 4},
	"hex5":    {3, 3},
	"hex7":    {5, 6},
	"octagon": {7, 8},
}

// BoardsFor lists the boards that serve n players, in order of size.
func BoardsFor(n int) []string {
	var l []string
	for _, name := range BoardNames {
		if r := BoardPlayers[name]; r[0] <= n && n <= r[1] {
			l = append(l, name)
		}
	}
	return l
}

// servesText says which player counts a board serves: "2" or "3 to 4".
func servesText(name string) string {
	r := BoardPlayers[name]
	if r[0] == r[1] {
		return strconv.Itoa(r[0])
	}
	return fmt.Sprintf("%d to %d", r[0], r[1])
}

// DefaultBoard is the board for a player count when [Board] is not given:
// 2 square5, 3 hex5, 4 square7, 5-6 hex7, 7-8 octagon.
func DefaultBoard(players int) string {
	switch {
	case players <= 2:
		return "square5"
	case players == 3:
		return "hex5"
	case players == 4:
		return "square7"
	case players <= 6:
		return "hex7"
	}
	return "octagon"
}

// BoardByName returns the named board (case-insensitive), or nil.
func BoardByName(name string) *Board { return boards[strings.ToLower(name)] }

// Name is the board's name, e.g. "hex5".
func (b *Board) Name() string { return b.name }

// Cells is the number of cells.
func (b *Board) Cells() int { return len(b.names) }

// CellName is the name of c, e.g. "c4".
func (b *Board) CellName(c Cell) string {
	if int(c) >= len(b.names) {
		return "#" + strconv.Itoa(int(c))
	}
	return b.names[c]
}

// CellAt returns the cell named by a letter (either case) and a number, as
// in c4 (square: file c, rank 4; hex: row c, 4th cell from the left).
func (b *Board) CellAt(letter byte, number int) (Cell, bool) {
	l := int(letter|0x20) - 'a'
	if l < 0 || l >= 26 || number < 1 || number > 20 {
		return 0, false
	}
	i := b.byName[l][number-1]
	return Cell(i - 1), i != 0
}

// Neighbours lists the cells adjacent to c.
func (b *Board) Neighbours(c Cell) []Cell { return b.adj[c] }

// Adjacent reports whether a and b are neighbours.
func (b *Board) Adjacent(from, to Cell) bool {
	for _, n := range b.adj[from] {
		if n == to {
			return true
		}
	}
	return false
}

// HomeEdges lists the home edges in seat order; seats take the first N.
func (b *Board) HomeEdges() [][]Cell { return b.homes }

// EdgeNames names the home edges in seat order, e.g. "south".
func (b *Board) EdgeNames() []string { return b.edges }
