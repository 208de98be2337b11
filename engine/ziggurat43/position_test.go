package ziggurat43

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

func TestPositionStart(t *testing.T) {
	const want = "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R"
	if got := StartState().Position(); got != want {
		t.Errorf("StartState().Position() = %q, want %q", got, want)
	}
}

func TestPositionRoundTrip(t *testing.T) {
	n := enginetest.CheckPositions(t, Rules{}, engine.Options{}, 300, 200, 1)
	if n < 5000 {
		t.Errorf("only %d distinct positions seen", n)
	}
}

func TestParsePositionErrors(t *testing.T) {
	enginetest.CheckPositionErrors(t, Rules{}, engine.Options{}, map[string]string{
		"":                                      "ziggurat43 position, column 1: empty text; want 2 fields separated by blanks: cells, side to move",
		"3/7/SSS3sss/CCAS3sacc/KCHAS3sahck":     "ziggurat43 position, column 34: the text ends after 1 fields, without the side to move; want 2 fields separated by blanks: cells, side to move",
		"3/7/SSS3sss/CCAS3sacc/KCHAS3sahck W":   "ziggurat43 position, column 35: no side \"W\"; want R or G",
		"3/7/SSS3sss/CCAS3sacc/KCHAX3sahck R":   "ziggurat43 position, column 27: 'X' is no piece; want a piece (K H A C S Red, k h a c s Gold) or a count of empty cells for the 13 cells of rank 1",
		"4/7/SSS3sss/CCAS3sacc/KCHAS3sahck R":   "ziggurat43 position, column 1: 4 empty cells overrun rank 5, which has 3 cells; want a piece (K H A C S Red, k h a c s Gold) or a count of empty cells for the 3 cells of rank 5",
		"2/7/SSS3sss/CCAS3sacc/KCHAS3sahck R":   "ziggurat43 position, column 2: rank 5 has 3 cells, not 2; want a piece (K H A C S Red, k h a c s Gold) or a count of empty cells for the 3 cells of rank 5",
		"3/7/SSS3sss/CCAS3sacc/KCHAS3sahc R":    "ziggurat43 position, column 33: the cells end at rank 1 after 12 cells; want 5 ranks of 3, 7, 9, 11 and 13 cells, rank 5 first",
		"3/7/SSS3sss/CCAS3sacc/KCHAS3sahkk R":   "ziggurat43 position, column 33: a second Gold Priest-King; want one Priest-King per side",
		"3/7/SSS3sss/CCSS3sacc/KCHAS3sahck R":   "ziggurat43 position: Red has 6 Spearmen, more than the 5 it starts with",
		"3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R x": "ziggurat43 position, column 37: extra field \"x\"; want 2 fields separated by blanks: cells, side to move",
	})
}
