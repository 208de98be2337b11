package engine

import "hash/maphash"

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
}

// NewLine starts a line at s.
func NewLine(s State) *Line {
	k := s.Key()
	return &Line{state: s, hash: maphash.String(keySeed, k), key: k, reps: 1}
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
	for p := l; p != nil; p = p.parent {
		if p.hash == n.hash && p.key == n.key {
			n.reps = p.reps + 1
			break
		}
	}
	return n, nil
}
