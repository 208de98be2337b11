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
	key    string
	plies  int
	reps   int // occurrences of this position so far, this one included
	// hist indexes the positions of a line played straight on from its
	// start (no branch): a repeat is then found by hash, not by walking
	// the whole history. It is nil after a branch.
	hist *history
	out  atomic.Pointer[Outcome] // Outcome, once asked
}

// history is shared by the lines of one unbranched game: last[h] is the
// number of plies of the latest of them whose position hashes to h, and
// lines[i] the line after i plies. Only a line's last descendant (the tip)
// extends it; a line played from an earlier one walks its parents instead.
type history struct {
	mu    sync.Mutex
	lines []*Line
	last  map[uint64]int
}

// NewLine starts a line at s.
func NewLine(s State) *Line {
	k := s.Key()
	l := &Line{state: s, hash: maphash.String(keySeed, k), key: k, reps: 1}
	l.hist = &history{lines: []*Line{l}, last: map[uint64]int{l.hash: 0}}
	return l
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
func (l *Line) Outcome() Outcome {
	if o := l.out.Load(); o != nil {
		return *o
	}
	o := l.outcome()
	l.out.Store(&o)
	return o
}

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
	if o := l.Outcome(); o.Over {
		return nil, Illegal("the game is over (%s)", o.Reason)
	}
	s, err := l.state.Apply(m)
	if err != nil {
		return nil, err
	}
	k := s.Key()
	n := &Line{state: s, parent: l, hash: maphash.String(keySeed, k), key: k, plies: l.plies + 1, reps: 1}
	if h := l.hist; h != nil {
		h.mu.Lock()
		if len(h.lines) == l.plies+1 && h.lines[l.plies] == l {
			// l is the tip: every line of the history is an ancestor of n.
			if i, ok := h.last[n.hash]; ok {
				n.reps = repeats(n, h.lines[i])
			}
			h.lines = append(h.lines, n)
			h.last[n.hash] = n.plies
			n.hist = h
			h.mu.Unlock()
			return n, nil
		}
		h.mu.Unlock()
	}
	n.reps = repeats(n, l)
	return n, nil
}

// repeats counts the occurrences of n's position: one more than at the
// latest of from and its ancestors that holds it.
func repeats(n, from *Line) int {
	for p := from; p != nil; p = p.parent {
		if p.hash == n.hash && p.key == n.key {
			return p.reps + 1
		}
	}
	return 1
}
