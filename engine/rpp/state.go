package rpp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"pbem/engine"
)

// Piece states within a cell, 2 bits per size.
const (
	absent = 0
	free   = 1 // free, or the outermost piece of a nest
	nested = 2 // inside the piece one size larger on the same cell
	top    = 3 // on top of an unresolved capture stack
)

// cellState holds the live pieces of a cell. All live pieces of a cell
// belong to one seat (a mover entering hostile pieces is blocked, captured,
// or captures every live piece there), so one owner suffices.
type cellState struct {
	owner uint8 // seat+1; 0 when the cell holds no live piece
	pcs   uint8 // state of S (bits 0-1), M (2-3) and L (4-5)
}

func (c cellState) get(z Size) uint8 { return c.pcs >> (2 * (z - 1)) & 3 }

func (c *cellState) set(z Size, st uint8) {
	sh := 2 * (z - 1)
	c.pcs = c.pcs&^(3<<sh) | st<<sh
}

// stack is an unresolved capture stack: its top piece (the live piece of
// size on cell) and the captured pieces under it, counted by owner and
// size. Stacks are kept by initiator: a seat initiates at most one stack
// at a time, since its own are resolved at the start of each of its turns.
type stack struct {
	on    bool
	size  Size
	cell  Cell
	under [MaxSeats]counts
}

// counts is how many pieces of each size a set holds, 5 bits a size: S in
// bits 0-4, M in 5-9, L in 10-14. Two sets add as numbers (no seat has
// more than PiecesPerSize of a size).
type counts uint16

// n is the count of size index z (0 for S, 1 for M, 2 for L).
func (c counts) n(z int) uint8 { return uint8(c>>(5*z)) & 31 }

// inc adds a piece of size index z.
func (c *counts) inc(z int) { *c += 1 << (5 * z) }

// total is the number of pieces of every size.
func (c counts) total() int { return int(c.n(0)) + int(c.n(1)) + int(c.n(2)) }

// State is a position of rpp: an immutable value.
type State struct {
	bi     uint8  // index into boardList
	nc     uint16 // cells of the board (newState)
	seats  int8
	toMove int8
	passes int8                       // consecutive passes
	nOut   int8                       // seats eliminated so far
	out    [MaxSeats]int8             // order of elimination (1, 2, ...), 0 = alive
	live   [MaxSeats]uint8            // live pieces per seat
	zc     uint64                     // xor of cellHash over the occupied cells, kept by Apply
	zr     uint64                     // restHash, kept by Apply
	stacks [MaxSeats]stack            // by initiator
	piles  [MaxSeats][MaxSeats]counts // capture piles: holder, owner
	cs     []cellState                // the cells, in the state's box (newState)
}

var (
	_ engine.State   = (*State)(nil)
	_ engine.Settler = (*State)(nil)
)

// A state's cells follow it in the same allocation, as many as its board
// has (newState): a position of square7 is about half the bytes of one of
// the octagon, and Apply allocates one per ply. The state reaches them by
// a slice into its own box (safe code: unsafe pointer arithmetic would
// spare the collector a pointer, for too little to be worth it).
type (
	box25 struct {
		s State
		c [25]cellState
	}
	box49 struct {
		s State
		c [49]cellState
	}
	box61 struct {
		s State
		c [61]cellState
	}
	box127 struct {
		s State
		c [127]cellState
	}
	box277 struct {
		s State
		c [277]cellState
	}
)

// newState returns an empty state with cells for a board of n cells.
func newState(n int) *State {
	var s *State
	switch n {
	case 25:
		b := new(box25)
		b.s.cs = b.c[:]
		s = &b.s
	case 49:
		b := new(box49)
		b.s.cs = b.c[:]
		s = &b.s
	case 61:
		b := new(box61)
		b.s.cs = b.c[:]
		s = &b.s
	case 127:
		b := new(box127)
		b.s.cs = b.c[:]
		s = &b.s
	case 277:
		b := new(box277)
		b.s.cs = b.c[:]
		s = &b.s
	default:
		panic(fmt.Sprintf("rpp: no state for a board of %d cells", n))
	}
	s.nc = uint16(n)
	return s
}

// cells are the state's cells, one per cell of its board.
func (s *State) cells() []cellState { return s.cs }

// cell is the state of cell c.
func (s *State) cell(c Cell) cellState { return s.cs[c] }

// clone returns a copy of s that shares nothing with it.
func (s *State) clone() *State {
	n := newState(int(s.nc))
	cs := n.cs
	*n = *s
	n.cs = cs // not s's cells
	copy(cs, s.cs)
	return n
}

// Board is the board the game is played on.
func (s *State) Board() *Board { return boardList[s.bi] }

func (s *State) board() *Board { return boardList[s.bi] }

// Seats is the number of seats.
func (s *State) Seats() int { return int(s.seats) }

// Sides names the seats: R, Y, ...
func (s *State) Sides() []string { return sides(int(s.seats)) }

// ToMove is the seat to move.
func (s *State) ToMove() int { return int(s.toMove) }

// Passes is the number of consecutive passes just played.
func (s *State) Passes() int { return int(s.passes) }

// Eliminated reports the order in which seat was eliminated (1 for the
// first), or 0 while it is alive.
func (s *State) Eliminated(seat int) int { return int(s.out[seat]) }

// Alive is the number of seats not eliminated.
func (s *State) Alive() int { return int(s.seats - s.nOut) }

// PieceState says where a piece is.
type PieceState uint8

// The states of a seat's piece on a cell.
const (
	Absent PieceState = absent
	Free   PieceState = free   // free, or outermost in a nest: it may move
	Nested PieceState = nested // inside a larger piece: it may not move
	Top    PieceState = top    // tops an unresolved capture stack
)

// At reports the seat whose live pieces are on c (-1 if none) and the
// state of its piece of size z there.
func (s *State) At(c Cell, z Size) (seat int, st PieceState) {
	cs := s.cells()[c]
	return int(cs.owner) - 1, PieceState(cs.get(z))
}

// Pile is how many pieces of owner's of size z are in holder's capture
// pile.
func (s *State) Pile(holder, owner int, z Size) int { return int(s.piles[holder][owner].n(int(z - 1))) }

// Effect is what a move does.
type Effect uint8

// The effects of a legal move.
const (
	Passing  Effect = iota + 1 // a pass
	Steps                      // onto an empty or friendly cell
	Captures                   // the mover captures (rule 3): written x
	Captured                   // the mover is captured on arrival (rule 2): written *
)

// Results of entering a cell: the per-action generator.
const (
	enFriendly = iota // a friendly piece of that size is there: illegal
	enBlocked         // a hostile piece of that size is there: illegal
	enStep
	enCaptured
	enCapture
)

// entry is what happens when seat's piece of size z enters cell to.
func (s *State) entry(seat int, z Size, to Cell) int {
	c := s.cell(to)
	if c.owner == 0 {
		return enStep
	}
	if int(c.owner)-1 == seat {
		if c.get(z) != absent {
			return enFriendly
		}
		return enStep
	}
	if c.get(z) != absent {
		return enBlocked
	}
	if st := c.get(beater(z)); st == free || st == top {
		return enCaptured
	}
	if st := c.get(beaten(z)); st != free && st != top {
		return enBlocked // unreachable: see cellState
	}
	return enCapture
}

// movable reports whether a piece in state st may move.
func movable(st uint8) bool { return st == free || (StackTopMayMove && st == top) }

// over reports whether the rules have ended the game, and why.
func (s *State) over() (bool, string) {
	alive := s.seats - s.nOut
	if alive <= 1 {
		return true, "last man standing"
	}
	if s.passes >= alive {
		return true, "standoff"
	}
	return false, ""
}

// Legal lists every legal move of the seat to move: each step of a movable
// piece to an adjacent cell that is not friendly-occupied by its size nor
// blocked, then pass.
func (s *State) Legal() []engine.Move {
	if o, _ := s.over(); o {
		return nil
	}
	// The moves come boxed from the board's table (boxedMoves): boxing
	// each anew was most of the cost of Legal.
	var buf [96]Move
	ms := s.AppendLegal(buf[:0])
	b := s.board()
	box := boxedMoves(b)
	out := make([]engine.Move, len(ms))
	for i, m := range ms {
		out[i] = boxMove(b, box, m)
	}
	return out
}

// boxMove is m as an engine.Move from the board's table of boxed moves.
func boxMove(b *Board, box [][]engine.Move, m Move) engine.Move {
	if m.Pass {
		return boxedPass
	}
	k := slices.Index(b.adj[m.From], m.To)
	return box[m.From][3*k+int(m.Piece)-1]
}

var _ engine.Picker = (*State)(nil)

// PickLegal draws Legal()[r.IntN(len(Legal()))] without making the list:
// only the move drawn is looked up in the board's table.
func (s *State) PickLegal(r *rand.Rand) (engine.Move, int) {
	if o, _ := s.over(); o {
		return nil, 0
	}
	var buf [96]Move
	ms := s.AppendLegal(buf[:0])
	if len(ms) == 0 {
		return nil, 0
	}
	m := ms[r.IntN(len(ms))]
	b := s.board()
	return boxMove(b, boxedMoves(b), m), len(ms)
}

// Boxed returns m as an engine.Move without allocating when it can: a
// pass, or a step of a piece to an adjacent cell, comes from the board's
// table (boxedMoves); anything else is boxed anew.
func (s *State) Boxed(m Move) engine.Move {
	if m == Pass {
		return boxedPass
	}
	b := s.board()
	if m.Pass || m.Piece < Small || m.Piece > Large || int(m.From) >= len(b.names) {
		return m
	}
	k := slices.Index(b.adj[m.From], m.To)
	if k < 0 {
		return m
	}
	return boxedMoves(b)[m.From][3*k+int(m.Piece)-1]
}

// boxedPass is Pass as an engine.Move, boxed once.
var boxedPass engine.Move = Pass

// numBoards is len(BoardNames).
const numBoards = 5

// boxed holds, per board, every step boxed as an engine.Move: [cell][3*k +
// size-1] is the step of that size from the cell to its k-th neighbour.
var boxed [numBoards]struct {
	once  sync.Once
	moves [][]engine.Move
}

// boxedMoves returns b's table of boxed steps, made on first use.
func boxedMoves(b *Board) [][]engine.Move {
	e := &boxed[b.idx]
	e.once.Do(func() {
		e.moves = make([][]engine.Move, len(b.names))
		for c := range b.names {
			e.moves[c] = make([]engine.Move, 3*len(b.adj[c]))
			for k, t := range b.adj[c] {
				for z := Small; z <= Large; z++ {
					e.moves[c][3*k+int(z)-1] = Move{Piece: z, From: Cell(c), To: t}
				}
			}
		}
	})
	return e.moves
}

// AppendLegal appends the legal moves to dst (the pass last) without
// boxing them; Legal is built on it.
func (s *State) AppendLegal(dst []Move) []Move {
	if o, _ := s.over(); o {
		return dst
	}
	seat := int(s.toMove)
	own := uint8(seat + 1)
	b := s.board()
	for c, cs := range s.cells() {
		if cs.owner != own {
			continue
		}
		for z := Large; z >= Small; z-- {
			if !movable(cs.get(z)) {
				continue
			}
			for _, t := range b.adj[c] {
				if s.entry(seat, z, t) >= enStep {
					dst = append(dst, Move{Piece: z, From: Cell(c), To: t})
				}
			}
		}
	}
	return append(dst, Pass)
}

// Classify checks m in this position and says what it does; a move that
// is not legal gets the error Apply would return.
func (s *State) Classify(m Move) (Effect, error) {
	if o, why := s.over(); o {
		return 0, engine.Illegal("the game is over (%s)", why)
	}
	if m.Pass {
		if m != Pass {
			return 0, engine.Illegal("a pass moves no piece")
		}
		return Passing, nil
	}
	switch e := s.check(m); e {
	case enStep:
		return Steps, nil
	case enCapture:
		return Captures, nil
	case enCaptured:
		return Captured, nil
	}
	return 0, s.diagnose(m)
}

// check runs the per-action generator on m: the result of entry, or -1
// when the piece may not make that step at all.
func (s *State) check(m Move) int {
	n := len(s.board().names)
	if m.Piece < Small || m.Piece > Large || int(m.From) >= n || int(m.To) >= n {
		return -1
	}
	seat := int(s.toMove)
	cs := s.cells()[m.From]
	if int(cs.owner)-1 != seat || !movable(cs.get(m.Piece)) || !s.board().Adjacent(m.From, m.To) {
		return -1
	}
	return s.entry(seat, m.Piece, m.To)
}

// diagnose names the rule that m, which check refused, breaks. It runs on
// the failure path only.
func (s *State) diagnose(m Move) error {
	n := len(s.board().names)
	if m.Piece < Small || m.Piece > Large {
		return engine.Illegal("no piece size %d (L, M or S)", m.Piece)
	}
	if int(m.From) >= n {
		return engine.Illegal("no such square %s", s.board().CellName(m.From))
	}
	if int(m.To) >= n {
		return engine.Illegal("no such square %s", s.board().CellName(m.To))
	}
	seat, from, to := int(s.toMove), s.board().CellName(m.From), s.board().CellName(m.To)
	z := m.Piece.Letter()
	cs := s.cells()[m.From]
	switch {
	case cs.owner == 0:
		return engine.Illegal("no piece on %s", from)
	case int(cs.owner)-1 != seat:
		return engine.Illegal("not your piece: %s holds %s's pieces", from, SeatLetters[cs.owner-1:cs.owner])
	}
	switch cs.get(m.Piece) {
	case absent:
		return engine.Illegal("no %c of yours on %s", z, from)
	case nested:
		return engine.Illegal("the %c on %s is nested: a nest un-nests L, then M, then S", z, from)
	case top:
		return engine.Illegal("the %c on %s tops an unresolved capture stack and may not move", z, from)
	}
	if !s.board().Adjacent(m.From, m.To) {
		return engine.Illegal("%s is not adjacent to %s: a piece moves one step", to, from)
	}
	t := s.cells()[m.To]
	switch s.entry(seat, m.Piece, m.To) {
	case enFriendly:
		what := "an"
		if t.get(m.Piece) == nested {
			what = "a nested"
		}
		return engine.Illegal("you already have %s %c on %s: one piece of each size per seat on a cell", what, z, to)
	case enBlocked:
		return engine.Illegal("blocked: %s's %c on %s (pieces of the same size block)", SeatLetters[t.owner-1:t.owner], z, to)
	}
	return engine.Illegal("the %c on %s may not move to %s", z, from, to)
}

// CanLeave implements engine.Leaver: in a game of three or more seats, a
// seat still in may leave (RULES.md: a leaver's pieces stay as they
// stand, never move again, and can be captured).
func (s *State) CanLeave(seat int) bool {
	o, _ := s.over()
	return !o && s.seats > 2 && seat >= 0 && seat < int(s.seats) && s.out[seat] == 0
}

// leave takes seat out: it counts as eliminated from now (its rank
// below every seat still in), its pieces stay; the count of passes in a
// row starts again; if it was to move, the turn goes on.
func (s *State) leave(l engine.Leave) (engine.State, error) {
	if l.Reason != engine.LeaveResign && l.Reason != engine.LeaveTime {
		return nil, engine.Illegal("a seat leaves by resign or time, not %q", l.Reason)
	}
	if !s.CanLeave(l.Seat) {
		if s.seats <= 2 {
			return nil, engine.Illegal("with two seats a resignation ends the game: no seat leaves it")
		}
		if o, why := s.over(); o {
			return nil, engine.Illegal("the game is over (%s)", why)
		}
		return nil, engine.Illegal("seat %c is out of the game already", SeatLetters[l.Seat])
	}
	n := s.clone()
	n.nOut++
	n.out[l.Seat] = n.nOut
	n.passes = 0
	if int(n.toMove) == l.Seat {
		n.advance(l.Seat) // may resolve stacks: both hashes anew
	}
	n.zc, n.zr = n.cellsHash(), n.restHash()
	return n, nil
}

// rejoin brings a seat that left (not one eliminated by capture) back
// into the turn order, its pieces as they stand: the seats out after it
// move up one place in the order of elimination, and the count of passes
// starts again.
func (s *State) rejoin(r engine.Rejoin) (engine.State, error) {
	if o, why := s.over(); o {
		return nil, engine.Illegal("the game is over (%s)", why)
	}
	if r.Seat < 0 || r.Seat >= int(s.seats) || s.out[r.Seat] == 0 {
		return nil, engine.Illegal("seat %c is in the game", SeatLetters[max(r.Seat, 0)])
	}
	if s.live[r.Seat] == 0 {
		return nil, engine.Illegal("seat %c has no live pieces left: it cannot come back", SeatLetters[r.Seat])
	}
	n := s.clone()
	was := n.out[r.Seat]
	n.out[r.Seat] = 0
	for i := range n.seats {
		if n.out[i] > was {
			n.out[i]--
		}
	}
	n.nOut--
	n.passes = 0
	n.zc, n.zr = n.cellsHash(), n.restHash()
	return n, nil
}

// Apply plays m and returns the new position.
func (s *State) Apply(em engine.Move) (engine.State, error) {
	if l, ok := em.(engine.Leave); ok {
		return s.leave(l)
	}
	if r, ok := em.(engine.Rejoin); ok {
		return s.rejoin(r)
	}
	m, ok := em.(Move)
	if !ok {
		if p, isPtr := em.(*Move); isPtr && p != nil {
			m = *p
		} else {
			return nil, engine.Illegal("not an rpp move: %T", em)
		}
	}
	if o, why := s.over(); o {
		return nil, engine.Illegal("the game is over (%s)", why)
	}
	seat := int(s.toMove)
	n := s.clone()
	if m.Pass {
		if m != Pass {
			return nil, engine.Illegal("a pass moves no piece")
		}
		n.passes++
		n.advance(seat)
		n.rehashFrom(s, m, 0)
		return n, nil
	}
	e := s.check(m)
	if e < enStep {
		return nil, s.diagnose(m)
	}
	n.passes = 0
	n.play(seat, m, e)
	n.rehashFrom(s, m, e)
	return n, nil
}

// rehashFrom brings n.zc and n.zr up to date after m from s: the only
// cells a move changes are a step's two ends and the cells of the stacks
// that stood before it (a stack resolves on its own cell, also on a pass;
// a new one stands on m.To); eliminations, stacks and piles change only by
// a capture or where a stack stood.
func (n *State) rehashFrom(s *State, m Move, e int) {
	var seen [2 + MaxSeats]Cell
	k := 0
	add := func(c Cell) {
		for _, x := range seen[:k] {
			if x == c {
				return
			}
		}
		seen[k] = c
		k++
		n.zc ^= cellHash(c, s.cells()[c]) ^ cellHash(c, n.cells()[c])
	}
	if !m.Pass {
		add(m.From)
		add(m.To)
	}
	stood := false
	for i := range s.stacks[:s.seats] {
		if s.stacks[i].on {
			add(s.stacks[i].cell)
			stood = true
		}
	}
	if stood || (!m.Pass && e != enStep) {
		n.zr = n.restHash()
	}
}

// cellHash is a cell's share of the position hash: 0 for an empty cell,
// else a mix of the cell, its owner and its pieces.
func cellHash(c Cell, cs cellState) uint64 {
	if cs.owner == 0 {
		return 0
	}
	return mix64(uint64(c)<<16 | uint64(cs.owner)<<8 | uint64(cs.pcs))
}

// mix64 is splitmix64's finaliser: every input bit moves every output bit.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// cellsHash computes zc from scratch.
func (s *State) cellsHash() uint64 {
	var h uint64
	for c := range s.cells() {
		h ^= cellHash(Cell(c), s.cells()[c])
	}
	return h
}

// play makes the step m of seat, whose entry is e, on n.
func (n *State) play(seat int, m Move, e int) {
	z, t := m.Piece, m.To
	n.lift(m.From, z)
	tc := &n.cells()[t]
	switch e {
	case enStep:
		tc.owner = uint8(seat + 1)
		tc.set(z, free)
	case enCaptured: // rule 2: the piece that beats the mover tops the stack
		w := beater(z)
		n.live[seat]--
		var st stack
		if tc.get(w) == top {
			i := n.stackAt(t, w)
			st = n.stacks[i]
			n.stacks[i] = stack{}
		} else {
			tc.set(w, top)
			st = stack{on: true, size: w, cell: t}
		}
		st.under[seat].inc(int(z - 1))
		n.stacks[seat] = st
	case enCapture: // rule 3: the mover takes the piece it beats, and all under it
		b, o := beaten(z), int(tc.owner)-1
		st := stack{on: true, size: z, cell: t}
		if tc.get(b) == top {
			i := n.stackAt(t, b)
			st.under = n.stacks[i].under
			n.stacks[i] = stack{}
		}
		for k := b; k >= Small; k-- {
			if k != b && tc.get(k) != nested {
				break
			}
			st.under[o].inc(int(k - 1))
			n.live[o]--
		}
		*tc = cellState{owner: uint8(seat + 1)}
		tc.set(z, top)
		n.stacks[seat] = st
		n.eliminate(o)
	}
	n.eliminate(seat)
	if !ResolveAtInitiatorsTurn && n.stacks[seat].on {
		n.resolve(seat)
	}
	n.advance(seat)
}

// lift takes the piece of size z off cell c; the piece nested in it, if
// any, becomes the outermost of what is left of the nest.
func (n *State) lift(c Cell, z Size) {
	cs := &n.cells()[c]
	cs.set(z, absent)
	if z > Small && cs.get(z-1) == nested {
		cs.set(z-1, free)
	}
	if cs.pcs == 0 {
		cs.owner = 0
	}
}

// stackAt is the initiator of the stack whose top is the piece of size z on
// cell c.
func (n *State) stackAt(c Cell, z Size) int {
	for i := range n.stacks[:n.seats] {
		if st := &n.stacks[i]; st.on && st.cell == c && st.size == z {
			return i
		}
	}
	panic(fmt.Sprintf("rpp: no stack under the %c on %s", z.Letter(), n.board().CellName(c)))
}

// eliminate marks seat eliminated if it has no live piece left.
func (n *State) eliminate(seat int) {
	if n.live[seat] == 0 && n.out[seat] == 0 {
		n.nOut++
		n.out[seat] = n.nOut
	}
}

// advance passes the turn on from seat to the next seat not eliminated,
// resolving the stacks of every seat whose turn starts or is skipped.
func (n *State) advance(seat int) {
	if o, why := n.over(); o && why == "last man standing" {
		return
	}
	for k := 1; k <= int(n.seats); k++ {
		i := (seat + k) % int(n.seats)
		if ResolveAtInitiatorsTurn && n.stacks[i].on {
			n.resolve(i)
		}
		if n.out[i] == 0 {
			n.toMove = int8(i)
			return
		}
	}
}

// resolve moves the pieces under initiator's stack to a capture pile and
// frees its top.
func (n *State) resolve(initiator int) {
	st := &n.stacks[initiator]
	c := &n.cells()[st.cell]
	holder := int(c.owner) - 1
	if !PileToTopOwner {
		holder = initiator
	}
	for o := range n.seats {
		n.piles[holder][o] += st.under[o]
	}
	c.set(st.size, free)
	*st = stack{}
}

// Outcome is the game's own end: last man standing, or a standoff (as
// many consecutive passes as surviving seats).
func (s *State) Outcome() engine.Outcome {
	o, why := s.over()
	if !o {
		return engine.Ongoing
	}
	if why == "last man standing" {
		r := make([]int, s.seats)
		for i := range r {
			if s.out[i] == 0 {
				r[i] = 1
			} else {
				r[i] = 2 + int(s.nOut-s.out[i])
			}
		}
		return engine.Outcome{Over: true, Rank: r, Reason: why}
	}
	return s.Settle(why)
}

// Settle ends the game here (standoff, stalemate by agreement, or
// repetition): resolve all stacks, rank the surviving seats by the pieces
// in their capture piles, recount ties once on the pieces owned by the
// tied seats only; eliminated seats follow in reverse order of
// elimination.
func (s *State) Settle(reason string) engine.Outcome {
	t := s.clone()
	for i := range t.seats {
		if t.stacks[i].on {
			t.resolve(int(i))
		}
	}
	seats := int(t.seats)
	var total, recount [MaxSeats]int
	for i := range seats {
		for o := range seats {
			total[i] += t.pileOf(i, o)
		}
	}
	// The recount: the pieces of the surviving seats with the same total
	// (the tied seats, i included). It only decides between equal totals.
	for i := range seats {
		for o := range seats {
			if t.out[o] == 0 && total[o] == total[i] {
				recount[i] += t.pileOf(i, o)
			}
		}
	}
	alive := seats - int(t.nOut)
	r := make([]int, seats)
	for i := range seats {
		if t.out[i] != 0 {
			r[i] = alive + 1 + int(t.nOut-t.out[i])
			continue
		}
		r[i] = 1
		for j := range seats {
			if t.out[j] == 0 && (total[j] > total[i] || total[j] == total[i] && recount[j] > recount[i]) {
				r[i]++
			}
		}
	}
	if !SharedPlaceSkips {
		r = dense(r)
	}
	return engine.Outcome{Over: true, Rank: r, Reason: reason}
}

// dense renumbers ranks 1, 2, ... without gaps after shared places.
func dense(r []int) []int {
	out := make([]int, len(r))
	for i := range r {
		below := map[int]bool{}
		for _, x := range r {
			if x < r[i] {
				below[x] = true
			}
		}
		out[i] = 1 + len(below)
	}
	return out
}

// pileOf counts the pieces of owner's in holder's capture pile.
func (s *State) pileOf(holder, owner int) int {
	return s.piles[holder][owner].total()
}

// Key identifies the full position: side to move, eliminations, every
// occupied cell, the stacks and the capture piles. The count of passes just
// made is not part of it (RULES.md, common rulings).
func (s *State) Key() string {
	var buf [1024]byte
	return string(s.key(buf[:0]))
}

// Hash implements engine.Hasher: the shares of the cells and of the rest
// (eliminations, stacks and piles) kept by Apply, with the side to move,
// so that equal keys hash equal without building the key.
func (s *State) Hash() uint64 {
	return mix64(s.zc ^ s.zr ^ uint64(s.toMove+1)*0x9e3779b97f4a7c15)
}

// restHash is the share of Key's bytes after the cells in Hash: folded
// word by word from the eliminations, stacks and piles.
func (s *State) restHash() uint64 {
	const prime = 0x100000001b3
	h := uint64(0xcbf29ce484222325)
	for i := range s.seats {
		h = (h ^ uint64(s.out[i])) * prime
	}
	for i := range s.seats {
		st := &s.stacks[i]
		if !st.on {
			continue
		}
		h = (h ^ uint64(i)<<24 ^ uint64(st.cell)<<8 ^ uint64(st.size)) * prime
		for o := range s.seats {
			h = (h ^ uint64(st.under[o])) * prime
		}
	}
	for i := range s.seats {
		for o := range s.seats {
			h = (h ^ uint64(s.piles[i][o])) * prime
		}
	}
	return mix64(h)
}

// key appends Key's bytes to k.
func (s *State) key(k []byte) []byte {
	k = append(k, byte(s.toMove))
	for i := range s.seats {
		k = append(k, byte(s.out[i]))
	}
	cells := s.cells()
	for c := range cells {
		if o := cells[c].owner; o != 0 {
			k = append(k, byte(c>>8), byte(c), o, cells[c].pcs)
		}
	}
	k = append(k, 0xff)
	return s.keyRest(k)
}

// keyRest appends the part of Key's bytes after the cells: stacks and
// piles.
func (s *State) keyRest(k []byte) []byte {
	for i := range s.seats {
		st := &s.stacks[i]
		if !st.on {
			continue
		}
		k = append(k, byte(i), byte(st.cell>>8), byte(st.cell), byte(st.size))
		for o := range s.seats {
			for z := range 3 {
				if x := st.under[o].n(z); x != 0 {
					k = append(k, byte(o<<2|int8(z)), x)
				}
			}
		}
		k = append(k, 0xfe)
	}
	k = append(k, 0xff)
	for h := range s.seats {
		for o := range s.seats {
			p := s.piles[h][o]
			if p == 0 {
				continue // most piles are empty
			}
			for z := range 3 {
				if x := p.n(z); x != 0 {
					k = append(k, byte(h<<5|o<<2|int8(z)), x)
				}
			}
		}
	}
	return k
}

// Check verifies the invariants: cells consistent (nests un-nest top down,
// stack tops match stacks), live counts, eliminations, and conservation of
// 5 pieces of each size per seat (live + in stacks + in piles).
func (s *State) Check() error {
	seats := int(s.seats)
	if seats < MinSeats || seats > MaxSeats {
		return fmt.Errorf("%d seats", seats)
	}
	var live [MaxSeats]int
	var count [MaxSeats][3]int
	tops := 0
	if len(s.cells()) != len(s.board().names) {
		return fmt.Errorf("%d cells on a board of %d", len(s.cells()), len(s.board().names))
	}
	for c, cs := range s.cells() {
		name := s.board().CellName(Cell(c))
		if cs.owner == 0 {
			if cs != (cellState{}) {
				return fmt.Errorf("cell %s: pieces %#x without an owner", name, cs.pcs)
			}
			continue
		}
		o := int(cs.owner) - 1
		if o >= seats || cs.pcs == 0 || cs.pcs>>6 != 0 {
			return fmt.Errorf("cell %s: owner %d, pieces %#x", name, cs.owner, cs.pcs)
		}
		for z := Small; z <= Large; z++ {
			st := cs.get(z)
			if st == absent {
				continue
			}
			live[o]++
			count[o][z-1]++
			if st == nested && (z == Large || (cs.get(z+1) != free && cs.get(z+1) != nested) ||
				(z > Small && cs.get(z-1) != nested)) {
				return fmt.Errorf("cell %s: a nested %c out of nest order", name, z.Letter())
			}
			if st == top {
				if z > Small && cs.get(z-1) == nested {
					return fmt.Errorf("cell %s: a stack top with a nested piece", name)
				}
				tops++
				found := 0
				for i := range seats {
					if x := &s.stacks[i]; x.on && x.cell == Cell(c) && x.size == z {
						found++
					}
				}
				if found != 1 {
					return fmt.Errorf("cell %s: the %c tops %d stacks, want 1", name, z.Letter(), found)
				}
			}
		}
	}
	for i := range s.stacks {
		st := &s.stacks[i]
		if !st.on {
			continue
		}
		if i >= seats {
			return fmt.Errorf("a stack of seat %d", i)
		}
		tops--
		if int(st.cell) >= len(s.board().names) || s.cells()[st.cell].get(st.size) != top {
			return fmt.Errorf("stack of %c on %s has no top", SeatLetters[i], s.board().CellName(st.cell))
		}
		n := 0
		for o := range seats {
			for z := range 3 {
				count[o][z] += int(st.under[o].n(z))
				n += int(st.under[o].n(z))
			}
		}
		if n == 0 {
			return fmt.Errorf("empty stack on %s", s.board().CellName(st.cell))
		}
	}
	if tops != 0 {
		return fmt.Errorf("%d stack tops without a stack", tops)
	}
	for h := range seats {
		for o := range seats {
			for z := range 3 {
				count[o][z] += int(s.piles[h][o].n(z))
			}
		}
	}
	var order [MaxSeats + 1]bool
	for i := range seats {
		for z := range 3 {
			if count[i][z] != PiecesPerSize {
				return fmt.Errorf("seat %c has %d %c pieces, want %d", SeatLetters[i], count[i][z], Size(z+1).Letter(), PiecesPerSize)
			}
		}
		if live[i] != int(s.live[i]) {
			return fmt.Errorf("seat %c has %d live pieces, counted %d", SeatLetters[i], live[i], s.live[i])
		}
		if live[i] == 0 && s.out[i] == 0 {
			// A seat out with live pieces left the game (Leave).
			return fmt.Errorf("seat %c has %d live pieces and elimination %d", SeatLetters[i], live[i], s.out[i])
		}
		if e := s.out[i]; e != 0 {
			if e < 0 || e > s.nOut || order[e] {
				return fmt.Errorf("seat %c eliminated %d of %d", SeatLetters[i], e, s.nOut)
			}
			order[e] = true
		}
	}
	if o, _ := s.over(); !o && s.out[s.toMove] != 0 {
		return fmt.Errorf("eliminated seat %c to move", SeatLetters[s.toMove])
	}
	if h := s.cellsHash(); h != s.zc {
		return fmt.Errorf("the cells hash %#x, kept %#x", h, s.zc)
	}
	if h := s.restHash(); h != s.zr {
		return fmt.Errorf("the rest hashes %#x, kept %#x", h, s.zr)
	}
	return nil
}
