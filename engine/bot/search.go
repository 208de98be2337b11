package bot

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"pbem/engine"
)

// node is a position of the search tree.
type node struct {
	line   *engine.Line
	move   engine.Move // the move that led here from the parent
	mover  int         // the side to move here
	visits int
	sum    []float64 // rewards per side, summed over the visits
	// terminal holds the rewards of a finished game; nil while it goes on.
	terminal []float64

	children []*node
	// untried are listed moves not expanded yet, in random order.
	untried []engine.Move
	listed  bool
	// sampler, when the game has one, draws the children: the node widens
	// progressively (more children as its visits grow) instead of listing
	// every move of a large turn. keys finds a drawn child already known.
	sampler engine.Sampler
	keys    map[string]*node
}

// search is one search's working state.
type search struct {
	budget   Budget
	r        *rand.Rand
	sides    int
	playouts int
	path     []*node
	recent   []engine.State // the last positions of a playout whose mobility is not known yet
	mob      []float64      // each side's mobility near the end of a playout
	// nodes counts the tree's nodes; once it reaches maxNodes the tree
	// grows no more and playouts start from its leaves.
	nodes, maxNodes int
	root            *node // the tree, for the benchmark that weighs it
}

func newSearch(b Budget, r *rand.Rand) *search {
	if b.MaxPlies == 0 {
		b.MaxPlies = DefaultMaxPlies
	}
	maxNodes := b.MaxNodes
	if maxNodes == 0 {
		maxNodes = DefaultMaxNodes
	}
	return &search{budget: b, r: r, maxNodes: max(maxNodes, 2)}
}

func (sr *search) newNode(l *engine.Line, m engine.Move) *node {
	sr.nodes++
	n := &node{line: l, move: m, sum: make([]float64, sr.sides)}
	if o := l.Outcome(); o.Over {
		n.terminal = Rewards(o)
		return n
	}
	s := l.State()
	n.mover = s.ToMove()
	if smp, ok := s.(engine.Sampler); ok {
		n.sampler = smp
		n.keys = map[string]*node{}
	}
	return n
}

// rootWidening is the number of root moves up to which a game with a
// Sampler still expands every root move rather than widening.
const rootWidening = 64

func (sr *search) run(ctx context.Context, l *engine.Line) (Result, error) {
	var deadline time.Time
	if sr.budget.Time > 0 {
		deadline = time.Now().Add(sr.budget.Time)
	}
	s := l.State()
	limit := sr.budget.playouts(s)
	sr.sides = len(s.Sides())
	moves := s.Legal()
	switch len(moves) {
	case 0:
		return Result{}, fmt.Errorf("bot: the game is not over but the side to move has no legal move")
	case 1:
		return Result{Move: moves[0], Value: 0.5, Reason: "only move"}, nil
	}
	mover := s.ToMove()
	for _, m := range moves {
		next, err := l.Play(m)
		if err != nil {
			return Result{}, fmt.Errorf("bot: the game refuses a move it listed: %w", err)
		}
		if o := next.Outcome(); wins(o, mover) {
			return Result{Move: m, Value: 1, Values: Rewards(o), Reason: "wins at once"}, nil
		}
	}
	root := sr.newNode(l, nil)
	sr.root = root
	root.untried = moves
	root.listed = true
	sr.r.Shuffle(len(moves), func(i, j int) { moves[i], moves[j] = moves[j], moves[i] })
	if len(moves) <= rootWidening {
		root.sampler = nil // every root move gets a child
	}

	timeUp := false
	for limit == 0 || sr.playouts < limit {
		if sr.playouts > 0 && sr.playouts%8 == 0 && sr.stop(ctx, deadline) {
			timeUp = true
			break
		}
		if err := sr.iterate(root); err != nil {
			return Result{}, err
		}
		sr.playouts++
	}
	if sr.playouts == 0 {
		return Result{}, fmt.Errorf("bot: no time to search: %w", context.Cause(ctx))
	}
	best := root.children[0]
	for _, c := range root.children[1:] {
		if c.visits > best.visits || c.visits == best.visits && c.sum[mover] > best.sum[mover] {
			best = c
		}
	}
	values := make([]float64, len(best.sum))
	for i, v := range best.sum {
		values[i] = v / float64(best.visits)
	}
	return Result{Move: best.move, Playouts: sr.playouts, Nodes: sr.nodes, Value: values[mover], Values: values, Reason: "search", TimeUp: timeUp}, nil
}

// stop reports whether the context or the time budget has ended.
func (sr *search) stop(ctx context.Context, deadline time.Time) bool {
	if ctx.Err() != nil {
		return true
	}
	return !deadline.IsZero() && !time.Now().Before(deadline)
}

// iterate runs one iteration: select down the tree, expand one child, play
// it out at random, and back the rewards up the path. Once the tree holds
// maxNodes nodes it expands no more: the iteration selects down to a leaf
// and plays out from there.
func (sr *search) iterate(root *node) error {
	path := append(sr.path[:0], root)
	n := root
	var reward []float64
	for reward == nil {
		if n.terminal != nil {
			reward = n.terminal
			break
		}
		if sr.nodes >= sr.maxNodes && len(n.children) > 0 {
			n = sr.selectChild(n)
			path = append(path, n)
			continue
		}
		if sr.nodes >= sr.maxNodes {
			var err error
			if reward, err = sr.playout(n.line.State()); err != nil {
				return err
			}
			break
		}
		child, err := sr.expand(n)
		if err != nil {
			return err
		}
		if child != nil {
			path = append(path, child)
			if reward = child.terminal; reward == nil {
				if reward, err = sr.playout(child.line.State()); err != nil {
					return err
				}
			}
			break
		}
		if n.terminal != nil { // expand found no move after all
			continue
		}
		n = sr.selectChild(n)
		path = append(path, n)
	}
	for _, x := range path {
		x.visits++
		for i, w := range reward {
			x.sum[i] += w
		}
	}
	sr.path = path
	return nil
}

// widen is the number of children a sampled node may have after visits.
func widen(visits int) int {
	return int(math.Ceil(2 * math.Sqrt(float64(visits+1))))
}

// expand returns a new child of n when n may grow, or nil when n is fully
// expanded for now or its sampler drew a move whose position n already has.
func (sr *search) expand(n *node) (*node, error) {
	if n.sampler != nil && len(n.children) >= widen(n.visits) {
		return nil, nil
	}
	if n.sampler == nil && !n.listed {
		n.untried = n.line.State().Legal()
		n.listed = true
		sr.r.Shuffle(len(n.untried), func(i, j int) { n.untried[i], n.untried[j] = n.untried[j], n.untried[i] })
		if len(n.untried) == 0 {
			// Conformance forbids this; score it as a draw rather than loop.
			n.terminal = Rewards(engine.Draw(sr.sides, "no legal move"))
			return nil, nil
		}
	}
	var m engine.Move
	switch {
	case len(n.untried) > 0:
		m = n.untried[len(n.untried)-1]
		n.untried = n.untried[:len(n.untried)-1]
		if len(n.untried) == 0 {
			n.untried = nil // the list's memory goes with its last move
		}
	case n.sampler != nil && !n.listed:
		if m = n.sampler.RandomMove(sr.r); m == nil {
			return nil, fmt.Errorf("bot: the game's sampler drew no move in a game that goes on")
		}
	default:
		return nil, nil
	}
	next, err := n.line.Play(m)
	if err != nil {
		return nil, fmt.Errorf("bot: the game refuses a move it generated: %w", err)
	}
	if n.keys != nil {
		k := next.State().Key()
		if _, ok := n.keys[k]; ok {
			return nil, nil // a known child: choose among them by UCT
		}
		c := sr.newNode(next, m)
		n.keys[k] = c
		n.children = append(n.children, c)
		return c, nil
	}
	c := sr.newNode(next, m)
	n.children = append(n.children, c)
	return c, nil
}

// selectChild picks the child with the best upper confidence bound for the
// side to move at n (max^n: each side maximises its own reward).
func (sr *search) selectChild(n *node) *node {
	logN := math.Log(float64(max(n.visits, 1)))
	var best *node
	bestU := math.Inf(-1)
	for _, c := range n.children {
		u := math.Inf(1)
		if c.visits > 0 {
			v := float64(c.visits)
			u = c.sum[n.mover]/v + exploration*math.Sqrt(logN/v)
		}
		if u > bestU {
			best, bestU = c, u
		}
	}
	return best
}

// playout plays random moves from s until the game ends or the ply cap,
// where the position is scored by evaluate. Over the last plies before the
// cap it keeps each side's latest mobility: the count of the moves it drew
// from, or, when a Sampler drew the move, the position, listed only if the
// playout reaches the cap.
func (sr *search) playout(s engine.State) ([]float64, error) {
	recent := sr.recent[:0]
	if len(sr.mob) != sr.sides {
		sr.mob = make([]float64, sr.sides)
	}
	mob := sr.mob
	for i := range mob {
		mob[i] = -1
	}
	window := sr.budget.MaxPlies - sr.sides
	for ply := 0; ; ply++ {
		if o := s.Outcome(); o.Over {
			return Rewards(o), nil
		}
		if ply >= sr.budget.MaxPlies {
			if t := s.ToMove(); t >= 0 && t < len(mob) {
				mob[t] = -1
			}
			recent = append(recent, s)
			sr.recent = recent
			return evaluate(s, recent, mob), nil
		}
		m, count := randomMoveCount(s, sr.r)
		if m == nil {
			return Rewards(engine.Draw(sr.sides, "no legal move")), nil
		}
		if t := s.ToMove(); ply >= window && t >= 0 && t < len(mob) {
			mob[t] = float64(count)
			if count < 0 {
				recent = append(recent, s)
			}
		}
		next, err := s.Apply(m)
		if err != nil {
			return nil, fmt.Errorf("bot: the game refuses a move it generated: %w", err)
		}
		s = next
	}
}
