package engine

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// Repetitions is the number of occurrences of one position that draws the
// game (ruling: threefold repetition, common to all games).
const Repetitions = 3

var keySeed = maphash.MakeSeed()

// Line is a game in progress: the current state and the positions that led to
// it, so that the common rulings (threefold repetition) apply on top of the
// game's own rules. A Line is immutable; Play returns a new one that shares
// its history with the old.
type Line struct {
	state  State
	parent *Line
	hash   uint64
	key    string // Key of state, or "" when state is a Hasher (asked when needed)
	plies  int
	reps   int // occurrences of this position so far, this one included
	// hist indexes the positions of a line played straight on from its
	// start (no branch): a repeat is then found by hash, not by walking
	// the whole history. It is nil after a branch.
	hist *history
	out  atomic.Pointer[Outcome] // Outcome, once asked
}

// history is shared by the lines of one unbranched game: lines[i] is the
// line after i plies, and slots an open-addressing index of the latest line
// of each position hash (0: empty, else the line's plies plus one). Only a
// line's last descendant (the tip) extends it; a line played from an
// earlier one walks its parents instead.
type history struct {
	mu    sync.Mutex
	lines []*Line
	slots []int32
	slab  []Line // room for the next lines of the tip, allocated together
	want  int    // lines the game is expected to reach (NewLineFor)
	// local: the lines are used by one goroutine at a time (they come
	// from a LineMem), so that extending them takes no lock.
	local bool
}

func (h *history) lock() {
	if !h.local {
		h.mu.Lock()
	}
}

func (h *history) unlock() {
	if !h.local {
		h.mu.Unlock()
	}
}

// slabLines is how many lines of one game are allocated at once.
const slabLines = 32

// alloc returns a zero line from the slab.
func (h *history) alloc() *Line {
	if len(h.slab) == cap(h.slab) {
		n := h.want - len(h.lines) // lines still expected
		if n <= 0 || n > slabLines {
			n = slabLines
		}
		h.slab = make([]Line, 0, n)
	}
	h.slab = h.slab[:len(h.slab)+1]
	return &h.slab[len(h.slab)-1]
}

// latest returns the plies of the latest line whose position hashes to h,
// or -1.
func (h *history) latest(hash uint64) int {
	mask := uint64(len(h.slots) - 1)
	for i := hash & mask; ; i = (i + 1) & mask {
		j := h.slots[i]
		if j == 0 {
			return -1
		}
		if h.lines[j-1].hash == hash {
			return int(j - 1)
		}
	}
}

// add indexes l (the new tip) as the latest line of its hash.
func (h *history) add(l *Line) {
	h.lines = append(h.lines, l)
	if 2*len(h.lines) > len(h.slots) {
		h.slots = make([]int32, 2*len(h.slots))
		for _, x := range h.lines {
			h.put(x)
		}
		return
	}
	h.put(l)
}

func (h *history) put(l *Line) {
	mask := uint64(len(h.slots) - 1)
	for i := l.hash & mask; ; i = (i + 1) & mask {
		j := h.slots[i]
		if j == 0 || h.lines[j-1].hash == l.hash {
			h.slots[i] = int32(l.plies + 1)
			return
		}
	}
}

// Hasher is implemented by states that hash their position without
// building its Key: states with equal keys must have equal hashes (and
// different keys should rarely share one). Line finds repeats by Hash and
// confirms each by Key.
type Hasher interface {
	Hash() uint64
}

// hashOf returns the hash of s and its key, "" when s is a Hasher (the key
// is then built only to confirm a repeat).
func hashOf(s State) (uint64, string) {
	if h, ok := s.(Hasher); ok {
		return h.Hash(), ""
	}
	k := s.Key()
	return maphash.String(keySeed, k), k
}

// keyOf is the Key of l's position.
func (l *Line) keyOf() string {
	if l.key != "" {
		return l.key
	}
	return l.state.Key()
}

// NewLine starts a line at s.
func NewLine(s State) *Line { return NewLineFor(s, 0) }

// NewLineFor starts a line at s that is expected to run about plies plies:
// its history is sized for them up front.
func NewLineFor(s State, plies int) *Line { return NewLineIn(nil, s, plies) }

// NewLineIn is NewLineFor taking the memory of the line, of its history
// and of the lines played straight on from it (as many as plies) from m;
// a nil m allocates as NewLineFor does. The lines played from a line of
// m are for one goroutine at a time, as m is.
func NewLineIn(m *LineMem, s State, plies int) *Line {
	slots := 16
	for slots < 2*(plies+1) {
		slots *= 2
	}
	var l *Line
	if m == nil {
		l = &Line{}
		l.hist = &history{slots: make([]int32, slots), lines: make([]*Line, 0, plies+1)}
	} else {
		l = takeOne(&m.lines, memLines)
		l.hist = takeOne(&m.hists, memHists)
		l.hist.slots = takeN(&m.slots, slots, memSlots)[:slots]
		l.hist.lines = takeN(&m.ptrs, plies+1, memLines)
		l.hist.slab = takeN(&m.lines, min(plies, memLines/4), memLines)
		l.hist.local = true
	}
	l.state, l.reps = s, 1
	l.hash, l.key = hashOf(s)
	l.hist.want = plies + 1
	l.hist.add(l)
	return l
}

// LineMem is memory for the lines of games, reused from game to game by a
// caller that keeps none of them: NewLineIn takes a game's lines from it,
// as many as were expected, and Reset hands the same memory out again.
// Lines taken from a LineMem are as immutable as any until Reset, after
// which none of them may be used. A LineMem is not safe for concurrent
// use, and neither are the lines taken from it: like it, they are used by
// one goroutine at a time (playing on from them takes no lock).
type LineMem struct {
	lines []Line
	hists []history
	slots []int32
	ptrs  []*Line
}

// Caps on what a LineMem keeps: a game longer than a quarter of them
// gets memory of its own, left to the collector.
const (
	memLines = 1 << 12
	memHists = 1 << 7
	memSlots = 1 << 14
)

// Reset clears what m has handed out (so that it holds no state of the
// games it served) and makes it ready to hand it out again: every line
// taken from m is then invalid.
func (m *LineMem) Reset() {
	clear(m.lines)
	m.lines = m.lines[:0]
	clear(m.hists)
	m.hists = m.hists[:0]
	clear(m.slots)
	m.slots = m.slots[:0]
	clear(m.ptrs)
	m.ptrs = m.ptrs[:0]
}

// takeN returns the next n zero elements of *s as an empty slice of
// capacity n, or a new slice when *s has no room for them (a new array of
// room replaces *s when n is at most a quarter of it).
func takeN[T any](s *[]T, n, room int) []T {
	if len(*s)+n > cap(*s) {
		if n > room/4 {
			return make([]T, 0, n)
		}
		*s = make([]T, 0, room)
	}
	i := len(*s)
	*s = (*s)[:i+n]
	return (*s)[i : i : i+n]
}

// takeOne returns a pointer to the next zero element of *s.
func takeOne[T any](s *[]T, room int) *T {
	if len(*s) == cap(*s) {
		*s = make([]T, 0, room)
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

// State is the current position.
func (l *Line) State() State { return l.state }

// Plies is the number of plies played since the start of the line.
func (l *Line) Plies() int { return l.plies }

// Parent is the line before the last ply, or nil at the start.
func (l *Line) Parent() *Line { return l.parent }

// Repeats is how many times the current position has occurred, this time
// included.
func (l *Line) Repeats() int { return l.reps }

// Outcome is the game's own outcome, or a settlement by threefold repetition.
func (l *Line) Outcome() Outcome { return *l.settled() }

// Over reports whether the game has ended: Outcome().Over, without a copy
// of the outcome.
func (l *Line) Over() bool { return l.settled().Over }

// settled returns the outcome, decided at the first call.
func (l *Line) settled() *Outcome {
	if o := l.out.Load(); o != nil {
		return o
	}
	o := l.outcome()
	p := &ongoing // shared: most positions go on
	if o.Over {
		p = new(Outcome)
		*p = o
	}
	l.out.Store(p)
	return p
}

var ongoing = Ongoing

func (l *Line) outcome() Outcome {
	if o := l.state.Outcome(); o.Over {
		return o
	}
	if l.reps >= Repetitions {
		return Settle(l.state, "threefold repetition")
	}
	return Ongoing
}

// Play applies m. It refuses any move once the game is over.
func (l *Line) Play(m Move) (*Line, error) {
	if l.Over() {
		return nil, Illegal("the game is over (%s)", l.Outcome().Reason)
	}
	s, err := l.state.Apply(m)
	if err != nil {
		return nil, err
	}
	return l.extend(s), nil
}

// Played is Play for a caller that has already played m from l's position
// on its own: next is the position l.State().Apply(m) returns (a codec
// whose decoding walks the whole turn reaches it on the way). It refuses
// any move once the game is over.
func (l *Line) Played(next State) (*Line, error) {
	if l.Over() {
		return nil, Illegal("the game is over (%s)", l.Outcome().Reason)
	}
	return l.extend(next), nil
}

// extend returns the line one ply on from l, at s.
func (l *Line) extend(s State) *Line {
	hash, key := hashOf(s)
	if h := l.hist; h != nil {
		h.lock()
		if len(h.lines) == l.plies+1 && h.lines[l.plies] == l {
			// l is the tip: every line of the history is an ancestor of n.
			n := h.alloc()
			n.state, n.parent, n.plies, n.reps, n.hash, n.key = s, l, l.plies+1, 1, hash, key
			if i := h.latest(n.hash); i >= 0 {
				n.reps = repeats(n, h.lines[i])
			}
			h.add(n)
			n.hist = h
			h.unlock()
			return n
		}
		h.unlock()
	}
	n := &Line{state: s, parent: l, plies: l.plies + 1, reps: 1, hash: hash, key: key}
	n.reps = repeats(n, l)
	return n
}

// repeats counts the occurrences of n's position: one more than at the
// latest of from and its ancestors that holds it.
func repeats(n, from *Line) int {
	key := ""
	for p := from; p != nil; p = p.parent {
		if p.hash != n.hash {
			continue
		}
		if key == "" {
			key = n.keyOf()
		}
		if p.keyOf() == key {
			return p.reps + 1
		}
	}
	return 1
}
