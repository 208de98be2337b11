package referee

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// boardMail is a mail of the referee's: a board with its legend and the
// short help.
const boardMail = `You accepted: everyone has, and game #1 starts.

    a    b    c    d    e
 5  YN   YN   YN   YN   YN   5
 4  .    .    .    .    .    4
 1  RN   RN   RN   RN   RN   1
    a    b    c    d    e
Cells: seat letter, then its pieces: L M S free large, medium, small;
N nest L>M>S; n nest M>S; l m s top of a capture stack; . empty.
R (red) to move.

` + shortHelp

// TestJudgeOwnWords: lines that reproduce the referee's mail, re-wrapped
// or re-spaced, are the referee's; a short command of the sender's is the
// sender's even where the same words are in that mail; a grave one that
// runs on into the referee's lines is unsure.
func TestJudgeOwnWords(t *testing.T) {
	own := newOwnText(squeeze(boardMail))
	P, R, U := personsLine, refereesLine, unsureLine
	tests := []struct {
		name string
		body string
		want []ownLine
	}{
		{"command above the help", "resign\n\npass, show [GAMEID], games, record GAMEID, preview GAMEID PLY ...,\nresign, draw, accept draw, decline draw, undo, accept undo, decline\nundo, vacation N, say TEXT, watch GAMEID, unwatch, digest games",
			[]ownLine{P, R, R, R}},
		{"help re-wrapped", "c1-c2\n\npass, show [GAMEID], games, record GAMEID, preview\nGAMEID PLY ..., resign, draw, accept draw, decline draw,\nundo, accept undo, decline undo",
			[]ownLine{P, R, R, R}},
		{"board re-spaced", "c1-c2\n\n a b c d e\n5 YN YN YN YN YN 5\n4 . . . . . 4",
			[]ownLine{P, R, R, R}},
		{"one line of the help alone", "resign, draw, accept draw, decline draw, undo, accept undo, decline",
			[]ownLine{R}},
		{"short lines of the sender's", "resign\ndraw\nthanks", []ownLine{P, P, P}},
		{"grave line running into the help", "draw\npass, show [GAMEID], games, record GAMEID, preview GAMEID PLY ...,",
			[]ownLine{U, R}},
		{"piece of a list", "resign,", []ownLine{U}},
		{"piece of a list inside", "draw, accept draw", []ownLine{U}},
		{"command with a comma of the sender's", "draw, please", []ownLine{P}},
		{"inline answer between quoted lines", "> 5  YN   YN   YN   YN   YN   5\nresign\n> 4  .    .    .    .    .    4", []ownLine{P}},
	}
	// Each case is judged by plain searches (a few lines) and by the
	// suffix automaton (a reply asking more than scansPerText questions).
	for _, scans := range []int{scansPerText, 0} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s, %d searches", tt.name, scans), func(t *testing.T) {
				own := newOwnText(own.text)
				own.scans = scans
				lines, at := bodyLinesAt(tt.body)
				if got := own.judge(lines, at); !slices.Equal(got, tt.want) {
					t.Errorf("judge(%q) = %v, want %v", lines, got, tt.want)
				}
				if scans == 0 && own.sam == nil {
					t.Errorf("no automaton built, with no plain search allowed")
				}
			})
		}
	}
}

// TestOwnTextSearches: a few short lines are looked for by plain search,
// and the suffix automaton is built only once a reply asks more than
// scansPerText questions or one longer than maxScanned.
func TestOwnTextSearches(t *testing.T) {
	text := squeeze(boardMail)
	for _, tt := range []struct {
		name  string
		body  string
		built bool
	}{
		{"three short lines", "resign\ndraw\nthanks", false},
		{"one long line", strings.Repeat("resign draw ", 8), true},
		{"more short lines than searches", strings.Repeat("resign\n", scansPerText+1), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			own := newOwnText(text)
			lines, at := bodyLinesAt(tt.body)
			own.judge(lines, at)
			assert.Equal(t, tt.built, own.sam != nil)
		})
	}
}

// BenchmarkJudgeOwnWords judges a body of 1 MB against a referee's mail:
// the work is linear in the body.
func BenchmarkJudgeOwnWords(b *testing.B) {
	own := newOwnText(squeeze(strings.Repeat(boardMail, 4)))
	var body strings.Builder
	for body.Len() < 1<<20 {
		body.WriteString(boardMail + "\nresign\nc1-c2\n" + strings.Repeat("a", 200) + "\n")
	}
	lines, at := bodyLinesAt(body.String())
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		own.judge(lines, at)
	}
}

// BenchmarkOwnWordsBuild builds the referee's text of the largest size it
// compares with (maxOwnText).
func BenchmarkOwnWordsBuild(b *testing.B) {
	text := squeeze(strings.Repeat(boardMail, 4*maxOwnText/len(boardMail)))[:maxOwnText]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		newSuffixAutomaton(text)
	}
}
