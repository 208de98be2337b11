// Package ziggurat implements Ziggurat, an Icehouse game for two players on
// a 6x6 board (RULES.md section 1): zigs slide diagonally, Towers leap like
// knights, Keeps slide like rooks, captures stack pieces, and the first side
// to exit one Queen, one Drone and one Worker off the far edge wins.
//
// Positions are immutable values; legal-move generation is the single source
// of truth for legality.
package ziggurat

import (
	"errors"
	"fmt"
	"math/bits"

	"pbem/engine"
)

// Rulings of RULES.md section 1 that are judgement calls, one line each.
const (
	// KindByTopTwo (ruling: classify by the top two): a stack is a Tower
	// when its top piece is smaller than the piece directly under it and a
	// Keep when larger. Set to false to compare the top with the bottom piece.
	KindByTopTwo = true

	// PassesToDraw (ruling): a side with no legal move must pass, and this
	// many passes in a row draw the game.
	PassesToDraw = 2
)

// DefaultFirst is the side that moves first when Options.First is zero: a
// record without [FirstPlayer] starts with South (the referee otherwise
// draws the first player at random).
const DefaultFirst = South

// Board geometry.
const (
	Files      = 6
	Ranks      = 6
	NumSquares = Files * Ranks
	// MaxHeight is the capacity of a Stack. The rules let a stack grow to
	// four pieces at most (e.g. [W Q D W]); see TestStackHeights.
	MaxHeight = 5
)

// Side indexes, in seat order.
const (
	South = 0 // home rank 1, moves up
	North = 1 // home rank 6, moves down
)

var sideNames = [2]string{"South", "North"}

// Unit names a kind of unit: the three zig sizes (whose values are the sizes
// 1..3) and the two kinds of stack.
type Unit uint8

// Units. Worker, Drone and Queen double as piece sizes.
const (
	NoUnit Unit = iota
	Worker      // size 1
	Drone       // size 2
	Queen       // size 3
	Tower       // a stack whose top is smaller than the piece under it
	Keep        // a stack whose top is larger than the piece under it
)

var unitNames = [...]string{"nothing", "Worker", "Drone", "Queen", "Tower", "Keep"}

// String returns the unit's name, e.g. "Queen".
func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return fmt.Sprintf("Unit(%d)", uint8(u))
}

// Letter returns the unit's upper-case letter (Q D W T K), or '?'.
func (u Unit) Letter() byte {
	if int(u) < len("?WDQTK") {
		return "?WDQTK"[u]
	}
	return '?'
}

// UnitOfLetter returns the unit named by a letter (either case), or NoUnit.
func UnitOfLetter(c byte) Unit {
	switch c | 0x20 {
	case 'w':
		return Worker
	case 'd':
		return Drone
	case 'q':
		return Queen
	case 't':
		return Tower
	case 'k':
		return Keep
	}
	return NoUnit
}

// IsZig reports whether u is a single piece (Worker, Drone or Queen).
func (u Unit) IsZig() bool { return u >= Worker && u <= Queen }

// Square is a board square; the zero value NoSquare is no square. Valid
// squares run from a1 = 1 to f6 = 36, rank by rank.
type Square uint8

// NoSquare is the zero Square, used where a move has no such square.
const NoSquare Square = 0

// SquareAt returns the square of file 0..5 (a..f) and rank 1..6, or NoSquare
// when that is off the board.
func SquareAt(file, rank int) Square {
	if file < 0 || file >= Files || rank < 1 || rank > Ranks {
		return NoSquare
	}
	return Square(1 + file + Files*(rank-1))
}

// Valid reports whether q is a square of the board.
func (q Square) Valid() bool { return q >= 1 && q <= NumSquares }

// File returns 0..5 for files a..f.
func (q Square) File() int { return int(q-1) % Files }

// Rank returns 1..6 as written.
func (q Square) Rank() int { return int(q-1)/Files + 1 }

// String returns the square as written, e.g. "c4" ("-" for NoSquare).
func (q Square) String() string {
	if !q.Valid() {
		if q == NoSquare {
			return "-"
		}
		return fmt.Sprintf("Square(%d)", uint8(q))
	}
	return string([]byte{byte('a' + q.File()), byte('0' + q.Rank())})
}

// idx is the board index 0..35 of a valid square.
func (q Square) idx() int { return int(q) - 1 }

func sq(i int) Square { return Square(i + 1) }

// Piece is one Icehouse piece: a size (Worker, Drone or Queen) and a side.
// The zero Piece is no piece.
type Piece uint8

// MakePiece returns side's piece of the given size (Worker, Drone or Queen).
func MakePiece(side int, size Unit) Piece { return Piece(size) | Piece(side&1)<<2 }

// Size returns Worker, Drone or Queen (NoUnit for no piece).
func (p Piece) Size() Unit { return Unit(p & 3) }

// Side returns the owner of the piece.
func (p Piece) Side() int { return int(p>>2) & 1 }

// Letter is the piece letter, upper case for South, lower case for North.
func (p Piece) Letter() byte {
	c := p.Size().Letter()
	if p.Side() == North {
		c |= 0x20
	}
	return c
}

// Stack is the content of one square: up to MaxHeight pieces, bottom first,
// packed three bits each. The zero Stack is an empty square; a Stack of one
// piece is a zig.
type Stack uint16

// StackOf returns the stack of the given pieces, bottom first.
func StackOf(pieces ...Piece) Stack {
	var s Stack
	for _, p := range pieces {
		s = s.push(p)
	}
	return s
}

// Len is the number of pieces.
func (s Stack) Len() int { return (bits.Len16(uint16(s)) + 2) / 3 }

// At returns piece i, 0 being the bottom.
func (s Stack) At(i int) Piece { return Piece(s>>(3*uint(i))) & 7 }

// Top returns the top piece (0 for an empty square).
func (s Stack) Top() Piece {
	n := s.Len()
	if n == 0 {
		return 0
	}
	return s.At(n - 1)
}

// Owner is the side that owns the unit (the owner of its top piece), or -1
// for an empty square.
func (s Stack) Owner() int {
	if s == 0 {
		return -1
	}
	return s.Top().Side()
}

// Kind returns the unit on the square: NoUnit, the size of a lone zig, or
// Tower or Keep for a stack (see KindByTopTwo).
func (s Stack) Kind() Unit {
	n := s.Len()
	switch n {
	case 0:
		return NoUnit
	case 1:
		return s.At(0).Size()
	}
	top, ref := s.At(n-1).Size(), s.At(n-2).Size()
	if !KindByTopTwo {
		ref = s.At(0).Size()
	}
	if top < ref {
		return Tower
	}
	return Keep
}

// Smallest and Largest return the sizes of the smallest and largest pieces.
func (s Stack) Smallest() Unit {
	m := Unit(Queen)
	for i, n := 0, s.Len(); i < n; i++ {
		m = min(m, s.At(i).Size())
	}
	return m
}

// Largest returns the size of the largest piece.
func (s Stack) Largest() Unit {
	m := NoUnit
	for i, n := 0, s.Len(); i < n; i++ {
		m = max(m, s.At(i).Size())
	}
	return m
}

func (s Stack) push(p Piece) Stack       { return s | Stack(p)<<(3*uint(s.Len())) }
func (s Stack) pushBottom(p Piece) Stack { return s<<3 | Stack(p) }
func (s Stack) pop() Stack               { return s & (1<<(3*uint(s.Len()-1)) - 1) }

// String draws the unit: "." empty, "q" a zig, "[WQd]" a stack bottom to top
// (upper case South, lower case North).
func (s Stack) String() string {
	n := s.Len()
	switch n {
	case 0:
		return "."
	case 1:
		return string(s.At(0).Letter())
	}
	b := make([]byte, 0, n+2)
	b = append(b, '[')
	for i := range n {
		b = append(b, s.At(i).Letter())
	}
	return string(append(b, ']'))
}

// Kind is the kind of a move.
type Kind uint8

// Move kinds.
const (
	Pass  Kind = iota // no move (only when no other move exists)
	Step              // the Unit on From moves to To, capturing what is there
	Exit              // the zig on From, or the top of the stack on From, leaves the board
	Place             // a reserve piece of size Unit is placed on To
)

// Move is one turn. Fields a kind does not use are zero: a pass is Move{}.
// For Step and Exit, Unit names the unit on From (Q D W for a zig, Tower or
// Keep for a stack); for Place it is the size placed.
type Move struct {
	Kind Kind
	Unit Unit
	From Square
	To   Square
}

// String writes the move like the notation, always with "-" (a Move does not
// know whether it captures).
func (m Move) String() string {
	switch m.Kind {
	case Pass:
		return "pass"
	case Step:
		return string(m.Unit.Letter()) + m.From.String() + "-" + m.To.String()
	case Exit:
		return string(m.Unit.Letter()) + m.From.String() + "-off"
	case Place:
		return string(m.Unit.Letter()) + "@" + m.To.String()
	}
	return fmt.Sprintf("Move{%d %d %d %d}", m.Kind, m.Unit, m.From, m.To)
}

// Rules is the game ziggurat.
type Rules struct{}

var _ engine.Rules = Rules{}

// ID implements engine.Rules.
func (Rules) ID() string { return "ziggurat" }

// RandomFirst: the referee draws the first player at random (RULES.md:
// "First player: drawn at random by the referee").
func (Rules) RandomFirst() bool { return true }

// Summary implements engine.Rules.
func (Rules) Summary() string {
	return "Ziggurat: Icehouse stacks on a 6x6 board; exit a Queen, Drone and Worker"
}

// Help implements engine.Rules.
func (Rules) Help() string { return help }

const help = `Ziggurat, an Icehouse game for two players on a 6x6 board.

South starts on rank 1 and moves up, North on rank 6 and moves down.
Each side has 3 Queens (size 3), 3 Drones (2) and 3 Workers (1). Setup
on the home rank, files a-f: Q D W W D Q; one Q, D and W stay in
reserve.
The first player is drawn by the referee ([FirstPlayer], else South).

A square holds a zig (one piece) or a stack (pieces bottom to top). The
owner of a unit is the owner of its top piece. A stack is a Tower if its
top is smaller than the piece under it, a Keep if larger.

A turn moves one unit you own, or places a reinforcement:
- Zig: slides diagonally 1 up to its size squares over empty squares;
  forward it may end on an empty square or capture, backward it may
  only capture.
- Tower: moves like a knight in any direction; one of its two paths
  (straight then diagonal, or diagonal then straight) must have an
  empty first square. It ends on an empty square or captures.
- Keep: slides orthogonally over empty squares, at most as far as the
  size of its smallest piece. Keeps never capture.
- Reinforcement: put a reserve piece on an empty square of your home
  rank where that size started (Q on a/f, D on b/e, W on c/d).

Captures (the target belongs to the opponent; stacks bottom to top):
- zig s onto a lone zig s-1 makes a Keep [s-1 s]; onto a lone zig s+1
  a Tower [s+1 s];
- zig s onto a Keep whose top is s-1, or onto a Tower whose top is s+1:
  the zig goes on top;
- Tower onto a lone zig one size smaller than its smallest piece, or
  one size larger than its largest: the zig goes to the bottom.

Exits: a zig exits by a forward diagonal slide that reaches the row
beyond the far rank within its size, over empty squares and within
files a-f. The top piece of a Tower or Keep on the far rank may exit
as a whole turn. A side exits at most one piece of each size.

The game ends when a side has exited a Queen, a Drone and a Worker (it
wins), or when a side has, for a size it has not exited, no piece of
that size in reserve and all of them inside stacks topped by the
opponent (it loses). Checked after each move in this order: the
mover's exit win, the opponent's loss, the mover's loss. A side with no
legal move must pass; two passes in a row draw. So does a third
occurrence of the same position.
`

// Sides implements engine.Rules.
func (Rules) Sides(o engine.Options) ([]string, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return []string{sideNames[0], sideNames[1]}, nil
}

func checkOptions(o engine.Options) error {
	if o.Players != 0 && o.Players != 2 {
		return fmt.Errorf("ziggurat: %d players: the game is for 2", o.Players)
	}
	if o.Board != "" {
		return fmt.Errorf("ziggurat: board %q: the game has one board", o.Board)
	}
	if o.First != South && o.First != North {
		return fmt.Errorf("ziggurat: first side %d: want 0 (South) or 1 (North)", o.First)
	}
	return nil
}

// setup is the home-rank order of sizes, files a-f.
var setup = [Files]Unit{Queen, Drone, Worker, Worker, Drone, Queen}

// SetupUnit returns the size that starts on file 0..5 (a..f) of the home
// ranks, the only size a reinforcement may take there (NoUnit off the board).
func SetupUnit(file int) Unit {
	if file < 0 || file >= Files {
		return NoUnit
	}
	return setup[file]
}

// homeRank is each side's home rank.
var homeRank = [2]int{1, Ranks}

// Start implements engine.Rules. Options.First picks the side that moves
// first (the record's FirstPlayer).
func (Rules) Start(o engine.Options) (engine.State, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	s := &State{toMove: uint8(o.First)}
	for side := range 2 {
		for f, size := range setup {
			s.board[SquareAt(f, homeRank[side]).idx()] = StackOf(MakePiece(side, size))
		}
		for size := Worker; size <= Queen; size++ {
			s.reserve[side][size] = 1
		}
	}
	s.index()
	s.judge()
	return s, nil
}

// Setup describes a position for NewState.
type Setup struct {
	// Board holds the unit on each square, indexed by Square.
	Board map[Square]Stack
	// Reserve[side][size] counts reserve pieces; Exited[side][size] marks
	// exited sizes (sizes are Worker, Drone, Queen).
	Reserve [2][4]int
	Exited  [2][4]bool
	ToMove  int
	// Passes is the number of passes just played in a row.
	Passes int
}

// NewState builds a position from a Setup, which must keep the invariants
// (see State.Check): every side's nine pieces are on the board, in reserve
// or exited.
func NewState(p Setup) (*State, error) {
	s, err := build(p)
	if err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// build makes a State from p without checking piece conservation (tests use
// partial positions).
func build(p Setup) (*State, error) {
	s := &State{}
	for q, st := range p.Board {
		if !q.Valid() {
			return nil, fmt.Errorf("ziggurat: no such square %s", q)
		}
		s.board[q.idx()] = st
	}
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			n := p.Reserve[side][size]
			if n < 0 || n > 3 {
				return nil, fmt.Errorf("ziggurat: %s reserve of %d %ss", sideNames[side], n, size)
			}
			s.reserve[side][size] = uint8(n)
			s.exited[side][size] = p.Exited[side][size]
		}
	}
	if p.ToMove != South && p.ToMove != North {
		return nil, fmt.Errorf("ziggurat: side to move %d", p.ToMove)
	}
	if p.Passes < 0 || p.Passes > PassesToDraw {
		return nil, fmt.Errorf("ziggurat: %d passes in a row", p.Passes)
	}
	s.toMove, s.passes = uint8(p.ToMove), uint8(p.Passes)
	s.index()
	s.judge()
	return s, nil
}

// State is a position. It is immutable: Apply returns a new State.
type State struct {
	board   [NumSquares]Stack
	reserve [2][4]uint8 // [side][size]
	exited  [2][4]bool  // [side][size]
	toMove  uint8
	passes  uint8 // passes played in a row just before this position
	end     ending
	// held counts, in four bits at 4*(4*side+size), side's pieces of each
	// size in units side owns (lostSizes), kept up to date square by
	// square as moves change the board (see index).
	held uint32
}

// index computes held from the whole board.
func (s *State) index() {
	s.held = 0
	for _, st := range s.board {
		s.held += holdOf(st)
	}
}

// set puts st on board index i, keeping held.
func (s *State) set(i int, st Stack) {
	s.held += holdOf(st) - holdOf(s.board[i])
	s.board[i] = st
}

// holdOf is what st adds to held: one at 4*(4*owner+size) for each piece
// of the owner's in it, the top included.
func holdOf(st Stack) uint32 {
	if st < 8 { // empty or a zig: the piece's value is 4*side+size
		if st == 0 {
			return 0
		}
		return 1 << (4 * uint(st))
	}
	n := st.Len()
	owner := st.At(n - 1).Side()
	var h uint32
	for i := range n {
		if p := st.At(i); p.Side() == owner && p.Size() >= Worker && p.Size() <= Queen {
			h += 1 << (4 * uint(p))
		}
	}
	return h
}

// ending is the outcome, decided when the position is made.
type ending struct {
	how  uint8 // endNone, endExit, endLost, endPasses
	side uint8 // the winner (endExit) or the loser (endLost)
	size Unit  // the size whose control was lost
}

const (
	endNone uint8 = iota
	endExit
	endLost
	endPasses
)

var _ engine.State = (*State)(nil)

// Sides implements engine.State.
func (s *State) Sides() []string { return []string{sideNames[0], sideNames[1]} }

// ToMove implements engine.State.
func (s *State) ToMove() int { return int(s.toMove) }

// At returns the unit on q (empty for an invalid square).
func (s *State) At(q Square) Stack {
	if !q.Valid() {
		return 0
	}
	return s.board[q.idx()]
}

// Reserve returns how many pieces of size side holds in reserve.
func (s *State) Reserve(side int, size Unit) int {
	if !size.IsZig() {
		return 0
	}
	return int(s.reserve[side&1][size])
}

// Exited reports whether side has exited a piece of size.
func (s *State) Exited(side int, size Unit) bool {
	return size.IsZig() && s.exited[side&1][size]
}

// Passes is the number of passes played in a row just before this position.
func (s *State) Passes() int { return int(s.passes) }

// Outcome implements engine.State.
func (s *State) Outcome() engine.Outcome {
	switch s.end.how {
	case endExit:
		return engine.Win(2, int(s.end.side), sideNames[s.end.side]+" exited a Queen, a Drone and a Worker")
	case endLost:
		return engine.Win(2, 1-int(s.end.side), fmt.Sprintf("%s lost control of its %ss", sideNames[s.end.side], s.end.size))
	case endPasses:
		return engine.Draw(2, "two passes in a row")
	}
	return engine.Ongoing
}

// judge decides the outcome after a move by the side not to move, checking
// in order: the mover's exit win, the opponent's loss, the mover's loss, and
// the passes in a row.
func (s *State) judge() {
	mover := 1 - int(s.toMove)
	s.end = ending{}
	if s.exited[mover][Worker] && s.exited[mover][Drone] && s.exited[mover][Queen] {
		s.end = ending{how: endExit, side: uint8(mover)}
		return
	}
	lost := s.lostSizes()
	for _, side := range [2]int{1 - mover, mover} {
		if lost[side] != NoUnit {
			s.end = ending{how: endLost, side: uint8(side), size: lost[side]}
			return
		}
	}
	if s.passes >= PassesToDraw {
		s.end = ending{how: endPasses}
	}
}

// lostSizes returns, for each side, the smallest size it has lost control
// of (NoUnit for none): not exited, none in reserve, and every piece of it
// inside a stack topped by the opponent.
func (s *State) lostSizes() [2]Unit {
	var lost [2]Unit
	// Bit 0 of each count of held: set when both sides hold some of every
	// size (counts are at most 3), and then nothing is lost.
	const every = 1<<(4*1) | 1<<(4*2) | 1<<(4*3) | 1<<(4*5) | 1<<(4*6) | 1<<(4*7)
	if (s.held|s.held>>1)&every == every {
		return lost
	}
	var need uint8 // bit 4*side+size: a size the side needs held
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			if !s.exited[side][size] && s.reserve[side][size] == 0 {
				need |= 1 << (4*side + int(size))
			}
		}
	}
	if need == 0 {
		return lost
	}
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			f := 4*side + int(size)
			if need&(1<<f) != 0 && s.held>>(4*f)&15 == 0 {
				lost[side] = size
				break
			}
		}
	}
	return lost
}

// Key implements engine.State: the board, reserves, exited pieces and the
// side to move. The count of passes just made is not part of the position
// (RULES.md, common rulings): a pass that changes nothing on the board
// repeats the position before it, one side to move later.
func (s *State) Key() string {
	var b [2*NumSquares + 4]byte
	s.key(&b)
	return string(b[:])
}

// Hash implements engine.Hasher: a hash of what Key spells out (the board
// read four squares at a time, then the reserves, exited pieces and side
// to move), without building the string. Each pair of words is mixed by a
// full 128-bit product with seeds drawn for the run, as wyhash does.
func (s *State) Hash() uint64 {
	var rest uint64
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			rest |= uint64(s.reserve[side][size]) << (8*side + 2*int(size))
			if s.exited[side][size] {
				rest |= 1 << (16 + 4*side + int(size))
			}
		}
	}
	rest |= uint64(s.toMove) << 24
	b, k := &s.board, &hashSeeds
	x := engine.Mix(stacks(b, 0)^k[0], stacks(b, 4)^k[1]) ^ engine.Mix(stacks(b, 8)^k[2], stacks(b, 12)^k[3]) ^
		engine.Mix(stacks(b, 16)^k[4], stacks(b, 20)^k[5]) ^ engine.Mix(stacks(b, 24)^k[6], stacks(b, 28)^k[7]) ^
		engine.Mix(stacks(b, 32)^k[8], rest^k[9])
	return engine.Mix(x^k[10], k[11])
}

// stacks reads the four stacks of b from i as one number.
func stacks(b *[NumSquares]Stack, i int) uint64 {
	w := b[i : i+4]
	return uint64(w[0]) | uint64(w[1])<<16 | uint64(w[2])<<32 | uint64(w[3])<<48
}

// hashSeeds make hashes differ from one run to the next.
var hashSeeds = engine.HashKeys()

// key writes Key into b.
func (s *State) key(b *[2*NumSquares + 4]byte) {
	for i, st := range s.board {
		b[2*i], b[2*i+1] = byte(st), byte(st>>8)
	}
	k := 2 * NumSquares
	for side := range 2 {
		var r, e byte
		for size := Worker; size <= Queen; size++ {
			r |= s.reserve[side][size] << (2 * size)
			if s.exited[side][size] {
				e |= 1 << size
			}
		}
		b[k+side] = r
		b[k+2] |= e << (4 * uint(side))
	}
	b[k+3] = s.toMove
}

// Check implements engine.State: stacks are well formed (pieces contiguous,
// no two adjacent pieces of one size), and each side's three pieces of each
// size are on the board, in reserve or exited (at most one exited, at most
// one in reserve).
func (s *State) Check() error {
	var count [2][4]int
	for i, st := range s.board {
		n := st.Len()
		if n > MaxHeight {
			return fmt.Errorf("ziggurat: %s holds %d pieces", sq(i), n)
		}
		for j := range n {
			p := st.At(j)
			if p.Size() == NoUnit {
				return fmt.Errorf("ziggurat: %s holds a gap at height %d: %s", sq(i), j, st)
			}
			if j > 0 && p.Size() == st.At(j-1).Size() {
				return fmt.Errorf("ziggurat: %s stacks two pieces of one size: %s", sq(i), st)
			}
			count[p.Side()][p.Size()]++
		}
	}
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			r, e := int(s.reserve[side][size]), 0
			if s.exited[side][size] {
				e = 1
			}
			if r > 1 {
				return fmt.Errorf("ziggurat: %s has %d %ss in reserve, want at most 1", sideNames[side], r, size)
			}
			if got := count[side][size] + r + e; got != 3 {
				return fmt.Errorf("ziggurat: %s has %d %ss (board %d, reserve %d, exited %d), want 3",
					sideNames[side], got, size, count[side][size], r, e)
			}
		}
	}
	if s.toMove > 1 || int(s.passes) > PassesToDraw {
		return fmt.Errorf("ziggurat: side to move %d, passes %d", s.toMove, s.passes)
	}
	return nil
}

// errNotState is returned when a foreign State is given.
var errNotState = errors.New("ziggurat: not a ziggurat position")

// Of returns the ziggurat position held by an engine.State.
func Of(s engine.State) (*State, error) {
	z, ok := s.(*State)
	if !ok || z == nil {
		return nil, errNotState
	}
	return z, nil
}

func article(u Unit) string {
	return "a " + u.String()
}
