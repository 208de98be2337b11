package elevation

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"pbem/engine"
)

// scenario is one rule of RULES.md section 2 shown on a position: the move
// is played on before and gives after, or is refused with err.
type scenario struct {
	name   string
	before string
	move   []string // the piece's square, then its actions (see turn)
	after  string   // "" when refused
	err    string
}

func runScenarios(t *testing.T, cases []scenario) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := pos(t, c.before)
			m := turn(t, c.move[0], c.move[1:]...)
			key, pic := s.Key(), s.Render(-1)
			got, err := s.Apply(m)
			if s.Key() != key || s.Render(-1) != pic {
				t.Fatalf("Apply(%v) changed the position it was called on", c.move)
			}
			listed := s.Legal()
			if c.err != "" {
				if err == nil {
					t.Fatalf("Apply(%v) = \n%s\nwant error %q", c.move, diagram(got.(*State)), c.err)
				}
				if err.Error() != c.err {
					t.Errorf("Apply(%v) = %q, want %q", c.move, err, c.err)
				}
				if !errors.Is(err, engine.ErrIllegalMove) {
					t.Errorf("Apply(%v) = %v, which does not wrap ErrIllegalMove", c.move, err)
				}
				for _, l := range listed {
					if reflect.DeepEqual(l, m) {
						t.Errorf("Legal lists %v, which Apply refuses", c.move)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%v) = %v, want\n%s", c.move, err, c.after)
			}
			n := got.(*State)
			if d, want := diagram(n), normal(t, c.after); d != want {
				t.Errorf("Apply(%v) =\n%s\nwant\n%s", c.move, d, want)
			}
			if err := n.Check(); err != nil {
				t.Errorf("after %v: Check() = %v", c.move, err)
			}
			found := false
			for _, l := range listed {
				if x, err := s.Apply(l); err == nil && x.Key() == n.Key() {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("Legal lists no move giving the position of %v", c.move)
			}
		})
	}
}

const start = `
	3s 3f 3d 3d 3f 3s
	3. 3. 3. 3. 3. 3.
	3. 3. 3. 3. 3. 3.
	3. 3. 3. 3. 3. 3.
	3. 3. 3. 3. 3. 3.
	3S 3F 3D 3D 3F 3S`

// startBlack is the start with Black to move.
const startBlack = start + "\nBlack"

func TestStart(t *testing.T) {
	var r Rules
	s, err := r.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := diagram(s.(*State)), normal(t, start); got != want {
		t.Errorf("Start() =\n%s\nwant\n%s", got, want)
	}
	if got := s.Sides(); !reflect.DeepEqual(got, []string{"White", "Black"}) {
		t.Errorf("Sides() = %v, want [White Black]", got)
	}
	if s.ToMove() != White {
		t.Errorf("ToMove() = %d, want White", s.ToMove())
	}
	if got := s.Outcome(); got.Over {
		t.Errorf("Outcome() = %+v, want ongoing", got)
	}
	if Setup != "SFDDFS" {
		t.Errorf("Setup = %q, want SFDDFS (RULES.md ruling)", Setup)
	}
	for _, o := range []engine.Options{{Players: 2}, {}} {
		if _, err := r.Sides(o); err != nil {
			t.Errorf("Sides(%+v) = %v, want no error", o, err)
		}
	}
	for _, o := range []engine.Options{{Players: 3}, {Board: "big"}, {First: 1}} {
		if _, err := r.Sides(o); err == nil {
			t.Errorf("Sides(%+v) = nil error, want one", o)
		}
		if _, err := r.Start(o); err == nil {
			t.Errorf("Start(%+v) = nil error, want one", o)
		}
	}
}

// Actions: the dig.
func TestDig(t *testing.T) {
	// Black's Fish on b2 (an enemy of White's Samurai on a1).
	enemyB2 := `
		3s 3. 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3f 3. 3. 3. 3.
		3S 3F 3D 3D 3F 3S`
	// b2 is at height 0.
	emptyB2 := `
		3s 3f 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 0. 3. 3. 3. 3.
		3S 3F 6D 3D 3F 3S`
	runScenarios(t, []scenario{
		{name: "dig b2>a2 then step (NOTATION example)", before: start,
			move: []string{"a1", "b2>a2", "-b2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			4. 2S 3. 3. 3. 3.
			3. 3F 3D 3D 3F 3S
			Black`},
		{name: "a friendly piece on the source sinks with it", before: start,
			move: []string{"a1", "b1>a2", "-b2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			4. 3S 3. 3. 3. 3.
			3. 2F 3D 3D 3F 3S
			Black`},
		{name: "no tile from under an enemy piece", before: enemyB2,
			move: []string{"a1", "b2>a2", "-a2"},
			err:  "illegal: a dig never takes a tile from under an enemy piece (b2)"},
		{name: "destination holds a friendly piece", before: start,
			move: []string{"a1", "a2>b1", "-a2"},
			err:  "illegal: a dig lays its tile on an empty square only (b1 holds a piece)"},
		{name: "destination holds an enemy piece", before: enemyB2,
			move: []string{"a1", "a2>b2", "-a2"},
			err:  "illegal: a dig lays its tile on an empty square only (b2 holds a piece)"},
		{name: "the acting piece's own square is never the source", before: start,
			move: []string{"a1", "a1>a2", "-b2"},
			err:  "illegal: a dig never uses the acting piece's own square (a1)"},
		{name: "the acting piece's own square is never the destination", before: start,
			move: []string{"a1", "a2>a1", "-b2"},
			err:  "illegal: a dig never uses the acting piece's own square (a1)"},
		{name: "after a step the own square is the new one", before: start,
			move: []string{"a1", "-b2", "b2>a2"},
			err:  "illegal: a dig never uses the acting piece's own square (b2)"},
		{name: "source and destination differ", before: start,
			move: []string{"a1", "b2>b2", "-a2"},
			err:  "illegal: a dig moves a tile between two different squares (b2>b2)"},
		{name: "source at height 0", before: emptyB2,
			move: []string{"a1", "b2>a2", "-a2"},
			err:  "illegal: a dig takes a tile from a square of height 1 or more (b2 is at 0)"},
		{name: "source not next to the piece", before: start,
			move: []string{"a1", "a3>a2", "-a2"},
			err:  "illegal: a dig uses squares next to the piece (a3 is not next to a1)"},
		{name: "destination not next to the piece", before: start,
			move: []string{"a1", "a2>c3", "-a2"},
			err:  "illegal: a dig uses squares next to the piece (c3 is not next to a1)"},
		{name: "a step then a dig around the new square, onto the square left", before: start,
			move: []string{"a1", "-b2", "c3>a1"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 2. 3. 3. 3.
			3. 3S 3. 3. 3. 3.
			4. 3F 3D 3D 3F 3S
			Black`},
		{name: "step then dig, the same as dig then step", before: start,
			move: []string{"a1", "-a2", "b1>b2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3S 4. 3. 3. 3. 3.
			3. 2F 3D 3D 3F 3S
			Black`},
		{name: "a step then a dig from a square next to the new square only", before: start,
			move: []string{"a1", "-b2", "d3>c3"},
			err:  "illegal: a dig uses squares next to the piece (d3 is not next to b2)"},
	})
}

// Actions: the step, climbing and capturing.
func TestStep(t *testing.T) {
	// Rank 2 at heights 4 5 0 6 2 1.
	terrain := `
		3s 3f 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		4. 5. 0. 6. 2. 1.
		3S 3F 3D 3D 3F 3S`
	// Black's Fish on a2 (height 1) and Dragon on b2 (height 2).
	prey := `
		3s 3. 3. 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		1f 2d 6. 3. 3. 3.
		3S 3F 3D 3D 3F 3S`
	// White's Dragon on c1 at 5 above Black Dragons at 3 (c2) and 1 (c3).
	twoPrey := `
		3s 3f 3. 3. 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 1d 3. 3. 3.
		3. 3. 3d 3. 3. 3.
		3S 3F 5D 3D 3F 3S`
	runScenarios(t, []scenario{
		{name: "climb one level", before: terrain,
			move: []string{"a1", "-a2", "b3>a3"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			4. 2. 3. 3. 3. 3.
			4S 5. 0. 6. 2. 1.
			3. 3F 3D 3D 3F 3S
			Black`},
		{name: "climb two levels", before: terrain,
			move: []string{"a1", "-b2", "b3>a3"},
			err:  "illegal: a step climbs at most one level (a1 is at 3, b2 at 5)"},
		{name: "drop any number of levels", before: terrain,
			move: []string{"d1", "-c2", "b3>c3"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 2. 4. 3. 3. 3.
			4. 5. 0D 6. 2. 1.
			3S 3F 3D 3. 3F 3S
			Black`},
		{name: "the Dragon's single climb step climbs two", before: terrain,
			move: []string{"c1", "-b2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			4. 5D 0. 6. 2. 1.
			3S 3F 3. 3D 3F 3S
			Black`},
		{name: "the Dragon's single climb step climbs no more than two", before: terrain,
			move: []string{"c1", "-d2"},
			err:  "illegal: a Dragon's climb step climbs at most two levels (c1 is at 3, d2 at 6)"},
		{name: "the Dragon's step after a dig is ordinary", before: terrain,
			move: []string{"c1", "b1>c2", "-b2"},
			err:  "illegal: a step climbs at most one level; only the Dragon's single step climbs two (c1 is at 3, b2 at 5)"},
		{name: "the Dragon's step before a dig is ordinary", before: terrain,
			move: []string{"c1", "-b2", "a3>a2"},
			err:  "illegal: a step climbs at most one level; only the Dragon's single step climbs two (c1 is at 3, b2 at 5)"},
		{name: "the Dragon's two steps are ordinary", before: terrain,
			move: []string{"d1", "-c2", "-b3"},
			err:  "illegal: a step climbs at most one level (c2 is at 0, b3 at 3)"},
		{name: "capture from two levels higher", before: prey,
			move: []string{"a1", "xa2", "a3>b3"}, after: `
			3s 3. 3. 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			2. 4. 3. 3. 3. 3.
			1S 2d 6. 3. 3. 3.
			3. 3F 3D 3D 3F 3S
			Black`},
		{name: "no capture from one level higher", before: prey,
			move: []string{"a1", "xb2", "a3>b3"},
			err:  "illegal: captures only from two or more levels higher (a1 is at 3, b2 at 2)"},
		{name: "no step onto a friendly piece", before: start,
			move: []string{"a1", "-b1", "a2>b2"},
			err:  "illegal: a piece never steps onto a friendly piece (b1)"},
		{name: "a step goes next door", before: start,
			move: []string{"a1", "-d4", "a2>b2"},
			err:  "illegal: a step goes to a square next to the piece (d4 is not next to a1)"},
		{name: "a step goes somewhere", before: start,
			move: []string{"a1", "-a1", "a2>b2"},
			err:  "illegal: a step goes to another square (a1)"},
		{name: "the Dragon's two steps may both capture", before: twoPrey,
			move: []string{"c1", "xc2", "xc3"}, after: `
			3s 3f 3. 3. 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 1D 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3S 3F 5. 3D 3F 3S
			Black`},
		{name: "the Dragon's climb step may capture", before: twoPrey,
			move: []string{"c1", "xc2"}, after: `
			3s 3f 3. 3. 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 1d 3. 3. 3.
			3. 3. 3D 3. 3. 3.
			3S 3F 5. 3D 3F 3S
			Black`},
	})
}

// Actions: the Fish double step.
func TestFishDoubleStep(t *testing.T) {
	// Black's Fish on c3 at 2; the middle square d2 at 4.
	fromMiddle := `
		3s 3. 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 2f 3. 3. 3.
		3. 3. 3. 4. 3. 3.
		3S 3F 3D 3D 3F 3S`
	// White's Fish on e1 at 5, two above Black's Fish on c3, but the
	// middle square d2 is at 4.
	notFromStart := `
		3s 3. 3d 3d 3f 3s
		0. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3f 3. 3. 3.
		3. 3. 3. 4. 3. 3.
		3S 3F 3D 3D 5F 3S`
	// d2 at 5 is too high a first step from e1, d3 at 5 too high a second
	// step over c2 from b1.
	high := `
		3s 3f 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 5. 3. 3.
		3. 3. 3. 5. 3. 3.
		3S 3F 1D 1D 3F 3S`
	blocked := `
		3s 3f 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3D 3. 3.
		3S 3F 3D 3. 3F 3S`
	runScenarios(t, []scenario{
		{name: "double step then dig (NOTATION example)", before: start,
			move: []string{"e1", "-c3", "b4>b3"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 2. 3. 3. 3. 3.
			3. 4. 3F 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3S 3F 3D 3D 3. 3S
			Black`},
		{name: "dig then double step", before: start,
			move: []string{"e1", "f2>e2", "-c3"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3F 3. 3. 3.
			3. 3. 3. 3. 4. 2.
			3S 3F 3D 3D 3. 3S
			Black`},
		{name: "the middle square must be empty", before: blocked,
			move: []string{"e1", "-c3", "b4>b3"},
			err:  "illegal: a double step needs an empty middle square (d2)"},
		{name: "capture measured from the middle square", before: fromMiddle,
			move: []string{"e1", "xc3", "b4>b3"}, after: `
			3s 3. 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 2. 3. 3. 3. 3.
			3. 4. 2F 3. 3. 3.
			3. 3. 3. 4. 3. 3.
			3S 3F 3D 3D 3. 3S
			Black`},
		{name: "capture not measured from the start square", before: notFromStart,
			move: []string{"e1", "xc3", "b4>b3"},
			err:  "illegal: captures only from two or more levels higher (d2 is at 4, c3 at 3)"},
		{name: "the first step obeys the climb rule", before: high,
			move: []string{"e1", "-c3", "b4>b3"},
			err:  "illegal: a step climbs at most one level (e1 is at 3, d2 at 5)"},
		{name: "the second step obeys the climb rule", before: high,
			move: []string{"b1", "-d3", "d4>e4"},
			err:  "illegal: a step climbs at most one level (c2 is at 3, d3 at 5)"},
		{name: "only diagonally", before: start,
			move: []string{"e1", "-e3", "e4>d4"},
			err:  "illegal: a Fish steps two squares only diagonally (e1 to e3)"},
		{name: "only a Fish", before: start,
			move: []string{"a1", "-c3", "b4>b3"},
			err:  "illegal: only a Fish steps two squares (a1 to c3)"},
		{name: "a lone double step is never a turn", before: start,
			move: []string{"e1", "-c3"},
			err:  "illegal: a lone Fish double step is never a turn"},
	})
}

// A turn: each piece's shapes, in both orders.
func TestTurnShapes(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "Samurai digs twice", before: start,
			move: []string{"a1", "b2>a2", "a2>b2"},
			err:  "illegal: only a Dragon digs twice"},
		{name: "Samurai steps twice", before: start,
			move: []string{"a1", "-a2", "-a3"},
			err:  "illegal: only a Dragon steps twice"},
		{name: "Fish dig then step", before: start,
			move: []string{"b1", "c2>a2", "-b2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			4. 3F 2. 3. 3. 3.
			3S 3. 3D 3D 3F 3S
			Black`},
		{name: "Fish step then dig", before: start,
			move: []string{"b1", "-b2", "c3>b1"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 2. 3. 3. 3.
			3. 3F 3. 3. 3. 3.
			3S 4. 3D 3D 3F 3S
			Black`},
		{name: "Fish dig then double step", before: start,
			move: []string{"b1", "b2>a2", "-d3"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3F 3. 3.
			4. 2. 3. 3. 3. 3.
			3S 3. 3D 3D 3F 3S
			Black`},
		{name: "Fish double step then dig onto the middle square", before: start,
			move: []string{"b1", "-d3", "e4>c2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 2. 3.
			3. 3. 3. 3F 3. 3.
			3. 3. 4. 3. 3. 3.
			3S 3. 3D 3D 3F 3S
			Black`},
		{name: "Fish digs twice", before: start,
			move: []string{"b1", "b2>a2", "c2>b2"},
			err:  "illegal: only a Dragon digs twice"},
		{name: "Fish double step then step", before: start,
			move: []string{"b1", "-d3", "-d4"},
			err:  "illegal: only a Dragon steps twice"},
		{name: "Fish step then step", before: start,
			move: []string{"b1", "-b2", "-b3"},
			err:  "illegal: only a Dragon steps twice"},
		{name: "Dragon dig then step", before: start,
			move: []string{"c1", "b2>c2", "-d2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 2. 4. 3D 3. 3.
			3S 3F 3. 3D 3F 3S
			Black`},
		{name: "Dragon step then dig", before: start,
			move: []string{"c1", "-c2", "b3>c1"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 2. 3. 3. 3. 3.
			3. 3. 3D 3. 3. 3.
			3S 3F 4. 3D 3F 3S
			Black`},
		{name: "Dragon dig then dig", before: start,
			move: []string{"c1", "b2>c2", "d2>b2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 4. 2. 3. 3.
			3S 3F 3D 3D 3F 3S
			Black`},
		{name: "Dragon's second dig moves the tile laid by the first", before: start,
			move: []string{"c1", "b2>c2", "c2>d2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 2. 3. 4. 3. 3.
			3S 3F 3D 3D 3F 3S
			Black`},
		{name: "Dragon's second dig takes back the first", before: start,
			move: []string{"c1", "b2>c2", "c2>b2"}, after: startBlack},
		{name: "Dragon's two digs (NOTATION example)", before: startBlack,
			move: []string{"d6", "c5>e5", "d5>c5"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 2. 4. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3S 3F 3D 3D 3F 3S`},
		{name: "Dragon step then step", before: start,
			move: []string{"c1", "-c2", "-c3"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3D 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3S 3F 3. 3D 3F 3S
			Black`},
		{name: "Dragon step then step back", before: start,
			move: []string{"c1", "-c2", "-c1"}, after: startBlack},
		{name: "Dragon single step (NOTATION example)", before: start,
			move: []string{"d1", "-d2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3D 3. 3.
			3S 3F 3D 3. 3F 3S
			Black`},
	})
}

// A single dig or single ordinary step only when the piece has no
// complete turn (ruling).
func TestSingleAction(t *testing.T) {
	if !SingleOnlyWhenStuck || LoneDoubleStepIsTurn {
		t.Fatalf("SingleOnlyWhenStuck = %v, LoneDoubleStepIsTurn = %v, want the rulings true, false", SingleOnlyWhenStuck, LoneDoubleStepIsTurn)
	}
	// White's Samurai on a1 (height 0) can step to a2, and then dig
	// nothing: Black's pieces hold every other square around.
	stuckStep := `
		3. 3. 3. 3d 3f 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3s 3f 3. 3. 3. 3.
		1. 3s 3. 3. 3. 5.
		0S 3d 3D 3D 3F 6S`
	// White's Samurai on a1 can dig, but a2 and b2 stay too high to step
	// to.
	stuckDig := `
		3s 3f 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		6. 6. 0. 0. 3. 3.
		3S 3F 3D 3D 3F 3S`
	// White's Dragon on a1 has the one dig b1>a2 (b1 then at 0, no second
	// dig), no step at all.
	stuckDragon := `
		3. 3f 3d 3d 3f 3s
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		6. 3s 3. 3. 3. 3.
		3D 1F 2. 3D 3F 3S`
	runScenarios(t, []scenario{
		{name: "single dig refused", before: start,
			move: []string{"a1", "b2>a2"},
			err:  "illegal: a single dig is a turn only when the piece has no complete turn (the Samurai on a1 has one)"},
		{name: "single step refused", before: start,
			move: []string{"a1", "-a2"},
			err:  "illegal: a single step is a turn only when the piece has no complete turn (the Samurai on a1 has one)"},
		{name: "Fish single step refused", before: start,
			move: []string{"b1", "-b2"},
			err:  "illegal: a single step is a turn only when the piece has no complete turn (the Fish on b1 has one)"},
		{name: "Dragon single dig refused", before: start,
			move: []string{"c1", "b2>c2"},
			err:  "illegal: a single dig is a turn only when the piece has no complete turn (the Dragon on c1 has one)"},
		{name: "single step of a piece without a complete turn", before: stuckStep,
			move: []string{"a1", "-a2"}, after: `
			3. 3. 3. 3d 3f 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3s 3f 3. 3. 3. 3.
			1S 3s 3. 3. 3. 5.
			0. 3d 3D 3D 3F 6S
			Black`},
		{name: "single dig of a piece without a complete turn", before: stuckDig,
			move: []string{"a1", "b1>a2"}, after: `
			3s 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			7. 6. 0. 0. 3. 3.
			3S 2F 3D 3D 3F 3S
			Black`},
		{name: "Dragon single dig without a complete turn", before: stuckDragon,
			move: []string{"a1", "b1>a2"}, after: `
			3. 3f 3d 3d 3f 3s
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			3. 3. 3. 3. 3. 3.
			7. 3s 3. 3. 3. 3.
			3D 0F 2. 3D 3F 3S
			Black`},
	})
	// Judged for that piece alone: the others have complete turns, and
	// the stuck piece lists exactly its single actions.
	for _, c := range []struct {
		name, before string
		at           string
		want         [][]string
	}{
		{"step", stuckStep, "a1", [][]string{{"-a2"}}},
		{"dig", stuckDig, "a1", [][]string{{"b1>a2"}, {"b1>b2"}, {"a2>b2"}, {"b2>a2"}}},
		{"Dragon", stuckDragon, "a1", [][]string{{"b1>a2"}}},
	} {
		t.Run("listed/"+c.name, func(t *testing.T) {
			s := pos(t, c.before)
			var got, others []Move
			for _, m := range s.AppendLegal(nil) {
				if m.At == sq(t, c.at) {
					got = append(got, m)
				} else {
					others = append(others, m)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("Legal lists %d turns of %s, want %d: %v", len(got), c.at, len(c.want), got)
			}
			for _, w := range c.want {
				m := turn(t, c.at, w...)
				found := false
				for _, g := range got {
					found = found || g == m
				}
				if !found {
					t.Errorf("Legal does not list %v: %v", w, got)
				}
			}
			complete := 0
			for _, m := range others {
				if m.Len() == 2 {
					complete++
				}
			}
			if complete == 0 {
				t.Errorf("the other pieces have no complete turn; the test shows nothing")
			}
		})
	}
}

// A turn is judged whole; the end of the game.
func TestEnd(t *testing.T) {
	// Black's last piece, a Fish on b2, two below White's Samurai.
	lastEnemy := `
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3f 3. 3. 3. 3.
		5S 3. 1. 3. 3. 3D`
	captured := `
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 2. 3. 3. 3.
		3. 3S 3. 3. 3. 3.
		6. 3. 1. 3. 3. 3D
		Black`
	runScenarios(t, []scenario{
		{name: "capturing the last enemy piece does not cut the turn short", before: lastEnemy,
			move: []string{"a1", "xb2", "c3>a1"}, after: captured},
		{name: "capturing the last enemy piece is no single step", before: lastEnemy,
			move: []string{"a1", "xb2"},
			err:  "illegal: a single step is a turn only when the piece has no complete turn (the Samurai on a1 has one)"},
	})
	// Black's Samurai on f6 (height 0) is hemmed in by White's pieces it
	// cannot capture.
	blocked := `
		3. 3. 3. 3. 3S 0s
		3. 3. 3. 3. 3F 3D
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		6. 3. 3. 3. 3. 3.
		Black`
	for _, c := range []struct {
		name, d string
		want    engine.Outcome
	}{
		{"start", start, engine.Ongoing},
		{"no pieces", captured, engine.Win(2, White, "no pieces")},
		{"no legal turn", blocked, engine.Win(2, White, "no legal turn")},
		{"a turn left", lastEnemy, engine.Ongoing},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := pos(t, c.d)
			if got := s.Outcome(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Outcome() = %+v, want %+v", got, c.want)
			}
			n := len(s.Legal())
			if c.want.Over != (n == 0) {
				t.Errorf("len(Legal()) = %d with Outcome %+v", n, c.want)
			}
			if m := s.RandomMove(rand.New(rand.NewPCG(1, 1))); c.want.Over != (m == nil) {
				t.Errorf("RandomMove() = %v with Outcome %+v", m, c.want)
			}
		})
	}
	s := pos(t, blocked)
	want := "illegal: captures only from two or more levels higher (f6 is at 0, e6 at 3)"
	if _, err := s.Apply(turn(t, "f6", "xe6")); err == nil || err.Error() != want {
		t.Errorf("Apply(f6xe6) = %v, want %q", err, want)
	}
}

// Draw by threefold repetition, applied by engine.Line.
func TestThreefoldRepetition(t *testing.T) {
	line := engine.NewLine(StartState())
	cycle := [][]string{{"d1", "-d2"}, {"d6", "-d5"}, {"d2", "-d1"}, {"d5", "-d6"}}
	for round := 0; round < 2; round++ {
		for i, mv := range cycle {
			if o := line.Outcome(); o.Over {
				t.Fatalf("round %d, ply %d: Outcome() = %+v before the third occurrence", round, i, o)
			}
			var err error
			line, err = line.Play(turn(t, mv[0], mv[1:]...))
			if err != nil {
				t.Fatalf("round %d: Play(%v) = %v", round, mv, err)
			}
		}
	}
	if got, want := line.Outcome(), engine.Draw(2, "threefold repetition"); !reflect.DeepEqual(got, want) {
		t.Errorf("Outcome() after the start occurs thrice = %+v, want %+v", got, want)
	}
	if line.Repeats() != engine.Repetitions {
		t.Errorf("Repeats() = %d, want %d", line.Repeats(), engine.Repetitions)
	}
	if line.State().Outcome().Over {
		t.Errorf("State().Outcome() = %+v: the state must not apply repetition itself", line.State().Outcome())
	}
}

// Tiles are conserved: the heights always sum to 108.
func TestTilesConserved(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for game := 0; game < 20; game++ {
		s := StartState()
		for ply := 0; ply < 200 && !s.Outcome().Over; ply++ {
			n, err := s.Play(s.RandomMove(r).(Move))
			if err != nil {
				t.Fatalf("game %d ply %d: %v", game, ply, err)
			}
			s = n
			sum := 0
			for q := Square(0); q < NumSquares; q++ {
				sum += s.Height(q)
			}
			if sum != TotalTiles {
				t.Fatalf("game %d ply %d: heights sum to %d, want %d\n%s", game, ply, sum, TotalTiles, s.Render(-1))
			}
		}
	}
	var h [NumSquares]int
	var p [NumSquares]Piece
	for i := range h {
		h[i] = StartHeight
	}
	p[0], p[35] = MakePiece(White, Samurai), MakePiece(Black, Samurai)
	h[7] = 2
	if _, err := NewState(h, p, White); err == nil || err.Error() != "elevation: the heights sum to 107, want 108" {
		t.Errorf("NewState(107 tiles) = %v, want the heights error", err)
	}
	h[7] = 3
	p[1], p[2] = MakePiece(White, Samurai), MakePiece(White, Samurai)
	if _, err := NewState(h, p, White); err == nil || err.Error() != "elevation: White has 3 Samurais, want at most 2" {
		t.Errorf("NewState(3 Samurai) = %v, want the pieces error", err)
	}
	p[1], p[2], p[35] = NoPiece, NoPiece, NoPiece
	if _, err := NewState(h, p, White); err == nil || err.Error() != "elevation: Black has no pieces but White is to move" {
		t.Errorf("NewState(no Black pieces, White to move) = %v, want an error", err)
	}
}

func TestKey(t *testing.T) {
	a, b := pos(t, start), pos(t, startBlack)
	if a.Key() == b.Key() {
		t.Errorf("Key() is the same with White and Black to move")
	}
	c := pos(t, strings.Replace(start, "3S 3F", "3F 3S", 1)+"\n")
	if a.Key() == c.Key() {
		t.Errorf("Key() ignores the pieces")
	}
	d := pos(t, strings.Replace(start, "3. 3. 3. 3. 3. 3.\n\t3S", "4. 2. 3. 3. 3. 3.\n\t3S", 1))
	if a.Key() == d.Key() {
		t.Errorf("Key() ignores the heights")
	}
}

// Malformed moves and pieces that may not act.
func TestWhosePiece(t *testing.T) {
	s := StartState()
	for _, c := range []struct {
		m    engine.Move
		want string
	}{
		{Move{At: sq(t, "c3"), Actions: [2]Action{StepAction(sq(t, "c4"))}}, "illegal: no piece on c3"},
		{Move{At: sq(t, "a6"), Actions: [2]Action{StepAction(sq(t, "a5"))}}, "illegal: the piece on a6 is not yours"},
		{Move{At: 40, Actions: [2]Action{StepAction(0)}}, "illegal: no such square square(40)"},
		{Move{At: 0, Actions: [2]Action{StepAction(-1)}}, "illegal: no such square square(-1)"},
		{Move{At: 0}, "illegal: a turn needs at least one action"},
		{Move{At: 0, Actions: [2]Action{{}, StepAction(6)}}, "illegal: a turn needs at least one action"},
		{Move{At: 0, Actions: [2]Action{{Kind: Step, From: 3, To: 6}}}, "illegal: malformed move: a step names only its target square"},
		{Move{At: 0, Actions: [2]Action{{Kind: 7}}}, "illegal: malformed move: action kind 7"},
		{Move{At: 0, Actions: [2]Action{StepAction(6), {To: 6}}}, "illegal: malformed move: an absent action names squares"},
		{"a1-a2", "illegal: not an elevation move (string)"},
	} {
		_, err := s.Apply(c.m)
		if err == nil || err.Error() != c.want {
			t.Errorf("Apply(%#v) = %v, want %q", c.m, err, c.want)
		}
	}
}

func TestRender(t *testing.T) {
	want := `       a    b    c    d    e    f
  6    3s   3f   3d   3d   3f   3s  6
  5    3.   3.   3.   3.   3.   3.  5
  4    3.   3.   3.   3.   3.   3.  4
  3    3.   3.   3.   3.   3.   3.  3
  2    4.   2S   3.   3.   3.   3.  2
  1    3.   3F   3D   3D   3F   3S  1
       a    b    c    d    e    f
Each square shows its height (tiles), then its piece ('.': none).
S F D = White Samurai, Fish, Dragon; s f d = Black's.
Black to move.
`
	s, err := StartState().Play(turn(t, "a1", "b2>a2", "-b2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Render(-1); got != want {
		t.Errorf("Render(-1) =\n%s\nwant\n%s", got, want)
	}
	if got := s.Render(White); got != want {
		t.Errorf("Render(White) =\n%s\nwant\n%s", got, want)
	}
	flipped := `       f    e    d    c    b    a
  1    3S   3F   3D   3D   3F   3.  1
  2    3.   3.   3.   3.   2S   4.  2
  3    3.   3.   3.   3.   3.   3.  3
  4    3.   3.   3.   3.   3.   3.  4
  5    3.   3.   3.   3.   3.   3.  5
  6    3s   3f   3d   3d   3f   3s  6
       f    e    d    c    b    a
Each square shows its height (tiles), then its piece ('.': none).
S F D = White Samurai, Fish, Dragon; s f d = Black's.
Black to move.
`
	if got := s.Render(Black); got != flipped {
		t.Errorf("Render(Black) =\n%s\nwant\n%s", got, flipped)
	}
	over := pos(t, `
		3. 3. 3. 3. 3S 0s
		3. 3. 3. 3. 3F 3D
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		3. 3. 3. 3. 3. 3.
		6. 3. 3. 3. 3. 3.
		Black`).Render(-1)
	if !strings.HasSuffix(over, "\nWhite wins: Black has no legal turn.\n") {
		t.Errorf("Render of a finished game =\n%s\nwant it to end with the result", over)
	}
}

func TestHelp(t *testing.T) {
	var r Rules
	if r.ID() != "elevation" {
		t.Errorf("ID() = %q, want elevation", r.ID())
	}
	if strings.Contains(r.Summary(), "\n") || r.Summary() == "" {
		t.Errorf("Summary() = %q, want one line", r.Summary())
	}
	for i, l := range strings.Split(r.Help(), "\n") {
		if len(l) > 72 {
			t.Errorf("Help() line %d is %d columns, want <= 72: %q", i+1, len(l), l)
		}
	}
}
