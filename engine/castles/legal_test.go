package castles

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"pbem/engine"
)

func perft(s engine.State, depth int) int {
	if depth == 0 {
		return 1
	}
	moves := s.Legal()
	if depth == 1 {
		return len(moves)
	}
	n := 0
	for _, m := range moves {
		next, err := s.Apply(m)
		if err != nil {
			panic(fmt.Sprintf("generated move %#v: %v", m, err))
		}
		n += perft(next, depth-1)
	}
	return n
}

// TestPerft pins the number of legal plies from the start.
//
// Depth 1 by hand: the start is Second's setup, one unit from its scrap
// heap on one of the 3 cells next to d4 (c3, c4, d3): 3.
// Depth 2 by hand: First moves one unit from heap to supply, steps the
// castle from a1 to a2, b1 or b2 (no unit of its own to step) and places
// that unit or not. From a2 the empty neighbours are a1 a3 b1 b2 b3 (5
// placements + none = 6), from b1 a1 a2 b2 c1 c2 (6), from b2 the 8
// neighbours less Second's unit if it stands on c3 (8 or 9): 20 after
// @c3, 21 after @c4 and after @d3, 62 in all.
func TestPerft(t *testing.T) {
	want := []int{1, 3, 62, 5690}
	if !testing.Short() {
		want = append(want, 1017110)
	}
	s := NewState()
	for depth, n := range want {
		if got := perft(s, depth); got != n {
			t.Errorf("perft(start, %d) = %d, want %d", depth, got, n)
		}
	}
}

func TestLegalAtStart(t *testing.T) {
	got := NewState().Legal()
	want := []engine.Move{
		Move{Setup: true, Places: []Square{sq(t, "c3")}},
		Move{Setup: true, Places: []Square{sq(t, "d3")}},
		Move{Setup: true, Places: []Square{sq(t, "c4")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Legal(start) = %v, want %v", got, want)
	}
}

// TestLegalCanonical pins which ordering Legal lists: the fewest unit
// steps, steps found breadth first, placements in canonical order.
func TestLegalCanonical(t *testing.T) {
	s := pos(t, "...S/f.s./f.../F... 3/0/0 4/0/0 F")
	// a3-a4 then a2-a3 reaches the same cells as a2-b3 then ... no: the
	// listed move for a4+a3 must be exactly the two steps in this order.
	n, err := s.Apply(mv(t, s, "Ca1-b1,a3-a4,a2-a3"))
	if err != nil {
		t.Fatal(err)
	}
	var found []Move
	for _, m := range s.Legal() {
		if x, _ := s.Apply(m); x.Key() == n.Key() {
			found = append(found, m.(Move))
		}
	}
	want := []Move{{Castle: [2]Square{sq(t, "a1"), sq(t, "b1")}, Steps: []Step{{sq(t, "a3"), sq(t, "a4")}, {sq(t, "a2"), sq(t, "a3")}}}}
	if !reflect.DeepEqual(found, want) {
		t.Errorf("Legal moves reaching %s = %v, want %v", diagram(n.(*State)), found, want)
	}
	// Placements are listed in canonical order whatever order is played.
	s = pos(t, "...S/..../..../F... 3/2/0 5/0/0 F")
	n, err = s.Apply(mv(t, s, "Ca1-a2,@b3,@a1,@c4"))
	if err != nil {
		t.Fatal(err)
	}
	want = []Move{{Castle: [2]Square{sq(t, "a1"), sq(t, "a2")}, Places: []Square{sq(t, "a1"), sq(t, "b3"), sq(t, "c4")}}}
	found = nil
	for _, m := range s.Legal() {
		if x, _ := s.Apply(m); x.Key() == n.Key() {
			found = append(found, m.(Move))
		}
	}
	if !reflect.DeepEqual(found, want) {
		t.Errorf("Legal moves reaching %s = %v, want %v", diagram(n.(*State)), found, want)
	}
}

// bruteResults plays every sequence of actions the checked Turn API
// accepts (every square to every square) and collects the keys of the
// positions reached. It shares nothing with Legal but the Turn API.
func bruteResults(t testing.TB, s *State, limit int) (map[string]bool, bool) {
	res := map[string]bool{}
	seen := map[Turn]bool{}
	var rec func(tu Turn) bool
	rec = func(tu Turn) bool {
		if seen[tu] {
			return true
		}
		if len(seen) > limit {
			return false
		}
		seen[tu] = true
		if n, err := tu.End(); err == nil {
			res[n.Key()] = true
		}
		for a := range Square(Cells) {
			c := tu
			if err := c.Place(a); err == nil && !rec(c) {
				return false
			}
			for b := range Square(Cells) {
				// Only pairs within a king step: the others are refused
				// by geometry alone (TestScenarios pins that).
				if abs(a.File()-b.File()) > 1 || abs(a.Rank()-b.Rank()) > 1 {
					continue
				}
				c := tu
				if a == tu.Castle() {
					if _, err := c.CastleStep(a, b); err == nil && !rec(c) {
						return false
					}
					continue
				}
				if _, err := c.Step(a, b); err == nil && !rec(c) {
					return false
				}
			}
		}
		return true
	}
	tu, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	return res, rec(tu)
}

// randomPositions plays random games and returns the positions met.
func randomPositions(n, plies int, seed uint64) []*State {
	var out []*State
	for g := range n {
		r := rand.New(rand.NewPCG(seed, uint64(g)))
		s := NewState()
		for range plies {
			if s.over() {
				break
			}
			out = append(out, s)
			next, err := s.Apply(s.RandomMove(r))
			if err != nil {
				panic(err)
			}
			s = next.(*State)
		}
	}
	return out
}

// TestLegalComplete checks on random positions that Legal lists exactly one
// move per position that any sequence of accepted actions reaches.
func TestLegalComplete(t *testing.T) {
	positions := randomPositions(12, 40, 1)
	if testing.Short() {
		positions = positions[:40]
	}
	checked := 0
	for _, s := range positions {
		want, ok := bruteResults(t, s, 1500)
		if !ok {
			continue
		}
		checked++
		got := map[string]bool{}
		moves := s.Legal()
		for _, m := range moves {
			n, err := s.Apply(m)
			if err != nil {
				t.Fatalf("%s: generated %v: %v", diagram(s), m, err)
			}
			if got[n.Key()] {
				t.Fatalf("%s: two moves reach %s", diagram(s), n.Key())
			}
			got[n.Key()] = true
			if !want[n.Key()] {
				t.Fatalf("%s: %v reaches %s, which no action sequence reaches", diagram(s), m, n.Key())
			}
		}
		if len(got) != len(want) {
			for k := range want {
				if !got[k] {
					t.Fatalf("%s: Legal lists %d moves, %d results exist; missing %s", diagram(s), len(got), len(want), k)
				}
			}
		}
	}
	if checked < 80 && !testing.Short() {
		t.Errorf("checked %d positions, want at least 80", checked)
	}
	t.Logf("checked %d of %d positions", checked, len(positions))
}

// TestRandomMove checks that sampled turns apply and are listed.
func TestRandomMove(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, s := range firstN(randomPositions(10, 60, 2), 200) {
		keys := map[string]bool{}
		for _, m := range s.Legal() {
			n, _ := s.Apply(m)
			keys[n.Key()] = true
		}
		for range 20 {
			m := s.RandomMove(r)
			n, err := s.Apply(m)
			if err != nil {
				t.Fatalf("%s: RandomMove %v: %v", diagram(s), m, err)
			}
			if !keys[n.Key()] {
				t.Fatalf("%s: RandomMove %v reaches a position Legal does not list", diagram(s), m)
			}
		}
	}
}

func TestRandomGamesEnd(t *testing.T) {
	ended := 0
	for g := range 200 {
		r := rand.New(rand.NewPCG(3, uint64(g)))
		var s engine.State = NewState()
		for range 1000 {
			if s.Outcome().Over {
				ended++
				break
			}
			var err error
			s, err = s.Apply(s.(*State).RandomMove(r))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if ended < 150 {
		t.Errorf("%d of 200 random games ended within 1000 plies", ended)
	}
}

func TestKey(t *testing.T) {
	base := "...S/..s./.f../F... 4/0/0 4/0/0 F"
	variants := []string{
		"...S/..s./.f../F... 3/1/0 4/0/0 F", // heap vs supply
		"...S/..s./.f../F... 4/0/1 4/0/0 F", // points
		"...S/..s./.f../F... 4/0/0 3/1/0 F", // Second's supply
		"...S/..s./.f../F... 4/0/0 4/0/1 F", // Second's points
		"...S/..s./.f../F... 4/0/0 4/0/0 S", // side to move
		"...S/..s./f.../F... 4/0/0 4/0/0 F", // board
	}
	k := pos(t, base).Key()
	if k != "F....f....s....S 4/0/0 4/0/0 F" {
		t.Errorf("Key(%s) = %q", base, k)
	}
	for _, v := range variants {
		if pos(t, v).Key() == k {
			t.Errorf("Key(%s) = Key(%s) = %q", v, base, k)
		}
	}
	if k := NewState().Key(); k != "F..............S 5/0/0 5/0/0 S*" {
		t.Errorf("Key(start) = %q", k)
	}
	// The same position reached by different orders has the same key.
	s := pos(t, "...S/f.s./f.../F... 2/1/0 4/0/0 F")
	a, _ := s.Apply(mv(t, s, "Ca1-b1,a3-a4,a2-a3,@a2,@c1"))
	b, _ := s.Apply(mv(t, s, "Ca1-b1,a3-a4,a2-a3,@c1,@a2"))
	if a == nil || b == nil || a.Key() != b.Key() {
		t.Errorf("keys of one position differ: %v, %v", a, b)
	}
}

func TestCheck(t *testing.T) {
	good := pos(t, "...S/..s./.f../F... 4/0/0 4/0/0 F")
	tests := []struct {
		name   string
		change func(s *State)
		want   string
	}{
		{"unit lost", func(s *State) { s.heap[0]-- }, "castles: First has 4 units (board 1, supply 0, heap 3), want 5"},
		{"unit made", func(s *State) { s.supply[1]++ }, "castles: Second has 6 units (board 1, supply 1, heap 4), want 5"},
		{"shared cell", func(s *State) { s.units[1] |= s.units[0]; s.heap[1]-- }, "castles: units of both sides share 0x0020"},
		{"unit on castle", func(s *State) { s.units[0] |= 1; s.heap[0]-- }, "castles: a unit stands on a castle"},
		{"castles together", func(s *State) { s.castle[1] = 0 }, "castles: both castles on a1"},
		{"castle off board", func(s *State) { s.castle[0] = 16 }, "castles: castle 0 off the board (16)"},
		{"negative", func(s *State) { s.heap[0], s.supply[0] = -1, 1 }, "castles: First has heap -1, supply 1"},
		{"points", func(s *State) { s.points[1] = 4 }, "castles: Second has 4 points"},
		{"two winners", func(s *State) { s.points = [2]int8{3, 3} }, "castles: both sides have 3 points"},
		{"setup later", func(s *State) { s.setup, s.toMove = true, Second }, "castles: setup ply in a position that is not the start"},
		{"side", func(s *State) { s.toMove = 2 }, "castles: side to move 2"},
	}
	if err := good.Check(); err != nil {
		t.Fatalf("Check(%s) = %v", diagram(good), err)
	}
	for _, tc := range tests {
		s := *good
		tc.change(&s)
		if err := s.Check(); err == nil || err.Error() != tc.want {
			t.Errorf("Check(%s) = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	s := pos(t, "...S/..s./.f../F... 3/1/1 4/0/2 F")
	want := `    a   b   c   d
  +---+---+---+---+
4 |   |   |   |[S]| 4
  +---+---+---+---+
3 |   |   | s |   | 3
  +---+---+---+---+
2 |   | f |   |   | 2
  +---+---+---+---+
1 |[F]|   |   |   | 1
  +---+---+---+---+
    a   b   c   d

[F] First's castle   f First's unit
[S] Second's castle  s Second's unit
First:  points 1, supply 1, scrap heap 3
Second: points 2, supply 0, scrap heap 4
First to move
(a unit comes from the scrap heap first: supply 2 this turn)
`
	for _, view := range []int{-1, First} {
		if got := s.Render(view); got != want {
			t.Errorf("Render(%d) =\n%s\nwant\n%s", view, got, want)
		}
	}
	flipped := `    d   c   b   a
  +---+---+---+---+
1 |   |   |   |[F]| 1
  +---+---+---+---+
2 |   |   | f |   | 2
  +---+---+---+---+
3 |   | s |   |   | 3
  +---+---+---+---+
4 |[S]|   |   |   | 4
  +---+---+---+---+
    d   c   b   a
`
	if got := s.Render(Second); !strings.HasPrefix(got, flipped) {
		t.Errorf("Render(Second) =\n%s\nwant it to start\n%s", got, flipped)
	}
	if got := NewState().Render(-1); !strings.HasSuffix(got, "Second to move: setup, place one unit on c3, c4 or d3\n") {
		t.Errorf("Render(start) ends\n%s", got)
	}
	// An empty scrap heap: nothing comes to the supply.
	if got := pos(t, "...S/..s./.f../F... 0/4/1 4/0/2 F").Render(-1); !strings.HasSuffix(got, "First to move\n") {
		t.Errorf("Render(empty heap) ends\n%s", got)
	}
	over := pos(t, "...S/..../.F../.... 4/1/0 4/1/3 S")
	if got := over.Render(-1); !strings.HasSuffix(got, "Game over: Second wins (three points)\n") {
		t.Errorf("Render(over) ends\n%s", got)
	}
}

func TestHelp(t *testing.T) {
	r := Rules{}
	for i, l := range strings.Split(r.Help(), "\n") {
		if len(l) > 72 {
			t.Errorf("Help() line %d is %d columns, want <= 72", i+1, len(l))
		}
	}
	if s := r.Summary(); strings.Contains(s, "\n") || len(s) > 72 {
		t.Errorf("Summary() = %q, want one line of at most 72 columns", s)
	}
}

func TestSquare(t *testing.T) {
	for _, tc := range []struct {
		text string
		q    Square
		ok   bool
	}{{"a1", 0, true}, {"D4", 15, true}, {"c2", 6, true}, {"e1", 0, false}, {"a5", 0, false}, {"a", 0, false}, {"a10", 0, false}} {
		q, ok := ParseSquare(tc.text)
		if q != tc.q || ok != tc.ok {
			t.Errorf("ParseSquare(%q) = %v, %v, want %v, %v", tc.text, q, ok, tc.q, tc.ok)
		}
		if ok && !strings.EqualFold(q.String(), tc.text) {
			t.Errorf("Square(%d).String() = %q, want %q", q, q.String(), tc.text)
		}
	}
}

// midgame is a position with units of both sides spread over the board.
const midgame = "f.sS/.fs./.f.s/F..f 1/0/1 1/1/1 F"

func BenchmarkLegalStart(b *testing.B) {
	s := NewState()
	b.ReportAllocs()
	for b.Loop() {
		s.Legal()
	}
}

func BenchmarkLegalFirstTurn(b *testing.B) {
	s := pos(b, afterSetup)
	b.ReportAllocs()
	for b.Loop() {
		s.Legal()
	}
}

func BenchmarkLegalMidgame(b *testing.B) {
	s := pos(b, midgame)
	b.ReportMetric(float64(len(s.Legal())), "moves")
	b.ReportAllocs()
	for b.Loop() {
		s.Legal()
	}
}

func BenchmarkApply(b *testing.B) {
	s := pos(b, midgame)
	m := mv(b, s, "Ca1-b1,b3-a3,d1-c1,@a1")
	if _, err := s.Apply(m); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Apply(m)
	}
}

func BenchmarkRandomMove(b *testing.B) {
	s := pos(b, midgame)
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		s.RandomMove(r)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func firstN(s []*State, n int) []*State { return s[:min(n, len(s))] }

func TestFromDiagramErrors(t *testing.T) {
	for _, tc := range []struct{ d, want string }{
		{"...S/..../..../F... 5/0/0 5/0/0", "castles position, column 32: the text ends after 3 fields, without the side to move; want 4 fields separated by blanks: cells, First's heap/supply/points, Second's heap/supply/points, side to move"},
		{"...S/..../F... 5/0/0 5/0/0 F", "castles position, column 15: the cells end at rank 2 after 4 cells; want 4 ranks of 4 cells, rank 4 first"},
		{"...S/..../..../F.. 5/0/0 5/0/0 F", "castles position, column 19: the cells end at rank 1 after 3 cells; want 4 ranks of 4 cells, rank 4 first"},
		{"...S/..../..../F..x 5/0/0 5/0/0 F", "castles position, column 19: 'x' on d1 is no cell content; want F or S (a castle), f or s (a unit) or . (empty)"},
		{"..../..../..../F... 5/0/0 5/0/0 F", "castles position, column 1: Second's castle is missing; want one F and one S"},
		{"...S/..../..../F... 5/0 5/0/0 F", `castles position, column 21: 2 counts in "5/0"; want heap/supply/points, three counts such as 4/0/0`},
		{"...S/..../..../F... 5/0/a 5/0/0 F", `castles position, column 25: bad count "a"; want a count 0 to 5`},
		{"...S/..../..../F... 5/0/0 5/0/0 X", `castles position, column 33: no side "X"; want F, S, or S* (Second's setup ply)`},
		{"...S/..../..../F... 4/0/0 5/0/0 F", "castles position: First has 4 units (board 0, supply 0, heap 4), want 5"},
		{"...S/..../...F/F... 5/0/0 5/0/0 F", "castles position, column 16: a second First castle; want one castle per side"},
		{"...S/..../..../F...f 5/0/0 5/0/0 F", "castles position, column 20: a fifth cell on rank 1; want '/' between ranks"},
	} {
		if _, err := FromDiagram(tc.d); err == nil || err.Error() != tc.want {
			t.Errorf("FromDiagram(%q) = %v, want %q", tc.d, err, tc.want)
		}
	}
	d := "...S/..s./.f../F... 4/0/0 4/0/0 F"
	if got := pos(t, d).Diagram(); got != d {
		t.Errorf("FromDiagram(%q).Diagram() = %q", d, got)
	}
}

// TestNarrate: the reply says who scored and why; a turn that scores
// nothing says nothing.
func TestNarrate(t *testing.T) {
	for _, c := range []struct{ pos, turn, want string }{
		{"...S/..f./..../F... 4/0/0 5/0/0 F", "Ca1-a2,c3xd4", "First scores 1 point (a unit entered the enemy castle): 1 of 3."},
		{"...S/..../.s../F... 4/1/0 4/0/0 F", "Ca1xb2", "Second scores 1 point (the enemy castle rammed its unit): 1 of 3."},
		{"...S/..f./..../F... 4/0/0 5/0/0 F", "Ca1-a2", ""},
	} {
		s := pos(t, c.pos)
		m := mv(t, s, c.turn)
		after, err := s.Apply(m)
		if err != nil {
			t.Fatalf("%s: %v", c.turn, err)
		}
		if got := s.Narrate(m, after); got != c.want {
			t.Errorf("Narrate(%s) = %q, want %q", c.turn, got, c.want)
		}
	}
}
