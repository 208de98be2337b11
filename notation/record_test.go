package notation_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// checkAll parses and checks every game of a file and returns the problem
// lines, and the canonical text of the valid games.
func checkAll(t *testing.T, text string) (problems []string, canon string) {
	t.Helper()
	recs, ps := notation.Parse("f.pgn", []byte(text))
	for _, p := range ps {
		problems = append(problems, p.String())
	}
	var b strings.Builder
	for _, r := range recs {
		g, ps := notation.Check(r, toyLookup)
		for _, p := range ps {
			problems = append(problems, p.String())
		}
		if len(ps) == 0 {
			b.WriteString(notation.Format(g))
		}
	}
	return problems, b.String()
}

func TestValidGameCanonicalForm(t *testing.T) {
	in := `[Black "Bob"]  [Game "toy"]
[Event "Club \"night\""]  [Whatever "kept"]
[White "Al"]
{opening remark} 1. T1! $1 T2 {a long comment that goes on and on and on and on and on so that it wraps}
(1... t1 ; side line comment
2.t1 T3) 2. t1 ?! t3 ( 2... p ( 2... t2 ) 3. t1 ) 0-1`
	problems, canon := checkAll(t, in)
	require.Empty(t, problems)
	want := `[Game "toy"]
[Event "Club \"night\""]
[White "Al"]
[Black "Bob"]
[Result "0-1"]
[Whatever "kept"]

{opening remark} 1. t1! $1 t2 {a long comment that goes on and on and on and on
and on so that it wraps} (1... t1 {side line comment} 2. t1 t3) 2. t1?! t3
(2... p (2... t2) 3. t1) 0-1

`
	assert.Equal(t, want, canon)
	for _, l := range strings.Split(canon, "\n") {
		assert.LessOrEqual(t, len(l), notation.MaxColumns, l)
	}
	// Reading what the writer wrote gives the same game.
	problems, again := checkAll(t, canon)
	require.Empty(t, problems)
	assert.Equal(t, canon, again)
}

func TestProblems(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"illegal ply", `[Game "toy"] 1. t3 t4 *`,
			[]string{`f.pgn:1:20: game 1, ply 2 "t4": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`}},
		{"syntax error in a ply points into it", `[Game "toy"] 1. t3 tx *`,
			[]string{`f.pgn:1:21: game 1, ply 2 "tx": unexpected "x"; expected a number of stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`}},
		{"move number disagrees", `[Game "toy"] 2. t1 1... t1 *`,
			[]string{
				`f.pgn:1:14: game 1, ply 1 "2.": move number 2. disagrees with the plies; expected 1.`,
				`f.pgn:1:20: game 1, ply 2 "1...": move number 1... disagrees with the plies; expected 1...`,
			}[:1]},
		{"continuation number where a round opens", `[Game "toy"] 1. t1 t1 2... t1 *`,
			[]string{`f.pgn:1:23: game 1, ply 3 "2...": move number 2... disagrees with the plies; expected 2.`}},
		{"missing Game tag", `[Event "x"] 1. t1 *`,
			[]string{`f.pgn:1:1: game 1, ply 0 "Event": missing [Game] tag; expected the game id first, as in [Game "castles"]`}},
		{"unknown game", `[Game "chess"] 1. e4 *`,
			[]string{`f.pgn:1:1: game 1, ply 0 "chess": unknown game "chess"; expected one of toy`}},
		{"game not implemented", `[Game "later"] 1. e4 *`,
			[]string{`f.pgn:1:1: game 1, ply 0 "later": game "later" is not implemented yet`}},
		{"wrong result for the rules", `[Game "toy"] t3 t3 t1 0-1`,
			[]string{`f.pgn:1:23: game 1, ply 3 "0-1": wrong result: the game ended by the rules (last stone taken); expected 1-0`}},
		{"unfinished game still going", `[Game "toy"] t3 t3 t1 *`,
			[]string{`f.pgn:1:23: game 1, ply 3 "*": wrong result: the game ended by the rules (last stone taken); expected 1-0`}},
		{"ply after the end", `[Game "toy"] t3 t3 t1 t1 1-0`,
			[]string{`f.pgn:1:23: game 1, ply 4 "t1": illegal: the game is already over (last stone taken); no ply may follow`}},
		{"decided result needs a termination", `[Game "toy"] t1 1-0`,
			[]string{`f.pgn:1:17: game 1, ply 1 "1-0": result 1-0 on a game the rules have not ended needs a [Termination] of resign, agreement, time or forfeit`}},
		{"result tag disagrees", "[Game \"toy\"]\n[Result \"0-1\"]\n[Termination \"resign\"] t1 1-0",
			[]string{`f.pgn:2:1: game 1, ply 0 "0-1": [Result "0-1"] disagrees with the result token 1-0; expected the same result in both`}},
		{"agreement must be a draw", "[Game \"toy\"] [Termination \"agreement\"] t1 1-0",
			[]string{`f.pgn:1:43: game 1, ply 1 "1-0": wrong result for an agreement; expected 1/2-1/2`}},
		{"bad date", `[Game "toy"] [Date "2026-11-21"] *`,
			[]string{`f.pgn:1:14: game 1, ply 0 "2026-11-21": bad [Date "2026-11-21"]; expected YYYY.MM.DD with ?? for unknown parts`}},
		{"unbalanced parenthesis", `[Game "toy"] 1. t1 (1. t2 *`,
			[]string{`f.pgn:1:27: game 1, ply 2 "*": unexpected "*"; expected a ply, comment or ")" to close the variation`}},
		{"stray closing parenthesis", `[Game "toy"] 1. t1 ) *`,
			[]string{`f.pgn:1:20: game 1, ply 2 ")": unexpected ")"; expected a ply, comment or result ("(" opens a variation before ")" closes it)`}},
		{"unterminated comment", "[Game \"toy\"] 1. t1 {oops\n*",
			[]string{`f.pgn:1:20: game 1, ply 2 "{": unterminated comment: "{" has no closing "}"`}},
		{"binary garbage", "[Game \"toy\"] 1. t1 \x00\x01 *",
			[]string{`f.pgn:1:20: game 1, ply 2 "\x00": unexpected control byte 0x00`}},
		{"truncated file", "[Game \"toy\"] 1. t1 t1",
			[]string{`f.pgn:1:22: game 1, ply 3 "": unexpected end of file; expected a result (1-0, 0-1, 1/2-1/2 or *) to end the game`}},
		{"game without a result before the next game", "[Game \"toy\"] t1\n[Game \"toy\"] t1 *",
			[]string{`f.pgn:2:1: game 1, ply 2 "[": unexpected "[" (the next game's tags); expected a result (1-0, 0-1, 1/2-1/2 or *) to end the game`}},
		{"truncated tag", "[Game \"toy",
			[]string{`f.pgn:1:7: game 1, ply 0 "\"toy": unterminated string: a tag value ends with '"' on its line`}},
		{"tag without value", "[Game toy] *",
			[]string{`f.pgn:1:7: game 1, ply 0 "toy": unexpected "toy"; expected a quoted tag value, as in [Game "castles"]`}},
		{"annotation without ply", `[Game "toy"] ! t1 *`,
			[]string{`f.pgn:1:14: game 1, ply 1 "!": annotation ! must follow a ply`}},
		{"threefold repetition ends the game", `[Game "toy"] p p p p 1/2-1/2`, nil},
		{"repetition draw needs the draw", `[Game "toy"] p p p p 1-0`,
			[]string{`f.pgn:1:22: game 1, ply 4 "1-0": wrong result: the game ended by the rules (threefold repetition); expected 1/2-1/2`}},
		{"illegal ply in a variation; the main line goes on", `[Game "toy"] t1 (t9) t4 *`,
			[]string{
				`f.pgn:1:18: game 1, ply 1 "t9": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`,
				`f.pgn:1:22: game 1, ply 2 "t4": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := checkAll(t, tt.in)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestResumesAfterSyntaxError(t *testing.T) {
	in := "[Game \"toy\"] 1. t1 *\n\n[Game \"toy\"] 1. t1 ((( *\n\n[Game \"toy\"] 1. t9 *\n\n[Game \"toy\"] 1. t1 *\n"
	got, canon := checkAll(t, in)
	assert.Equal(t, []string{
		`f.pgn:3:24: game 2, ply 1 "*": unexpected "*"; expected a ply, comment or ")" to close the variation`,
		`f.pgn:5:17: game 3, ply 1 "t9": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`,
	}, got)
	assert.Equal(t, 2, strings.Count(canon, `[Game "toy"]`))
}

func TestRankedResults(t *testing.T) {
	sides := []string{"R", "Y", "G", "B"}
	ranks, err := notation.ParseResult(toyCodec{}, sides, "G>R=B>Y")
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4, 1, 2}, ranks)
	_, err = notation.ParseResult(toyCodec{}, sides, "G>R=B")
	assert.EqualError(t, err, `bad result "G>R=B": side Y is not ranked; expected a ranking of the sides R Y G B such as R>Y=G=B, or *`)
	_, err = notation.ParseResult(toyCodec{}, sides, "G>R=X>Y")
	assert.EqualError(t, err, `bad result "G>R=X>Y": "X" is not a side of this game; expected a ranking of the sides R Y G B such as R>Y=G=B, or *`)
}

func TestHugeLine(t *testing.T) {
	// A 100 MB line of one token: refused by the lexer with a located,
	// short message, and the next game is read.
	huge := make([]byte, 100<<20)
	for i := range huge {
		huge[i] = 'a'
	}
	in := append([]byte("[Game \"toy\"] 1. "), huge...)
	in = append(in, " *\n[Game \"toy\"] t1 *"...)
	recs, ps := notation.Parse("big", in)
	require.Len(t, ps, 1)
	require.Len(t, recs, 1)
	line := ps[0].String()
	assert.Less(t, len(line), 200)
	assert.Equal(t, `big:1:17: game 1, ply 1 "`+strings.Repeat("a", notation.MaxToken)+`...": word of 104857600 bytes is too long; expected a ply of at most 256 bytes`, line)
	assert.Equal(t, 2, recs[0].Index)
}
