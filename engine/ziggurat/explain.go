package ziggurat

import (
	"pbem/engine"
	"pbem/internal/english"
)

// explain says why generation does not list m. It runs only on the failure
// path; every text names the rule broken.
func (s *State) explain(m Move) error {
	switch m.Kind {
	case Pass:
		if m != (Move{}) {
			return engine.Illegal("a pass names no unit and no square")
		}
		return engine.Illegal("a side may pass only when it has no legal move")
	case Step, Exit:
		return s.explainUnit(m)
	case Place:
		return s.explainPlace(m)
	}
	return engine.Illegal("unknown kind of move %d", m.Kind)
}

func (s *State) explainUnit(m Move) error {
	kind, err := s.OwnUnit(m.From)
	if err != nil {
		return err
	}
	if m.Unit != kind {
		if m.Unit == NoUnit || m.Unit > Keep {
			return engine.Illegal("the move names no unit (the unit on %s is %s)", m.From, article(kind))
		}
		return engine.Illegal("the unit on %s is %s, not %s", m.From, article(kind), article(m.Unit))
	}
	if m.Kind == Exit {
		if m.To != NoSquare {
			return engine.Illegal("an exit names no target square")
		}
		return s.explainExit(m)
	}
	if !m.To.Valid() {
		return engine.Illegal("no such square %s", m.To)
	}
	switch {
	case kind.IsZig():
		return s.explainZig(m)
	case kind == Tower:
		return s.explainTower(m)
	}
	return s.explainKeep(m)
}

// offset returns the file and rank steps from a to b.
func offset(a, b Square) (df, dr int) { return b.File() - a.File(), b.Rank() - a.Rank() }

// firstOccupied returns the first occupied square strictly between a and b
// on a straight line of n steps of (dx, dy), or NoSquare.
func (s *State) firstOccupied(a Square, dx, dy, n int) Square {
	for k := 1; k < n; k++ {
		q := SquareAt(a.File()+k*dx, a.Rank()+k*dy)
		if s.At(q) != 0 {
			return q
		}
	}
	return NoSquare
}

func (s *State) explainZig(m Move) error {
	me := int(s.toMove)
	size := m.Unit
	df, dr := offset(m.From, m.To)
	if df == 0 || abs(df) != abs(dr) {
		return engine.Illegal("a zig moves only diagonally")
	}
	dist := abs(df)
	if dist > int(size) {
		return engine.Illegal("%s slides at most %s", article(size), english.Plural(int(size), "square"))
	}
	if q := s.firstOccupied(m.From, sign(df), sign(dr), dist); q != NoSquare {
		return engine.Illegal("a zig slides only over empty squares (%s is occupied)", q)
	}
	t := s.At(m.To)
	if t == 0 {
		if sign(dr) != forward[me] {
			return engine.Illegal("a zig moves backward only to capture")
		}
		return engine.Illegal("%s is not a legal move", m) // not reached
	}
	if t.Owner() == me {
		return engine.Illegal("captures take only the opponent's units")
	}
	switch t.Kind() {
	case Keep:
		return engine.Illegal("a zig captures a Keep only when its top is one size smaller")
	case Tower:
		return engine.Illegal("a zig captures a Tower only when its top is one size larger")
	}
	return engine.Illegal("a zig captures a lone zig only one size smaller or larger")
}

func (s *State) explainTower(m Move) error {
	df, dr := offset(m.From, m.To)
	if !(abs(df) == 1 && abs(dr) == 2 || abs(df) == 2 && abs(dr) == 1) {
		return engine.Illegal("a Tower moves only like a knight")
	}
	for _, l := range leaps[m.From.idx()] {
		if int(l.to) == m.To.idx() && s.board[l.orth] != 0 && s.board[l.diag] != 0 {
			return engine.Illegal("both paths of the Tower are blocked (%s and %s are occupied)", sq(int(l.orth)), sq(int(l.diag)))
		}
	}
	t := s.At(m.To)
	switch {
	case t.Owner() == int(s.toMove):
		return engine.Illegal("captures take only the opponent's units")
	case t.Len() > 1:
		return engine.Illegal("a Tower captures only a lone zig")
	}
	return engine.Illegal("a Tower captures only a zig one size smaller than its smallest piece or one size larger than its largest")
}

func (s *State) explainKeep(m Move) error {
	df, dr := offset(m.From, m.To)
	if (df == 0) == (dr == 0) {
		return engine.Illegal("a Keep moves only orthogonally")
	}
	st := s.At(m.From)
	dist, reach := abs(df+dr), int(st.Smallest())
	if dist > reach {
		return engine.Illegal("this Keep slides at most %s (its smallest piece is %s)", english.Plural(reach, "square"), article(st.Smallest()))
	}
	if q := s.firstOccupied(m.From, sign(df), sign(dr), dist); q != NoSquare {
		return engine.Illegal("a Keep slides only over empty squares (%s is occupied)", q)
	}
	return engine.Illegal("Keeps never capture")
}

func (s *State) explainExit(m Move) error {
	me := int(s.toMove)
	st := s.At(m.From)
	size := st.Top().Size()
	if s.exited[me][size] {
		return engine.Illegal("a side exits at most one piece of each size (%s has exited %s)", sideNames[me], article(size))
	}
	far := homeRank[1-me]
	if st.Len() > 1 {
		return engine.Illegal("the top of a stack exits only from the opponent's home rank (rank %d)", far)
	}
	dist := edgeDistance(me, m.From.Rank())
	if dist > int(size) {
		return engine.Illegal("the %s on %s cannot reach beyond rank %d (it slides at most %s)", size, m.From, far, english.Plural(int(size), "square"))
	}
	// Both forward diagonals fail: each leaves files a-f or is blocked (at
	// most one can leave the files, as a zig exits within 3 squares).
	var blocked []Square
	for _, dx := range [2]int{-1, 1} {
		if f := m.From.File() + dx*dist; f < 0 || f >= Files {
			continue
		}
		blocked = append(blocked, s.firstOccupied(m.From, dx, forward[me], dist))
	}
	switch len(blocked) {
	case 2:
		return engine.Illegal("both exit paths are blocked (%s and %s are occupied)", blocked[0], blocked[1])
	case 1:
		return engine.Illegal("the exit path through %s is blocked, and the other leaves files a-f", blocked[0])
	}
	return engine.Illegal("an exit must stay within files a-f")
}

func (s *State) explainPlace(m Move) error {
	me := int(s.toMove)
	if !m.Unit.IsZig() {
		return engine.Illegal("a reinforcement is a Queen, a Drone or a Worker")
	}
	if m.From != NoSquare {
		return engine.Illegal("a reinforcement names no source square")
	}
	if !m.To.Valid() {
		return engine.Illegal("no such square %s", m.To)
	}
	if s.reserve[me][m.Unit] == 0 {
		return engine.Illegal("%s has no %s in reserve", sideNames[me], m.Unit)
	}
	home := homeRank[me]
	if m.To.Rank() != home {
		return engine.Illegal("reinforcements go on the side's own home rank (rank %d)", home)
	}
	if setup[m.To.File()] != m.Unit {
		var qs []Square
		for f, u := range setup {
			if u == m.Unit {
				qs = append(qs, SquareAt(f, home))
			}
		}
		return engine.Illegal("%s goes only where %s started (%s or %s)", article(m.Unit), article(m.Unit), qs[0], qs[1])
	}
	return engine.Illegal("reinforcements go only on empty squares (%s is occupied)", m.To)
}
