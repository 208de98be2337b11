package rpp

import (
	"fmt"
	"strings"
	"testing"

	"pbem/engine"
)

// perft counts the move sequences of depth plies from s (a finished game
// has none).
func perft(s *State, depth int) int {
	if depth == 0 {
		return 1
	}
	var buf [128]Move
	ms := s.AppendLegal(buf[:0])
	if depth == 1 {
		return len(ms)
	}
	n := 0
	for _, m := range ms {
		next, err := s.Apply(m)
		if err != nil {
			panic(err)
		}
		n += perft(next.(*State), depth-1)
	}
	return n
}

// TestPerft pins the number of move sequences from the start positions.
//
// Depth 1 by hand: only the L of each nest may move; a step onto a
// friendly nest is illegal (its L is there) and onto a hostile nest is
// blocked (its L blocks), so each L steps to the empty cells next to it,
// and pass is always legal.
//   - square5, 2 seats: a1 and e1 reach 2 cells (a2 b2; d2 e2), b1 c1 d1
//     reach 3 each: 13 + pass = 14.
//   - square7, 4 seats: b1 reaches a1 b2 c2 (a2 is Y's nest), c1 d1 e1
//     3 each, f1 reaches g1 e2 f2: 15 + pass = 16.
//   - hex5, 3 seats: each of a1..a5 reaches the two cells above it in row
//     b: 10 + pass = 11.
//   - hex7, 6 seats: a2 reaches a1 b2 b3, a3 a4 a5 two each, a6 reaches
//     a7 b6 b7: 12 + pass = 13.
//   - octagon, 8 seats: h1 reaches g1 g2 h2 i2, i1 j1 k1 3 each, l1
//     reaches m1 k2 l2 m2: 17 + pass = 18.
//
// Depth 2 on square5 is 14 x 14: the seats cannot interact yet (a pass
// then a pass ends the game in a standoff, but at depth 2 it still counts
// as one sequence); hex5 likewise 11 x 11 and 11 x 11 x 11. On square7,
// hex7 and the octagon neighbouring home edges touch, so the first L
// moves already open or close cells next to the following seat.
func TestPerft(t *testing.T) {
	cases := []struct {
		o    engine.Options
		want []int // depth 1, 2, ...
	}{
		{engine.Options{}, []int{14, 196, 3710, 70119}},
		{engine.Options{Players: 3}, []int{11, 121, 1331, 21406}},
		{engine.Options{Players: 4}, []int{16, 254, 4032}},
		{engine.Options{Players: 6}, []int{13, 167, 2145}},
		{engine.Options{Players: 8}, []int{18, 322, 5760}},
	}
	for _, tc := range cases {
		s, err := Rules{}.Start(tc.o)
		if err != nil {
			t.Fatal(err)
		}
		for d, want := range tc.want {
			if testing.Short() && d >= 3 {
				break
			}
			if got := perft(s.(*State), d+1); got != want {
				t.Errorf("perft(%d players, depth %d) = %d, want %d", tc.o.Players, d+1, got, want)
			}
		}
	}
}

// TestPerftMidgame pins the legal moves of a midgame position (the one the
// benchmarks use) and checks its invariants.
func TestPerftMidgame(t *testing.T) {
	s := midgame(t)
	if err := s.Check(); err != nil {
		t.Fatalf("midgame position: %v", err)
	}
	got := []int{perft(s, 1), perft(s, 2)}
	want := []int{30, 718}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("perft(midgame, 1..2) = %v, want %v\n%s", got, want, s.Render(-1))
	}
}

// midgame plays a fixed 4-player opening on square7 that leaves free
// pieces, partial nests and a capture stack on the board.
func midgame(tb testing.TB) *State {
	tb.Helper()
	st, _ := Rules{}.Start(engine.Options{Players: 4})
	s := st.(*State)
	plies := strings.Fields(`Lc1-c2 La4-b4 Le7-e6 Lg4-f4 Lc2-c3 Lb4-c4 Le6-e5 Lf4-e4
		Mc1-c2 Ma4-b4 Me7-e6 Mg4-f4 Lc3-d4 Mb4-b5 Me6-d6 Mf4-f3
		Ld4-d5 Mb5-c5 Md6-d5`)
	for _, p := range plies {
		m := mv(tb, s.board(), p)
		n, err := s.Apply(m)
		if err != nil {
			tb.Fatalf("%s: %v\n%s", p, err, s.Render(-1))
		}
		s = n.(*State)
	}
	return s
}

func TestKey(t *testing.T) {
	st, _ := Rules{}.Start(engine.Options{})
	s := st.(*State)
	play := func(plies ...string) *State {
		x := s
		for _, p := range plies {
			n, err := x.Apply(mv(t, s.board(), p))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			x = n.(*State)
		}
		return x
	}
	a := play("La1-a2", "La5-a4", "Lb1-b2")
	b := play("Lb1-b2", "La5-a4", "La1-a2")
	if a.Key() != b.Key() {
		t.Errorf("transposed moves give different keys")
	}
	c := play("La1-a2", "La5-a4", "Lb1-b2", "pass")
	d := play("La1-a2", "La5-a4", "Lb1-b2", "La4-a3")
	if a.Key() == c.Key() || c.Key() == d.Key() {
		t.Errorf("positions that differ (side to move, board) share a key")
	}
	// RULES.md: the position does not include how many passes were just
	// made, so a full round of passes repeats the position before it.
	if s.Key() != play("pass", "pass").Key() {
		t.Errorf("the count of passes is in the key")
	}
}
