package rpp

import (
	"reflect"
	"strings"
	"testing"

	"pbem/engine"
)

func TestBoards(t *testing.T) {
	cases := []struct {
		name  string
		cells int
		// degrees counts the cells by number of neighbours.
		degrees map[int]int
		edges   []string
	}{
		// n x n square: 4 corners with 3 neighbours, 4(n-2) edge cells
		// with 5, the (n-2)^2 others with 8.
		{"square5", 25, map[int]int{3: 4, 5: 12, 8: 9}, []string{"south", "north"}},
		{"square7", 49, map[int]int{3: 4, 5: 20, 8: 25}, []string{"south", "west", "north", "east"}},
		// hexagon of side n: 3n(n-1)+1 cells; 6 corners with 3
		// neighbours, 6(n-2) edge cells with 4, the hexagon of side n-1
		// inside with 6.
		{"hex5", 61, map[int]int{3: 6, 4: 18, 6: 37}, []string{"bottom", "upper-left", "upper-right"}},
		{"hex7", 127, map[int]int{3: 6, 4: 30, 6: 91},
			[]string{"bottom", "lower-left", "upper-left", "top", "upper-right", "lower-right"}},
		// octagon: 361 - 4*21 = 277 cells. The 8 corners of the octagon
		// (ends of the edges) have 4 neighbours; the 5 middle cells of
		// each of the 8 edges have 5; the 6 cells just inside each cut
		// diagonal (f+r = 7, f,r >= 1) have 7; the other 205 have 8.
		{"octagon", 277, map[int]int{4: 8, 5: 40, 7: 24, 8: 205},
			[]string{"south", "south-west", "west", "north-west", "north", "north-east", "east", "south-east"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := BoardByName(tc.name)
			if b == nil {
				t.Fatalf("BoardByName(%q) = nil", tc.name)
			}
			if b.Cells() != tc.cells {
				t.Errorf("Cells() = %d, want %d", b.Cells(), tc.cells)
			}
			deg := map[int]int{}
			for c := range b.Cells() {
				deg[len(b.Neighbours(Cell(c)))]++
				for _, n := range b.Neighbours(Cell(c)) {
					if !b.Adjacent(n, Cell(c)) {
						t.Errorf("%s is next to %s but not the other way", b.CellName(Cell(c)), b.CellName(n))
					}
				}
				name := b.CellName(Cell(c))
				if got, ok := b.cellNamed(name); !ok || got != Cell(c) {
					t.Errorf("CellAt(%s) = %d, %v, want %d", name, got, ok, c)
				}
			}
			if !reflect.DeepEqual(deg, tc.degrees) {
				t.Errorf("neighbour counts = %v, want %v", deg, tc.degrees)
			}
			if !reflect.DeepEqual(b.EdgeNames(), tc.edges) {
				t.Errorf("EdgeNames() = %v, want %v", b.EdgeNames(), tc.edges)
			}
			seen := map[Cell]int{}
			for i, e := range b.HomeEdges() {
				if len(e) != PiecesPerSize {
					t.Errorf("home edge %s has %d cells, want 5", tc.edges[i], len(e))
				}
				for _, c := range e {
					if j, dup := seen[c]; dup {
						t.Errorf("home edges %s and %s share %s", tc.edges[j], tc.edges[i], b.CellName(c))
					}
					seen[c] = i
					if len(b.Neighbours(c)) == 8 || (b.hex && len(b.Neighbours(c)) == 6) {
						t.Errorf("home cell %s is not on the rim", b.CellName(c))
					}
				}
			}
		})
	}
}

func TestHomeEdgeCells(t *testing.T) {
	cases := map[string][]string{
		"square5": {"a1 b1 c1 d1 e1", "a5 b5 c5 d5 e5"},
		"square7": {"b1 c1 d1 e1 f1", "a2 a3 a4 a5 a6", "b7 c7 d7 e7 f7", "g2 g3 g4 g5 g6"},
		"hex5":    {"a1 a2 a3 a4 a5", "e1 f1 g1 h1 i1", "e9 f8 g7 h6 i5"},
		"hex7":    {"a2 a3 a4 a5 a6", "b1 c1 d1 e1 f1", "h1 i1 j1 k1 l1", "m2 m3 m4 m5 m6", "h12 i11 j10 k9 l8", "b8 c9 d10 e11 f12"},
		"octagon": {"h1 i1 j1 k1 l1", "b6 c5 d4 e3 f2", "a8 a9 a10 a11 a12", "b14 c15 d16 e17 f18",
			"h19 i19 j19 k19 l19", "n18 o17 p16 q15 r14", "s8 s9 s10 s11 s12", "n2 o3 p4 q5 r6"},
	}
	for name, want := range cases {
		b := BoardByName(name)
		var got []string
		for _, e := range b.HomeEdges() {
			var names []string
			for _, c := range e {
				names = append(names, b.CellName(c))
			}
			got = append(got, strings.Join(names, " "))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s HomeEdges() = %q, want %q", name, got, want)
		}
	}
	// On square7 the end cells of neighbouring home edges touch
	// diagonally (b1 and a2); RULES.md lets that stand.
	b := BoardByName("square7")
	if !b.Adjacent(mustCell(t, b, "b1"), mustCell(t, b, "a2")) {
		t.Errorf("square7: b1 and a2 are not adjacent")
	}
}

func TestOptions(t *testing.T) {
	cases := []struct {
		o     engine.Options
		sides string
		board string
		err   string
	}{
		{o: engine.Options{}, sides: "R Y", board: "square5"},
		{o: engine.Options{Players: 3}, sides: "R Y G", board: "hex5"},
		{o: engine.Options{Players: 4}, sides: "R Y G B", board: "square7"},
		{o: engine.Options{Players: 5}, sides: "R Y G B K", board: "hex7"},
		{o: engine.Options{Players: 6}, sides: "R Y G B K W", board: "hex7"},
		{o: engine.Options{Players: 7}, sides: "R Y G B K W O", board: "octagon"},
		{o: engine.Options{Players: 8}, sides: "R Y G B K W O P", board: "octagon"},
		{o: engine.Options{Players: 3, Board: "square7"}, sides: "R Y G", board: "square7"},
		{o: engine.Options{Players: 4, Board: "Square7", First: 1}, sides: "R Y G B", board: "square7"},
		{o: engine.Options{Players: 7, Board: "octagon", First: 6}, sides: "R Y G B K W O", board: "octagon"},
		{o: engine.Options{Players: 1}, err: "rpp: 1 players; rpp is for 2 to 8"},
		{o: engine.Options{Players: 9}, err: "rpp: 9 players; rpp is for 2 to 8"},
		{o: engine.Options{Board: "hex9"}, err: `rpp: unknown board "hex9" (boards: square5, square7, hex5, hex7, octagon)`},
		// RULES.md: a board serves only the player counts listed for it.
		{o: engine.Options{Players: 2, Board: "square7"}, err: "rpp: board square7 is for 3 to 4 players, not 2; for 2 players use square5"},
		{o: engine.Options{Players: 2, Board: "Octagon"}, err: "rpp: board octagon is for 7 to 8 players, not 2; for 2 players use square5"},
		{o: engine.Options{Players: 3, Board: "square5"}, err: "rpp: board square5 is for 2 players, not 3; for 3 players use square7 or hex5"},
		{o: engine.Options{Players: 4, Board: "hex5"}, err: "rpp: board hex5 is for 3 players, not 4; for 4 players use square7"},
		{o: engine.Options{Players: 5, Board: "square7"}, err: "rpp: board square7 is for 3 to 4 players, not 5; for 5 players use hex7"},
		{o: engine.Options{Players: 6, Board: "octagon"}, err: "rpp: board octagon is for 7 to 8 players, not 6; for 6 players use hex7"},
		{o: engine.Options{Players: 7, Board: "hex7"}, err: "rpp: board hex7 is for 5 to 6 players, not 7; for 7 players use octagon"},
		{o: engine.Options{Players: 3, First: 3}, err: "rpp: first player 3 is not a seat (0 to 2)"},
		{o: engine.Options{First: -1}, err: "rpp: first player -1 is not a seat (0 to 1)"},
	}
	for _, tc := range cases {
		sides, err := Rules{}.Sides(tc.o)
		s, serr := Rules{}.Start(tc.o)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("Sides(%+v) = %v, want error %q", tc.o, err, tc.err)
			}
			if serr == nil || serr.Error() != tc.err {
				t.Errorf("Start(%+v) = %v, want error %q", tc.o, serr, tc.err)
			}
			continue
		}
		if err != nil || serr != nil {
			t.Errorf("Sides/Start(%+v) = %v, %v", tc.o, err, serr)
			continue
		}
		if got := strings.Join(sides, " "); got != tc.sides {
			t.Errorf("Sides(%+v) = %s, want %s", tc.o, got, tc.sides)
		}
		st := s.(*State)
		if st.Board().Name() != tc.board || st.ToMove() != tc.o.First {
			t.Errorf("Start(%+v): board %s, to move %d, want %s, %d", tc.o, st.Board().Name(), st.ToMove(), tc.board, tc.o.First)
		}
		if err := st.Check(); err != nil {
			t.Errorf("Start(%+v).Check() = %v", tc.o, err)
		}
	}
}

// TestSeatAssignment: seats take the first home edges in order, and the
// rest stay empty (5 players on hex7 leave the lower-right edge empty, 7
// on the octagon the south-east one, 3 on square7 the east one).
func TestSeatAssignment(t *testing.T) {
	cases := []struct {
		o     engine.Options
		empty string // first cell of the unused edge
	}{
		{engine.Options{Players: 5}, "b8"},
		{engine.Options{Players: 7}, "n2"},
		{engine.Options{Players: 3, Board: "square7"}, "g2"},
	}
	for _, tc := range cases {
		s, err := Rules{}.Start(tc.o)
		if err != nil {
			t.Fatal(err)
		}
		st := s.(*State)
		for seat := range tc.o.Players {
			c := st.board().homes[seat][0]
			if got := st.CellCode(c); got != SeatLetters[seat:seat+1]+"N" {
				t.Errorf("%+v: CellCode(%s) = %q, want a nest of %c", tc.o, st.board().CellName(c), got, SeatLetters[seat])
			}
		}
		if got := st.CellCode(mustCell(t, st.board(), tc.empty)); got != "" {
			t.Errorf("%+v: CellCode(%s) = %q, want an empty cell", tc.o, tc.empty, got)
		}
	}
}

func TestRulesText(t *testing.T) {
	r := Rules{}
	if r.ID() != "rpp" {
		t.Errorf("ID() = %q", r.ID())
	}
	if s := r.Summary(); s == "" || strings.Contains(s, "\n") {
		t.Errorf("Summary() = %q, want one line", s)
	}
	for i, l := range strings.Split(r.Help(), "\n") {
		if len(l) > 72 {
			t.Errorf("Help() line %d is %d columns, want <= 72", i+1, len(l))
		}
	}
}

// TestEveryBoardHasABox: every board's states are allocated with as many
// cells as the board has.
func TestEveryBoardHasABox(t *testing.T) {
	for _, b := range boardList {
		s := newState(b.Cells())
		s.bi = b.idx
		if got := len(s.cells()); got != b.Cells() {
			t.Errorf("%s: %d cells, want %d", b.name, got, b.Cells())
		}
	}
}

// TestLegalIsAppendLegalBoxed: Legal hands out the moves AppendLegal lists,
// in its order, on every board over random games, and every seat count.
func TestLegalIsAppendLegalBoxed(t *testing.T) {
	if len(BoardNames) != numBoards {
		t.Fatalf("numBoards is %d, there are %d boards", numBoards, len(BoardNames))
	}
	for _, n := range []int{2, 3, 4, 5, 6, 7, 8} {
		st, err := Rules{}.Start(engine.Options{Players: n})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		for ply := 0; ply < 300 && !s.Outcome().Over; ply++ {
			want := s.AppendLegal(nil)
			got := s.Legal()
			if len(got) != len(want) {
				t.Fatalf("%d seats, ply %d: Legal lists %d moves, AppendLegal %d", n, ply, len(got), len(want))
			}
			for i := range want {
				if got[i] != engine.Move(want[i]) {
					t.Fatalf("%d seats, ply %d: move %d is %v, want %v", n, ply, i, got[i], want[i])
				}
			}
			next, err := s.Apply(got[(ply*7+n)%len(got)])
			if err != nil {
				t.Fatal(err)
			}
			s = next.(*State)
		}
	}
}

// TestBoxedIsTheMove: Boxed hands back the move it is given, from the
// board's table for a pass and every step to a neighbour (no allocation),
// and boxed anew for anything else.
func TestBoxedIsTheMove(t *testing.T) {
	for _, n := range []int{2, 4, 8} {
		st, err := Rules{}.Start(engine.Options{Players: n})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		b := s.board()
		for c := range b.names {
			for _, to := range b.adj[c] {
				for z := Small; z <= Large; z++ {
					m := Move{Piece: z, From: Cell(c), To: to}
					if got := s.Boxed(m); got != engine.Move(m) {
						t.Fatalf("Boxed(%v) = %v", m, got)
					}
				}
			}
		}
		odd := []Move{Pass, {Pass: true, Piece: Small}, {Piece: 0, From: 0, To: b.adj[0][0]}, {Piece: 4, From: 0, To: b.adj[0][0]},
			{Piece: Small, From: 0, To: 0}, {Piece: Small, From: Cell(len(b.names)), To: 0}}
		for _, m := range odd {
			if got := s.Boxed(m); got != engine.Move(m) {
				t.Fatalf("Boxed(%v) = %v", m, got)
			}
		}
		if a := testing.AllocsPerRun(100, func() { _ = s.Boxed(Move{Piece: Large, From: 0, To: b.adj[0][0]}) }); a != 0 {
			t.Errorf("Boxed of a step allocates %v times", a)
		}
	}
}
