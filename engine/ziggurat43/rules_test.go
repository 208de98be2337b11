package ziggurat43

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pbem/engine"
)

// Positions used by several tests (see diagram_test.go for the format).
const (
	// kingOpen: Red Priest-King on f3 in the open.
	kingOpen = `
          . X .
      . . . . . . .
    . . . K . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`

	// horseCrowd: Red Horse f2 among pieces of both sides; an enemy
	// Chariot on g4 and a Red Spearman on d3 at two of its targets.
	horseCrowd = `
          . X .
      . . . c . . .
    . S . S . . . . .
  . . . S H s . . . . .
K . . . . . . . . . . . k   Red`

	// chariotCrowd: Red Chariot f3 with its own Spearmen on f4 and e3 and
	// an enemy Spearman on g3.
	chariotCrowd = `
          . X .
      . . S . . . .
    . . S C s . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Red`

	// archerCrowd: Red Archer f2. Orthogonally: own Spearman e2, enemy
	// Spearman g2, empty f3 and f1. Diagonals: g3 empty then Gold Chariot
	// h4; own Spearman e3 then Gold Horse d4; g1 empty; own Spearman e1.
	archerCrowd = `
          . X .
      h . . . c . .
    . . S . . . . . .
  . . . S A s . . . . .
K . . . S . . . . . . . k   Red`

	// spearRed: a Red Spearman f2 and a Gold one h2, Red to move.
	spearRed = `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . S . s . . . .
K . . . . . . . . . . . k   Red`
)

// gold is pos with Gold to move.
func gold(pos string) string { return strings.TrimSuffix(pos, "Red") + "Gold" }

func TestPieceMoves(t *testing.T) {
	tests := []struct {
		name string
		pos  string
		from string
		want []string
	}{
		{"Priest-King steps to the 8 neighbours", kingOpen, "f3",
			[]string{"f3-e2", "f3-e3", "f3-e4", "f3-f2", "f3-f4", "f3-g2", "f3-g3", "f3-g4"}},
		{"Priest-King on the edge of the pyramid", `
          . X .
      K . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, "d4", []string{"d4-c3", "d4-d3", "d4-e3", "d4-e4"}},
		{"Priest-King in the corner a1", `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Red`, "a1", []string{"a1-b1", "a1-b2"}},
		{"Horse leaps over pieces, captures g4, not its own d3", horseCrowd, "f2",
			[]string{"f2-d1", "f2-e4", "f2-g4", "f2-h1", "f2-h3"}},
		{"Chariot: 1 or 2 squares, jumping the middle square", chariotCrowd, "f3",
			[]string{"f3-d3", "f3-f1", "f3-f2", "f3-f5", "f3-g3", "f3-h3"}},
		{"Chariot on the edge", `
          . X .
      C . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Red`, "d4", []string{"d4-d2", "d4-d3", "d4-e4", "d4-f4"}},
		{"Archer steps to empty squares and shoots the first piece if an enemy", archerCrowd, "f2",
			[]string{"f2-f1", "f2-f3", "f2^h4"}},
		{"Archer shoots only the first piece: g3 shields h4", `
          . X .
      . . . . c . .
    . . . . s . . . .
  . . . . A . . . . . .
K . . . . . . . . . . . k   Red`, "f2", []string{"f2-e2", "f2-f1", "f2-f3", "f2-g2", "f2^g3"}},
		{"Archer shoots along a long diagonal", `
          s X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K A . . . . . . . . . . k   Red`, "b1", []string{"b1-b2", "b1-c1", "b1^f5"}},
		{"Archer with only friendly pieces on its diagonals has no shot", `
          . X .
      . . . . . . .
    . . S . S . . . .
  . . . . A . . . . . .
K . . . S . S . . . . . k   Red`, "f2", []string{"f2-e2", "f2-f1", "f2-f3", "f2-g2"}},
		{"Red Spearman: up, right, up-right", spearRed, "f2", []string{"f2-f3", "f2-g2", "f2-g3"}},
		{"Gold Spearman: up, left, up-left", gold(spearRed), "h2", []string{"h2-g2", "h2-g3", "h2-h3"}},
		{"Red Spearman captures by moving", `
          . X .
      . . . . . . .
    . . . . s . . . .
  . . . . S . . . . . .
K . . . . . . . . . . . k   Red`, "f2", []string{"f2-f3", "f2-g2", "f2-g3"}},
		{"Red Spearman on l2 is stuck: no cell up or right", `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . S
K . . . . . . . . . . . k   Red`, "l2", nil},
		{"Gold Spearman on h5 can only step left", `
          . X s
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Gold`, "h5", []string{"h5-g5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := fromDiagram(t, tc.pos)
			if got := movesFrom(s, sq(t, tc.from)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("moves from %s = %v, want %v\n%s", tc.from, got, tc.want, s.Render(-1))
			}
		})
	}
}

// play is one scenario: a position, a move, and the position after it (with
// its outcome) or the exact error.
type play struct {
	name    string
	before  string
	move    string
	after   string // "" when the move is refused
	outcome string // "" while the game goes on, else "WINNER: reason"
	err     string // the exact error of a refused move
}

func runPlays(t *testing.T, tests []play) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := fromDiagram(t, tc.before)
			pic := diagram(s)
			m := mv(t, tc.move)
			got, err := s.Apply(m)
			if diagram(s) != pic {
				t.Fatalf("Apply(%v) changed its receiver:\n%s", m, diagram(s))
			}
			if tc.err != "" {
				if err == nil {
					t.Fatalf("Apply(%v) = \n%s\nwant error %q", m, diagram(got.(*State)), tc.err)
				}
				if err.Error() != tc.err || !errors.Is(err, engine.ErrIllegalMove) {
					t.Fatalf("Apply(%v) = %q, want %q (wrapping ErrIllegalMove)", m, err, tc.err)
				}
				if slices.Contains(s.LegalMoves(), m) {
					t.Fatalf("Legal() lists %v, which Apply refuses", m)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%v) = %v, want\n%s", m, err, tc.after)
			}
			if !slices.Contains(s.LegalMoves(), m) {
				t.Fatalf("Apply(%v) succeeds but Legal() does not list it", m)
			}
			n := got.(*State)
			if !sameDiagram(diagram(n), tc.after) {
				t.Fatalf("Apply(%v) =\n%s\nwant\n%s", m, diagram(n), tc.after)
			}
			if err := n.Check(); err != nil {
				t.Fatalf("Apply(%v): Check() = %v", m, err)
			}
			if got := outcomeText(n.Outcome()); got != tc.outcome {
				t.Fatalf("Apply(%v).Outcome() = %q, want %q", m, got, tc.outcome)
			}
		})
	}
}

func outcomeText(o engine.Outcome) string {
	if !o.Over {
		return ""
	}
	if w := o.Winner(); w >= 0 {
		return sideNames[w] + ": " + o.Reason
	}
	return "draw: " + o.Reason
}

func TestPriestKing(t *testing.T) {
	runPlays(t, []play{
		{name: "steps diagonally", before: kingOpen, move: "f3-g4", after: `
          . X .
      . . . K . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Gold`},
		{name: "captures by moving onto an enemy", before: `
          . X .
      . . . . . . .
    . . . K s . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, move: "f3-g3", after: `
          . X .
      . . . . . . .
    . . . . K . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Gold`},
		{name: "never two squares", before: kingOpen, move: "f3-f5",
			err: "illegal: a Priest-King steps to an adjacent square"},
		{name: "not onto its own piece", before: `
          . X .
      . . S . . . .
    . . . K . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, move: "f3-f4", err: "illegal: cannot capture your own piece on f4"},
		{name: "c4 is not a cell", before: `
          . X .
      K . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, move: "d4-c4", err: "illegal: no such square c4"},
		{name: "e5 is not a cell", before: `
          . X .
      K . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, move: "d4-e5", err: "illegal: no such square e5"},
	})
}

func TestHorse(t *testing.T) {
	runPlays(t, []play{
		{name: "leaps over pieces and captures", before: horseCrowd, move: "f2-g4", after: `
          . X .
      . . . H . . .
    . S . S . . . . .
  . . . S . s . . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "not a leap", before: horseCrowd, move: "f2-f4",
			err: "illegal: a Horse leaps two squares one way and one the other"},
		{name: "not onto its own piece", before: horseCrowd, move: "f2-d3",
			err: "illegal: cannot capture your own piece on d3"},
		{name: "d5 is not a cell", before: `
          . X .
      . . H . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Red`, move: "f4-d5", err: "illegal: no such square d5"},
	})
}

func TestChariot(t *testing.T) {
	runPlays(t, []play{
		{name: "jumps its own piece in the middle square", before: chariotCrowd, move: "f3-f5", after: `
          C X .
      . . S . . . .
    . . S . s . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "jumps an enemy in the middle square without capturing it", before: chariotCrowd, move: "f3-h3", after: `
          . X .
      . . S . . . .
    . . S . s C . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "captures one square away", before: chariotCrowd, move: "f3-g3", after: `
          . X .
      . . S . . . .
    . . S . C . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "captures two squares away", before: `
          . X .
      . . . . . . .
    . . . C . s . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Red`, move: "f3-h3", after: `
          . X .
      . . . . . . .
    . . . . . C . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "never diagonally", before: chariotCrowd, move: "f3-g4",
			err: "illegal: a Chariot moves one or two squares along a rank or file"},
		{name: "never three squares", before: chariotCrowd, move: "f3-c3",
			err: "illegal: a Chariot moves one or two squares along a rank or file"},
		{name: "not onto its own piece", before: chariotCrowd, move: "f3-e3",
			err: "illegal: cannot capture your own piece on e3"},
		{name: "b4 is not a cell", before: `
          . X .
      C . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Red`, move: "d4-b4", err: "illegal: no such square b4"},
		{name: "only Archers shoot", before: chariotCrowd, move: "f3^g4",
			err: "illegal: only Archers shoot"},
	})
}

func TestArcher(t *testing.T) {
	runPlays(t, []play{
		{name: "steps orthogonally to an empty square", before: archerCrowd, move: "f2-f3", after: `
          . X .
      h . . . c . .
    . . S A . . . . .
  . . . S . s . . . . .
K . . . S . . . . . . . k   Gold`},
		{name: "shoots the first piece on a diagonal and stays", before: archerCrowd, move: "f2^h4", after: `
          . X .
      h . . . . . .
    . . S . . . . . .
  . . . S A s . . . . .
K . . . S . . . . . . . k   Gold`},
		{name: "never captures by moving", before: archerCrowd, move: "f2-g2",
			err: "illegal: Archers never capture by moving (an Archer shoots with ^)"},
		{name: "never moves diagonally", before: archerCrowd, move: "f2-g3",
			err: "illegal: an Archer steps one square along a rank or file"},
		{name: "steps one square only", before: archerCrowd, move: "f2-f4",
			err: "illegal: an Archer steps one square along a rank or file"},
		{name: "never steps onto its own piece", before: archerCrowd, move: "f2-e2",
			err: "illegal: cannot capture your own piece on e2"},
		{name: "no shot through a friendly piece", before: archerCrowd, move: "f2^d4",
			err: "illegal: an Archer shoots only the first piece on a diagonal (e3 is in the way)"},
		{name: "no shot at a friendly piece", before: archerCrowd, move: "f2^e3",
			err: "illegal: an Archer never shoots a friendly piece"},
		{name: "no shot at a friendly piece below", before: archerCrowd, move: "f2^e1",
			err: "illegal: an Archer never shoots a friendly piece"},
		{name: "no shot at an empty square", before: archerCrowd, move: "f2^g1",
			err: "illegal: no piece to shoot on g1"},
		{name: "no shot along a file", before: archerCrowd, move: "f2^f4",
			err: "illegal: an Archer shoots only along a diagonal"},
		{name: "no shot along a rank", before: archerCrowd, move: "f2^g2",
			err: "illegal: an Archer shoots only along a diagonal"},
		{name: "no shot at itself", before: archerCrowd, move: "f2^f2",
			err: "illegal: an Archer shoots only along a diagonal"},
		{name: "no shot through an enemy piece", before: `
          . X .
      . . . . c . .
    . . . . s . . . .
  . . . . A . . . . . .
K . . . . . . . . . . . k   Red`, move: "f2^h4",
			err: "illegal: an Archer shoots only the first piece on a diagonal (g3 is in the way)"},
		{name: "shoots far along a diagonal", before: `
          s X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K A . . . . . . . . . . k   Red`, move: "b1^f5", after: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K A . . . . . . . . . . k   Gold`},
		{name: "Gold shoots too", before: gold(`
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . a
K . . . . . . . . . S . k   Red`), move: "l2^k1", after: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . a
K . . . . . . . . . . . k   Red`},
	})
}

func TestSpearman(t *testing.T) {
	runPlays(t, []play{
		{name: "Red steps up", before: spearRed, move: "f2-f3", after: `
          . X .
      . . . . . . .
    . . . S . . . . .
  . . . . . . s . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "Red steps right", before: spearRed, move: "f2-g2", after: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . S s . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "Red steps up-right", before: spearRed, move: "f2-g3", after: `
          . X .
      . . . . . . .
    . . . . S . . . .
  . . . . . . s . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "Gold steps up", before: gold(spearRed), move: "h2-h3", after: `
          . X .
      . . . . . . .
    . . . . . s . . .
  . . . . S . . . . . .
K . . . . . . . . . . . k   Red`},
		{name: "Gold steps left", before: gold(spearRed), move: "h2-g2", after: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . S s . . . . .
K . . . . . . . . . . . k   Red`},
		{name: "Gold steps up-left", before: gold(spearRed), move: "h2-g3", after: `
          . X .
      . . . . . . .
    . . . . s . . . .
  . . . . S . . . . . .
K . . . . . . . . . . . k   Red`},
		{name: "Red captures by moving", before: `
          . X .
      . . . . . . .
    . . . . s . . . .
  . . . . S . . . . . .
K . . . . . . . . . . . k   Red`, move: "f2-g3", after: `
          . X .
      . . . . . . .
    . . . . S . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "Gold captures by moving left", before: gold(`
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . S s . . . .
K . . . . . . . . . . . k   Red`), move: "h2-g2", after: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . s . . . . .
K . . . . . . . . . . . k   Red`},
		{name: "a Spearman on the temple does not win", before: `
          . X .
      . . . S . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Red`, move: "g4-g5", after: `
          . S .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . k   Gold`},
		{name: "Red never down", before: spearRed, move: "f2-f1", err: "illegal: Spearmen never move down"},
		{name: "Red never down-right", before: spearRed, move: "f2-g1", err: "illegal: Spearmen never move down"},
		{name: "Red never left (backward)", before: spearRed, move: "f2-e2", err: "illegal: Spearmen never move backward"},
		{name: "Red never up-left", before: spearRed, move: "f2-e3", err: "illegal: Spearmen never move backward"},
		{name: "Red one square only", before: spearRed, move: "f2-f4",
			err: "illegal: a Red Spearman steps one square up, right or up-right"},
		{name: "Gold never down", before: gold(spearRed), move: "h2-h1", err: "illegal: Spearmen never move down"},
		{name: "Gold never right (backward)", before: gold(spearRed), move: "h2-i2", err: "illegal: Spearmen never move backward"},
		{name: "Gold never up-right", before: gold(spearRed), move: "h2-i3", err: "illegal: Spearmen never move backward"},
		{name: "Gold one square only", before: gold(spearRed), move: "h2-f2",
			err: "illegal: a Gold Spearman steps one square up, left or up-left"},
		{name: "m2 is not a cell", before: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . S
K . . . . . . . . . . . k   Red`, move: "l2-m2", err: "illegal: no such square m2"},
		{name: "l3 is not a cell", before: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . S
K . . . . . . . . . . . k   Red`, move: "l2-l3", err: "illegal: no such square l3"},
	})
}

func TestTurnAndSquares(t *testing.T) {
	start := diagram(StartState())
	runPlays(t, []play{
		{name: "Red moves first: Gold's pieces are not Red's", before: start, move: "i3-h4",
			err: "illegal: the Spearman on i3 is not yours"},
		{name: "Red moves first", before: start, move: "e3-e4", after: `
          . X .
      . S . . . . .
    S S . . . . s s s
  C C A S . . . s a c c
K C H A S . . . s a h c k   Gold`},
		{name: "no piece on an empty square", before: start, move: "f2-f3", err: "illegal: no piece on f2"},
		{name: "from a square outside the board", before: start, move: "a2-b2", err: "illegal: no such square a2"},
		{name: "to a square outside the board", before: start, move: "c3-c4", err: "illegal: no such square c4"},
		{name: "Red cannot capture its own pieces", before: start, move: "c1-d3",
			err: "illegal: cannot capture your own piece on d3"},
	})
	s := StartState()
	if _, err := s.Apply("e3-e4"); err == nil || err.Error() != "illegal: string is not a ziggurat43 move" {
		t.Errorf("Apply(string) = %v, want illegal: string is not a ziggurat43 move", err)
	}
	if _, err := s.Apply(Move{From: NoSquare, To: 0}); err == nil || err.Error() != "illegal: no such square -" {
		t.Errorf("Apply(from NoSquare) = %v, want illegal: no such square -", err)
	}
}

// TestNoCheck: any move is legal even if it exposes the Priest-King.
func TestNoCheck(t *testing.T) {
	runPlays(t, []play{
		{name: "the Priest-King may step next to the enemy Priest-King", before: `
          . X .
      . . . . . . .
    . . K . k . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . .   Red`, move: "e3-f3", after: `
          . X .
      . . . . . . .
    . . . K k . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . .   Gold`},
		{name: "a move may leave the Priest-King attacked", before: `
          . X .
      . . . . . . .
    S . K . . . . . .
  . . . . . . . . . . .
. . . . c . . . . . . . k   Red`, move: "c3-d4", after: `
          . X .
      S . . . . . .
    . . K . . . . . .
  . . . . . . . . . . .
. . . . c . . . . . . . k   Gold`},
		{name: "and the Priest-King is then captured", before: `
          . X .
      S . . . . . .
    . . K . . . . . .
  . . . . . . . . . . .
. . . . c . . . . . . . k   Gold`, move: "e1-e3", after: `
          . X .
      S . . . . . .
    . . c . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, outcome: "Gold: Priest-King captured"},
	})
}

func TestEnd(t *testing.T) {
	runPlays(t, []play{
		{name: "capturing the Priest-King by a move wins", before: `
          . X .
      . . k . . . .
    . . . . . . . . .
  . . . H . . . . . . .
K . . . . . . . . . . . .   Red`, move: "e2-f4", after: `
          . X .
      . . H . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . .   Gold`, outcome: "Red: Priest-King captured"},
		{name: "capturing the Priest-King by a shot wins", before: `
          . X .
      . . k . . . .
    . . . . . . . . .
  . . A . . . . . . . .
K . . . . . . . . . . . .   Red`, move: "d2^f4", after: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . A . . . . . . . .
K . . . . . . . . . . . .   Gold`, outcome: "Red: Priest-King captured"},
		{name: "Gold captures the Red Priest-King with a Spearman", before: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . K s k   Gold`, move: "l1-k1", after: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . s . k   Red`, outcome: "Gold: Priest-King captured"},
		{name: "a Priest-King on the temple wins", before: `
          . X .
      . . K . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, move: "f4-g5", after: `
          . K .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Gold`, outcome: "Red: Priest-King on the temple"},
		{name: "capturing onto the temple wins", before: `
          . s .
      . . . K . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, move: "g4-g5", after: `
          . K .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Gold`, outcome: "Red: Priest-King on the temple"},
		{name: "Gold wins on the temple too", before: `
          . X .
      . . . . k . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . .   Gold`, move: "h4-g5", after: `
          . k .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . .   Red`, outcome: "Gold: Priest-King on the temple"},
		{name: "no move after a Priest-King is captured", before: `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
. . . . . . . . . . . . k   Red`, move: "m1-l1", err: "illegal: the game is over (Priest-King captured)"},
		{name: "no move after the temple is taken", before: `
          . k .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . .
K . . . . . . . . . . . .   Red`, move: "a1-b1", err: "illegal: the game is over (Priest-King on the temple)"},
	})
}

func TestNoLegalMoveLoses(t *testing.T) {
	// Red's Spearmen l1 and l2 cannot move (no cell up or right of them, or
	// their own pieces there), and they fence in the Priest-King m1.
	s := fromDiagram(t, `
          . X .
      . . . . . . .
    . . . . . . . . .
  . . . . . . . . . . S
k . . . . . . . . . . S K   Red`)
	if got := s.Legal(); got != nil {
		t.Fatalf("Legal() = %v, want none", got)
	}
	if got, want := outcomeText(s.Outcome()), "Gold: no legal move"; got != want {
		t.Fatalf("Outcome() = %q, want %q", got, want)
	}
	if !NoLegalMoveLoses {
		t.Fatalf("NoLegalMoveLoses = false, want true (RULES.md section 3)")
	}
	if _, err := s.Apply(mv(t, "l2-m2")); err == nil || err.Error() != "illegal: no such square m2" {
		t.Fatalf("Apply(l2-m2) = %v, want illegal: no such square m2", err)
	}
	if !strings.Contains(s.Render(-1), "Game over: Gold wins (no legal move).") {
		t.Fatalf("Render does not give the result:\n%s", s.Render(-1))
	}
	// The same position with Gold to move goes on.
	if o := fromDiagram(t, gold(diagram(s))).Outcome(); o.Over {
		t.Fatalf("Outcome() with Gold to move = %+v, want ongoing", o)
	}
}

func TestThreefoldRepetition(t *testing.T) {
	s := fromDiagram(t, `
          . X .
      . . . . . . .
    K . . . . . . . k
  . . . . . . . . . . .
. . . . . . . . . . . . .   Red`)
	line := engine.NewLine(s)
	cycle := []string{"c3-d3", "k3-j3", "d3-c3", "j3-k3"}
	for i := 0; i < 2*len(cycle); i++ {
		if o := line.Outcome(); o.Over {
			t.Fatalf("after %d plies Outcome() = %+v, want ongoing", i, o)
		}
		var err error
		if line, err = line.Play(mv(t, cycle[i%len(cycle)])); err != nil {
			t.Fatalf("ply %d %s: %v", i+1, cycle[i%len(cycle)], err)
		}
	}
	if got := line.Repeats(); got != 3 {
		t.Fatalf("Repeats() = %d, want 3", got)
	}
	o := line.Outcome()
	if !o.Over || !reflect.DeepEqual(o.Rank, []int{1, 1}) || o.Reason != "threefold repetition" {
		t.Fatalf("Outcome() = %+v, want a draw by threefold repetition", o)
	}
	if _, err := line.Play(mv(t, "c3-d3")); err == nil || err.Error() != "illegal: the game is over (threefold repetition)" {
		t.Fatalf("Play after the draw = %v, want illegal: the game is over (threefold repetition)", err)
	}
	// The state itself knows nothing of repetition.
	if o := line.State().Outcome(); o.Over {
		t.Fatalf("State().Outcome() = %+v, want ongoing", o)
	}
}
