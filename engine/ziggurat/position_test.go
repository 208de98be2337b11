package ziggurat

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

const startText = "qdwwdq/6/6/6/6/QDWWDQ QDWqdw - S 0"

func TestPositionStart(t *testing.T) {
	for first, want := range []string{startText, "qdwwdq/6/6/6/6/QDWWDQ QDWqdw - N 0"} {
		s, err := Rules{}.Start(engine.Options{First: first})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(*State).Position(); got != want {
			t.Errorf("Position() = %q, want %q", got, want)
		}
	}
}

func TestPositionRoundTrip(t *testing.T) {
	for first := range 2 {
		n := enginetest.CheckPositions(t, Rules{}, engine.Options{First: first}, 300, 300, uint64(first))
		if n < 10000 {
			t.Errorf("only %d distinct positions seen", n)
		}
	}
}

// TestPositionStacksAndPasses: a position with stacks, exits and passes
// reads back with its outcome (two passes in a row draw).
func TestPositionStacksAndPasses(t *testing.T) {
	for _, tc := range []struct{ text, outcome string }{
		{"q1[WQd]wdq/6/6/6/6/QD1WDQ DWqdw w N 1", ""},
		{"q1[WQd]wdq/6/6/6/6/QD1WDQ DWqdw w N 2", "two passes in a row"},
	} {
		s, err := ParsePosition(tc.text)
		if err != nil {
			t.Fatalf("ParsePosition(%q): %v", tc.text, err)
		}
		if got := s.Position(); got != tc.text {
			t.Errorf("ParsePosition(%q).Position() = %q", tc.text, got)
		}
		if got := s.Outcome().Reason; got != tc.outcome {
			t.Errorf("ParsePosition(%q).Outcome().Reason = %q, want %q", tc.text, got, tc.outcome)
		}
	}
}

func TestParsePositionErrors(t *testing.T) {
	const want5 = "want 5 fields separated by blanks: board, reserves, exited pieces, side to move, passes"
	const wantSquare = "want a zig (Q D W South, q d w North), a stack in brackets such as [WQd], or a count of empty squares"
	enginetest.CheckPositionErrors(t, Rules{}, engine.Options{}, map[string]string{
		"qdwwdq/6/6/6/6/QDWWDQ QDWqdw - S":      "ziggurat position, column 33: the text ends after 4 fields, without the passes; " + want5,
		"qdwwdq/6/6/6/6/QDWWDQ QDWqdw - X 0":    "ziggurat position, column 32: no side \"X\"; want S or N",
		"qdwwdq/6/6/6/6/QDWWDQ QDWqdw - S 3":    "ziggurat position, column 34: bad count of passes \"3\"; want the passes played in a row, 0 to 2",
		"qdwwdq/6/6/6/6/QDWWXQ QDWqdw - S 0":    "ziggurat position, column 20: 'X' on e1 is no unit; " + wantSquare,
		"qdwwdq/7/6/6/6/QDWWDQ QDWqdw - S 0":    "ziggurat position, column 8: 7 empty squares overrun rank 5; " + wantSquare,
		"qdwwdq/5/6/6/6/QDWWDQ QDWqdw - S 0":    "ziggurat position, column 9: rank 5 has 6 squares, not 5; " + wantSquare,
		"qdwwdq/6/6/6/6/QDWWDQq QDWqdw - S 0":   "ziggurat position, column 22: a seventh square on rank 1; want '/' between ranks",
		"qdwwdq/6/6/6/6/QDWWD QDWqdw - S 0":     "ziggurat position, column 21: the board ends at rank 1 after 5 squares; want 6 ranks of 6 squares, rank 6 first",
		"qdwwdq/6/6/6/6/QD[WX]DQ QDWqdw - S 0":  "ziggurat position, column 20: 'X' in the stack on c1 is no piece; want Q D W (South) or q d w (North)",
		"qdwwdq/6/6/6/6/QD[W]WDQ QDWqdw - S 0":  "ziggurat position, column 18: a stack of 1 pieces on c1; want 2 to 5 pieces in brackets; a lone zig without them",
		"qdwwdq/6/6/6/6/QD[WDQ QDWqdw - S 0":    "ziggurat position, column 22: the stack on c1 is not closed; want ']' after the pieces of a stack",
		"qdwwdq/6/6/6/6/QDWWDQ QDXqdw - S 0":    "ziggurat position, column 25: 'X' is no piece; want Q D W (South) and q d w (North), or - for none",
		"qdwwdq/6/6/6/6/QDWWDQ QDWqdw WW S 0":   "ziggurat position, column 31: a second exited Worker of South; want at most one exited piece of each size per side",
		"qdwwdq/6/6/6/6/QDWWDQ QDWqd - S 0":     "ziggurat position: North has 2 Workers (board 2, reserve 0, exited 0), want 3",
		"qdwwdq/6/6/6/6/QD[WD]WDQ QDWqdw - S 0": "ziggurat position: South has 4 Drones (board 3, reserve 1, exited 0), want 3",
	})
}
