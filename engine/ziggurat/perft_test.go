package ziggurat

import (
	"testing"

	"pbem/engine"
)

// perft counts the move sequences of the given depth from s (a move that
// ends the game ends its sequence early; such leaves count at their depth
// only when depth is reached).
func perft(s *State, depth int) int {
	if depth == 0 {
		return 1
	}
	n := 0
	for _, m := range s.Moves() {
		next, err := s.Play(m)
		if err != nil {
			panic(err)
		}
		n += perft(next, depth-1)
	}
	return n
}

// TestPerft pins the number of legal turns from the start position.
//
// Depth 1 by hand: South's home rank is Q D W W D Q and nothing else is
// near. Qa1 slides up-right to b2, c3, d4 (3); Db1 to a2, c2, d3 (3); Wc1 to
// b2, d2 (2); Wd1 to c2, e2 (2); De1 to f2, d2, c3 (3); Qf1 to e2, d3, c4
// (3). No zig can go back (nothing to capture) or exit (too far), and the
// home rank is full, so no reinforcement: 16.
//
// Depth 2 is 16*16 less 6: a South Queen on the long diagonal of a North
// Queen blocks it (same sizes never capture): Qa1-d4 cuts Qf6's d4 and c3,
// Qf1-c4 cuts Qa6's c4 and d3, Qa1-c3 cuts Qf6's c3, Qf1-d3 cuts Qa6's d3.
func TestPerft(t *testing.T) {
	for _, first := range []int{South, North} {
		st, err := Rules{}.Start(engine.Options{First: first})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		for depth, want := range []int{1, 16, 250, 3_896, 59_066} {
			if testing.Short() && depth > 3 {
				break
			}
			if got := perft(s, depth); got != want {
				t.Errorf("perft(start, first=%d, depth %d) = %d, want %d", first, depth, got, want)
			}
		}
	}
}
