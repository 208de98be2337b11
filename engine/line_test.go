package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// walk is a State on a small ring of positions: a move steps by -1, 0 or +1,
// so positions recur often.
type walk struct{ at, n int }

func (w walk) Sides() []string             { return []string{"A", "B"} }
func (w walk) ToMove() int                 { return w.n % 2 }
func (w walk) Legal() []Move               { return []Move{-1, 0, 1} }
func (w walk) Outcome() Outcome            { return Ongoing }
func (w walk) Key() string                 { return fmt.Sprint(w.at, w.n%2) }
func (w walk) Render(int) string           { return w.Key() }
func (w walk) Check() error                { return nil }
func (w walk) Apply(m Move) (State, error) { return walk{(w.at + m.(int) + 5) % 5, w.n + 1}, nil }

// hashedWalk is a walk whose Hash is poor on purpose: positions with
// different keys share hashes, which Line must tell apart by Key.
type hashedWalk struct{ walk }

func (w hashedWalk) Hash() uint64 { return uint64(w.at % 2) }
func (w hashedWalk) Apply(m Move) (State, error) {
	s, err := w.walk.Apply(m)
	return hashedWalk{s.(walk)}, err
}

// naive counts occurrences of a line's position by walking its whole history.
func naive(l *Line) int {
	n := 0
	for p := l; p != nil; p = p.parent {
		if p.keyOf() == l.keyOf() {
			n++
		}
	}
	return n
}

// TestRepeatsOnBranches plays random trees of lines (a main line and
// branches from earlier positions, as variations and searches do) and
// checks every count of repetitions against a walk of the whole history.
func TestRepeatsOnBranches(t *testing.T) {
	for _, start := range []State{walk{}, hashedWalk{}} {
		t.Run(fmt.Sprintf("%T", start), func(t *testing.T) {
			repeatsOnBranches(t, start, func(int) *Line { return NewLine(start) })
		})
		// Games in memory reused from game to game, expecting fewer plies
		// than they run, about as many, and more (beyond what a LineMem
		// keeps).
		t.Run(fmt.Sprintf("%T/LineMem", start), func(t *testing.T) {
			var m LineMem
			repeatsOnBranches(t, start, func(game int) *Line {
				m.Reset()
				return NewLineIn(&m, start, game*game)
			})
		})
	}
}

func repeatsOnBranches(t *testing.T, start State, newLine func(game int) *Line) {
	r := rand.New(rand.NewPCG(1, 2))
	for game := range 50 {
		lines := []*Line{newLine(game)}
		for range 200 {
			from := lines[len(lines)-1]
			if r.IntN(4) == 0 {
				from = lines[r.IntN(len(lines))]
			}
			if from.Outcome().Over {
				continue
			}
			next, err := from.Play(r.IntN(3) - 1)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := next.Repeats(), naive(next); got != want {
				t.Fatalf("game %d after %d plies: Repeats() = %d, want %d", game, next.Plies(), got, want)
			}
			if o := next.Outcome(); o.Over != (next.Repeats() >= Repetitions) || next.Over() != o.Over {
				t.Fatalf("game %d: Outcome %+v with %d repeats", game, o, next.Repeats())
			}
			lines = append(lines, next)
		}
	}
}
