package ziggurat

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

func start(t testing.TB, o engine.Options) *State {
	t.Helper()
	s, err := Rules{}.Start(o)
	if err != nil {
		t.Fatalf("Start(%+v) = %v", o, err)
	}
	return s.(*State)
}

func TestRules(t *testing.T) {
	r := Rules{}
	if got := r.ID(); got != "ziggurat" {
		t.Errorf("ID() = %q, want ziggurat", got)
	}
	if s := r.Summary(); s == "" || strings.Contains(s, "\n") || len(s) > 72 {
		t.Errorf("Summary() = %q, want one line of at most 72 columns", s)
	}
	for i, l := range strings.Split(r.Help(), "\n") {
		if len(l) > 72 {
			t.Errorf("Help() line %d is %d columns, want <= 72: %q", i+1, len(l), l)
		}
		for _, c := range []byte(l) {
			if c < 0x20 || c > 0x7e {
				t.Errorf("Help() line %d has the byte %#x", i+1, c)
			}
		}
	}
	for _, c := range []struct {
		o   engine.Options
		err string
	}{
		{engine.Options{}, ""},
		{engine.Options{Players: 2, First: North}, ""},
		{engine.Options{Players: 3}, "ziggurat: 3 players: the game is for 2"},
		{engine.Options{Board: "big"}, `ziggurat: board "big": the game has one board`},
		{engine.Options{First: 2}, "ziggurat: first side 2: want 0 (South) or 1 (North)"},
	} {
		sides, err := r.Sides(c.o)
		_, serr := r.Start(c.o)
		if c.err == "" {
			if err != nil || strings.Join(sides, ",") != "South,North" || serr != nil {
				t.Errorf("Sides(%+v) = %v, %v; Start error %v; want [South North]", c.o, sides, err, serr)
			}
			continue
		}
		if err == nil || err.Error() != c.err || serr == nil || serr.Error() != c.err {
			t.Errorf("Sides(%+v) = %v, Start error %v; want %q", c.o, err, serr, c.err)
		}
	}
	want := diagram(t, `reserve: QDW qdw
		6 q d w w d q
		5 . . . . . .
		4 . . . . . .
		3 . . . . . .
		2 . . . . . .
		1 Q D W W D Q`)
	if s := start(t, engine.Options{}); s.Key() != want.Key() {
		t.Errorf("Start() =\n%s\nwant\n%s", s.Render(-1), want.Render(-1))
	}
	if got := start(t, engine.Options{First: North}).ToMove(); got != North {
		t.Errorf("Start(First: North).ToMove() = %d, want %d", got, North)
	}
	if got := start(t, engine.Options{}).ToMove(); got != DefaultFirst {
		t.Errorf("Start().ToMove() = %d, want %d", got, DefaultFirst)
	}
}

func TestRender(t *testing.T) {
	s := diagram(t, `to: North
		reserve: QD qdw
		exited: W
		6 q d w . d q
		5 . . . . . .
		4 . [WQDw] . . . .
		3 . . [qD] . . .
		2 . . . . . .
		1 Q D . W D Q`)
	want := `     a      b      c      d      e      f
 6   q      d      w      .      d      q    6
 5   .      .      .      .      .      .    5
 4   .     [WQDw]  .      .      .      .    4
 3   .      .     [qD]    .      .      .    3
 2   .      .      .      .      .      .    2
 1   Q      D      .      W      D      Q    1
     a      b      c      d      e      f
` + legend + `Reserve: South Q D, North q d w
Exited:  South W, North -
North to move.
`
	if got := s.Render(-1); got != want {
		t.Errorf("Render(-1) =\n%s\nwant\n%s", got, want)
	}
	if got := s.Render(South); got != want {
		t.Errorf("Render(South) =\n%s\nwant\n%s", got, want)
	}
	flipped := `     f      e      d      c      b      a
 1   Q      D      W      .      D      Q    1
 2   .      .      .      .      .      .    2
 3   .      .      .     [qD]    .      .    3
 4   .      .      .      .     [WQDw]  .    4
 5   .      .      .      .      .      .    5
 6   q      d      .      w      d      q    6
     f      e      d      c      b      a
`
	if got := s.Render(North); !strings.HasPrefix(got, flipped) {
		t.Errorf("Render(North) =\n%s\nwant it to start with\n%s", got, flipped)
	}
	for _, c := range []struct{ pos, want string }{
		{"passes: 1\n" + stuck, "South to move (North passed; 2 passes in a row draw)."},
		{"passes: 2\n" + stuck, "Game over: draw (two passes in a row)."},
		{"exited: qdw\n" + stuck, "Game over: North wins (North exited a Queen, a Drone and a Worker)."},
	} {
		got := diagram(t, c.pos).Render(-1)
		if !strings.HasSuffix(got, c.want+"\n") {
			t.Errorf("Render(-1) =\n%s\nwant it to end with %q", got, c.want)
		}
	}
}

// TestStackHeights closes the set of stacks under every operation of the
// rules (zig captures, Tower captures, exits) to show that stacks stay
// within MaxHeight and never put two pieces of one size together.
func TestStackHeights(t *testing.T) {
	var zigs []Stack
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			zigs = append(zigs, StackOf(MakePiece(side, size)))
		}
	}
	seen := map[Stack]bool{}
	todo := append([]Stack(nil), zigs...)
	add := func(s Stack) {
		if !seen[s] {
			seen[s] = true
			todo = append(todo, s)
		}
	}
	for _, z := range zigs {
		seen[z] = true
	}
	tallest := 0
	for len(todo) > 0 {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		tallest = max(tallest, x.Len())
		if x.Len() >= MaxHeight {
			t.Fatalf("stack %s reaches the capacity %d", x, MaxHeight)
		}
		for i := 1; i < x.Len(); i++ {
			if x.At(i).Size() == x.At(i-1).Size() {
				t.Fatalf("stack %s puts two pieces of one size together", x)
			}
		}
		for _, z := range zigs {
			if zigCaptures(z.Top().Size(), x, z.Owner()) {
				add(x.push(z.Top()))
			}
			if x.Kind() == Tower && towerCaptures(x, z, x.Owner()) {
				add(x.pushBottom(z.Top()))
			}
		}
		if x.Len() > 1 {
			add(x.pop())
		}
	}
	if tallest != 4 {
		t.Errorf("the tallest stack has %d pieces, want 4", tallest)
	}
	t.Logf("%d stacks, at most %d pieces", len(seen), tallest)
}

func TestCheck(t *testing.T) {
	s := start(t, engine.Options{})
	if err := s.Check(); err != nil {
		t.Fatalf("Check() at the start = %v", err)
	}
	board := map[Square]Stack{}
	for q := Square(1); q <= NumSquares; q++ {
		if st := s.At(q); st != 0 {
			board[q] = st
		}
	}
	full := [2][4]int{{0, 1, 1, 1}, {0, 1, 1, 1}}
	for _, c := range []struct {
		name string
		p    Setup
		err  string
	}{
		{"start", Setup{Board: board, Reserve: full}, ""},
		{"a missing piece", Setup{Board: board, Reserve: [2][4]int{{0, 1, 1, 0}, {0, 1, 1, 1}}},
			"ziggurat: South has 2 Queens (board 2, reserve 0, exited 0), want 3"},
		{"two in reserve", Setup{Board: board, Reserve: [2][4]int{{0, 1, 1, 1}, {0, 2, 1, 1}}},
			"ziggurat: North has 2 Workers in reserve, want at most 1"},
		{"an exited piece too many", Setup{Board: board, Reserve: full, Exited: [2][4]bool{{false, true}}},
			"ziggurat: South has 4 Workers (board 2, reserve 1, exited 1), want 3"},
		{"two of a size together", Setup{Board: map[Square]Stack{1: StackOf(MakePiece(South, Drone), MakePiece(North, Drone))}},
			"ziggurat: a1 stacks two pieces of one size: [Dd]"},
		{"a gap in a stack", Setup{Board: map[Square]Stack{2: 1 | 1<<6}},
			"ziggurat: b1 holds a gap at height 1: [W?W]"},
	} {
		_, err := NewState(c.p)
		if c.err == "" && err != nil || c.err != "" && (err == nil || err.Error() != c.err) {
			t.Errorf("%s: NewState() = %v, want %q", c.name, err, c.err)
		}
	}
	for _, c := range []struct {
		p   Setup
		err string
	}{
		{Setup{Board: map[Square]Stack{40: 1}}, "ziggurat: no such square Square(40)"},
		{Setup{ToMove: 2}, "ziggurat: side to move 2"},
		{Setup{Passes: 3}, "ziggurat: 3 passes in a row"},
		{Setup{Reserve: [2][4]int{{0, -1}}}, "ziggurat: South reserve of -1 Workers"},
	} {
		if _, err := NewState(c.p); err == nil || err.Error() != c.err {
			t.Errorf("NewState(%+v) = %v, want %q", c.p, err, c.err)
		}
	}
}

func TestKey(t *testing.T) {
	base := "6 . . . . . .\n5 . . . . . .\n4 . . . . . .\n3 . . [qD] . . .\n2 . . . . . .\n1 . . . . . ."
	keys := map[string]string{}
	for _, head := range []string{"", "to: North\n", "reserve: QD qdw\n", "reserve: QDW qd\n", "exited: W\n", "exited: w\n"} {
		k := diagram(t, head+base).Key()
		if prev, dup := keys[k]; dup {
			t.Errorf("positions %q and %q share a key", prev, head)
		}
		keys[k] = head
	}
	// RULES.md: the count of passes just made is not part of the position.
	if k := diagram(t, "passes: 1\n"+base).Key(); keys[k] != "" || k != diagram(t, base).Key() {
		t.Errorf("a pass count changes the key: it is not part of the position")
	}
	other := diagram(t, "6 . . . . . .\n5 . . . . . .\n4 . . . . . .\n3 . . [Dq] . . .\n2 . . . . . .\n1 . . . . . .").Key()
	if _, dup := keys[other]; dup {
		t.Errorf("[qD] and [Dq] share a key")
	}
}

// TestLegalIsTheTruth plays random games and, in every position, offers
// Apply every move of every shape: it accepts exactly the listed moves and
// explains every refusal with a rule.
func TestLegalIsTheTruth(t *testing.T) {
	var all []Move
	all = append(all, Move{}, Move{Unit: Queen})
	for u := NoUnit; u <= Keep+1; u++ {
		for from := Square(0); from <= NumSquares+1; from++ {
			all = append(all, Move{Kind: Exit, Unit: u, From: from}, Move{Kind: Place, Unit: u, To: from})
			for to := Square(0); to <= NumSquares+1; to++ {
				all = append(all, Move{Kind: Step, Unit: u, From: from, To: to})
			}
		}
	}
	games := 3
	if testing.Short() {
		games = 1
	}
	for g := range games {
		r := rand.New(rand.NewPCG(7, uint64(g)))
		s := start(t, engine.Options{First: g % 2})
		for ply := 0; ply < 120 && !s.Outcome().Over; ply++ {
			listed := s.Moves()
			for _, m := range all {
				// Moves of units the mover does not own fail early and
				// alike: sample them.
				if m.Kind == Step || m.Kind == Exit {
					if st := s.At(m.From); (st == 0 || st.Owner() != s.ToMove()) && r.IntN(16) != 0 {
						continue
					}
				}
				_, err := s.Play(m)
				if (err == nil) != contains(listed, m) {
					t.Fatalf("game %d ply %d: Play(%v) = %v, listed %v\n%s", g, ply, m, err, contains(listed, m), s.Render(-1))
				}
				var ie *engine.IllegalError
				if err != nil && (!errors.As(err, &ie) || strings.Contains(err.Error(), "is not a legal move")) {
					t.Fatalf("game %d ply %d: Play(%v) = %v, want a rule", g, ply, m, err)
				}
			}
			next, err := s.Play(listed[r.IntN(len(listed))])
			if err != nil {
				t.Fatal(err)
			}
			if err := next.Check(); err != nil {
				t.Fatalf("game %d ply %d: %v\n%s", g, ply, err, next.Render(-1))
			}
			s = next
		}
	}
}

// TestConformance runs the shared suite without a codec; notation/ziggurat
// runs it with one.
func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Config{
		Rules:   Rules{},
		Options: []engine.Options{{}, {First: North}},
		Seed:    1,
	})
}

// refLostSizes is lostSizes written out square by square and piece by
// piece, as the rule reads.
func refLostSizes(s *State) [2]Unit {
	var held [2][4]bool
	for _, st := range s.board {
		if st == 0 {
			continue
		}
		n := st.Len()
		owner := st.At(n - 1).Side()
		for i := range n {
			if p := st.At(i); p.Side() == owner {
				held[owner][p.Size()] = true
			}
		}
	}
	var lost [2]Unit
	for side := range 2 {
		for size := Worker; size <= Queen; size++ {
			if !s.exited[side][size] && s.reserve[side][size] == 0 && !held[side][size] {
				lost[side] = size
				break
			}
		}
	}
	return lost
}

// TestLostSizesByTable: lostSizes, read from the counts each move keeps,
// agrees with the rule read piece by piece in every position of many
// random games, and the games reach positions where a size is lost. The
// counts kept move by move equal those computed afresh.
func TestLostSizesByTable(t *testing.T) {
	losses := 0
	for g := range 300 {
		r := rand.New(rand.NewPCG(11, uint64(g)))
		s := start(t, engine.Options{First: g % 2})
		for ply := 0; ply < 300 && !s.Outcome().Over; ply++ {
			if got, want := s.lostSizes(), refLostSizes(s); got != want {
				t.Fatalf("game %d ply %d: lostSizes = %v, the rule says %v\n%s", g, ply, got, want, s.Render(-1))
			}
			fresh := *s
			if fresh.index(); fresh.held != s.held {
				t.Fatalf("game %d ply %d: kept held %x, afresh %x\n%s", g, ply, s.held, fresh.held, s.Render(-1))
			}
			listed := s.Moves()
			next, err := s.Play(listed[r.IntN(len(listed))])
			if err != nil {
				t.Fatal(err)
			}
			s = next
		}
		if l := refLostSizes(s); l != [2]Unit{} {
			losses++
		}
	}
	if losses == 0 {
		t.Fatal("no random game lost a size: the comparison saw no loss")
	}
	t.Logf("%d of 300 games ended with a size lost", losses)
}
