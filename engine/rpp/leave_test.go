package rpp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pbem/engine"
)

// TestLeave plays random games of 3 to 8 seats in which seats leave at
// random moments (RULES.md, "leaving"): the position stays valid (Check),
// a seat that left never moves again and keeps its pieces until they are
// captured, the turn moves on only when the mover leaves, the position
// text reads back, and the end ranks the seats that left below every
// seat still in, in reverse order of leaving. Two seats cannot leave.
func TestLeave(t *testing.T) {
	for _, n := range []int{3, 4, 5, 8} {
		r := rand.New(rand.NewPCG(uint64(n), 21))
		for game := range 6 {
			st, _ := Rules{}.Start(engine.Options{Players: n})
			s := st.(*State)
			var left []int
			for ply := 0; ply < 400 && !s.Outcome().Over; ply++ {
				if r.IntN(25) == 0 {
					var in []int
					for i := range n {
						if s.CanLeave(i) {
							in = append(in, i)
						}
					}
					seat := in[r.IntN(len(in))]
					mover := s.ToMove()
					live := s.live[seat]
					ns, err := s.Apply(engine.Leave{Seat: seat, Reason: engine.LeaveResign})
					if err != nil {
						t.Fatalf("%d seats, game %d: seat %d cannot leave: %v", n, game, seat, err)
					}
					s = ns.(*State)
					left = append(left, seat)
					if s.live[seat] != live {
						t.Fatalf("leaving changed the seat's pieces: %d, was %d", s.live[seat], live)
					}
					if seat != mover && s.ToMove() != mover && !s.Outcome().Over {
						t.Fatalf("a leave out of turn moved the turn from %d to %d", mover, s.ToMove())
					}
					if _, err := s.Apply(engine.Leave{Seat: seat, Reason: engine.LeaveTime}); err == nil {
						t.Fatal("a seat left twice")
					}
				} else {
					ms := s.Legal()
					ns, err := s.Apply(ms[r.IntN(len(ms))])
					if err != nil {
						t.Fatal(err)
					}
					s = ns.(*State)
				}
				if err := s.Check(); err != nil {
					t.Fatalf("%d seats, game %d, ply %d: %v\n%s", n, game, ply, err, s.Render(-1))
				}
				if !s.Outcome().Over && slices.Contains(left, s.ToMove()) {
					t.Fatalf("seat %d, which left, is to move", s.ToMove())
				}
				back, err := Rules{}.ParsePosition(engine.Options{Players: n}, s.Position())
				if err != nil || back.(*State).Position() != s.Position() {
					t.Fatalf("the position text does not read back: %v\n%s", err, s.Position())
				}
			}
			if o := s.Outcome(); o.Over {
				for k := 1; k < len(left); k++ {
					if s.out[left[k]] > s.out[left[k-1]] && o.Rank[left[k]] >= o.Rank[left[k-1]] && o.Rank[left[k]] != 1 {
						t.Errorf("seat %d left after %d and ranks %d, not above %d", left[k], left[k-1], o.Rank[left[k]], o.Rank[left[k-1]])
					}
				}
				for i := range n {
					if s.out[i] == 0 {
						for _, l := range left {
							if o.Rank[l] <= o.Rank[i] {
								t.Errorf("seat %d left and ranks %d, not below %d still in (rank %d)", l, o.Rank[l], i, o.Rank[i])
							}
						}
					}
				}
			}
		}
	}
	st, _ := Rules{}.Start(engine.Options{})
	if _, err := st.Apply(engine.Leave{Seat: 0, Reason: engine.LeaveResign}); err == nil {
		t.Error("a seat of two left the game")
	}
}

// TestRejoin: a seat that left comes back (a takeover): it moves again,
// the seats out after it move up in the order of elimination, the
// position stays valid and reads back; a seat still in, or one with no
// live pieces, cannot rejoin.
func TestRejoin(t *testing.T) {
	st, _ := Rules{}.Start(engine.Options{Players: 4})
	s := st.(*State)
	apply := func(m engine.Move) {
		t.Helper()
		n, err := s.Apply(m)
		if err != nil {
			t.Fatal(err)
		}
		s = n.(*State)
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Apply(engine.Rejoin{Seat: 1}); err == nil {
		t.Error("a seat still in rejoined")
	}
	apply(engine.Leave{Seat: 1, Reason: engine.LeaveResign})
	apply(engine.Leave{Seat: 2, Reason: engine.LeaveTime})
	apply(engine.Rejoin{Seat: 1})
	if s.Eliminated(1) != 0 || s.Eliminated(2) != 1 || s.nOut != 1 {
		t.Errorf("after the rejoin: seat 1 out %d, seat 2 out %d, %d out; want 0, 1, 1", s.Eliminated(1), s.Eliminated(2), s.nOut)
	}
	back, err := Rules{}.ParsePosition(engine.Options{Players: 4}, s.Position())
	if err != nil || back.(*State).Position() != s.Position() {
		t.Fatalf("the position does not read back: %v", err)
	}
	seen := map[int]bool{}
	for range 8 {
		seen[s.ToMove()] = true
		ms := s.Legal()
		apply(ms[0]) // a step (passes would end the game by standoff)
	}
	if !seen[1] || seen[2] {
		t.Errorf("movers %v: want seat 1 back in the turn order and seat 2 out", seen)
	}
}
