package notation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/notation"
)

// checkGame checks a file of one game and returns its problem lines and
// the game.
func checkGame(t *testing.T, text string) ([]string, *notation.Checked) {
	t.Helper()
	var lines []string
	var got *notation.Checked
	notation.CheckFile("f.pgn", []byte(text), toyLookup, func(c *notation.Checked) {
		require.Nil(t, got, "one game expected")
		got = c
		for _, p := range c.Problems {
			lines = append(lines, p.String())
		}
	})
	require.NotNil(t, got)
	return lines, got
}

// An illegal ply gets the legal plies closest to it; the one with which the
// rest of the game is legal and ends as its result says comes first, is
// named as the repair, and checking goes on with it, so that a later error
// is found in the same run.
func TestSuggestions(t *testing.T) {
	// 7 stones: t2 t1 t3 t1 leaves none, Black took the last (0-1).
	lines, ch := checkGame(t, "[Game \"toy\"]\n\n1. t2 t1 2. t4 t1 0-1\n")
	require.Len(t, lines, 1)
	assert.Equal(t, `f.pgn:3:13: game 1, ply 3 "t4": illegal: take 1, 2 or 3 stones; did you mean t3, t1, t2 or p? with t3 the remaining 1 ply is legal`, lines[0])
	assert.Equal(t, "t3", ch.Problems[0].Repair)
	assert.Equal(t, []string{"t3", "t1", "t2", "p"}, ch.Problems[0].Suggestions)

	// Unreadable, and on the last ply: only t3 gives the result.
	lines, _ = checkGame(t, "[Game \"toy\"]\n\n1. t2 t1 2. t1 3t 0-1\n")
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], `did you mean t3, p, t1 or t2? only t3 ends the game as its result says`)

	// With nothing after it to tell them apart, no repair is chosen.
	lines, ch = checkGame(t, "[Game \"toy\"]\n\n1. t2 t9 *\n")
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], "(more than one legal ply fits the rest of the game; none is chosen)")
	assert.Empty(t, ch.Problems[0].Repair)
	_, ok := ch.Fix()
	assert.False(t, ok)
}

// Fix writes a game whose every problem has exactly one repair, with a
// comment where each was made.
func TestFix(t *testing.T) {
	_, ch := checkGame(t, "[Game \"toy\"]\n\n1. t2 t1 2. t4 t1 0-1\n")
	fixed, ok := ch.Fix()
	require.True(t, ok)
	require.Len(t, fixed, 1)
	out := notation.Format(ch.Game)
	assert.Contains(t, out, "1. t2 t1 2. t3 {pbem --fix: written t4} 2... t1 0-1")
	lines, _ := checkGame(t, out)
	assert.Empty(t, lines)
}

func TestSuggest(t *testing.T) {
	s, err := toyRules{}.Start(engine.Options{})
	require.NoError(t, err)
	got := notation.Suggest(toyCodec{}, s, "T3", 2)
	require.Len(t, got, 2)
	assert.Equal(t, "t3", got[0].Ply)
	assert.Equal(t, 0, got[0].Dist)
	assert.Equal(t, 1, got[1].Dist)
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"hc1-d3", "hc1-d3", 0},
		{"hc1-e3", "hc1-d3", 1},
		{"hc1d-3", "hc1-d3", 1},
		{"hc1-3", "hc1-d3", 1},
		{"hc1--d3", "hc1-d3", 1},
		{"hc-e3", "hc1-d3", 2},
		{"", "abc", 3},
		{"sa1:b2>a2,-b2", "fe1:-c3,b4>b3", notation.DistCap},
		{"cb3-b2,@c1,@a1", "cb3-b2,@c1,@a1,@d4,@d3", notation.DistCap},
	} {
		assert.Equal(t, c.d, notation.Distance(c.a, c.b), "%q %q", c.a, c.b)
		assert.Equal(t, c.d, notation.Distance(c.b, c.a), "%q %q", c.b, c.a)
	}
}

// wideState is a toy position with very many legal plies, as a castles
// turn of several actions has (18,810 in one).
type wideState struct {
	toyState
	n int
}

func (s wideState) Legal() []engine.Move {
	m := make([]engine.Move, s.n)
	for i := range m {
		m[i] = i
	}
	return m
}

// countingCodec spells the plies of a wideState, counting them.
type countingCodec struct {
	toyCodec
	encoded *int
}

func (c countingCodec) Encode(s engine.State, m engine.Move) string {
	*c.encoded++
	return fmt.Sprintf("w%d", m.(int))
}

// TestSuggestBounded (issue 42): ranking the suggestions for an illegal
// ply spelled and compared every legal ply, 16-27 ms in a castles
// position of 18,810 turns, for any mail with a token. It spells at most
// MaxRanked, and still finds a ply among them.
func TestSuggestBounded(t *testing.T) {
	s, err := toyRules{}.Start(engine.Options{})
	require.NoError(t, err)
	n := 0
	wide := wideState{toyState: s.(toyState), n: 20 * notation.MaxRanked}
	got := notation.Suggest(countingCodec{encoded: &n}, wide, "w20", 3)
	assert.LessOrEqual(t, n, notation.MaxRanked, "plies spelled to rank the suggestions among %d", wide.n)
	require.NotEmpty(t, got)
	assert.Equal(t, "w20", got[0].Ply)
}
