package ziggurat43

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

func TestRules(t *testing.T) {
	var r Rules
	if got := r.ID(); got != "ziggurat43" {
		t.Errorf("ID() = %q, want ziggurat43", got)
	}
	if got := r.Summary(); got == "" || strings.Contains(got, "\n") {
		t.Errorf("Summary() = %q, want one line", got)
	}
	for i, l := range strings.Split(r.Help(), "\n") {
		if len(l) > 72 {
			t.Errorf("Help() line %d is %d columns, want <= 72: %q", i+1, len(l), l)
		}
	}
	for _, o := range []engine.Options{{}, {Players: 2}} {
		sides, err := r.Sides(o)
		if err != nil || !reflect.DeepEqual(sides, []string{"Red", "Gold"}) {
			t.Errorf("Sides(%+v) = %v, %v, want [Red Gold]", o, sides, err)
		}
		s, err := r.Start(o)
		if err != nil || s.ToMove() != Red || !reflect.DeepEqual(s.Sides(), sides) {
			t.Errorf("Start(%+v) = %v, %v, want Red to move", o, s, err)
		}
	}
	bad := []struct {
		o    engine.Options
		want string
	}{
		{engine.Options{Players: 3}, "ziggurat43: 3 players: the game is for 2"},
		{engine.Options{Board: "big"}, `ziggurat43: no board "big": the game has one board`},
		{engine.Options{First: 1}, "ziggurat43: Red always moves first"},
	}
	for _, tc := range bad {
		if _, err := r.Sides(tc.o); err == nil || err.Error() != tc.want {
			t.Errorf("Sides(%+v) = %v, want %q", tc.o, err, tc.want)
		}
		if _, err := r.Start(tc.o); err == nil || err.Error() != tc.want {
			t.Errorf("Start(%+v) = %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestBoard checks the 43 cells of the ruling, rank by rank.
func TestBoard(t *testing.T) {
	want := [Ranks]string{
		"a1 b1 c1 d1 e1 f1 g1 h1 i1 j1 k1 l1 m1",
		"b2 c2 d2 e2 f2 g2 h2 i2 j2 k2 l2",
		"c3 d3 e3 f3 g3 h3 i3 j3 k3",
		"d4 e4 f4 g4 h4 i4 j4",
		"f5 g5 h5",
	}
	var got [Ranks][]string
	for _, q := range Cells() {
		got[q.Rank()] = append(got[q.Rank()], q.String())
	}
	for r := range want {
		if g := strings.Join(got[r], " "); g != want[r] {
			t.Errorf("cells of rank %d = %s, want %s", r+1, g, want[r])
		}
	}
	if n := len(Cells()); n != NumCells || NumCells != 43 {
		t.Errorf("len(Cells()) = %d, want 43", n)
	}
	if Temple.String() != "g5" {
		t.Errorf("Temple = %v, want g5", Temple)
	}
	for _, c := range []struct {
		q    Square
		cell bool
	}{{MakeSquare(0, 0), true}, {MakeSquare(0, 1), false}, {MakeSquare(4, 4), false}, {MakeSquare(5, 4), true}, {MakeSquare(12, 1), false}, {MakeSquare(13, 0), false}, {NoSquare, false}} {
		if got := c.q.IsCell(); got != c.cell {
			t.Errorf("%v.IsCell() = %v, want %v", c.q, got, c.cell)
		}
	}
}

func TestStart(t *testing.T) {
	s := StartState()
	want := `
          . X .
      . . . . . . .
    S S S . . . s s s
  C C A S . . . s a c c
K C H A S . . . s a h c k   Red`
	if !sameDiagram(diagram(s), want) {
		t.Fatalf("start =\n%s\nwant\n%s", diagram(s), want)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check() = %v", err)
	}
	if o := s.Outcome(); o.Over {
		t.Fatalf("Outcome() = %+v, want ongoing", o)
	}
}

func TestRender(t *testing.T) {
	s := StartState()
	want := `      a  b  c  d  e  f  g  h  i  j  k  l  m
  5                  .  X  .                  5
  4            .  .  .  .  .  .  .            4
  3         S  S  S  .  .  .  s  s  s         3
  2      C  C  A  S  .  .  .  s  a  c  c      2
  1   K  C  H  A  S  .  .  .  s  a  h  c  k   1
      a  b  c  d  e  f  g  h  i  j  k  l  m

Red (upper case): K Priest-King, H Horse, A Archer, C Chariot,
  S Spearman. Gold: the same letters in lower case (k h a c s).
. empty square   X the empty temple g5   blank: no square
Red to move.
`
	for _, view := range []int{-1, Red} {
		if got := s.Render(view); got != want {
			t.Errorf("Render(%d) =\n%s\nwant\n%s", view, got, want)
		}
	}
	wantGold := `      m  l  k  j  i  h  g  f  e  d  c  b  a
  5                  .  X  .                  5
  4            .  .  .  .  .  .  .            4
  3         s  s  s  .  .  .  S  S  S         3
  2      c  c  a  s  .  .  .  S  A  C  C      2
  1   k  c  h  a  s  .  .  .  S  A  H  C  K   1
      m  l  k  j  i  h  g  f  e  d  c  b  a
`
	if got := s.Render(Gold); !strings.HasPrefix(got, wantGold) {
		t.Errorf("Render(Gold) =\n%s\nwant it to start with\n%s", got, wantGold)
	}
	won := fromDiagram(t, `
          . K .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Gold`)
	if got := won.Render(-1); !strings.Contains(got, "  5                  .  K  .                  5\n") ||
		!strings.HasSuffix(got, "Game over: Red wins (Priest-King on the temple).\n") {
		t.Errorf("Render(-1) of a won game =\n%s", got)
	}
}

func TestKey(t *testing.T) {
	s := StartState()
	red, gold := s.Key(), fromDiagram(t, gold(diagram(s))).Key()
	if red == gold {
		t.Errorf("Key() is %q for both sides to move", red)
	}
	// The same position reached by two move orders has one key.
	a := s.play(mv(t, "e3-e4")).play(mv(t, "i3-h4")).play(mv(t, "e2-f2"))
	b := s.play(mv(t, "e2-f2")).play(mv(t, "i3-h4")).play(mv(t, "e3-e4"))
	if a.Key() != b.Key() {
		t.Errorf("Key() differs for the same position: %q, %q", a.Key(), b.Key())
	}
	if a.Key() == s.play(mv(t, "e3-e4")).Key() {
		t.Errorf("Key() is the same for different positions")
	}
}

func TestCheck(t *testing.T) {
	six := map[Square]Piece{}
	for i, name := range []string{"a1", "c3", "d3", "e3", "f3", "g3", "h3"} {
		six[sq(t, name)] = MakePiece(Red, Spearman)
		if i == 0 {
			six[sq(t, name)] = MakePiece(Red, King)
		}
	}
	six[sq(t, "m1")] = MakePiece(Gold, King)
	tests := []struct {
		name   string
		pieces map[Square]Piece
		toMove int
		want   string
	}{
		{"six Spearmen", six, Red, "ziggurat43: Red has 6 Spearmen, more than the 5 it starts with"},
		{"a piece off the board", map[Square]Piece{sq(t, "a1"): MakePiece(Red, King), sq(t, "m1"): MakePiece(Gold, King), sq(t, "a2"): MakePiece(Gold, Horse)}, Red,
			"ziggurat43: a piece on a2, which is not a cell"},
		{"two Gold Priest-Kings", map[Square]Piece{sq(t, "a1"): MakePiece(Red, King), sq(t, "m1"): MakePiece(Gold, King), sq(t, "l1"): MakePiece(Gold, King)}, Red,
			"ziggurat43: Gold has 2 Priest-Kings, more than the 1 it starts with"},
		{"no Priest-King at all", map[Square]Piece{sq(t, "a1"): MakePiece(Red, Horse)}, Red,
			"ziggurat43: both Priest-Kings are captured"},
		{"an unknown piece", map[Square]Piece{sq(t, "a1"): MakePiece(Red, King), sq(t, "m1"): MakePiece(Gold, King), sq(t, "b1"): Piece(7)}, Red,
			"ziggurat43: unknown piece 0x7 on b1"},
		{"no such side", map[Square]Piece{}, 2, "ziggurat43: no side 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewState(tc.pieces, tc.toMove); err == nil || err.Error() != tc.want {
				t.Errorf("NewState() = %v, want %q", err, tc.want)
			}
		})
	}
	s := StartState()
	s.kings[Red] = sq(t, "b1")
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "the Priest-Kings stand on a1 and m1, the state says b1 and m1") {
		t.Errorf("Check() of a misplaced king = %v", err)
	}
}

// refLegal is a naive generator written from the rules text with none of
// the engine's tables: every pair of cells is tried against the rules.
func refLegal(s *State) []Move {
	if _, over := s.ended(); over {
		return nil
	}
	side := int(s.toMove)
	var out []Move
	for _, from := range Cells() {
		p := s.At(from)
		if p == Empty || p.Side() != side {
			continue
		}
		for _, to := range Cells() {
			df, dr := to.File()-from.File(), to.Rank()-from.Rank()
			target := s.At(to)
			enemy := target != Empty && target.Side() != side
			free := target == Empty || enemy
			orth := (df == 0) != (dr == 0)
			ok := false
			switch p.Kind() {
			case King:
				ok = free && max(abs(df), abs(dr)) == 1
			case Horse:
				ok = free && abs(df)*abs(dr) == 2
			case Chariot:
				ok = free && orth && abs(df)+abs(dr) <= 2
			case Spearman:
				fwd := 1 - 2*side // Red right, Gold left
				ok = free && (df == 0 && dr == 1 || df == fwd && (dr == 0 || dr == 1))
			case Archer:
				ok = target == Empty && orth && abs(df)+abs(dr) == 1
				if enemy && abs(df) == abs(dr) {
					clear := true
					for k := 1; k < abs(df); k++ {
						mid := MakeSquare(from.File()+k*sign(df), from.Rank()+k*sign(dr))
						clear = clear && mid.IsCell() && s.At(mid) == Empty
					}
					if clear {
						out = append(out, Move{From: from, To: to, Shot: true})
					}
				}
			}
			if ok {
				out = append(out, Move{From: from, To: to})
			}
		}
	}
	return out
}

// TestReferenceGenerator compares Legal with refLegal, and Apply with Legal
// for every move between two cells, along random playouts: Apply accepts a
// move iff Legal lists it, and every refusal has a rule of its own; a side
// has a move (hasMove) iff Legal lists one.
func TestReferenceGenerator(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var all []Move
	for _, a := range Cells() {
		for _, b := range Cells() {
			all = append(all, Move{From: a, To: b}, Move{From: a, To: b, Shot: true})
		}
	}
	positions := 0
	for game := 0; game < 12; game++ {
		s := StartState()
		for ply := 0; ply < 200; ply++ {
			positions++
			legal := s.LegalMoves()
			boxed := s.Legal()
			if len(boxed) != len(legal) {
				t.Fatalf("len(Legal()) = %d, len(LegalMoves()) = %d", len(boxed), len(legal))
			}
			for i := range legal {
				if boxed[i] != engine.Move(legal[i]) {
					t.Fatalf("Legal()[%d] = %v, LegalMoves()[%d] = %v", i, boxed[i], i, legal[i])
				}
			}
			if _, over := s.ended(); !over && s.hasMove() != (len(legal) > 0) {
				t.Fatalf("game %d ply %d: hasMove() = %v with %d legal moves\n%s", game, ply, s.hasMove(), len(legal), s.Render(-1))
			}
			ref := refLegal(s)
			key := func(a, b Move) int { return strings.Compare(a.String(), b.String()) }
			slices.SortFunc(ref, key)
			sorted := slices.SortedFunc(slices.Values(legal), key)
			if !slices.Equal(sorted, ref) {
				t.Fatalf("game %d ply %d: Legal() = %v, want %v\n%s", game, ply, sorted, ref, s.Render(-1))
			}
			if len(slices.Compact(slices.Clone(sorted))) != len(sorted) {
				t.Fatalf("Legal() lists a move twice: %v", sorted)
			}
			pic := diagram(s)
			for _, m := range all {
				if ply%8 != 0 && s.At(m.From) == Empty {
					continue // a sample of the positions tries every move
				}
				n, err := s.Apply(m)
				listed := slices.Contains(legal, m)
				switch {
				case listed && err != nil:
					t.Fatalf("Apply(%v) = %v for a listed move\n%s", m, err, pic)
				case !listed && err == nil:
					t.Fatalf("Apply(%v) succeeds, but Legal does not list it\n%s", m, pic)
				case err != nil && (!errors.Is(err, engine.ErrIllegalMove) || strings.HasSuffix(err.Error(), "is not a legal move")):
					t.Fatalf("Apply(%v) = %v, want a named rule\n%s", m, err, pic)
				case err == nil:
					if cerr := n.(*State).Check(); cerr != nil {
						t.Fatalf("after %v: %v", m, cerr)
					}
				}
			}
			if diagram(s) != pic {
				t.Fatalf("Apply changed its receiver")
			}
			if s.Outcome().Over {
				break
			}
			s = s.play(legal[r.IntN(len(legal))])
		}
	}
	t.Logf("%d positions compared", positions)
}

// TestConformance runs the shared suite without a codec (the notation
// package runs it again with one).
func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Config{Rules: Rules{}, Seed: 43})
}

func BenchmarkLegalStart(b *testing.B) {
	s := StartState()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

func BenchmarkLegalMidgame(b *testing.B) {
	s := midgame(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

func BenchmarkApply(b *testing.B) {
	s := midgame(b)
	m := engine.Move(s.LegalMoves()[0])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlayout measures whole plies: Legal, Apply and Outcome.
func BenchmarkPlayout(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var s engine.State = StartState()
	plies := 0
	b.ReportAllocs()
	for b.Loop() {
		if s.Outcome().Over {
			s = StartState()
		}
		ms := s.Legal()
		s, _ = s.Apply(ms[r.IntN(len(ms))])
		plies++
	}
	_ = plies
}

func BenchmarkPerft3(b *testing.B) {
	s := StartState()
	b.ReportAllocs()
	for b.Loop() {
		perft(b, s, 3)
	}
}

// TestHasMove: hasMove, which finds the mover's pieces eight squares at a
// time, agrees with asking pieceMoves cell by cell, in the positions of
// random playouts and in those positions with their pieces removed one
// cell at a time (from a1 up and from g5 down), for either side to move.
func TestHasMove(t *testing.T) {
	ref := func(s *State) bool {
		for _, q := range cells {
			if p := s.board[q]; p != Empty && p.Side() == int(s.toMove) && len(s.pieceMoves(q, nil)) > 0 {
				return true
			}
		}
		return false
	}
	r := rand.New(rand.NewPCG(3, 4))
	for game := range 20 {
		s := StartState()
		for ply := 0; ply < 200 && !s.Outcome().Over; ply++ {
			for _, up := range []bool{true, false} {
				w := *s
				for i := range cells {
					q := cells[i]
					if !up {
						q = cells[NumCells-1-i]
					}
					w.board[q] = Empty
					for range 2 {
						w.toMove ^= 1
						if got, want := w.hasMove(), ref(&w); got != want {
							t.Fatalf("game %d ply %d, cleared to %v, side %d: hasMove = %v, want %v", game, ply, q, w.toMove, got, want)
						}
					}
				}
			}
			legal := s.LegalMoves()
			s = s.play(legal[r.IntN(len(legal))])
		}
	}
}
