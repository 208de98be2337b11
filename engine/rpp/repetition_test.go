package rpp

import (
	"reflect"
	"strings"
	"testing"

	"pbem/engine"
)

// playLine plays plies on a line from s and fails unless the game goes on
// until the last one.
func playLine(t *testing.T, s *State, plies []string) *engine.Line {
	t.Helper()
	line := engine.NewLine(s)
	for i, p := range plies {
		if o := line.Outcome(); o.Over {
			t.Fatalf("over after %d plies, before %s: %+v", i, p, o)
		}
		var m Move
		if p == "pass" {
			m = Pass
		} else {
			m = mv(t, s.board(), p)
		}
		var err error
		if line, err = line.Play(m); err != nil {
			t.Fatalf("ply %d %s: %v", i+1, p, err)
		}
	}
	return line
}

// TestRepetitionThroughPasses: the count of passes is not part of the
// position (RULES.md, common rulings), so a seat that passes while another
// shuttles repeats the position, and the game ends at the third occurrence
// -- the ninth ply here. Counting passes would let it run on.
func TestRepetitionThroughPasses(t *testing.T) {
	s := diagram(t, `square5 2 R
		5 .  .  .  .  YN
		4 .  .  .  .  .
		3 .  .  .  .  .
		2 .  .  .  .  .
		1 RN .  .  .  .`)
	// After ply 1 (Y to move, L on b2) the position recurs after plies 5
	// and 9, each time one pass later.
	line := playLine(t, s, []string{"La1-b2", "pass", "Lb2-c2", "pass", "Lc2-b2", "pass",
		"Lb2-c2", "pass", "Lc2-b2"})
	want := engine.Outcome{Over: true, Rank: []int{1, 1}, Reason: "threefold repetition"}
	if o := line.Outcome(); !reflect.DeepEqual(o, want) {
		t.Errorf("Outcome() after 9 plies = %+v, want %+v", o, want)
	}
	if line.Plies() != 9 || line.Repeats() != 3 {
		t.Errorf("Plies, Repeats = %d, %d, want 9, 3", line.Plies(), line.Repeats())
	}
}

// TestRepetitionRanksAsStandoff: in rpp a repetition does not draw; it ends
// the game as a standoff does (resolve every stack, rank by capture piles),
// for two seats and for more.
func TestRepetitionRanksAsStandoff(t *testing.T) {
	for _, c := range []struct {
		name    string
		diagram string
		plies   []string
		rank    []int
	}{{
		name: "two seats: the larger pile wins",
		diagram: `square5 2 R
			5 .  .  .  .  YN
			4 .  .  .  .  .
			3 .  .  .  .  .
			2 .  .  .  .  .
			1 RN .  .  .  .
			pile Y: RM RS`,
		plies: []string{"La1-b2", "pass", "Lb2-c2", "pass", "Lc2-b2", "pass",
			"Lb2-c2", "pass", "Lc2-b2"},
		rank: []int{2, 1},
	}, {
		name: "three seats: piles rank every seat, ties share",
		diagram: `square7 3 R
			7 .  .  .  .  .  .  .
			6 .  .  .  .  .  .  .
			5 .  .  .  .  .  .  GN
			4 .  .  .  .  .  .  .
			3 .  .  .  .  .  .  .
			2 .  .  .  .  .  .  .
			1 RN .  .  .  .  .  YN
			pile R: YS
			pile G: YS`,
		plies: []string{"La1-b2", "pass", "pass", "Lb2-c2", "pass", "pass", "Lc2-b2", "pass", "pass",
			"Lb2-c2", "pass", "pass", "Lc2-b2"},
		rank: []int{1, 3, 1},
	}, {
		name: "three seats: a stack resolves before the count",
		diagram: `square7 3 Y
			7 .  .  .  .  .  .  .
			6 .  .  .  .  .  .  .
			5 .  .  .  .  .  .  GN
			4 .  .  .  .  .  .  .
			3 .  .  .  .  .  .  .
			2 .  .  .  .  .  .  .
			1 RN .  .  .  .  Gl YN
			stack f1 L G: YS RS RM`,
		plies: []string{"Lg1-g2", "pass", "pass", "Lg2-f2", "pass", "pass", "Lf2-g2", "pass", "pass",
			"Lg2-f2", "pass", "pass", "Lf2-g2"},
		rank: []int{2, 2, 1},
	}} {
		t.Run(c.name, func(t *testing.T) {
			s := diagram(t, c.diagram)
			line := playLine(t, s, c.plies)
			o := line.Outcome()
			want := engine.Outcome{Over: true, Rank: c.rank, Reason: "threefold repetition"}
			if !reflect.DeepEqual(o, want) {
				t.Errorf("Outcome() = %+v, want %+v", o, want)
			}
			if st := line.State().(*State).Settle("standoff"); !reflect.DeepEqual(st.Rank, o.Rank) {
				t.Errorf("repetition ranks %v, a standoff in the same position %v", o.Rank, st.Rank)
			}
		})
	}
}

// TestHelpSaysRepetitionRanks: help rpp tells players what a repetition
// does, and which boards serve which player counts.
func TestHelpSaysRepetitionRanks(t *testing.T) {
	h := strings.Join(strings.Fields(Rules{}.Help()), " ")
	for _, want := range []string{"A threefold repetition does not draw: it ends the game as a standoff does",
		"square5 (2 players), square7 (3-4, default for 4), hex5 (3), hex7 (5-6), octagon (7-8); a board serves only those counts"} {
		if !strings.Contains(h, want) {
			t.Errorf("help rpp lacks %q:\n%s", want, Rules{}.Help())
		}
	}
}

// TestKeyTellsEveryOwner: a cell's owner is part of the key for every seat
// count. The owner once shared a byte with the pieces (owner<<6), so that
// seats 1 and 5 (R and K), 2 and 6, ... collided with five seats or more,
// and a repetition could be declared between different positions.
func TestKeyTellsEveryOwner(t *testing.T) {
	for n := 5; n <= MaxSeats; n++ {
		st, err := Rules{}.Start(engine.Options{Players: n})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		for c := range s.cells()[:s.board().Cells()] {
			o := s.cells()[c].owner
			if o == 0 || int(o)+4 > n {
				continue
			}
			other := s.clone()
			other.cells()[c].owner = o + 4
			other.zc = other.cellsHash()
			if other.Key() == s.Key() {
				t.Fatalf("%d seats: cell %s owned by seat %d or %d gives the same key", n, s.board().CellName(Cell(c)), o, o+4)
			}
			if other.Hash() == s.Hash() {
				t.Errorf("%d seats: seats %d and %d on %s share a hash", n, o, o+4, s.board().CellName(Cell(c)))
			}
			break
		}
	}
}
