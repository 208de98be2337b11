package rpp

import (
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

func TestPositionStart(t *testing.T) {
	s, err := Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "square5 2 a1:RLms,b1:RLms,c1:RLms,d1:RLms,e1:RLms,a5:YLms,b5:YLms,c5:YLms,d5:YLms,e5:YLms R 0 - - -"
	if got := s.(*State).Position(); got != want {
		t.Errorf("Position() = %q, want %q", got, want)
	}
}

// TestPositionRoundTrip checks the notation over random games of several
// boards and seat counts, and that those games reach what the text has to
// say beyond the cells: stacks, piles, eliminations and passes.
func TestPositionRoundTrip(t *testing.T) {
	for _, o := range []engine.Options{
		{}, {Players: 3}, {Players: 4, First: 2}, {Players: 6}, {Players: 8},
	} {
		const games, plies, seed = 30, 300, 1
		if n := enginetest.CheckPositions(t, Rules{}, o, games, plies, seed); n < 2000 {
			t.Errorf("%+v: only %d distinct positions seen", o, n)
		}
		states, err := enginetest.Positions(Rules{}, o, seed, games, plies)
		if err != nil {
			t.Fatal(err)
		}
		var stacks, piles, out, passes int
		for _, s := range states {
			f := strings.Fields(s.(*State).Position())
			stacks += btoi(f[6] != "-")
			piles += btoi(f[7] != "-")
			out += btoi(f[5] != "-")
			passes += btoi(f[4] != "0")
		}
		if stacks == 0 || piles == 0 || passes == 0 || (o.Players == 0 && out == 0) {
			t.Errorf("%+v: positions with stacks %d, piles %d, eliminations %d, passes %d: the test misses a field", o, stacks, piles, out, passes)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestParsePositionErrors(t *testing.T) {
	const start = "square5 2 a1:RLms,b1:RLms,c1:RLms,d1:RLms,e1:RLms,a5:YLms,b5:YLms,c5:YLms,d5:YLms,e5:YLms"
	enginetest.CheckPositionErrors(t, Rules{}, engine.Options{}, map[string]string{
		"square6 2 - R 0 - - -":               `rpp position, column 1: no board "square6"; want square5, square7, hex5, hex7, octagon`,
		"square5 3 - R 0 - - -":               `rpp position, column 9: bad seat count "3"; want 2 seats on square5`,
		"square5 2 a1:RLms,a1:RLms R 0 - - -": `rpp position, column 19: a1 again; want each cell once`,
		"square5 2 a1:RLms,f1:RLms R 0 - - -": `rpp position, column 19: no cell "f1"; want a cell of square5 such as a1`,
		"square5 2 a1:RLsm R 0 - - -":         `rpp position, column 17: 'm' is not the next piece on a1; want the pieces L, M, S in that order, lower case when nested, ^ after a stack top`,
		"square5 2 a1:GLms R 0 - - -":         `rpp position, column 14: 'G' is no seat; want a seat letter, one of RY`,
		"square5 2 a1RLms R 0 - - -":          `rpp position, column 13: no ':' after the cell a1; want a cell, ':', a seat and its pieces, e.g. a1:RLms`,
		start + " R 3 - - -":                  `rpp position, column 93: bad count of passes "3"; want the passes played in a row, 0 to 2`,
		start + " R 0 RR - -":                 `rpp position, column 96: 'R' again; want each eliminated seat once`,
		start + " R 0 - R:c3L -":              `rpp position, column 102: no ':' before the pieces under the stack; want an initiator, ':', the cell and size of the top, ':', the pieces under it, e.g. R:c3L:YMS`,
		start + " R 0 - - R:YSL":              `rpp position, column 103: 'L' out of order; want an owner's seat letter followed by its pieces, L then M then S`,
		start + " R 0 - - R:YLLLLLL":          `rpp position, column 107: too many L of Y; want at most 5 pieces of a size`,
		start + " R 0 - - R:S":                `rpp position, column 101: 'S' out of order; want an owner's seat letter followed by its pieces, L then M then S`,
		start + " R 0 - - R:YS":               `rpp position: seat Y has 6 S pieces, want 5`,
		"square5 2 a1:RLms R 0 - - -":         `rpp position: seat R has 1 S pieces, want 5`,
	})
}
