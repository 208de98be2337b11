package ziggurat

import (
	"testing"

	"pbem/engine"
)

// TestRepetitionThroughPasses: a side with no move passes while the other
// shuttles a Keep. The count of passes is not part of the position
// (RULES.md, common rulings), so the start recurs after plies 4 and 8
// (after a pass, where the start followed none) and the game is drawn
// there. Were the count in the key, the first repeat would be at ply 8.
func TestRepetitionThroughPasses(t *testing.T) {
	s := diagram(t, `reserve: -
		exited: Q D q d
		6 . D . . . .
		5 W . . . . .
		4 . . [wD] . . .
		3 . . . . . .
		2 . . . . . w
		1 . . . . q .`)
	line := engine.NewLine(s)
	plies := []string{"Kc4-c5", "pass", "Kc5-c4", "pass", "Kc4-c5", "pass", "Kc5-c4", "pass"}
	for i, text := range plies {
		if o := line.Outcome(); o.Over {
			t.Fatalf("over after %d plies, before %s: %+v", i, text, o)
		}
		next, err := line.Play(mv(t, text))
		if err != nil {
			t.Fatalf("ply %d: Play(%s) = %v", i+1, text, err)
		}
		line = next
	}
	if got := line.Repeats(); got != 3 {
		t.Errorf("Repeats() after %d plies = %d, want 3", len(plies), got)
	}
	if o := line.Outcome(); !o.Over || o.Reason != "threefold repetition" || o.Winner() != -1 {
		t.Errorf("Line.Outcome() = %+v, want a draw by threefold repetition", o)
	}
}
