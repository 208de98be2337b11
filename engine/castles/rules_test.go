package castles

import (
	"errors"
	"testing"

	"pbem/engine"
)

// scenario is one turn played from a position: after is the position it
// reaches, or err the exact text of the refusal.
type scenario struct {
	name   string
	before string
	turn   string
	after  string
	err    string
}

// Positions used by several scenarios.
const (
	afterSetup   = "...S/..s./..../F... 5/0/0 4/0/0 F"
	oneOwnA2     = "...S/..s./f.../F... 4/0/0 4/0/0 F"
	twoOwnA2B2   = "...S/..s./ff../F... 3/0/0 4/0/0 F"
	enemyOnB2    = "...S/..../.s../F... 5/0/0 3/1/0 F"
	ownOnB2      = "...S/..s./.f../F... 4/0/0 4/0/0 F"
	isolatedC1   = "...S/..s./..../F.f. 4/0/0 4/0/0 F"
	nextToEnemyC = "...S/..F./..../.... 5/0/0 5/0/0 F"
)

var scenarios = []scenario{
	// Setup: Second places one unit straight from its scrap heap on one
	// of the 3 cells adjacent to its castle; then First moves.
	{"setup c3", "...S/..../..../F... 5/0/0 5/0/0 S*", "@c3", afterSetup, ""},
	{"setup c4", "...S/..../..../F... 5/0/0 5/0/0 S*", "@c4", "..sS/..../..../F... 5/0/0 4/0/0 F", ""},
	{"setup d3", "...S/..../..../F... 5/0/0 5/0/0 S*", "@d3", "...S/...s/..../F... 5/0/0 4/0/0 F", ""},
	{"setup not adjacent", "...S/..../..../F... 5/0/0 5/0/0 S*", "@b2", "", ruleSetupCell},
	{"setup on the castle", "...S/..../..../F... 5/0/0 5/0/0 S*", "@d4", "", ruleSetupCell},
	{"setup is a placement", "...S/..../..../F... 5/0/0 5/0/0 S*", "Cd4-c3", "", ruleSetupFirst},
	{"setup is one placement", "...S/..../..../F... 5/0/0 5/0/0 S*", "@c3,@c4", "", ruleSetupSingle},
	{"no setup after the setup", afterSetup, "@b2", "", ruleCastleFirst},

	// 1. Scrap heap to supply, one unit, automatic.
	{"heap to supply", afterSetup, "Ca1-b2", "...S/..s./.F../.... 4/1/0 4/0/0 S", ""},
	{"transferred unit placed at once", afterSetup, "Ca1-b2,@a1", "...S/..s./.F../f... 4/0/0 4/0/0 S", ""},
	{"empty heap: no transfer", "...S/..s./.f../F... 0/4/0 4/0/0 F", "Ca1-a2", "...S/..s./Ff../.... 0/4/0 4/0/0 S", ""},
	{"one unit per turn", twoOwnA2B2, "Ca1-b1", "...S/..s./ff../.F.. 2/1/0 4/0/0 S", ""},
	{"one unit per turn: one placement", twoOwnA2B2, "Ca1-b1,@a1,@c1", "", ruleNoSupply},
	{"second side's transfer", "...S/..s./.F../.... 4/1/0 4/0/0 S", "Cd4-c4,c3xb2", "..S./..../.F../.... 4/1/0 4/1/1 F", ""},

	// 2. The castle steps exactly one square, never onto the enemy castle.
	{"castle rams enemy unit: enemy scores", enemyOnB2, "Ca1xb2", "...S/..../.F../.... 4/1/0 4/1/1 S", ""},
	{"castle onto own unit: back to supply", ownOnB2, "Ca1-b2", "...S/..s./.F../.... 3/2/0 4/0/0 S", ""},
	{"castle onto own unit: placed again", ownOnB2, "Ca1-b2,@a1,@c1", "...S/..s./.F../f.f. 3/0/0 4/0/0 S", ""},
	{"castle never onto enemy castle", nextToEnemyC, "Cc3-d4", "", ruleCastleEnemy},
	{"castle steps one square", afterSetup, "Ca1-c3", "", ruleCastleOne},
	{"castle must move", afterSetup, "Ca1-a1", "", ruleCastleOne},
	{"castle from elsewhere", afterSetup, "Cb1-b2", "", "no castle of yours on b1"},
	{"castle steps once", afterSetup, "Ca1-b2,Cb2-b3", "", ruleCastleOnce},
	{"castle steps once, letter omitted", afterSetup, "Ca1-b2,b2-b3", "", ruleCastleOnce},
	{"castle after placements", afterSetup, "Ca1-b1,@a1,Cb1-c1", "", ruleCastleOnce},
	{"castle step first", ownOnB2, "b2-b3", "", ruleCastleFirst},
	{"placement before castle step", ownOnB2, "@a2", "", ruleCastleFirst},
	{"no empty turn", ownOnB2, "", "", ruleCastleFirst},

	// 3. Units step once each, one at a time, in 8 directions.
	{"unit steps", oneOwnA2, "Ca1-b1,a2-a3", "...S/f.s./..../.F.. 3/1/0 4/0/0 S", ""},
	{"unit steps diagonally", oneOwnA2, "Ca1-b1,a2-b3", "...S/.fs./..../.F.. 3/1/0 4/0/0 S", ""},
	{"never onto a friendly unit", twoOwnA2B2, "Ca1-b1,a2-b2", "", ruleStepFriend},
	{"never onto the own castle", oneOwnA2, "Ca1-b1,a2-b1", "", ruleStepOwnCastle},
	{"onto an enemy unit: destroyed, cell taken", ownOnB2, "Ca1-a2,b2xc3", "...S/..f./F.../.... 3/1/0 5/0/0 S", ""},
	{"onto the enemy castle: scores, to own heap", "...S/..f./..../F... 4/0/0 5/0/0 F", "Ca1-a2,c3xd4", "...S/..../F.../.... 4/1/1 5/0/0 S", ""},
	{"each unit steps once", oneOwnA2, "Ca1-b1,a2-a3,a3-a4", "", ruleStepOnce},
	{"into a cell vacated this turn", "...S/f.s./f.../F... 3/0/0 4/0/0 F", "Ca1-b1,a3-a4,a2-a3", "f..S/f.s./..../.F.. 2/1/0 4/0/0 S", ""},
	{"order matters", "...S/f.s./f.../F... 3/0/0 4/0/0 F", "Ca1-b1,a2-a3,a3-a4", "", ruleStepFriend},
	{"units step one square", oneOwnA2, "Ca1-b1,a2-a4", "", ruleStepOne},
	{"units must move when stepping", oneOwnA2, "Ca1-b1,a2-a2", "", ruleStepOne},
	{"no unit there", oneOwnA2, "Ca1-b1,c1-c2", "", "no unit on c1"},
	{"enemy unit", oneOwnA2, "Ca1-b1,c3-c2", "", "the unit on c3 is not yours"},
	{"enemy castle", oneOwnA2, "Ca1-b1,d4-c4", "", "the castle on d4 is not yours"},
	{"steps before placements", oneOwnA2, "Ca1-b1,@a1,a2-a3", "", ruleStepsFirst},
	{"placed units cannot step", oneOwnA2, "Ca1-b1,@c1,c1-c2", "", rulePlacedNoStep},

	// 4. Placements: empty cell next to the castle or to a chained unit.
	{"placed next to the castle", afterSetup, "Ca1-b1,@c2", "...S/..s./..f./.F.. 4/0/0 4/0/0 S", ""},
	{"placed next to a chain", "..fS/.f../..../F... 3/0/0 5/0/0 F", "Ca1-a2,@d3", "..fS/.f.f/F.../.... 2/0/0 5/0/0 S", ""},
	{"not next to the chain", isolatedC1, "Ca1-a2,@d2", "", rulePlaceChain},
	{"placed units extend the chain", "...S/..../..../F... 3/2/0 5/0/0 F", "Ca1-a2,@b3,@c4", "..fS/.f../F.../.... 2/1/0 5/0/0 S", ""},
	{"chain needs the earlier placement", "...S/..../..../F... 3/2/0 5/0/0 F", "Ca1-a2,@c4", "", rulePlaceChain},
	{"placement on own unit", isolatedC1, "Ca1-b1,@c1", "", rulePlaceEmpty},
	{"placement on enemy unit", enemyOnB2, "Ca1-a2,@b2", "", rulePlaceEmpty},
	{"placement on enemy castle", nextToEnemyC, "Cc3-c4,@d4", "", rulePlaceEmpty},
	{"no supply", "f..S/f.s./ff../F.f. 0/0/0 4/0/0 F", "Ca1-b1,@a1", "", ruleNoSupply},

	// End: three points win at once, even mid-turn or from the enemy's
	// castle step; nothing may follow.
	{"third point by a unit", "...S/..f./.f../F... 3/0/2 5/0/0 F", "Ca1-a2,c3xd4", "...S/..../Ff../.... 3/1/3 5/0/0 S", ""},
	{"nothing after the third point", "...S/..f./.f../F... 3/0/2 5/0/0 F", "Ca1-a2,c3xd4,b2-b3", "", ruleAfterEnd},
	{"no placement after the third point", "...S/..f./.f../F... 3/0/2 5/0/0 F", "Ca1-a2,c3xd4,@a1", "", ruleAfterEnd},
	{"third point from the enemy's castle step", "...S/..../.s../F... 5/0/0 3/1/2 F", "Ca1xb2", "...S/..../.F../.... 4/1/0 4/1/3 S", ""},
	{"nothing after the enemy's third point", "...S/f.../.s../F... 4/0/0 3/1/2 F", "Ca1xb2,a3-a4", "", ruleAfterEnd},
	{"no move once the game is over", "...S/..../.F../.... 4/1/0 4/1/3 S", "Cd4-c4", "", "the game is over (three points)"},
}

func TestScenarios(t *testing.T) {
	for _, tc := range scenarios {
		t.Run(tc.name, func(t *testing.T) {
			s := pos(t, tc.before)
			got, err := playTurn(t, s, tc.turn)
			checkResult(t, "Turn", tc, got, err)
			// The same turn as a Move through Apply, when a Move can hold it.
			if m, ok := toMove(t, s, tc.turn); ok {
				n, err := s.Apply(m)
				var ns *State
				if err == nil {
					ns = n.(*State)
				}
				checkResult(t, "Apply", tc, ns, err)
				if err == nil && !resultListed(s, ns.Key()) {
					t.Errorf("Legal() lists no move reaching %s", diagram(ns))
				}
			}
			if diagram(s) != tc.before {
				t.Errorf("the position changed: %s, want %s", diagram(s), tc.before)
			}
		})
	}
}

func checkResult(t *testing.T, via string, tc scenario, got *State, err error) {
	t.Helper()
	if tc.err != "" {
		want := "illegal: " + tc.err
		if err == nil {
			t.Errorf("%s(%q) = %s, want error %q", via, tc.turn, diagram(got), want)
		} else if err.Error() != want {
			t.Errorf("%s(%q) error = %q, want %q", via, tc.turn, err, want)
		} else if !errors.Is(err, engine.ErrIllegalMove) {
			t.Errorf("%s(%q) error %v does not wrap ErrIllegalMove", via, tc.turn, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s(%q) error = %v, want %s", via, tc.turn, err, tc.after)
		return
	}
	if d := diagram(got); d != tc.after {
		t.Errorf("%s(%q) = %s, want %s", via, tc.turn, d, tc.after)
	}
	if err := got.Check(); err != nil {
		t.Errorf("%s(%q): %v", via, tc.turn, err)
	}
}

// resultListed reports whether a move of s.Legal() reaches key.
func resultListed(s *State, key string) bool {
	for _, m := range s.Legal() {
		if n, err := s.Apply(m); err == nil && n.Key() == key {
			return true
		}
	}
	return false
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		diagram string
		want    engine.Outcome
	}{
		{afterSetup, engine.Ongoing},
		{"...S/..../Ff../.... 3/1/3 5/0/0 S", engine.Win(2, First, "three points")},
		{"...S/..../.F../.... 4/1/0 4/1/3 S", engine.Win(2, Second, "three points")},
		{"...S/..../Ff../.... 3/1/2 5/0/2 S", engine.Ongoing},
	}
	for _, tc := range tests {
		s := pos(t, tc.diagram)
		if got := s.Outcome(); got.Over != tc.want.Over || got.Winner() != tc.want.Winner() || got.Reason != tc.want.Reason {
			t.Errorf("Outcome(%s) = %+v, want %+v", tc.diagram, got, tc.want)
		}
		if tc.want.Over {
			if l := s.Legal(); l != nil {
				t.Errorf("Legal(%s) = %v, want nil", tc.diagram, l)
			}
			if _, err := s.Begin(); err == nil || err.Error() != "illegal: the game is over (three points)" {
				t.Errorf("Begin(%s) = %v, want the game is over", tc.diagram, err)
			}
			if m := s.RandomMove(nil); m != nil {
				t.Errorf("RandomMove(%s) = %v, want nil", tc.diagram, m)
			}
		}
	}
}

func TestApplyRefusesForeignMoves(t *testing.T) {
	s := pos(t, afterSetup)
	tests := []struct {
		name string
		m    engine.Move
		want string
	}{
		{"other type", "Ca1-b2", "illegal: not a castles move (string)"},
		{"pointer", &Move{Castle: [2]Square{0, 5}}, "illegal: not a castles move (*castles.Move)"},
		{"off the board", Move{Castle: [2]Square{0, 20}}, "illegal: no such square #20"},
		{"off the board, from", Move{Castle: [2]Square{-1, 5}}, "illegal: no such square #-1"},
		{"step off the board", Move{Castle: [2]Square{0, 5}, Steps: []Step{{10, 16}}}, "illegal: no such square #16"},
		{"place off the board", Move{Castle: [2]Square{0, 5}, Places: []Square{99}}, "illegal: no such square #99"},
		{"setup after the setup", Move{Setup: true, Places: []Square{10}}, "illegal: " + ruleSetupOver},
	}
	for _, tc := range tests {
		if _, err := s.Apply(tc.m); err == nil || err.Error() != tc.want {
			t.Errorf("Apply(%s: %#v) = %v, want %q", tc.name, tc.m, err, tc.want)
		}
	}
	start := NewState()
	for _, m := range []Move{
		{Castle: [2]Square{15, 14}},
		{Setup: true},
		{Setup: true, Places: []Square{10}, Steps: []Step{{10, 11}}},
		{Setup: true, Castle: [2]Square{15, 14}, Places: []Square{10}},
	} {
		want := "illegal: " + ruleSetupSingle
		if !m.Setup {
			want = "illegal: " + ruleSetupFirst
		}
		if _, err := start.Apply(m); err == nil || err.Error() != want {
			t.Errorf("start.Apply(%#v) = %v, want %q", m, err, want)
		}
	}
}

// TestTurnEnd covers End on turns that are not complete.
func TestTurnEnd(t *testing.T) {
	tu, err := NewState().Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tu.End(); err == nil || err.Error() != "illegal: "+ruleSetupFirst {
		t.Errorf("End() of an empty setup = %v, want %q", err, ruleSetupFirst)
	}
	tu, _ = pos(t, afterSetup).Begin()
	if _, err := tu.End(); err == nil || err.Error() != "illegal: "+ruleCastleFirst {
		t.Errorf("End() of an empty turn = %v, want %q", err, ruleCastleFirst)
	}
}

// TestMoverTakesCell pins the ruling: the destroying unit takes the cell.
func TestMoverTakesCell(t *testing.T) {
	if !MoverTakesCell {
		t.Skip("ruling changed")
	}
	s := pos(t, ownOnB2)
	n, err := s.Apply(mv(t, s, "Ca1-a2,b2-c3"))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.(*State).cellChar(sq(t, "c3")); got != 'f' {
		t.Errorf("cell c3 after b2xc3 = %c, want f", got)
	}
}

func TestSidesAndStart(t *testing.T) {
	r := Rules{}
	good := []engine.Options{{}, {Players: 2}}
	for _, o := range good {
		sides, err := r.Sides(o)
		if err != nil || len(sides) != 2 || sides[0] != "First" || sides[1] != "Second" {
			t.Errorf("Sides(%+v) = %v, %v, want [First Second]", o, sides, err)
		}
		s, err := r.Start(o)
		if err != nil {
			t.Fatalf("Start(%+v) = %v", o, err)
		}
		if d := diagram(s.(*State)); d != "...S/..../..../F... 5/0/0 5/0/0 S*" {
			t.Errorf("Start(%+v) = %s", o, d)
		}
		if s.ToMove() != Second {
			t.Errorf("Start(%+v).ToMove() = %d, want %d (Second sets up)", o, s.ToMove(), Second)
		}
	}
	bad := []struct {
		o    engine.Options
		want string
	}{
		{engine.Options{Players: 3}, "castles: players must be 2, not 3"},
		{engine.Options{Players: 1}, "castles: players must be 2, not 1"},
		{engine.Options{Board: "5x5"}, `castles: no board may be named (got "5x5")`},
		{engine.Options{First: 1}, "castles: First always opens the rounds (first must be 0, not 1)"},
	}
	for _, tc := range bad {
		if _, err := r.Sides(tc.o); err == nil || err.Error() != tc.want {
			t.Errorf("Sides(%+v) = %v, want %q", tc.o, err, tc.want)
		}
		if _, err := r.Start(tc.o); err == nil || err.Error() != tc.want {
			t.Errorf("Start(%+v) = %v, want %q", tc.o, err, tc.want)
		}
	}
	if r.ID() != "castles" {
		t.Errorf("ID() = %q", r.ID())
	}
}
