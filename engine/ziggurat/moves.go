package ziggurat

import (
	"math/rand/v2"
	"pbem/engine"
)

// ray lists the board indexes along one direction from a square.
type ray struct {
	n  uint8
	sq [Files - 1]uint8
}

// leap is one Tower target with the first squares of its two paths.
type leap struct {
	to   uint8
	orth uint8 // after an orthogonal first step
	diag uint8 // after a diagonal first step
}

// Directions: diagonals (+1,+1) (-1,+1) (+1,-1) (-1,-1), orthogonals
// up, down, right, left.
var (
	diagDX = [4]int{1, -1, 1, -1}
	diagDY = [4]int{1, 1, -1, -1}
	orthDX = [4]int{0, 0, 1, -1}
	orthDY = [4]int{1, -1, 0, 0}
	// forward is the rank step of each side's forward direction.
	forward = [2]int{1, -1}
)

// Precomputed geometry; read only after init.
var (
	diagRays [NumSquares][4]ray
	orthRays [NumSquares][4]ray
	leaps    [NumSquares][]leap
)

// Boxed moves, so that Legal allocates only its slice: a Move stored in an
// interface would otherwise allocate. Read only after init.
var (
	boxStep  [Keep + 1][NumSquares + 1][NumSquares + 1]engine.Move
	boxExit  [Keep + 1][NumSquares + 1]engine.Move
	boxPlace [Queen + 1][NumSquares + 1]engine.Move
	boxPass  engine.Move = Move{}
)

func init() {
	for i := range NumSquares {
		f, r := sq(i).File(), sq(i).Rank()
		for d := range 4 {
			diagRays[i][d] = makeRay(f, r, diagDX[d], diagDY[d])
			orthRays[i][d] = makeRay(f, r, orthDX[d], orthDY[d])
		}
		for _, j := range [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}} {
			dx, dy := j[0], j[1]
			to := SquareAt(f+dx, r+dy)
			if to == NoSquare {
				continue
			}
			// The orthogonal first step goes along the long leg.
			ox, oy := 0, sign(dy)
			if abs(dx) == 2 {
				ox, oy = sign(dx), 0
			}
			leaps[i] = append(leaps[i], leap{
				to:   uint8(to.idx()),
				orth: uint8(SquareAt(f+ox, r+oy).idx()),
				diag: uint8(SquareAt(f+sign(dx), r+sign(dy)).idx()),
			})
		}
	}
	for u := Worker; u <= Keep; u++ {
		for from := Square(1); from <= NumSquares; from++ {
			boxExit[u][from] = Move{Kind: Exit, Unit: u, From: from}
			for to := Square(1); to <= NumSquares; to++ {
				boxStep[u][from][to] = Move{Kind: Step, Unit: u, From: from, To: to}
			}
			if u <= Queen {
				boxPlace[u][from] = Move{Kind: Place, Unit: u, To: from}
			}
		}
	}
}

func makeRay(f, r, dx, dy int) ray {
	var out ray
	for {
		f, r = f+dx, r+dy
		q := SquareAt(f, r)
		if q == NoSquare {
			return out
		}
		out.sq[out.n] = uint8(q.idx())
		out.n++
	}
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Box returns m as an engine.Move. Moves that can be legal come from a
// table built once, so boxing them does not allocate (Legal and decoders
// use it on hot paths).
func Box(m Move) engine.Move {
	if m.Unit > Keep || m.From > NumSquares || m.To > NumSquares {
		return m
	}
	switch m.Kind {
	case Step:
		if m.Unit == NoUnit || m.From == NoSquare || m.To == NoSquare {
			return m
		}
	case Exit:
		if m.Unit == NoUnit || m.From == NoSquare || m.To != NoSquare {
			return m
		}
	case Place:
		if !m.Unit.IsZig() || m.From != NoSquare || m.To == NoSquare {
			return m
		}
	case Pass:
		if m != (Move{}) {
			return m
		}
	default:
		return m
	}
	return box(m)
}

// box returns a legal-shaped m in an interface without allocating.
func box(m Move) engine.Move {
	switch m.Kind {
	case Step:
		return boxStep[m.Unit][m.From][m.To]
	case Exit:
		return boxExit[m.Unit][m.From]
	case Place:
		return boxPlace[m.Unit][m.To]
	}
	return boxPass
}

// zigCaptures reports whether a zig of the given size belonging to me may
// land on the unit t (the closed list of RULES.md: onto a lone zig one size
// smaller or larger, onto a Keep whose top is one size smaller, onto a
// Tower whose top is one size larger).
func zigCaptures(size Unit, t Stack, me int) bool {
	if t.Owner() == me {
		return false
	}
	ts := t.Top().Size()
	switch t.Kind() {
	case Keep:
		return ts+1 == size
	case Tower:
		return ts == size+1
	}
	return ts+1 == size || ts == size+1
}

// towerCaptures reports whether the Tower tw of me may land on t: only a
// lone enemy zig one size smaller than tw's smallest piece or one size larger
// than its largest.
func towerCaptures(tw, t Stack, me int) bool {
	if t.Len() != 1 || t.Owner() == me {
		return false
	}
	ts := t.Top().Size()
	return ts+1 == tw.Smallest() || ts == tw.Largest()+1
}

// edgeDistance is how many forward steps take side from rank to the
// imaginary rank beyond the opponent's home rank.
func edgeDistance(side, rank int) int {
	if side == South {
		return Ranks + 1 - rank
	}
	return rank
}

// zigExit reports whether the zig of size on square i can exit for me.
func (s *State) zigExit(i int, size Unit, me int) bool {
	if s.exited[me][size] {
		return false
	}
	q := sq(i)
	dist := edgeDistance(me, q.Rank())
	if dist > int(size) {
		return false
	}
	for d := range 4 {
		if diagDY[d] != forward[me] {
			continue
		}
		if f := q.File() + diagDX[d]*dist; f < 0 || f >= Files {
			continue
		}
		r := &diagRays[i][d]
		clear := true
		for k := 0; k < dist-1; k++ {
			if s.board[r.sq[k]] != 0 {
				clear = false
				break
			}
		}
		if clear {
			return true
		}
	}
	return false
}

// unitMoves appends the moves of the unit on square i, when the side to
// move owns it.
func (s *State) unitMoves(i int, dst []Move) []Move {
	st := s.board[i]
	me := int(s.toMove)
	if st == 0 || st.Owner() != me {
		return dst
	}
	from := sq(i)
	kind := st.Kind()
	switch kind {
	case Worker, Drone, Queen:
		size := kind
		for d := range 4 {
			fwd := diagDY[d] == forward[me]
			r := &diagRays[i][d]
			for k := 0; k < int(r.n) && k < int(size); k++ {
				j := r.sq[k]
				t := s.board[j]
				if t == 0 {
					if fwd {
						dst = append(dst, Move{Kind: Step, Unit: kind, From: from, To: sq(int(j))})
					}
					continue
				}
				if zigCaptures(size, t, me) {
					dst = append(dst, Move{Kind: Step, Unit: kind, From: from, To: sq(int(j))})
				}
				break
			}
		}
		if s.zigExit(i, size, me) {
			dst = append(dst, Move{Kind: Exit, Unit: kind, From: from})
		}
		return dst
	case Tower:
		for _, l := range leaps[i] {
			if s.board[l.orth] != 0 && s.board[l.diag] != 0 {
				continue
			}
			t := s.board[l.to]
			if t == 0 || towerCaptures(st, t, me) {
				dst = append(dst, Move{Kind: Step, Unit: Tower, From: from, To: sq(int(l.to))})
			}
		}
	case Keep:
		reach := int(st.Smallest())
		for d := range 4 {
			r := &orthRays[i][d]
			for k := 0; k < int(r.n) && k < reach; k++ {
				j := r.sq[k]
				if s.board[j] != 0 {
					break
				}
				dst = append(dst, Move{Kind: Step, Unit: Keep, From: from, To: sq(int(j))})
			}
		}
	}
	if from.Rank() == homeRank[1-me] && !s.exited[me][st.Top().Size()] {
		dst = append(dst, Move{Kind: Exit, Unit: kind, From: from})
	}
	return dst
}

// placements appends the reinforcements of the side to move.
func (s *State) placements(dst []Move) []Move {
	me := int(s.toMove)
	for f, size := range setup {
		q := SquareAt(f, homeRank[me])
		if s.reserve[me][size] > 0 && s.board[q.idx()] == 0 {
			dst = append(dst, Move{Kind: Place, Unit: size, To: q})
		}
	}
	return dst
}

// moves appends every legal move but a pass.
func (s *State) moves(dst []Move) []Move {
	me := int(s.toMove)
	for i, st := range s.board {
		if st != 0 && st.Owner() == me {
			dst = s.unitMoves(i, dst)
		}
	}
	return s.placements(dst)
}

// hasMove reports whether the side to move has a move other than a pass.
func (s *State) hasMove() bool {
	var buf [16]Move
	me := int(s.toMove)
	for i, st := range s.board {
		if st != 0 && st.Owner() == me && len(s.unitMoves(i, buf[:0])) > 0 {
			return true
		}
	}
	return len(s.placements(buf[:0])) > 0
}

// Moves returns the legal moves as Move values (Legal boxes them).
func (s *State) Moves() []Move {
	if s.end.how != endNone {
		return nil
	}
	var buf [256]Move
	ms := s.moves(buf[:0])
	if len(ms) == 0 {
		return []Move{{}}
	}
	return append([]Move(nil), ms...)
}

// Legal implements engine.State. It lists nothing once the game is over,
// and only a pass when the side to move has no other move.
func (s *State) Legal() []engine.Move {
	if s.end.how != endNone {
		return nil
	}
	var buf [256]Move
	ms := s.moves(buf[:0])
	if len(ms) == 0 {
		return []engine.Move{boxPass}
	}
	out := make([]engine.Move, len(ms))
	for i, m := range ms {
		out[i] = box(m)
	}
	return out
}

var _ engine.Picker = (*State)(nil)

// PickLegal draws Legal()[r.IntN(len(Legal()))] without making the list.
func (s *State) PickLegal(r *rand.Rand) (engine.Move, int) {
	if s.end.how != endNone {
		return nil, 0
	}
	var buf [256]Move
	ms := s.moves(buf[:0])
	if len(ms) == 0 {
		r.IntN(1) // Legal lists the pass alone, and the draw among one is made
		return boxPass, 1
	}
	return box(ms[r.IntN(len(ms))]), len(ms)
}

// isLegal reports whether generation lists m. It reads the board along
// m's own path only, as generation would for that target (TestLegalIsTheTruth
// offers it every move of every shape against the list).
func (s *State) isLegal(m Move) bool {
	me := int(s.toMove)
	switch m.Kind {
	case Pass:
		return m == Move{} && !s.hasMove()
	case Place:
		return m.From == NoSquare && m.To.Valid() && m.To.Rank() == homeRank[me] && setup[m.To.File()] == m.Unit &&
			s.reserve[me][m.Unit] > 0 && s.board[m.To.idx()] == 0
	case Step, Exit:
	default:
		return false
	}
	if !m.From.Valid() {
		return false
	}
	i := m.From.idx()
	st := s.board[i]
	if st == 0 || st.Owner() != me {
		return false
	}
	kind := st.Kind()
	if m.Unit != kind {
		return false
	}
	if m.Kind == Exit {
		if m.To != NoSquare {
			return false
		}
		if kind.IsZig() {
			return s.zigExit(i, kind, me)
		}
		return m.From.Rank() == homeRank[1-me] && !s.exited[me][st.Top().Size()]
	}
	if !m.To.Valid() {
		return false
	}
	j := m.To.idx()
	df, dr := offset(m.From, m.To)
	switch kind {
	case Tower:
		for _, l := range leaps[i] {
			if int(l.to) == j {
				if s.board[l.orth] != 0 && s.board[l.diag] != 0 {
					return false
				}
				t := s.board[j]
				return t == 0 || towerCaptures(st, t, me)
			}
		}
		return false
	case Keep:
		if (df == 0) == (dr == 0) {
			return false
		}
		k := abs(df) + abs(dr)
		if k > int(st.Smallest()) {
			return false
		}
		var d int // orthDX, orthDY: up, down, right, left
		switch {
		case dr > 0:
			d = 0
		case dr < 0:
			d = 1
		case df > 0:
			d = 2
		default:
			d = 3
		}
		r := &orthRays[i][d]
		for q := range k {
			if s.board[r.sq[q]] != 0 {
				return false
			}
		}
		return true
	}
	// A zig: a diagonal slide of at most its size over empty squares,
	// onto an empty square forward or a capture either way.
	k := abs(df)
	if k == 0 || abs(dr) != k || k > int(kind) {
		return false
	}
	d := 0 // diagDX, diagDY: (+1,+1) (-1,+1) (+1,-1) (-1,-1)
	if df < 0 {
		d |= 1
	}
	if dr < 0 {
		d |= 2
	}
	r := &diagRays[i][d]
	for q := range k - 1 {
		if s.board[r.sq[q]] != 0 {
			return false
		}
	}
	if t := s.board[j]; t != 0 {
		return zigCaptures(kind, t, me)
	}
	return diagDY[d] == forward[me]
}

// Apply implements engine.State. A move is accepted iff Legal lists it; a
// refused move gets an *engine.IllegalError naming the rule it breaks.
func (s *State) Apply(em engine.Move) (engine.State, error) {
	m, ok := em.(Move)
	if !ok {
		return nil, engine.Illegal("not a ziggurat move: %T", em)
	}
	n, err := s.Play(m)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Play is Apply for a Move, returning the concrete State.
func (s *State) Play(m Move) (*State, error) {
	if s.end.how != endNone {
		return nil, engine.Illegal("the game is over (%s)", s.Outcome().Reason)
	}
	if !s.isLegal(m) {
		return nil, s.explain(m)
	}
	n := *s
	me := int(s.toMove)
	n.passes = 0
	switch m.Kind {
	case Pass:
		n.passes = s.passes + 1
	case Step:
		from, to := m.From.idx(), m.To.idx()
		mv, t := n.board[from], n.board[to]
		n.set(from, 0)
		switch {
		case t == 0:
			n.set(to, mv)
		case mv.Len() == 1:
			n.set(to, t.push(mv.At(0))) // a zig lands on top
		default:
			n.set(to, mv.pushBottom(t.At(0))) // a Tower takes the zig under it
		}
	case Exit:
		from := m.From.idx()
		st := n.board[from]
		n.exited[me][st.Top().Size()] = true
		n.set(from, st.pop())
	case Place:
		n.set(m.To.idx(), StackOf(MakePiece(me, m.Unit)))
		n.reserve[me][m.Unit]--
	}
	n.toMove ^= 1
	n.judge()
	return &n, nil
}

// OwnUnit returns the unit on q if it belongs to the side to move, else the
// error Apply gives for moving it (no such square, no piece on q, or q is
// the opponent's).
func (s *State) OwnUnit(q Square) (Unit, error) {
	if !q.Valid() {
		return NoUnit, engine.Illegal("no such square %s", q)
	}
	st := s.board[q.idx()]
	if st == 0 {
		return NoUnit, engine.Illegal("no piece on %s", q)
	}
	if o := st.Owner(); o != int(s.toMove) {
		return NoUnit, engine.Illegal("%s is %s's: a side moves only units it owns", q, sideNames[o])
	}
	return st.Kind(), nil
}
