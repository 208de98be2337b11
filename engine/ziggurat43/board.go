package ziggurat43

import "pbem/engine"

// The board sits in a grid of Files x Ranks squares; only the NumCells
// squares that boardShape marks are cells a piece may stand on.
const (
	Files      = 13 // a..m
	Ranks      = 5  // 1..5
	NumSquares = Files * Ranks
	NumCells   = 43
)

// boardShape is the stepped pyramid, top rank first, one character per file
// a..m: '#' is a cell, '.' is no cell (ruling: the board is deduced from the
// setup and the 43-square rule, RULES.md section 3; keep it as data).
var boardShape = [Ranks]string{
	".....###.....", // rank 5: f5 g5 h5 (g5 is the temple)
	"...#######...", // rank 4: d4..j4
	"..#########..", // rank 3: c3..k3
	".###########.", // rank 2: b2..l2
	"#############", // rank 1: a1..m1
}

// Temple is the top-centre cell: a Priest-King ending its move there wins.
const Temple Square = 6 + 4*Files // g5

// Square is a square of the Files x Ranks grid that holds the ziggurat,
// numbered file + Files*rank with file a..m as 0..12 and rank 1..5 as 0..4.
// Only the cells of the pyramid (IsCell) are part of the board.
type Square int8

// NoSquare is the Square of nothing (a captured Priest-King).
const NoSquare Square = -1

// MakeSquare returns the square at file (0 = a) and rank (0 = rank 1), or
// NoSquare when that is outside the grid.
func MakeSquare(file, rank int) Square {
	if file < 0 || file >= Files || rank < 0 || rank >= Ranks {
		return NoSquare
	}
	return Square(file + rank*Files)
}

// File is the file of q, 0 for a.
func (q Square) File() int { return int(q) % Files }

// Rank is the rank of q, 0 for rank 1.
func (q Square) Rank() int { return int(q) / Files }

// InGrid reports whether q is a square of the grid (a cell or not).
func (q Square) InGrid() bool { return q >= 0 && q < NumSquares }

// IsCell reports whether q is one of the 43 cells of the board.
func (q Square) IsCell() bool { return q.InGrid() && isCell[q] }

// String writes q as a file letter and a rank number, e.g. "g5".
func (q Square) String() string {
	if !q.InGrid() {
		return "-"
	}
	return string([]byte{byte('a' + q.File()), byte('1' + q.Rank())})
}

// Cells lists the cells of the board from a1 along each rank, bottom rank
// first.
func Cells() []Square { return append([]Square(nil), cells[:]...) }

// Move tables, built once from boardShape and never changed: for each square,
// the cells a piece reaches by geometry alone (occupancy is checked when
// moves are generated).
var (
	isCell    [NumSquares]bool
	cells     [NumCells]Square
	cellIndex [NumSquares]int8 // index into cells, -1 for no cell

	kingSteps    [NumSquares][]Square
	horseLeaps   [NumSquares][]Square
	chariotMoves [NumSquares][]Square
	archerSteps  [NumSquares][]Square
	spearSteps   [2][NumSquares][]Square
	diagonals    [NumSquares][][]Square // rays, nearest cell first, up to the edge

	// boxed holds every move of the tables as an engine.Move, indexed by
	// cell indexes and Shot, so that Legal does not allocate per move.
	boxed [NumCells][NumCells][2]engine.Move
)

// Directions as (file, rank) steps.
var (
	orthogonal = [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}}
	diagonal   = [][2]int{{1, 1}, {1, -1}, {-1, -1}, {-1, 1}}
	allSteps   = append(append([][2]int{}, orthogonal...), diagonal...)
	leaps      = [][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	// spearDirs are the Spearman's steps per side: Red up, right and
	// up-right; Gold up, left and up-left.
	spearDirs = [2][][2]int{{{0, 1}, {1, 0}, {1, 1}}, {{0, 1}, {-1, 0}, {-1, 1}}}
)

func init() {
	n := 0
	for i := range cellIndex {
		cellIndex[i] = -1
	}
	for r := 0; r < Ranks; r++ {
		row := boardShape[Ranks-1-r]
		for f := 0; f < Files; f++ {
			if row[f] == '#' {
				q := MakeSquare(f, r)
				isCell[q] = true
				cells[n] = q
				cellIndex[q] = int8(n)
				n++
			}
		}
	}
	if n != NumCells {
		panic("ziggurat43: the board shape does not hold 43 cells")
	}
	steps := func(q Square, dirs [][2]int, dist int) []Square {
		var out []Square
		for _, d := range dirs {
			for k := 1; k <= dist; k++ {
				t := MakeSquare(q.File()+k*d[0], q.Rank()+k*d[1])
				if t.IsCell() {
					out = append(out, t)
				}
			}
		}
		return out
	}
	for _, q := range cells {
		kingSteps[q] = steps(q, allSteps, 1)
		horseLeaps[q] = steps(q, leaps, 1)
		chariotMoves[q] = steps(q, orthogonal, 2)
		archerSteps[q] = steps(q, orthogonal, 1)
		for side := range spearSteps {
			spearSteps[side][q] = steps(q, spearDirs[side], 1)
		}
		for _, d := range diagonal {
			var ray []Square
			for t := MakeSquare(q.File()+d[0], q.Rank()+d[1]); t.IsCell(); t = MakeSquare(t.File()+d[0], t.Rank()+d[1]) {
				ray = append(ray, t)
			}
			if ray != nil {
				diagonals[q] = append(diagonals[q], ray)
			}
		}
		for _, t := range cells {
			for shot := range 2 {
				boxed[cellIndex[q]][cellIndex[t]][shot] = Move{From: q, To: t, Shot: shot == 1}
			}
		}
	}
}

// Box returns m as an engine.Move without allocating (the boxed values
// are made once).
func Box(m Move) engine.Move { return box(m) }

// box returns m as an engine.Move without allocating.
func box(m Move) engine.Move {
	shot := 0
	if m.Shot {
		shot = 1
	}
	return boxed[cellIndex[m.From]][cellIndex[m.To]][shot]
}
