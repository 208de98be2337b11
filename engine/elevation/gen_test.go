package elevation

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
)

// midgame is the position after 24 random plies (seed 7, 7).
const midgame = `
	2s 3. 1d 3f 4S 2s
	5. 1. 9. 2. 0d 6.
	2f 4. 4. 2. 3. 2.
	4. 2. 3. 3. 3. 2.
	3. 3. 5. 2. 4. 3.
	3S 2. 2D 2D 2F 5.`

func perft(s *State, depth int) int {
	if depth == 0 {
		return 1
	}
	moves := s.AppendLegal(nil)
	if depth == 1 {
		return len(moves)
	}
	n := 0
	for _, m := range moves {
		next, err := s.Play(m)
		if err != nil {
			panic(err)
		}
		n += perft(next, depth-1)
	}
	return n
}

// TestPerft pins the number of legal turns (two orders of the same
// independent actions counted once) from fixed positions.
//
// Depth 1 from the start, by hand (all heights 3, rank 2 empty):
//   - Samurai a1: 4 digs (b2>a2, a2>b2, b1>a2, b1>b2), each followed by
//     a step to a2 or b2: 8. Step to a2, then 16 digs around a2 (5
//     sources a1 b1 b2 a3 b3, 4 empty a1 b2 a3 b3, 20 - 4 same) less
//     b1>b2, which is also a dig before the step: 15. Step to b2: 8
//     sources, 6 empty, 42 less b1>a2: 41. Total 64; f1 likewise.
//   - Fish b1: 12 digs (5 sources, 3 empty), each then a step to a2 b2
//     c2 (36) or the double step to d3 (12). Step then dig: a2 15, b2
//     42 - 6 = 36, c2 41. Double step to d3 then dig: 8 x 8 - 8 = 56.
//     Total 196; e1 likewise.
//   - Dragon c1: 12 digs, each then a step to b2 c2 d2: 36. Two digs:
//     12 x 12 orders, all legal, 12 x 13 / 2 = 78 once each. Step then
//     dig: b2 41, c2 36, d2 41. Two steps: 3 x 6 = 18. A single step:
//     3. Total 253; d1 likewise.
//
// 2 x (64 + 196 + 253) = 1026.
func TestPerft(t *testing.T) {
	for _, c := range []struct {
		name  string
		s     *State
		depth int
		want  int
	}{
		{"start", StartState(), 1, 1026},
		{"start", StartState(), 2, 1048448},
		{"midgame", pos(t, midgame), 1, 745},
		{"midgame", pos(t, midgame), 2, 690574},
	} {
		if got := perft(c.s, c.depth); got != c.want {
			t.Errorf("perft(%s, %d) = %d, want %d", c.name, c.depth, got, c.want)
		}
	}
}

// TestLegalAgreesWithApply checks on positions of random games that Legal
// lists each turn once, that every listed turn applies, that Apply accepts
// exactly the turns whose result Legal reaches (over every move of one or
// two actions on squares near the piece), and that RandomMove draws legal
// turns.
func TestLegalAgreesWithApply(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	games, plies := 6, 60
	if testing.Short() {
		games = 1
	}
	positions := 0
	for g := 0; g < games; g++ {
		s := StartState()
		for ply := 0; ply < plies; ply++ {
			if ply%5 == 0 || s.Outcome().Over {
				checkPosition(t, s, r)
				positions++
			}
			if s.Outcome().Over {
				break
			}
			m := s.RandomMove(r)
			n, err := s.Apply(m)
			if err != nil {
				t.Fatalf("RandomMove = %v, which Apply refuses: %v\n%s", m, err, s.Render(-1))
			}
			s = n.(*State)
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d positions checked", positions)
}

func checkPosition(t *testing.T, s *State, r *rand.Rand) {
	t.Helper()
	moves := s.AppendLegal(nil)
	if over := s.Outcome().Over; over != (len(moves) == 0) {
		t.Fatalf("Outcome().Over = %v with %d legal turns\n%s", over, len(moves), s.Render(-1))
	}
	seen := map[Move]bool{}
	keys := map[string]bool{}
	results := map[Move]string{}
	for _, m := range moves {
		if seen[m] {
			t.Fatalf("Legal lists %v twice\n%s", m, s.Render(-1))
		}
		seen[m] = true
		n, err := s.Play(m)
		if err != nil {
			t.Fatalf("listed %v: %v\n%s", m, err, s.Render(-1))
		}
		if err := n.Check(); err != nil {
			t.Fatalf("after %v: %v", m, err)
		}
		keys[n.Key()] = true
		results[m] = n.Key()
	}
	// Two orders of the same actions are not both listed.
	for _, m := range moves {
		if m.Len() != 2 {
			continue
		}
		rev := Move{m.At, [2]Action{m.Actions[1], m.Actions[0]}}
		if rev != m && seen[rev] && results[rev] == results[m] {
			t.Fatalf("Legal lists both %v and %v\n%s", m, rev, s.Render(-1))
		}
	}
	// hasComplete agrees with the listed turns.
	for p := Square(0); p < NumSquares; p++ {
		pc := s.cell[p]
		if pc == NoPiece || uint8(pc.Side()) != s.toMove || s.count(s.toMove^1) == 0 {
			continue
		}
		complete := false
		for _, m := range moves {
			if m.At == p && (m.Len() == 2 || (pc.Kind() == Dragon && m.Actions[0].Kind == Step)) {
				complete = true
			}
		}
		if got := s.hasCompleteTurn(p); got != complete {
			t.Fatalf("hasComplete(%v) = %v, Legal says %v\n%s", p, got, complete, s.Render(-1))
		}
	}
	// Apply accepts exactly the turns with a listed result.
	accepted := map[string]bool{}
	try := func(m Move) {
		n, err := s.Play(m)
		if err != nil {
			return
		}
		if !keys[n.Key()] {
			t.Fatalf("Apply(%v) succeeds, but no listed turn gives that position\n%s", m, s.Render(-1))
		}
		accepted[n.Key()] = true
	}
	for p := Square(0); p < NumSquares; p++ {
		pc := s.cell[p]
		if pc == NoPiece || uint8(pc.Side()) != s.toMove {
			continue
		}
		for _, a0 := range candidates(p) {
			try(Move{p, [2]Action{a0}})
			at := p
			if a0.Kind == Step {
				at = a0.To
			}
			for _, a1 := range candidates(at) {
				try(Move{p, [2]Action{a0, a1}})
			}
		}
	}
	if len(accepted) != len(keys) {
		t.Fatalf("Apply reaches %d positions, Legal %d\n%s", len(accepted), len(keys), s.Render(-1))
	}
	if len(moves) == 0 {
		return
	}
	for i := 0; i < 20; i++ {
		m := s.RandomMove(r).(Move)
		n, err := s.Play(m)
		if err != nil || !keys[n.Key()] {
			t.Fatalf("RandomMove = %v: %v, listed result %v\n%s", m, err, err == nil && keys[n.Key()], s.Render(-1))
		}
	}
}

// candidates are the actions of a piece on p worth trying, legal or not:
// digs between any squares of the 3x3 box around p (p included) and steps
// to any square of the 5x5 box.
func candidates(p Square) []Action {
	var out []Action
	box := func(r int) []Square {
		var b []Square
		for df := -r; df <= r; df++ {
			for dr := -r; dr <= r; dr++ {
				f, k := p.File()+df, p.Rank()+dr
				if f >= 0 && f < Size && k >= 0 && k < Size {
					b = append(b, Sq(f, k))
				}
			}
		}
		return b
	}
	for _, a := range box(1) {
		for _, b := range box(1) {
			out = append(out, DigAction(a, b))
		}
	}
	for _, q := range box(2) {
		out = append(out, StepAction(q))
	}
	return out
}

func BenchmarkLegalStart(b *testing.B) {
	s := StartState()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

func BenchmarkAppendLegalStart(b *testing.B) {
	s := StartState()
	buf := make([]Move, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.AppendLegal(buf[:0])
	}
}

func BenchmarkLegalMidgame(b *testing.B) {
	s := pos(b, midgame)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

func BenchmarkAppendLegalMidgame(b *testing.B) {
	s := pos(b, midgame)
	buf := make([]Move, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.AppendLegal(buf[:0])
	}
}

func BenchmarkRandomMoveMidgame(b *testing.B) {
	s := pos(b, midgame)
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.RandomMove(r)
	}
}

// BenchmarkApply plays a typical turn (dig then step) through the
// engine.State interface.
func BenchmarkApply(b *testing.B) {
	var s engine.State = StartState()
	m := turn(b, "a1", "b2>a2", "-b2")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOutcome(b *testing.B) {
	s := pos(b, midgame)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Outcome()
	}
}

// refHasTurn is hasTurn visiting the squares one by one.
func refHasTurn(s *State) bool {
	c := Piece(s.toMove) * blackBit
	for p := Square(0); p < NumSquares; p++ {
		t := s.cell[p]
		if t == NoPiece || t&blackBit != c {
			continue
		}
		climb := Climb
		if t.Kind() == Dragon {
			climb = DragonClimb
		}
		for i := 0; i < int(nAdj[p]); i++ {
			if s.canStep(p, adj[p][i], climb, c) {
				return true
			}
		}
		if s.anyDig(p, c) {
			return true
		}
	}
	return false
}

// TestSidesOn: sidesOn and hasTurn, which read the cells eight at a time,
// agree with square-by-square readings in every position of random games
// and in positions with pieces removed square by square (from a1 up and
// from f6 down), for either side to move.
func TestSidesOn(t *testing.T) {
	ref := func(s *State) uint8 {
		var on uint8
		for _, p := range s.cell {
			if p != NoPiece {
				on |= 1 << p.Side()
			}
		}
		return on
	}
	for g := range 40 {
		r := rand.New(rand.NewPCG(5, uint64(g)))
		s := StartState()
		for ply := 0; ply < 200 && !s.Outcome().Over; ply++ {
			if got, want := s.sidesOn(), ref(s); got != want {
				t.Fatalf("game %d ply %d: sidesOn = %b, want %b\n%s", g, ply, got, want, s.Render(White))
			}
			for _, up := range []bool{true, false} {
				w := *s
				for i := range w.cell {
					q := i
					if !up {
						q = NumSquares - 1 - i
					}
					w.cell[q] = NoPiece
					if got, want := w.sidesOn(), ref(&w); got != want {
						t.Fatalf("game %d ply %d, cleared to %v: sidesOn = %b, want %b", g, ply, Square(q), got, want)
					}
					for range 2 {
						w.toMove ^= 1
						if got, want := w.hasTurn(), refHasTurn(&w); got != want {
							t.Fatalf("game %d ply %d, cleared to %v, %s to move: hasTurn = %v, want %v", g, ply, Square(q), sideNames[w.toMove], got, want)
						}
					}
				}
			}
			next, err := s.Play(s.RandomMove(r).(Move))
			if err != nil {
				t.Fatal(err)
			}
			s = next
		}
	}
}
