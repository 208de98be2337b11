package elevation

import (
	"pbem/engine"
)

// Apply plays m, a Move, and returns the new position. Each action must be
// legal where it is played, in the order written, and the turn must be one
// of the acting piece's shapes; otherwise the error names the rule broken.
func (s *State) Apply(m engine.Move) (engine.State, error) {
	mv, ok := m.(Move)
	if !ok {
		return nil, engine.Illegal("not an elevation move (%T)", m)
	}
	n, err := s.Play(mv)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Play is Apply for a Move.
func (s *State) Play(m Move) (*State, error) {
	if err := s.checkPiece(m); err != nil {
		return nil, err
	}
	p := m.At
	pc := s.cell[p]
	c, k := pc&blackBit, pc.Kind()
	a0, a1 := m.Actions[0], m.Actions[1]
	single := a1.Kind == NoAction
	double := a0.Kind == Step && isDoubleShape(p, a0.To) // the first action
	// The turn's shape.
	switch {
	case single && double && k == Fish && !LoneDoubleStepIsTurn:
		return nil, engine.Illegal("a lone Fish double step is never a turn")
	case !single && a0.Kind == Dig && a1.Kind == Dig && k != Dragon:
		return nil, engine.Illegal("only a Dragon digs twice")
	case !single && a0.Kind == Step && a1.Kind == Step && k != Dragon:
		return nil, engine.Illegal("only a Dragon steps twice")
	}
	climb := Climb
	if single && k == Dragon {
		climb = DragonClimb
	}
	w := *s
	at := p
	for i := range m.Len() {
		a := m.Actions[i]
		if a.Kind == Dig {
			if err := w.dig(at, a.From, a.To, c); err != nil {
				return nil, err
			}
			continue
		}
		next, err := w.step(at, a.To, climb, k, c)
		if err != nil {
			return nil, err
		}
		at = next
	}
	if single && SingleOnlyWhenStuck && !(k == Dragon && a0.Kind == Step) && s.hasCompleteTurn(p) {
		what := "dig"
		if a0.Kind == Step {
			what = "step"
		}
		return nil, engine.Illegal("a single %s is a turn only when the piece has no complete turn (the %s on %v has one)", what, k, p)
	}
	w.toMove ^= 1
	return &w, nil
}

// hasCompleteTurn reports whether the piece on p has a complete turn.
func (s *State) hasCompleteTurn(p Square) bool {
	w := *s
	return w.hasComplete(p)
}

// isDoubleShape reports whether q is two squares from p on a diagonal.
func isDoubleShape(p, q Square) bool {
	if !p.Valid() || !q.Valid() {
		return false
	}
	df, dr := q.File()-p.File(), q.Rank()-p.Rank()
	return (df == 2 || df == -2) && (dr == 2 || dr == -2)
}

// checkPiece checks that m is well formed and that its piece belongs to the
// side to move.
func (s *State) checkPiece(m Move) error {
	if !m.At.Valid() {
		return engine.Illegal("no such square %v", m.At)
	}
	for i, a := range m.Actions {
		switch {
		case a.Kind > Step:
			return engine.Illegal("malformed move: action kind %d", a.Kind)
		case a.Kind == NoAction && i == 0:
			return engine.Illegal("a turn needs at least one action")
		case a.Kind == NoAction && a != Action{}:
			return engine.Illegal("malformed move: an absent action names squares")
		case a.Kind == Step && a.From != 0:
			return engine.Illegal("malformed move: a step names only its target square")
		case !a.From.Valid():
			return engine.Illegal("no such square %v", a.From)
		case !a.To.Valid():
			return engine.Illegal("no such square %v", a.To)
		}
	}
	pc := s.cell[m.At]
	if pc == NoPiece {
		return engine.Illegal("no piece on %v", m.At)
	}
	if uint8(pc.Side()) != s.toMove {
		return engine.Illegal("the piece on %v is not yours", m.At)
	}
	return nil
}

// dig plays the dig a>b of the piece of side c on p.
func (s *State) dig(p, a, b Square, c Piece) error {
	if !isAdj[p][a] || !isAdj[p][b] || a == b || !s.digSource(a, c) || s.cell[b] != NoPiece {
		return s.whyNotDig(p, a, b, c)
	}
	s.h[a]--
	s.h[b]++
	return nil
}

func (s *State) whyNotDig(p, a, b Square, c Piece) error {
	switch {
	case a == p || b == p:
		return engine.Illegal("a dig never uses the acting piece's own square (%v)", p)
	case a == b:
		return engine.Illegal("a dig moves a tile between two different squares (%v>%v)", a, b)
	case !isAdj[p][a]:
		return engine.Illegal("a dig uses squares next to the piece (%v is not next to %v)", a, p)
	case !isAdj[p][b]:
		return engine.Illegal("a dig uses squares next to the piece (%v is not next to %v)", b, p)
	case s.h[a] == 0:
		return engine.Illegal("a dig takes a tile from a square of height 1 or more (%v is at 0)", a)
	case s.enemy(a, c):
		return engine.Illegal("a dig never takes a tile from under an enemy piece (%v)", a)
	default:
		return engine.Illegal("a dig lays its tile on an empty square only (%v holds a piece)", b)
	}
}

// step plays the step (or Fish double step) of the piece of side c and kind
// k from p to q, climbing at most climb levels, and returns its new square.
func (s *State) step(p, q Square, climb int, k Kind, c Piece) (Square, error) {
	if isAdj[p][q] {
		if !s.canStep(p, q, climb, c) {
			return 0, s.whyNotStep(p, q, climb, k, c)
		}
		s.move(p, q)
		return q, nil
	}
	df, dr := q.File()-p.File(), q.Rank()-p.Rank()
	switch {
	case p == q:
		return 0, engine.Illegal("a step goes to another square (%v)", q)
	case max(df, -df, dr, -dr) > 2:
		return 0, engine.Illegal("a step goes to a square next to the piece (%v is not next to %v)", q, p)
	case k != Fish:
		return 0, engine.Illegal("only a Fish steps two squares (%v to %v)", p, q)
	case !isDoubleShape(p, q):
		return 0, engine.Illegal("a Fish steps two squares only diagonally (%v to %v)", p, q)
	}
	m := Sq((p.File()+q.File())/2, (p.Rank()+q.Rank())/2)
	if s.cell[m] != NoPiece {
		return 0, engine.Illegal("a double step needs an empty middle square (%v)", m)
	}
	if !s.canStep(p, m, Climb, c) {
		return 0, s.whyNotStep(p, m, Climb, k, c)
	}
	if !s.canStep(m, q, Climb, c) {
		return 0, s.whyNotStep(m, q, Climb, k, c)
	}
	s.move(p, q)
	return q, nil
}

func (s *State) whyNotStep(p, q Square, climb int, k Kind, c Piece) error {
	hp, hq := s.h[p], s.h[q]
	t := s.cell[q]
	switch {
	case t != NoPiece && t&blackBit == c:
		return engine.Illegal("a piece never steps onto a friendly piece (%v)", q)
	case t != NoPiece:
		return engine.Illegal("captures only from two or more levels higher (%v is at %d, %v at %d)", p, hp, q, hq)
	case climb == DragonClimb:
		return engine.Illegal("a Dragon's climb step climbs at most two levels (%v is at %d, %v at %d)", p, hp, q, hq)
	case k == Dragon && int(hq)-int(hp) <= DragonClimb:
		return engine.Illegal("a step climbs at most one level; only the Dragon's single step climbs two (%v is at %d, %v at %d)", p, hp, q, hq)
	default:
		return engine.Illegal("a step climbs at most one level (%v is at %d, %v at %d)", p, hp, q, hq)
	}
}
