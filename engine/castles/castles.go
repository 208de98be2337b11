// Package castles implements Combat Castles (RULES.md section 5): a 4x4
// board, a castle and five units per side, and the first side to three
// points wins.
//
// A position is an immutable *State. A turn is several actions (a castle
// step, unit steps, placements); Turn plays them one at a time, and its
// per-action generators (castleMask, stepMask, placeMask) are the single
// source of truth for Legal, Apply, RandomMove and the notation codec.
package castles

import (
	"fmt"
	"math/bits"

	"pbem/engine"
)

// Board geometry and the fixed quantities of the rules.
const (
	// Size is the number of files and of ranks.
	Size = 4
	// Cells is the number of squares on the board.
	Cells = Size * Size
	// Units is the number of units each side owns.
	Units = 5
	// WinPoints is the score that wins at once, even in the middle of a
	// turn and even when the point comes from the opponent's castle step.
	WinPoints = 3
	// HeapTransfer is how many units move from a side's scrap heap to its
	// supply at the start of each of its turns (automatic, not written).
	HeapTransfer = 1
)

// Rulings: the judgement calls of RULES.md section 5, one constant each.
const (
	// MoverTakesCell (ruling): a unit that steps onto an enemy unit
	// destroys it (to its owner's scrap heap) and takes its cell. False
	// would leave the unit on the cell it stepped from.
	MoverTakesCell = true
)

// Side indexes, in seat order.
const (
	First  = 0
	Second = 1
)

// Start squares of the castles (RULES.md: First on a1, Second on d4).
const (
	FirstCastle  Square = 0  // a1
	SecondCastle Square = 15 // d4
)

// Square is a cell of the board: rank*4 + file, a1 = 0, b1 = 1, ... d4 = 15.
type Square int8

// Sq returns the square of file (0 = a) and rank (0 = 1).
func Sq(file, rank int) Square { return Square(rank*Size + file) }

// Valid reports whether q is on the board.
func (q Square) Valid() bool { return q >= 0 && q < Cells }

// File is 0 for a ... 3 for d.
func (q Square) File() int { return int(q) % Size }

// Rank is 0 for rank 1 ... 3 for rank 4.
func (q Square) Rank() int { return int(q) / Size }

// String writes q as "c4"; a square off the board is "#n".
func (q Square) String() string {
	if !q.Valid() {
		return fmt.Sprintf("#%d", int(q))
	}
	return string([]byte{byte('a' + q.File()), byte('1' + q.Rank())})
}

// ParseSquare reads "c4" (any case). ok is false for text that is not a
// square of this board.
func ParseSquare(s string) (q Square, ok bool) {
	if len(s) != 2 {
		return 0, false
	}
	f, r := s[0]|0x20, s[1]
	if f < 'a' || f > 'd' || r < '1' || r > '4' {
		return 0, false
	}
	return Sq(int(f-'a'), int(r-'1')), true
}

// Step is one unit step.
type Step struct {
	From, To Square
}

// Move is one ply. Setup is Second's opening placement (Places holds its one
// square; Castle is zero). Otherwise Castle is the castle step (from, to),
// then Steps are the unit steps and Places the placements, each in the
// order played. Nil slices mean none.
type Move struct {
	Setup  bool
	Castle [2]Square
	Steps  []Step
	Places []Square
}

// Rules is Combat Castles.
type Rules struct{}

var _ engine.Rules = Rules{}

// ID is the game id.
func (Rules) ID() string { return "castles" }

// Summary is the one-line description.
func (Rules) Summary() string {
	return "Combat Castles: 4x4, a mobile castle and 5 units each, first to 3 points"
}

// Help is the plain-text rules summary.
func (Rules) Help() string { return help }

const help = `Combat Castles (2 players: First, Second)

Board 4x4, files a-d, ranks 1-4. Each side has a castle (First on a1,
Second on d4) and 5 units. At the start every unit is in its side's
scrap heap; supplies are empty and both sides have 0 points.

Setup: Second places one unit straight from its scrap heap on c3, c4
or d3. Then First takes the first turn; turns alternate.

A turn, in this order:
1. If your scrap heap is not empty, one unit moves from it to your
   supply (automatic, not written).
2. Your castle steps exactly one square in any of 8 directions, never
   onto the enemy castle. Onto an enemy unit: the unit goes back to
   its scrap heap and the ENEMY scores 1. Onto your own unit: the
   unit goes back to your supply.
3. Any number of your units on the board step once each, one at a
   time, one square in any of 8 directions; never onto your own unit
   or castle. Onto an enemy unit: it is destroyed (to its scrap heap)
   and your unit takes the cell. Onto the enemy castle: your unit goes
   to your scrap heap and you score 1.
4. Any number of units from your supply are placed, one at a time,
   each on an empty cell next to your castle or next to one of your
   units joined to the castle by a chain of adjacent units (units
   placed this turn count). Units placed this turn do not step.

The first side to reach 3 points wins at once, even in the middle of
a turn and even from the opponent's castle step; nothing may be
written after that point. Threefold repetition of the whole position
(board, scrap heaps, supplies, points, side to move) is a draw.
`

// Sides returns First and Second. Only the defaults are supported: 0 or 2
// players, no board name, First opening the rounds.
func (Rules) Sides(o engine.Options) ([]string, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return []string{"First", "Second"}, nil
}

// checkOptions refuses the options castles cannot be played with.
func checkOptions(o engine.Options) error {
	if o.Players != 0 && o.Players != 2 {
		return fmt.Errorf("castles: players must be 2, not %d", o.Players)
	}
	if o.Board != "" {
		return fmt.Errorf("castles: no board may be named (got %q)", o.Board)
	}
	if o.First != First {
		return fmt.Errorf("castles: First always opens the rounds (first must be 0, not %d)", o.First)
	}
	return nil
}

// Start returns the initial position: Second to make the setup placement.
func (r Rules) Start(o engine.Options) (engine.State, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return NewState(), nil
}

// NewState is the initial position.
func NewState() *State {
	return &State{
		castle: [2]Square{FirstCastle, SecondCastle},
		heap:   [2]int8{Units, Units},
		toMove: Second,
		setup:  true,
	}
}

// State is a position. It is immutable: no method changes it.
type State struct {
	units  [2]uint16 // one bit per square holding a unit of the side
	castle [2]Square
	heap   [2]int8
	supply [2]int8
	points [2]int8
	toMove int8
	setup  bool // Second's setup placement is still to be made
}

var (
	_ engine.State   = (*State)(nil)
	_ engine.Sampler = (*State)(nil)
)

// Sides names the sides.
func (s *State) Sides() []string { return []string{"First", "Second"} }

// ToMove is the side to move.
func (s *State) ToMove() int { return int(s.toMove) }

// InSetup reports whether Second's setup placement is still to be made.
func (s *State) InSetup() bool { return s.setup }

// Castle is the square of side p's castle.
func (s *State) Castle(p int) Square { return s.castle[p] }

// Units is the set of side p's units on the board, one bit per square.
func (s *State) Units(p int) uint16 { return s.units[p] }

// Heap, Supply and Points are side p's counts.
func (s *State) Heap(p int) int   { return int(s.heap[p]) }
func (s *State) Supply(p int) int { return int(s.supply[p]) }
func (s *State) Points(p int) int { return int(s.points[p]) }

// Outcome: the first side to WinPoints wins.
func (s *State) Outcome() engine.Outcome {
	for p := range 2 {
		if s.points[p] >= WinPoints {
			return engine.Win(2, p, "three points")
		}
	}
	return engine.Ongoing
}

func (s *State) over() bool { return s.points[0] >= WinPoints || s.points[1] >= WinPoints }

// pack is the whole position in 58 bits.
func (s *State) pack() uint64 {
	k := uint64(s.units[0]) | uint64(s.units[1])<<16 |
		uint64(s.castle[0])<<32 | uint64(s.castle[1])<<36 |
		uint64(s.heap[0])<<40 | uint64(s.heap[1])<<43 |
		uint64(s.supply[0])<<46 | uint64(s.supply[1])<<49 |
		uint64(s.points[0])<<52 | uint64(s.points[1])<<54 |
		uint64(s.toMove)<<56
	if s.setup {
		k |= 1 << 57
	}
	return k
}

// Key is the full position: the 16 cells a1..d4 (F S castles, f s units,
// . empty), then heap, supply and points of First and of Second, then the
// side to move (* marks the setup ply), e.g. "F..........s...S 5/0/0 4/0/0 F".
func (s *State) Key() string {
	var b [32]byte
	return string(s.key(&b))
}

// Hash implements engine.Hasher. It packs what Key spells into two words
// and mixes them: the cells as Key draws them (a castle hides a unit on its
// cell, First's unit Second's, and a castle off the board is not drawn),
// the counters byte by byte, whose turn it is and the setup flag. Equal
// keys pack equally; different keys pack differently.
func (s *State) Hash() uint64 {
	var castles uint16
	c0, c1 := uint64(0xff), uint64(0xff) // not on the board
	if q := s.castle[0]; q.Valid() {
		castles |= 1 << q
		c0 = uint64(q)
	}
	if q := s.castle[1]; q.Valid() && q != s.castle[0] {
		castles |= 1 << q
		c1 = uint64(q)
	}
	u0 := s.units[0] &^ castles
	u1 := s.units[1] &^ castles &^ u0
	a := uint64(u0) | uint64(u1)<<16 | c0<<32 | c1<<40 | uint64(uint8(s.toMove))<<48
	if s.setup {
		a |= 1 << 56
	}
	var b uint64
	for p := range 2 {
		b = b<<24 | uint64(uint8(s.heap[p]))<<16 | uint64(uint8(s.supply[p]))<<8 | uint64(uint8(s.points[p]))
	}
	return mix(a ^ mix(b^0x9e3779b97f4a7c15))
}

// mix is the finalizer of SplitMix64, a bijection of 64-bit words.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// key writes Key into b.
func (s *State) key(b *[32]byte) []byte {
	for q := range Square(Cells) {
		b[q] = s.cellChar(q)
	}
	n := Cells
	for p := range 2 {
		b[n] = ' '
		b[n+1] = byte('0' + s.heap[p])
		b[n+2] = '/'
		b[n+3] = byte('0' + s.supply[p])
		b[n+4] = '/'
		b[n+5] = byte('0' + s.points[p])
		n += 6
	}
	b[n] = ' '
	b[n+1] = "FS"[s.toMove]
	n += 2
	if s.setup {
		b[n] = '*'
		n++
	}
	return b[:n]
}

// cellChar is F/S for a castle, f/s for a unit, '.' for an empty cell.
func (s *State) cellChar(q Square) byte {
	b := uint16(1) << q
	switch {
	case s.castle[0] == q:
		return 'F'
	case s.castle[1] == q:
		return 'S'
	case s.units[0]&b != 0:
		return 'f'
	case s.units[1]&b != 0:
		return 's'
	}
	return '.'
}

// Check verifies the invariants: castles on distinct squares, units only on
// free cells, every unit accounted for, points in range and the setup ply
// only at the start.
func (s *State) Check() error {
	for p := range 2 {
		if !s.castle[p].Valid() {
			return fmt.Errorf("castles: castle %d off the board (%d)", p, s.castle[p])
		}
	}
	if s.castle[0] == s.castle[1] {
		return fmt.Errorf("castles: both castles on %s", s.castle[0])
	}
	if s.units[0]&s.units[1] != 0 {
		return fmt.Errorf("castles: units of both sides share %#04x", s.units[0]&s.units[1])
	}
	castles := uint16(1)<<s.castle[0] | uint16(1)<<s.castle[1]
	if (s.units[0]|s.units[1])&castles != 0 {
		return fmt.Errorf("castles: a unit stands on a castle")
	}
	for p := range 2 {
		if s.heap[p] < 0 || s.supply[p] < 0 {
			return fmt.Errorf("castles: %s has heap %d, supply %d", s.Sides()[p], s.heap[p], s.supply[p])
		}
		if n := bits.OnesCount16(s.units[p]) + int(s.heap[p]) + int(s.supply[p]); n != Units {
			return fmt.Errorf("castles: %s has %d units (board %d, supply %d, heap %d), want %d",
				s.Sides()[p], n, bits.OnesCount16(s.units[p]), s.supply[p], s.heap[p], Units)
		}
		if s.points[p] < 0 || s.points[p] > WinPoints {
			return fmt.Errorf("castles: %s has %d points", s.Sides()[p], s.points[p])
		}
	}
	if s.points[0] >= WinPoints && s.points[1] >= WinPoints {
		return fmt.Errorf("castles: both sides have %d points", WinPoints)
	}
	if s.toMove != First && s.toMove != Second {
		return fmt.Errorf("castles: side to move %d", s.toMove)
	}
	if s.setup && (s.toMove != Second || s.units[1] != 0 || s.heap[1] != Units) {
		return fmt.Errorf("castles: setup ply in a position that is not the start")
	}
	return nil
}

// Adjacency tables: bit masks of the 8 neighbours (king step) of a square.
var adj = func() (a [Cells]uint16) {
	for q := range Square(Cells) {
		for df := -1; df <= 1; df++ {
			for dr := -1; dr <= 1; dr++ {
				f, r := q.File()+df, q.Rank()+dr
				if (df != 0 || dr != 0) && f >= 0 && f < Size && r >= 0 && r < Size {
					a[q] |= 1 << Sq(f, r)
				}
			}
		}
	}
	return a
}()

const (
	fileA uint16 = 0x1111
	fileD uint16 = 0x8888
)

// spread is m with every neighbour of every cell of m.
func spread(m uint16) uint16 {
	h := m | (m<<1)&^fileA | (m>>1)&^fileD
	return h | h<<4 | h>>4
}

func bit(q Square) uint16 { return 1 << uint(q) }
