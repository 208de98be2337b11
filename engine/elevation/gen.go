package elevation

import (
	"math/bits"
	"math/rand/v2"
	"sync"

	"pbem/engine"
)

// Board tables, computed once.
var (
	adj   [NumSquares][8]Square // the neighbours of each square
	nAdj  [NumSquares]uint8
	isAdj [NumSquares][NumSquares]bool
	// diag2 holds the Fish double steps of each square: middle, target.
	diag2  [NumSquares][4][2]Square
	nDiag2 [NumSquares]uint8
)

func init() {
	for q := Square(0); q < NumSquares; q++ {
		for df := -1; df <= 1; df++ {
			for dr := -1; dr <= 1; dr++ {
				if df == 0 && dr == 0 {
					continue
				}
				f, r := q.File()+df, q.Rank()+dr
				if f >= 0 && f < Size && r >= 0 && r < Size {
					n := Sq(f, r)
					adj[q][nAdj[q]] = n
					nAdj[q]++
					isAdj[q][n] = true
				}
				f2, r2 := q.File()+2*df, q.Rank()+2*dr
				if df != 0 && dr != 0 && f2 >= 0 && f2 < Size && r2 >= 0 && r2 < Size {
					diag2[q][nDiag2[q]] = [2]Square{Sq(f, r), Sq(f2, r2)}
					nDiag2[q]++
				}
			}
		}
	}
}

// enemy reports whether q holds a piece of the side other than c (a side
// bit: 0 or blackBit).
func (s *State) enemy(q Square, c Piece) bool {
	t := s.cell[q]
	return t != NoPiece && t&blackBit != c
}

// digSource reports whether a tile may be taken from a (next to the piece).
func (s *State) digSource(a Square, c Piece) bool { return s.h[a] >= 1 && !s.enemy(a, c) }

// canStep reports whether a piece of side c on p may step to the adjacent
// square q climbing at most climb levels.
func (s *State) canStep(p, q Square, climb int, c Piece) bool {
	t := s.cell[q]
	if t == NoPiece {
		return int(s.h[q])-int(s.h[p]) <= climb
	}
	return t&blackBit != c && int(s.h[p])-int(s.h[q]) >= CaptureDrop
}

// canDouble reports whether a Fish of side c on p may double-step over m to q.
func (s *State) canDouble(p, m, q Square, c Piece) bool {
	return s.cell[m] == NoPiece && int(s.h[m])-int(s.h[p]) <= Climb && s.canStep(m, q, Climb, c)
}

// move puts the piece on p onto q and returns what q held.
func (s *State) move(p, q Square) Piece {
	t := s.cell[q]
	s.cell[q] = s.cell[p]
	s.cell[p] = NoPiece
	return t
}

// unmove undoes move(p, q) that returned t.
func (s *State) unmove(p, q Square, t Piece) {
	s.cell[p] = s.cell[q]
	s.cell[q] = t
}

func digKey(a, b Square) int { return int(a)*NumSquares + int(b) }

// Legal lists every legal turn of the side to move, once each: of two
// orders of the same independent actions (a dig and a step that commute,
// two digs) only one is listed.
func (s *State) Legal() []engine.Move {
	bp := movePool.Get().(*[]Move)
	buf := s.AppendLegal((*bp)[:0])
	out := make([]engine.Move, len(buf))
	for i, m := range buf {
		out[i] = m
	}
	*bp = buf
	movePool.Put(bp)
	return out
}

var _ engine.LegalCounter = (*State)(nil)

// CountLegal is len(s.Legal()), without making the list: the bots count
// the moves at the end of every playout (mobility), where Legal's boxing
// was most of a playout's allocations.
func (s *State) CountLegal() int {
	bp := movePool.Get().(*[]Move)
	buf := s.AppendLegal((*bp)[:0])
	n := len(buf)
	*bp = buf
	movePool.Put(bp)
	return n
}

// movePool holds generation buffers for Legal and CountLegal.
var movePool = sync.Pool{New: func() any {
	b := make([]Move, 0, 2048)
	return &b
}}

// AppendLegal appends the moves Legal lists to dst and returns it; it
// allocates nothing when dst has room.
func (s *State) AppendLegal(dst []Move) []Move {
	if s.count(s.toMove^1) == 0 {
		return dst // the game is over
	}
	w := *s
	for p := Square(0); p < NumSquares; p++ {
		if t := w.cell[p]; t != NoPiece && uint8(t.Side()) == s.toMove {
			dst = w.appendTurns(dst, p)
		}
	}
	return dst
}

// appendTurns appends the turns of the piece on p. It changes s while it
// works and restores it before returning.
func (s *State) appendTurns(out []Move, p Square) []Move {
	pc := s.cell[p]
	c, k := pc&blackBit, pc.Kind()
	start := len(out)
	np := int(nAdj[p])
	// Dig first.
	for i := 0; i < np; i++ {
		a := adj[p][i]
		if !s.digSource(a, c) {
			continue
		}
		for j := 0; j < np; j++ {
			b := adj[p][j]
			if b == a || s.cell[b] != NoPiece {
				continue
			}
			d := DigAction(a, b)
			s.h[a]--
			s.h[b]++
			for x := 0; x < np; x++ {
				if q := adj[p][x]; s.canStep(p, q, Climb, c) {
					out = append(out, Move{p, [2]Action{d, StepAction(q)}})
				}
			}
			switch k {
			case Fish:
				for x := 0; x < int(nDiag2[p]); x++ {
					if m, q := diag2[p][x][0], diag2[p][x][1]; s.canDouble(p, m, q, c) {
						out = append(out, Move{p, [2]Action{d, StepAction(q)}})
					}
				}
			case Dragon:
				out = s.appendSecondDigs(out, p, a, b, c)
			}
			s.h[a]++
			s.h[b]--
		}
	}
	// Step first.
	for i := 0; i < np; i++ {
		q := adj[p][i]
		if !s.canStep(p, q, Climb, c) {
			continue
		}
		t := s.move(p, q)
		st := StepAction(q)
		nq := int(nAdj[q])
		for x := 0; x < nq; x++ {
			a := adj[q][x]
			if !s.digSource(a, c) {
				continue
			}
			for y := 0; y < nq; y++ {
				b := adj[q][y]
				if b == a || s.cell[b] != NoPiece {
					continue
				}
				// When a and b are both next to p the same dig before the
				// step is legal too (neither touches p or q) and gives the
				// same position: that order is the one listed.
				if isAdj[p][a] && isAdj[p][b] {
					continue
				}
				out = append(out, Move{p, [2]Action{st, DigAction(a, b)}})
			}
		}
		if k == Dragon {
			for x := 0; x < nq; x++ {
				if q2 := adj[q][x]; s.canStep(q, q2, Climb, c) {
					out = append(out, Move{p, [2]Action{st, StepAction(q2)}})
				}
			}
		}
		s.unmove(p, q, t)
	}
	if k == Fish {
		// Double step first. No dig after it can be played before it:
		// the only square next to both p and q is the middle one.
		for i := 0; i < int(nDiag2[p]); i++ {
			m, q := diag2[p][i][0], diag2[p][i][1]
			if !s.canDouble(p, m, q, c) {
				continue
			}
			t := s.move(p, q)
			st := StepAction(q)
			nq := int(nAdj[q])
			for x := 0; x < nq; x++ {
				a := adj[q][x]
				if !s.digSource(a, c) {
					continue
				}
				for y := 0; y < nq; y++ {
					if b := adj[q][y]; b != a && s.cell[b] == NoPiece {
						out = append(out, Move{p, [2]Action{st, DigAction(a, b)}})
					}
				}
			}
			s.unmove(p, q, t)
		}
	}
	if k == Dragon {
		// The single climb step.
		for i := 0; i < np; i++ {
			if q := adj[p][i]; s.canStep(p, q, DragonClimb, c) {
				out = append(out, Move{p, [2]Action{StepAction(q)}})
			}
		}
	}
	if len(out) > start && SingleOnlyWhenStuck {
		return out
	}
	// Single actions: the piece has no complete turn (or the ruling is off).
	for i := 0; i < np; i++ {
		a := adj[p][i]
		if !s.digSource(a, c) {
			continue
		}
		for j := 0; j < np; j++ {
			if b := adj[p][j]; b != a && s.cell[b] == NoPiece {
				out = append(out, Move{p, [2]Action{DigAction(a, b)}})
			}
		}
	}
	if k != Dragon {
		for i := 0; i < np; i++ {
			if q := adj[p][i]; s.canStep(p, q, Climb, c) {
				out = append(out, Move{p, [2]Action{StepAction(q)}})
			}
		}
	}
	if k == Fish && LoneDoubleStepIsTurn {
		for i := 0; i < int(nDiag2[p]); i++ {
			if m, q := diag2[p][i][0], diag2[p][i][1]; s.canDouble(p, m, q, c) {
				out = append(out, Move{p, [2]Action{StepAction(q)}})
			}
		}
	}
	return out
}

// appendSecondDigs appends the Dragon's dig+dig turns whose first dig is
// a1>b1, already played on s. Of the two orders of the same two digs only
// the one with the smaller first dig is listed when both are legal.
func (s *State) appendSecondDigs(out []Move, p, a1, b1 Square, c Piece) []Move {
	np := int(nAdj[p])
	d1 := DigAction(a1, b1)
	k1 := digKey(a1, b1)
	for i := 0; i < np; i++ {
		a := adj[p][i]
		if !s.digSource(a, c) {
			continue
		}
		for j := 0; j < np; j++ {
			b := adj[p][j]
			if b == a || s.cell[b] != NoPiece {
				continue
			}
			if digKey(a, b) < k1 && s.reverseDigsLegal(a1, b1, a, b) {
				continue
			}
			out = append(out, Move{p, [2]Action{d1, DigAction(a, b)}})
		}
	}
	return out
}

// reverseDigsLegal reports, with the dig a1>b1 played on s, whether the
// dig a2>b2 could have been played first and a1>b1 after it. Only the
// heights of the sources matter: digs move no pieces.
func (s *State) reverseDigsLegal(a1, b1, a2, b2 Square) bool {
	h := func(q Square) int { // height before a1>b1
		n := int(s.h[q])
		if q == a1 {
			n++
		}
		if q == b1 {
			n--
		}
		return n
	}
	if h(a2) < 1 {
		return false
	}
	n := h(a1)
	if a1 == a2 {
		n--
	}
	if a1 == b2 {
		n++
	}
	return n >= 1
}

// hasComplete reports whether the piece on p has a complete turn (anything
// but a single dig or single ordinary step). s is restored before it
// returns.
func (s *State) hasComplete(p Square) bool {
	pc := s.cell[p]
	c, k := pc&blackBit, pc.Kind()
	np := int(nAdj[p])
	if k == Dragon {
		for i := 0; i < np; i++ {
			if s.canStep(p, adj[p][i], DragonClimb, c) {
				return true
			}
		}
	}
	found := false
	s.forDigs(p, c, func(a, b Square) bool {
		s.h[a]--
		s.h[b]++
		found = s.anyStep(p, c) || (k == Fish && s.anyDouble(p, c)) || (k == Dragon && s.anyDig(p, c))
		s.h[a]++
		s.h[b]--
		return !found
	})
	if found {
		return true
	}
	for i := 0; i < np && !found; i++ {
		q := adj[p][i]
		if !s.canStep(p, q, Climb, c) {
			continue
		}
		t := s.move(p, q)
		found = s.anyDig(q, c) || (k == Dragon && s.anyStep(q, c))
		s.unmove(p, q, t)
	}
	if k == Fish {
		for i := 0; i < int(nDiag2[p]) && !found; i++ {
			m, q := diag2[p][i][0], diag2[p][i][1]
			if !s.canDouble(p, m, q, c) {
				continue
			}
			t := s.move(p, q)
			found = s.anyDig(q, c)
			s.unmove(p, q, t)
		}
	}
	return found
}

// forDigs calls f with every dig of the piece on p until f returns false.
func (s *State) forDigs(p Square, c Piece, f func(a, b Square) bool) {
	np := int(nAdj[p])
	for i := 0; i < np; i++ {
		a := adj[p][i]
		if !s.digSource(a, c) {
			continue
		}
		for j := 0; j < np; j++ {
			if b := adj[p][j]; b != a && s.cell[b] == NoPiece && !f(a, b) {
				return
			}
		}
	}
}

// anyDig reports whether the piece of side c on p has a dig.
func (s *State) anyDig(p Square, c Piece) bool {
	src, empty := 0, 0
	var lastSrc, lastEmpty Square
	for i := 0; i < int(nAdj[p]); i++ {
		q := adj[p][i]
		if s.digSource(q, c) {
			src++
			lastSrc = q
		}
		if s.cell[q] == NoPiece {
			empty++
			lastEmpty = q
		}
	}
	return src > 0 && empty > 0 && (src > 1 || empty > 1 || lastSrc != lastEmpty)
}

// anyStep reports whether the piece of side c on p has an ordinary step.
func (s *State) anyStep(p Square, c Piece) bool {
	for i := 0; i < int(nAdj[p]); i++ {
		if s.canStep(p, adj[p][i], Climb, c) {
			return true
		}
	}
	return false
}

// anyDouble reports whether the Fish of side c on p has a double step.
func (s *State) anyDouble(p Square, c Piece) bool {
	for i := 0; i < int(nDiag2[p]); i++ {
		if s.canDouble(p, diag2[p][i][0], diag2[p][i][1], c) {
			return true
		}
	}
	return false
}

// hasTurn reports whether the side to move has a legal turn: a piece with
// a dig or a step has one (complete, or else a single action).
func (s *State) hasTurn() bool {
	c := Piece(s.toMove) * blackBit
	// The pieces of the side to move, found eight cells at a time.
	for i := 0; i < NumSquares; i += 8 {
		white, black := sideBytes(cells(&s.cell, i))
		own := white
		if c != 0 {
			own = black
		}
		for ; own != 0; own &= own - 1 {
			p := Square(i + bits.TrailingZeros64(own)/8)
			climb := Climb
			if s.cell[p].Kind() == Dragon {
				climb = DragonClimb
			}
			for i := 0; i < int(nAdj[p]); i++ {
				if s.canStep(p, adj[p][i], climb, c) {
					return true
				}
			}
			if s.anyDig(p, c) {
				return true
			}
		}
	}
	return false
}

// RandomMove draws a legal turn from r without listing them all (nil when
// the side to move has none). Every legal turn can be drawn, not all with
// the same chance.
func (s *State) RandomMove(r *rand.Rand) engine.Move {
	if s.count(s.toMove^1) == 0 {
		return nil
	}
	var ps [NumSquares]Square
	n := 0
	for p := Square(0); p < NumSquares; p++ {
		if t := s.cell[p]; t != NoPiece && uint8(t.Side()) == s.toMove {
			ps[n] = p
			n++
		}
	}
	w := *s
	for n > 0 {
		i := r.IntN(n)
		if m, ok := w.randomTurn(ps[i], r); ok {
			return m
		}
		ps[i] = ps[n-1]
		n--
	}
	return nil
}

// randomTurn draws a turn of the piece on p.
func (s *State) randomTurn(p Square, r *rand.Rand) (Move, bool) {
	pc := s.cell[p]
	c, k := pc&blackBit, pc.Kind()
	// First actions, each with whether it is a whole turn by itself.
	type first struct {
		a     Action
		whole bool
	}
	var firsts [80]first
	n := 0
	s.forDigs(p, c, func(a, b Square) bool {
		firsts[n] = first{a: DigAction(a, b)}
		n++
		return true
	})
	for i := 0; i < int(nAdj[p]); i++ {
		q := adj[p][i]
		if s.canStep(p, q, Climb, c) {
			firsts[n] = first{a: StepAction(q), whole: k == Dragon}
			n++
		} else if k == Dragon && s.canStep(p, q, DragonClimb, c) {
			firsts[n] = first{a: StepAction(q), whole: true}
			n++
		}
	}
	if k == Fish {
		for i := 0; i < int(nDiag2[p]); i++ {
			if m, q := diag2[p][i][0], diag2[p][i][1]; s.canDouble(p, m, q, c) {
				firsts[n] = first{a: StepAction(q)}
				n++
			}
		}
	}
	singles := firsts
	nSingles := n
	for n > 0 {
		i := r.IntN(n)
		f := firsts[i]
		// A Dragon's step is whole by itself; it may also open a turn of two.
		if f.whole && r.IntN(2) == 0 {
			return Move{p, [2]Action{f.a}}, true
		}
		if second, ok := s.randomSecond(p, k, c, f.a, r); ok {
			return Move{p, [2]Action{f.a, second}}, true
		}
		if f.whole {
			return Move{p, [2]Action{f.a}}, true
		}
		firsts[i] = firsts[n-1]
		n--
	}
	// No complete turn: a single dig or ordinary step, if any.
	var pick [80]Action
	m := 0
	for _, f := range singles[:nSingles] {
		isDouble := f.a.Kind == Step && !isAdj[p][f.a.To]
		if !isDouble || LoneDoubleStepIsTurn {
			pick[m] = f.a
			m++
		}
	}
	if m == 0 {
		return Move{}, false
	}
	return Move{p, [2]Action{pick[r.IntN(m)]}}, true
}

// randomSecond draws a second action after first, played by the piece of
// kind k that stood on p.
func (s *State) randomSecond(p Square, k Kind, c Piece, first Action, r *rand.Rand) (Action, bool) {
	var seconds [72]Action
	n := 0
	addDigs := func(at Square) {
		s.forDigs(at, c, func(a, b Square) bool {
			seconds[n] = DigAction(a, b)
			n++
			return true
		})
	}
	if first.Kind == Dig {
		a, b := first.From, first.To
		s.h[a]--
		s.h[b]++
		for i := 0; i < int(nAdj[p]); i++ {
			if q := adj[p][i]; s.canStep(p, q, Climb, c) {
				seconds[n] = StepAction(q)
				n++
			}
		}
		if k == Fish {
			for i := 0; i < int(nDiag2[p]); i++ {
				if m, q := diag2[p][i][0], diag2[p][i][1]; s.canDouble(p, m, q, c) {
					seconds[n] = StepAction(q)
					n++
				}
			}
		}
		if k == Dragon {
			addDigs(p)
		}
		s.h[a]++
		s.h[b]--
	} else {
		q := first.To
		if isAdj[p][q] && !s.canStep(p, q, Climb, c) {
			return Action{}, false // a Dragon's climb of two is a turn alone
		}
		t := s.move(p, q)
		addDigs(q)
		if k == Dragon && isAdj[p][q] {
			for i := 0; i < int(nAdj[q]); i++ {
				if q2 := adj[q][i]; s.canStep(q, q2, Climb, c) {
					seconds[n] = StepAction(q2)
					n++
				}
			}
		}
		s.unmove(p, q, t)
	}
	if n == 0 {
		return Action{}, false
	}
	return seconds[r.IntN(n)], true
}
