package main

import (
	"math"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatch(t *testing.T) {
	args := []string{"match", "castles", "--a", "1", "--b", "0", "-n", "6", "--seed", "3"}
	code, out, errs := run(t, "", args...)
	require.Equal(t, 0, code, errs)
	re := regexp.MustCompile(`^castles: A \(level 1\) vs B \(level 0\), 6 games, seed 3
A: (\d+) wins, (\d+) draws, (\d+) losses
A scores (\d+\.\d)/6 = (\d\.\d{3}) \(95% CI (\d\.\d{3}) to (\d\.\d{3})\)
$`)
	m := re.FindStringSubmatch(out)
	require.NotNil(t, m, "output:\n%s", out)
	assert.Equal(t, 6, atoi(t, m[1])+atoi(t, m[2])+atoi(t, m[3]), "every game counted once")
	assert.Equal(t, float64(atoi(t, m[1]))+float64(atoi(t, m[2]))/2, atof(t, m[4]))
	assert.LessOrEqual(t, atof(t, m[6]), atof(t, m[5]))
	assert.GreaterOrEqual(t, atof(t, m[7]), atof(t, m[5]))

	_, again, _ := run(t, "", args...)
	assert.Equal(t, out, again, "the same seed gives the same match")

	code, out, errs = run(t, "", "match", "ziggurat43", "--a", "0", "--b", "0", "-n", "3", "--stats", "--max-plies", "30")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\nplies per game: min \d+, median \d+, max 30\n`, out)
	assert.Regexp(t, `\nendings: [^\n]*move limit of 30 plies \d\n`, out)
	assert.Regexp(t, `\nA \(level 0\) per move: \d+ moves, min \S+, median \S+, p90 \S+, max \S+\nB \(level 0\) per move: `, out)
	seats := regexp.MustCompile(`\nA as (\S+): (\d+) wins, (\d+) draws, (\d+) losses`).FindAllStringSubmatch(out, -1)
	require.Len(t, seats, 2, "A took both seats of three games:\n%s", out)
	for i, want := range []int{2, 1} { // A takes seat i mod 2 in game i
		assert.Equal(t, want, atoi(t, seats[i][2])+atoi(t, seats[i][3])+atoi(t, seats[i][4]), "games of A as %s", seats[i][1])
	}
	assert.NotContains(t, out, "playouts per searched move", "level 0 does not search")

	code, out, errs = run(t, "", "match", "ziggurat43", "--a", "1", "--b", "0", "-n", "2", "--stats", "--max-plies", "6")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\nA \(level 1\) playouts per searched move: \d+ moves, min 100, median 100, max 100\n`, out)
}

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		p      float64
		n      int
		lo, hi float64
	}{
		{0.5, 100, 0.404, 0.596},
		{1, 20, 0.839, 1},
		{0, 10, 0, 0.278},
		{0.9, 200, 0.851, 0.934},
	} {
		lo, hi := wilson(tc.p, tc.n)
		if math.Abs(lo-tc.lo) > 0.001 || math.Abs(hi-tc.hi) > 0.001 {
			t.Errorf("wilson(%v, %d) = %.3f, %.3f; want %.3f, %.3f", tc.p, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}
