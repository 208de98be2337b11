package castles

import (
	"pbem/engine"
)

// The texts of the rules a refused action breaks (engine.Illegal adds
// "illegal: ").
const (
	ruleSetupFirst    = "the game opens with Second's setup placement (@c3, @c4 or @d3)"
	ruleSetupCell     = "the setup unit goes on a cell next to Second's castle (c3, c4 or d3)"
	ruleSetupSingle   = "the setup is a single placement"
	ruleSetupOver     = "the setup placement is over"
	ruleCastleFirst   = "a turn starts with the castle step"
	ruleCastleOnce    = "the castle steps exactly once per turn"
	ruleCastleOne     = "the castle steps exactly one square"
	ruleCastleEnemy   = "the castle never steps onto the enemy castle"
	ruleNoCastle      = "no castle of yours on %s"
	ruleNoUnit        = "no unit on %s"
	ruleNotYourUnit   = "the unit on %s is not yours"
	ruleNotYourCastle = "the castle on %s is not yours"
	ruleStepOnce      = "each unit steps at most once per turn"
	ruleStepOne       = "a unit steps exactly one square"
	ruleStepFriend    = "units never step onto a friendly unit"
	ruleStepOwnCastle = "units never step onto their own castle"
	ruleStepsFirst    = "unit steps come before placements"
	rulePlacedNoStep  = "units placed this turn cannot step"
	ruleNoSupply      = "no unit left in your supply"
	rulePlaceEmpty    = "units are placed on an empty cell"
	rulePlaceChain    = "units are placed next to the castle or to a unit chained to it"
	ruleAfterEnd      = "the game ended with the third point; no action may follow"
	ruleGameOver      = "the game is over (%s)"
	ruleNoSuchSquare  = "no such square %s"
	ruleNotMove       = "not a castles move (%T)"
)

type phase int8

const (
	phaseSetup     phase = iota // Second's setup placement is to be made
	phaseSetupDone              // the setup placement is made
	phaseCastle                 // the castle step is to be made
	phaseSteps                  // unit steps (or placements) may follow
	phasePlaces                 // placements may follow
	phaseOver                   // a side reached WinPoints: nothing may follow
)

// Turn is a turn in progress: the position after the actions played so far.
// Begin starts one; CastleStep, Step and Place play one action each,
// checked against the per-action generators; End closes the turn. A Turn
// is a value: copying it forks the turn.
type Turn struct {
	s      State
	phase  phase
	moved  uint16 // squares of units that stepped this turn
	placed uint16 // squares of units placed this turn
}

// Begin starts the turn of the side to move: for a normal turn it makes the
// automatic scrap heap to supply transfer. It fails once the game is over.
func (s *State) Begin() (Turn, error) {
	if s.over() {
		return Turn{}, engine.Illegal(ruleGameOver, s.Outcome().Reason)
	}
	return s.begin(), nil
}

func (s *State) begin() Turn {
	t := Turn{s: *s}
	if s.setup {
		t.phase = phaseSetup
		return t
	}
	p := s.toMove
	if n := min(t.s.heap[p], HeapTransfer); n > 0 {
		t.s.heap[p] -= n
		t.s.supply[p] += n
	}
	t.phase = phaseCastle
	return t
}

// State is the position as it stands within the turn (the side to move is
// still the one playing).
func (t *Turn) State() *State { s := t.s; return &s }

// Castle is the square of the moving side's castle now.
func (t *Turn) Castle() Square { return t.s.castle[t.s.toMove] }

// Over reports whether a side has reached WinPoints during the turn.
func (t *Turn) Over() bool { return t.phase == phaseOver }

// Setup reports whether this is Second's setup ply.
func (t *Turn) Setup() bool { return t.phase == phaseSetup || t.phase == phaseSetupDone }

// The per-action generators: bit masks of the squares an action may go to.

// castleMask is where the castle may step.
func (t *Turn) castleMask() uint16 {
	p := t.s.toMove
	return adj[t.s.castle[p]] &^ bit(t.s.castle[p^1])
}

// stepMask is where the unit on from (one of the mover's units that has not
// stepped) may step.
func (t *Turn) stepMask(from Square) uint16 {
	p := t.s.toMove
	return adj[from] &^ (t.s.units[p] | bit(t.s.castle[p]))
}

// movable is the set of the mover's units that may still step.
func (t *Turn) movable() uint16 { return t.s.units[t.s.toMove] &^ t.moved &^ t.placed }

// placeMask is where a unit from the supply may be placed: an empty cell
// next to the castle or to a unit chained to it (placed units included).
func (t *Turn) placeMask() uint16 {
	p := t.s.toMove
	if t.phase == phaseSetup {
		return adj[t.s.castle[p]] &^ t.occupied()
	}
	own := t.s.units[p]
	comp := bit(t.s.castle[p])
	for {
		n := comp | spread(comp)&own
		if n == comp {
			break
		}
		comp = n
	}
	return spread(comp) &^ t.occupied()
}

func (t *Turn) occupied() uint16 {
	return t.s.units[0] | t.s.units[1] | bit(t.s.castle[0]) | bit(t.s.castle[1])
}

// The appliers: they assume the action was generated.

// castleStep steps the castle to to and reports whether it rammed an enemy
// unit.
func (t *Turn) castleStep(to Square) (capture bool) {
	p := t.s.toMove
	o := p ^ 1
	b := bit(to)
	switch {
	case t.s.units[o]&b != 0:
		t.s.units[o] &^= b
		t.s.heap[o]++
		t.s.points[o]++
		capture = true
	case t.s.units[p]&b != 0:
		t.s.units[p] &^= b
		t.s.supply[p]++
	}
	t.s.castle[p] = to
	t.phase = phaseSteps
	if t.s.points[o] >= WinPoints {
		t.phase = phaseOver
	}
	return capture
}

// step moves the unit on from to to and reports whether it captured
// (destroyed an enemy unit or entered the enemy castle).
func (t *Turn) step(from, to Square) (capture bool) {
	p := t.s.toMove
	o := p ^ 1
	fb, tb := bit(from), bit(to)
	t.s.units[p] &^= fb
	if to == t.s.castle[o] {
		t.s.heap[p]++
		t.s.points[p]++
		if t.s.points[p] >= WinPoints {
			t.phase = phaseOver
		}
		return true
	}
	if t.s.units[o]&tb != 0 {
		t.s.units[o] &^= tb
		t.s.heap[o]++
		capture = true
		if !MoverTakesCell {
			tb = fb
		}
	}
	t.s.units[p] |= tb
	t.moved |= tb
	return capture
}

// place puts a unit from the supply on at.
func (t *Turn) place(at Square) {
	p := t.s.toMove
	b := bit(at)
	if t.phase == phaseSetup {
		t.s.heap[p]--
		t.phase = phaseSetupDone
	} else {
		t.s.supply[p]--
		t.phase = phasePlaces
	}
	t.s.units[p] |= b
	t.placed |= b
}

// The checked actions.

// CastleStep steps the castle from from to to. capture reports that it
// rammed an enemy unit (written with x).
func (t *Turn) CastleStep(from, to Square) (capture bool, err error) {
	if err := t.phaseError(phaseCastle, from); err != nil {
		return false, err
	}
	if err := squaresOK(from, to); err != nil {
		return false, err
	}
	p := t.s.toMove
	if from != t.s.castle[p] {
		return false, engine.Illegal(ruleNoCastle, from)
	}
	if t.castleMask()&bit(to) == 0 {
		if to == t.s.castle[p^1] && adj[from]&bit(to) != 0 {
			return false, engine.Illegal(ruleCastleEnemy)
		}
		return false, engine.Illegal(ruleCastleOne)
	}
	return t.castleStep(to), nil
}

// Step steps the unit on from to to. capture reports that it destroyed an
// enemy unit or entered the enemy castle (written with x).
func (t *Turn) Step(from, to Square) (capture bool, err error) {
	if err := t.phaseError(phaseSteps, from); err != nil {
		return false, err
	}
	if err := squaresOK(from, to); err != nil {
		return false, err
	}
	if t.movable()&bit(from) == 0 {
		return false, t.whyNotMovable(from)
	}
	if t.stepMask(from)&bit(to) == 0 {
		p := t.s.toMove
		switch {
		case adj[from]&bit(to) == 0:
			return false, engine.Illegal(ruleStepOne)
		case to == t.s.castle[p]:
			return false, engine.Illegal(ruleStepOwnCastle)
		default:
			return false, engine.Illegal(ruleStepFriend)
		}
	}
	return t.step(from, to), nil
}

func (t *Turn) whyNotMovable(from Square) error {
	p := t.s.toMove
	b := bit(from)
	switch {
	case t.moved&b != 0:
		return engine.Illegal(ruleStepOnce)
	case t.placed&b != 0:
		return engine.Illegal(rulePlacedNoStep)
	case from == t.s.castle[p]:
		return engine.Illegal(ruleCastleOnce)
	case from == t.s.castle[p^1]:
		return engine.Illegal(ruleNotYourCastle, from)
	case t.s.units[p^1]&b != 0:
		return engine.Illegal(ruleNotYourUnit, from)
	}
	return engine.Illegal(ruleNoUnit, from)
}

// Place puts a unit from the supply (from the scrap heap on the setup ply)
// on at.
func (t *Turn) Place(at Square) error {
	if err := t.phaseError(phasePlaces, at); err != nil {
		return err
	}
	if err := squaresOK(at, at); err != nil {
		return err
	}
	p := t.s.toMove
	if t.phase == phaseSetup {
		if t.placeMask()&bit(at) == 0 {
			return engine.Illegal(ruleSetupCell)
		}
		t.place(at)
		return nil
	}
	if t.s.supply[p] == 0 {
		return engine.Illegal(ruleNoSupply)
	}
	if t.placeMask()&bit(at) == 0 {
		if t.occupied()&bit(at) != 0 {
			return engine.Illegal(rulePlaceEmpty)
		}
		return engine.Illegal(rulePlaceChain)
	}
	t.place(at)
	return nil
}

// phaseError refuses an action of kind want (phaseCastle, phaseSteps or
// phasePlaces) that comes out of order; q is the action's first square.
func (t *Turn) phaseError(want phase, q Square) error {
	switch t.phase {
	case phaseOver:
		return engine.Illegal(ruleAfterEnd)
	case phaseSetup:
		if want == phasePlaces {
			return nil
		}
		return engine.Illegal(ruleSetupFirst)
	case phaseSetupDone:
		return engine.Illegal(ruleSetupSingle)
	case phaseCastle:
		if want == phaseCastle {
			return nil
		}
		return engine.Illegal(ruleCastleFirst)
	}
	switch want {
	case phaseCastle:
		return engine.Illegal(ruleCastleOnce)
	case phaseSteps:
		if t.phase == phasePlaces {
			if q.Valid() && t.placed&bit(q) != 0 {
				return engine.Illegal(rulePlacedNoStep)
			}
			return engine.Illegal(ruleStepsFirst)
		}
	}
	return nil
}

func squaresOK(a, b Square) error {
	if !a.Valid() {
		return engine.Illegal(ruleNoSuchSquare, a)
	}
	if !b.Valid() {
		return engine.Illegal(ruleNoSuchSquare, b)
	}
	return nil
}

// End closes the turn and returns the new position.
func (t *Turn) End() (*State, error) { return t.EndIn(new(State)) }

func (t *Turn) end() *State {
	n := t.s
	n.setup = false
	n.toMove ^= 1
	return &n
}

// EndIn is End writing the new position to *n, which it returns (nil with
// the error): a caller that keeps the position together with values of
// its own allocates them at once.
func (t *Turn) EndIn(n *State) (*State, error) {
	switch t.phase {
	case phaseSetup:
		return nil, engine.Illegal(ruleSetupFirst)
	case phaseCastle:
		return nil, engine.Illegal(ruleCastleFirst)
	}
	*n = t.s
	n.setup = false
	n.toMove ^= 1
	return n, nil
}

// Apply plays m.
func (s *State) Apply(m engine.Move) (engine.State, error) {
	mv, ok := m.(Move)
	if !ok {
		return nil, engine.Illegal(ruleNotMove, m)
	}
	n, err := s.Play(mv)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Play is Apply for a Move: it plays the actions of m one by one through a
// Turn.
func (s *State) Play(m Move) (*State, error) {
	t, err := s.Begin()
	if err != nil {
		return nil, err
	}
	if m.Setup != s.setup {
		if s.setup {
			return nil, engine.Illegal(ruleSetupFirst)
		}
		return nil, engine.Illegal(ruleSetupOver)
	}
	if m.Setup {
		if m.Castle != [2]Square{} || len(m.Steps) > 0 || len(m.Places) != 1 {
			return nil, engine.Illegal(ruleSetupSingle)
		}
		if err := t.Place(m.Places[0]); err != nil {
			return nil, err
		}
		return t.end(), nil
	}
	if _, err := t.CastleStep(m.Castle[0], m.Castle[1]); err != nil {
		return nil, err
	}
	for _, st := range m.Steps {
		if _, err := t.Step(st.From, st.To); err != nil {
			return nil, err
		}
	}
	for _, q := range m.Places {
		if err := t.Place(q); err != nil {
			return nil, err
		}
	}
	return t.end(), nil
}
