package castles

import (
	"math/bits"
	"math/rand/v2"
	"sync"

	"pbem/engine"
)

// Legal lists every legal turn, one per resulting position (turns that
// differ only in the order of their actions, or that reach the same
// position by other actions, are listed once). The listed turn for a
// position is the first one found by a breadth-first search over unit
// steps, so it has the fewest unit steps; placements are listed in a
// canonical order (the lowest square that may be placed next).
func (s *State) Legal() []engine.Move {
	if s.over() {
		return nil
	}
	t := s.begin()
	if s.setup {
		var moves []engine.Move
		for m := t.placeMask(); m != 0; m &= m - 1 {
			moves = append(moves, Move{Setup: true, Places: []Square{lowest(m)}})
		}
		return moves
	}
	g := genPool.Get().(*gen)
	g.run(&t)
	moves := g.moves
	g.moves, g.steps, g.places = nil, nil, nil
	genPool.Put(g)
	return moves
}

// genPool recycles the generator's scratch tables (never the moves it
// returns).
var genPool = sync.Pool{New: func() any { return new(gen) }}

// node is a position reached by unit steps within the turn.
type node struct {
	t      Turn
	parent int32
	step   Step
}

// gen enumerates the turns of one position: every castle step, then a
// breadth-first search over unit-step states (units, which have stepped,
// enemy units), and for each distinct board every set of placements.
type gen struct {
	results set // packed resulting positions already listed
	inter   set // unit-step states already queued (per castle step)
	boards  set // boards whose placements were listed (per castle step)
	subsets set // placement sets already seen (per board)
	nodes   []node
	path    []Step
	castle  [2]Square

	// Output, fresh for every call: moves share the steps and places
	// backing arrays, each with its own capped sub-slice.
	moves  []engine.Move
	steps  []Step
	places []Square
}

func (g *gen) run(t0 *Turn) {
	g.results.reset()
	from := t0.Castle()
	for cm := t0.castleMask(); cm != 0; cm &= cm - 1 {
		to := lowest(cm)
		t := *t0
		t.castleStep(to)
		g.castle = [2]Square{from, to}
		if t.phase == phaseOver {
			g.nodes = g.nodes[:0]
			g.emit(&t, -1)
			continue
		}
		g.inter.reset()
		g.boards.reset()
		g.nodes = append(g.nodes[:0], node{t: t, parent: -1})
		g.inter.add(interKey(&t))
		for i := 0; i < len(g.nodes); i++ {
			cur := g.nodes[i].t
			if cur.phase == phaseOver {
				g.emit(&cur, i)
				continue
			}
			if g.boards.add(uint64(cur.s.units[0]) | uint64(cur.s.units[1])<<16) {
				g.subsets.reset()
				g.placements(cur, i)
			}
			for mv := cur.movable(); mv != 0; mv &= mv - 1 {
				f := lowest(mv)
				for sm := cur.stepMask(f); sm != 0; sm &= sm - 1 {
					c := cur
					c.step(f, lowest(sm))
					if g.inter.add(interKey(&c)) {
						g.nodes = append(g.nodes, node{t: c, parent: int32(i), step: Step{f, lowest(sm)}})
					}
				}
			}
		}
	}
}

// interKey identifies a unit-step state within one castle step: the
// mover's units, those that have stepped, and the enemy units (the counts
// and points follow from them).
func interKey(t *Turn) uint64 {
	p := t.s.toMove
	return uint64(t.s.units[p]) | uint64(t.moved)<<16 | uint64(t.s.units[p^1])<<32
}

// placements lists t (no more placements) and every position reached by
// placing more units.
func (g *gen) placements(t Turn, node int) {
	if !g.subsets.add(uint64(t.placed)) {
		return
	}
	g.emit(&t, node)
	if t.s.supply[t.s.toMove] == 0 {
		return
	}
	for m := t.placeMask(); m != 0; m &= m - 1 {
		c := t
		c.place(lowest(m))
		g.placements(c, node)
	}
}

// emit lists the turn that reaches t through node's unit steps and t's
// placements, unless its position is listed already.
func (g *gen) emit(t *Turn, node int) {
	if !g.results.add(t.s.pack()) {
		return
	}
	m := Move{Castle: g.castle}
	if node > 0 {
		g.path = g.path[:0]
		for i := node; i > 0; i = int(g.nodes[i].parent) {
			g.path = append(g.path, g.nodes[i].step)
		}
		start := len(g.steps)
		for j := len(g.path) - 1; j >= 0; j-- {
			g.steps = append(g.steps, g.path[j])
		}
		m.Steps = g.steps[start:len(g.steps):len(g.steps)]
	}
	if t.placed != 0 {
		start := len(g.places)
		base := g.nodes[node].t
		for set := t.placed; set != 0; {
			c := base.placeMask() & set
			if c == 0 {
				panic("castles: placements out of reach")
			}
			q := lowest(c)
			base.place(q)
			set &^= bit(q)
			g.places = append(g.places, q)
		}
		m.Places = g.places[start:len(g.places):len(g.places)]
	}
	g.moves = append(g.moves, m)
}

// RandomMove builds one random legal turn action by action: a random castle
// step, a random subset of the units stepping in random order, then a
// random number of random placements.
func (s *State) RandomMove(r *rand.Rand) engine.Move {
	if s.over() {
		return nil
	}
	t := s.begin()
	if s.setup {
		return Move{Setup: true, Places: []Square{pick(r, t.placeMask())}}
	}
	to := pick(r, t.castleMask())
	m := Move{Castle: [2]Square{t.Castle(), to}}
	t.castleStep(to)
	if t.phase == phaseOver {
		return m
	}
	var order [Units]Square
	n := 0
	for u := t.movable(); u != 0 && n < Units; u &= u - 1 {
		order[n] = lowest(u)
		n++
	}
	r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, f := range order[:n] {
		if r.IntN(2) == 0 {
			continue
		}
		sm := t.stepMask(f)
		if sm == 0 {
			continue
		}
		to := pick(r, sm)
		t.step(f, to)
		m.Steps = append(m.Steps, Step{f, to})
		if t.phase == phaseOver {
			return m
		}
	}
	for k := r.IntN(int(t.s.supply[t.s.toMove]) + 1); k > 0; k-- {
		pm := t.placeMask()
		if pm == 0 {
			break
		}
		q := pick(r, pm)
		t.place(q)
		m.Places = append(m.Places, q)
	}
	return m
}

// lowest is the lowest square of a non-empty mask.
func lowest(m uint16) Square { return Square(bits.TrailingZeros16(m)) }

// pick is a random square of a non-empty mask.
func pick(r *rand.Rand, m uint16) Square {
	for k := r.IntN(bits.OnesCount16(m)); k > 0; k-- {
		m &= m - 1
	}
	return lowest(m)
}

// set is an open-addressing hash set of uint64 keys, emptied in O(1) by
// bumping its generation.
type set struct {
	e     []entry
	gen   uint32
	n     int
	shift uint
}

type entry struct {
	k   uint64
	gen uint32
}

func (s *set) reset() {
	s.n = 0
	s.gen++
	if s.gen == 0 {
		clear(s.e)
		s.gen = 1
	}
	if s.e == nil {
		s.e = make([]entry, 64)
		s.shift = 64 - 6
	}
}

func (s *set) add(k uint64) bool {
	if 2*(s.n+1) > len(s.e) {
		s.grow()
	}
	mask := uint64(len(s.e) - 1)
	for h := (k * 0x9E3779B97F4A7C15) >> s.shift; ; h = (h + 1) & mask {
		e := &s.e[h]
		if e.gen != s.gen {
			*e = entry{k, s.gen}
			s.n++
			return true
		}
		if e.k == k {
			return false
		}
	}
}

func (s *set) grow() {
	old := s.e
	s.e = make([]entry, 2*len(old))
	s.shift--
	s.n = 0
	g := s.gen
	for _, e := range old {
		if e.gen == g {
			s.add(e.k)
		}
	}
}
