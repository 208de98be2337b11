package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/referee"
)

func TestMatch(t *testing.T) {
	args := []string{"match", "castles", "--a", "1", "--b", "0", "-n", "6", "--seed", "3"}
	code, out, errs := run(t, "", args...)
	require.Equal(t, 0, code, errs)
	re := regexp.MustCompile(`^castles: A \(level 1\) vs B \(level 0\), 6 games in 3 pairs from 4 random plies, seed 3
A: (\d+) wins, (\d+) draws, (\d+) losses
pairs by A's points \(0, 1/2, 1, 3/2, 2\): \[(\d+) (\d+) (\d+) (\d+) (\d+)\]
A scores (\d+\.\d)/6 = (\d\.\d{3}) \(95% CI (\d\.\d{3}) to (\d\.\d{3}) over the pairs\)
$`)
	m := re.FindStringSubmatch(out)
	require.NotNil(t, m, "output:\n%s", out)
	assert.Equal(t, 6, atoi(t, m[1])+atoi(t, m[2])+atoi(t, m[3]), "every game counted once")
	pairs, points := 0, 0.0
	for k := range 5 {
		pairs += atoi(t, m[4+k])
		points += float64(k) / 2 * float64(atoi(t, m[4+k]))
	}
	assert.Equal(t, 3, pairs, "every pair counted once")
	assert.Equal(t, float64(atoi(t, m[1]))+float64(atoi(t, m[2]))/2, atof(t, m[9]))
	assert.Equal(t, points, atof(t, m[9]), "the pairs hold the games' points")
	assert.LessOrEqual(t, atof(t, m[11]), atof(t, m[10]))
	assert.GreaterOrEqual(t, atof(t, m[12]), atof(t, m[10]))

	_, again, _ := run(t, "", args...)
	assert.Equal(t, out, again, "the same seed gives the same match")

	code, out, errs = run(t, "", "match", "ziggurat43", "--a", "0", "--b", "0", "-n", "3", "--stats", "--max-plies", "30")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, ", 4 games in 2 pairs from 4 random plies,", "-n rounds up to whole pairs")
	assert.Regexp(t, `\nplies per game: min \d+, median \d+, max 30\n`, out)
	assert.Regexp(t, `\nendings: [^\n]*move limit of 30 plies \d\n`, out)
	assert.Regexp(t, `\nA \(level 0\) per move: \d+ moves, min \S+, median \S+, p90 \S+, max \S+\nB \(level 0\) per move: `, out)
	seats := regexp.MustCompile(`\nA as (\S+): (\d+) wins, (\d+) draws, (\d+) losses`).FindAllStringSubmatch(out, -1)
	require.Len(t, seats, 2, "A took both seats of four games:\n%s", out)
	for i := range seats {
		assert.Equal(t, 2, atoi(t, seats[i][2])+atoi(t, seats[i][3])+atoi(t, seats[i][4]), "games of A as %s", seats[i][1])
	}
	assert.NotContains(t, out, "playouts per searched move", "level 0 does not search")

	code, out, errs = run(t, "", "match", "ziggurat43", "--a", "1", "--b", "0", "-n", "2", "--stats", "--max-plies", "6", "--book-plies", "0")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\nA \(level 1\) playouts per searched move: \d+ moves, min 100, median 100, max 100\n`, out)
}

// TestMatchUsage: bad values of the new flags are refused, saying what was
// expected.
func TestMatchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-j", "0"}, "-j must be at least 1 game at once, got 0"},
		{[]string{"--book-plies", "-1"}, "--book-plies must be 0 or more, got -1"},
		{[]string{"--sprt", "0.5"}, `--sprt "0.5": expected two scores S0,S1 such as 0.5,0.6`},
		{[]string{"--sprt", "0.5,x"}, `--sprt "0.5,x": expected two scores S0,S1 such as 0.5,0.6`},
		{[]string{"--sprt", "0.6,0.5"}, `--sprt "0.6,0.5": expected scores with 0 < S0 < S1 < 1`},
		{[]string{"--sprt", "0,0.5"}, `--sprt "0,0.5": expected scores with 0 < S0 < S1 < 1`},
	} {
		args := append([]string{"match", "castles", "--a", "1", "--b", "0", "-n", "2"}, tc.args...)
		code, _, errs := run(t, "", args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errs, "pbem match: "+tc.want, "%v", tc.args)
	}
}

// newTestMatch is a match of a game of the catalog.
func newTestMatch(t *testing.T, game string, o engine.Options, a, b int) *match {
	t.Helper()
	codec, err := referee.Lookup(game)
	require.NoError(t, err)
	start, err := codec.Rules().Start(o)
	require.NoError(t, err)
	return &match{codec: codec, start: start, levels: [2]int{a, b}, seed: 5, maxPlies: 40, bookPlies: 4, jobs: 1}
}

// TestMatchRounds: every game of a round starts from the round's opening
// (bookPlies random plies, the same for each seat, another for each round),
// and A takes each seat once in a round: twice in a pair, four times in a
// four-seat rpp round.
func TestMatchRounds(t *testing.T) {
	for _, tc := range []struct {
		game string
		o    engine.Options
	}{
		{"ziggurat43", engine.Options{}},
		{"rpp", engine.Options{Players: 4}},
	} {
		t.Run(tc.game, func(t *testing.T) {
			m := newTestMatch(t, tc.game, tc.o, 0, 0)
			seats := m.seats()
			var keys []string
			for round := range 3 {
				l, err := m.opening(context.Background(), round)
				require.NoError(t, err)
				assert.Equal(t, m.bookPlies, l.Plies())
				again, err := m.opening(context.Background(), round)
				require.NoError(t, err)
				assert.Equal(t, l.State().Key(), again.State().Key(), "round %d: each game gets the same opening", round)
				keys = append(keys, l.State().Key())
			}
			assert.NotEqual(t, keys[0], keys[1], "each round gets its own opening")
			assert.NotEqual(t, keys[1], keys[2], "each round gets its own opening")

			var rounds [][]gameResult
			results, err := m.play(context.Background(), 2, func(round int, games []gameResult) bool {
				assert.Len(t, rounds, round, "rounds come in order")
				rounds = append(rounds, games)
				return false
			})
			require.NoError(t, err)
			require.Len(t, results, 2*seats)
			require.Len(t, rounds, 2)
			for r, games := range rounds {
				require.Len(t, games, seats)
				for seat, g := range games {
					assert.Equal(t, seat, g.seat, "round %d: A's seat in game %d", r, seat)
					assert.Greater(t, g.plies, m.bookPlies, "the game goes on from the opening")
				}
			}
		})
	}
}

// TestMatchStops: the match stops after the round for which onRound says
// so, with any number of workers, and returns the games up to it.
func TestMatchStops(t *testing.T) {
	m := newTestMatch(t, "ziggurat43", engine.Options{}, 1, 0)
	for _, jobs := range []int{1, 2, 3} {
		m.jobs = jobs
		calls := 0
		results, err := m.play(context.Background(), 10, func(round int, games []gameResult) bool {
			calls++
			return round == 2
		})
		require.NoError(t, err)
		assert.Equal(t, 3, calls, "-j %d", jobs)
		assert.Len(t, results, 6, "-j %d", jobs)
	}
}

// TestMatchInterrupt: a match whose context ends (an interrupt) stops
// with the rounds finished before, without an error, so that a long test
// still reports what it measured.
func TestMatchInterrupt(t *testing.T) {
	m := newTestMatch(t, "ziggurat43", engine.Options{}, 1, 0)
	for _, jobs := range []int{1, 2} {
		m.jobs = jobs
		ctx, cancel := context.WithCancel(context.Background())
		results, err := m.play(ctx, 10, func(round int, games []gameResult) bool {
			if round == 1 {
				cancel()
			}
			return false
		})
		cancel()
		require.NoError(t, err, "-j %d", jobs)
		assert.Len(t, results, 4, "-j %d: the two rounds before the interrupt", jobs)
	}
}

// TestMatchJobs: levels 1 to 4 play the same games with -j 1 and -j 2, and
// the sequential test decides the same way after the same pairs.
func TestMatchJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 2 matches")
	}
	timing := regexp.MustCompile(`(?m)^[AB] \(level \d\) per move: .*\n`)
	var outs []string
	for _, j := range []string{"1", "2"} {
		code, out, errs := run(t, "", "match", "ziggurat43", "--a", "2", "--b", "1", "-n", "4", "--seed", "9", "--sprt", "0.5,0.6", "-j", j)
		require.Equal(t, 0, code, errs)
		outs = append(outs, timing.ReplaceAllString(out, ""))
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Regexp(t, `(?m)^pair 1: A \d\.\d{3}, LLR -?\d+\.\d\d \(-2\.94, 2\.94\)$`, outs[0])
	assert.Regexp(t, `(?m)^SPRT 0\.5 v 0\.6 \(alpha = beta = 0\.05\): (no decision|H[01] \(score 0\.[56]\) accepted) after \d pairs, LLR -?\d+\.\d\d \(-2\.94, 2\.94\)$`, outs[0])
}

// TestLLRBernoulli: with results of 0 and 1 only, the most likely
// distribution of mean s is Bernoulli(s), so the ratio has the closed form
// W log(s1/s0) + L log((1-s1)/(1-s0)).
func TestLLRBernoulli(t *testing.T) {
	for _, tc := range []struct{ w, l, s0, s1 float64 }{
		{60, 40, 0.5, 0.6},
		{45, 55, 0.5, 0.6},
		{3, 1, 0.4, 0.7},
	} {
		a, p := []float64{0, 1}, []float64{tc.l / (tc.w + tc.l), tc.w / (tc.w + tc.l)}
		got := (tc.w + tc.l) * llrPDF(a, p, tc.s0, tc.s1)
		want := tc.w*math.Log(tc.s1/tc.s0) + tc.l*math.Log((1-tc.s1)/(1-tc.s0))
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("LLR of %v wins, %v losses, %v v %v = %.12f, want %.12f", tc.w, tc.l, tc.s0, tc.s1, got, want)
		}
	}
}

// TestMLEMean: the distribution mleMean finds is one (its probabilities add
// up to 1) and has the mean asked for.
func TestMLEMean(t *testing.T) {
	a := []float64{0, 0.25, 0.5, 0.75, 1}
	for _, p := range [][]float64{{0.1, 0.2, 0.4, 0.2, 0.1}, {0.05, 0.1, 0.3, 0.35, 0.2}, {0.4, 0.001, 0.3, 0.001, 0.298}} {
		for _, s := range []float64{0.3, 0.5, 0.6, 0.9} {
			q := mleMean(a, p, s)
			total, mean := 0.0, 0.0
			for i := range a {
				pi := p[i] / (1 + q*(a[i]-s))
				total += pi
				mean += pi * a[i]
			}
			if math.Abs(total-1) > 1e-9 || math.Abs(mean-s) > 1e-9 {
				t.Errorf("mleMean(%v, %v) = %v: the distribution adds up to %v with mean %v, want 1 and %v", p, s, q, total, mean, s)
			}
		}
	}
}

// TestRoundStats: the score and its interval come from the pairs: pairs
// that each score 1 of 2 give 0.5 with no spread, whatever the games.
func TestRoundStats(t *testing.T) {
	st := newRoundStats(2)
	for range 20 {
		st.add(0.5)
	}
	assert.InDelta(t, 0.5, st.mean(), 1e-12)
	assert.Equal(t, []float64{0, 0, 20, 0, 0}, st.counts)

	// Rounds all alike leave no spread: the Wilson interval of the rounds
	// (17 won pairs: 1/(1 + 1.96^2/17) = 0.816 to 1).
	st = newRoundStats(2)
	for range 17 {
		st.add(1)
	}
	lo, hi := st.interval()
	assert.InDelta(t, 0.816, lo, 0.001)
	assert.InDelta(t, 1, hi, 1e-12)

	// Pairs of 0, 1/2, 1, 3/2 and 2 points, 20 each: mean 1/2, variance of
	// a pair's mean 1/8, half-width 1.96 * sqrt(1/8/100).
	st = newRoundStats(2)
	for k := range 5 {
		for range 20 {
			st.add(float64(k) / 4)
		}
	}
	lo, hi = st.interval()
	half := 1.959964 * math.Sqrt(0.125/100)
	assert.InDelta(t, 0.5-half, lo, 1e-9)
	assert.InDelta(t, 0.5+half, hi, 1e-9)

	// A four-seat round's mean is a multiple of 1/24.
	st = newRoundStats(4)
	st.add((1 + 2.0/3 + 0.5 + 1.0/3) / 4)
	assert.Len(t, st.counts, 25)
	assert.Equal(t, 1.0, st.counts[15])
}

// TestSPRTSynthetic runs the test on pairs drawn from games of a known
// score, over many seeds: at a true score of 0.65 it accepts H1 (score 0.6
// against 0.5), at 0.45 H0, each wrongly at most about alpha = beta = 0.05
// of the time, and it takes about the number of pairs Wald's approximation
// expects: the bound reached over the mean step of the ratio per pair.
func TestSPRTSynthetic(t *testing.T) {
	test := newSPRT(0.5, 0.6, 0.05, 0.05)
	for _, tc := range []struct {
		win, draw float64 // per game; the score is win + draw/2
		want      string
	}{
		{0.55, 0.2, "H1"},  // 0.65
		{0.35, 0.2, "H0"},  // 0.45
		{0.65, 0.0, "H1"},  // 0.65 without draws
		{0.40, 0.10, "H0"}, // 0.45
	} {
		score := tc.win + tc.draw/2
		// The pentanomial distribution of a pair of independent games.
		game := []float64{1 - tc.win - tc.draw, tc.draw, tc.win}
		a := []float64{0, 0.25, 0.5, 0.75, 1}
		pdf := make([]float64, 5)
		for i, pi := range game {
			for j, pj := range game {
				pdf[i+j] += pi * pj
			}
		}
		step := llrPDF(a, pdf, test.s0, test.s1)
		bound := test.upper
		if tc.want == "H0" {
			bound = test.lower
		}
		expected := bound / step

		const runs = 400
		right, pairs := 0, 0
		for seed := range uint64(runs) {
			r := rand.New(rand.NewPCG(seed, 29))
			st := newRoundStats(2)
			decision := ""
			for decision == "" && st.n < 5000 {
				x := 0.0
				for range 2 {
					switch u := r.Float64(); {
					case u < tc.win:
						x += 0.5
					case u < tc.win+tc.draw:
						x += 0.25
					}
				}
				st.add(x)
				decision = test.decide(st.llr(test.s0, test.s1))
			}
			if decision == tc.want {
				right++
			}
			pairs += st.n
		}
		mean := float64(pairs) / runs
		t.Logf("score %.2f (win %.2f, draw %.2f): %s in %d of %d runs, %.1f pairs on average, Wald expects %.1f", score, tc.win, tc.draw, tc.want, right, runs, mean, expected)
		if right < runs*92/100 {
			t.Errorf("score %.2f: %s accepted in %d of %d runs, want at least 92%%", score, tc.want, right, runs)
		}
		if mean < 0.7*expected || mean > 1.5*expected {
			t.Errorf("score %.2f: %.1f pairs on average, want about %.1f (0.7x to 1.5x)", score, mean, expected)
		}
	}
}

// TestSPRTBounds: alpha = beta = 0.05 gives the bounds log(1/19) and
// log(19).
func TestSPRTBounds(t *testing.T) {
	test := newSPRT(0.5, 0.6, 0.05, 0.05)
	assert.InDelta(t, -math.Log(19), test.lower, 1e-12)
	assert.InDelta(t, math.Log(19), test.upper, 1e-12)
	assert.Equal(t, "H1", test.decide(3))
	assert.Equal(t, "H0", test.decide(-3))
	assert.Equal(t, "", test.decide(2.9))
	assert.True(t, strings.HasPrefix(test.decide(math.Log(19)), "H1"))
}

// TestMatchLog: a match run in three parts through --log (4 games, then 4
// more, then a last game whose line a crash cut short, played again) gives
// what one run of the whole match gives, the SPRT's lines included; a log
// of another match is refused.
func TestMatchLog(t *testing.T) {
	timing := regexp.MustCompile(`(?m)^(([AB] \(level \d\) per move: )|(\S+\.jsonl: )).*\n`)
	whole := []string{"match", "castles", "--a", "2", "--b", "1", "--seed", "5", "--sprt", "0.5,0.6", "--stats", "-j", "2"}
	code, want, errs := run(t, "", append(whole, "-n", "12")...)
	require.Equal(t, 0, code, errs)

	log := filepath.Join(t.TempDir(), "m.jsonl")
	code, first, errs := run(t, "", append(whole, "-n", "4", "--log", log)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, first, "4 games in 2 pairs")
	assert.NotContains(t, first, "played before")

	code, _, errs = run(t, "", append(whole, "-n", "8", "--log", log)...)
	require.Equal(t, 0, code, errs)
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 1+8, "the head and one line a game")
	assert.JSONEq(t, `{"game":"castles","a":2,"b":1,"seed":5,"book_plies":4,"max_plies":2000}`, lines[0])
	// A crash while the last game's line was written: the game is played
	// again and the line replaced.
	require.NoError(t, os.WriteFile(log, []byte(strings.Join(lines[:8], "\n")+"\n"+lines[8][:len(lines[8])/2]), 0o644))

	// With -j 2 the lines come as the games end: the pairs the 7 whole
	// lines complete, from the first, count as played (2 or 3), the rest
	// are played again.
	kept := map[int]bool{}
	for _, line := range lines[1:8] {
		var g struct{ I int }
		require.NoError(t, json.Unmarshal([]byte(line), &g))
		kept[g.I] = true
	}
	pairs := 0
	for kept[2*pairs] && kept[2*pairs+1] {
		pairs++
	}
	require.GreaterOrEqual(t, pairs, 2, "the 4 games of the first run are whole pairs")
	code, got, errs := run(t, "", append(whole, "-n", "12", "--log", log)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, got, fmt.Sprintf("%s: %d pairs played before, %d games; going on from pair %d\n", log, pairs, 2*pairs, pairs+1), "the pair of the cut line is played again")
	assert.Equal(t, timing.ReplaceAllString(want, ""), timing.ReplaceAllString(got, ""), "the match continued is the match played at once")
	data, err = os.ReadFile(log)
	require.NoError(t, err)
	assert.Len(t, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"), 1+7+12-2*pairs, "7 games kept, the games after the whole pairs played again")

	code, _, errs = run(t, "", "match", "castles", "--a", "2", "--b", "1", "--seed", "6", "-n", "2", "--log", log)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "holds another match")
	assert.Contains(t, errs, "--seed 5")

	// A log whose games already decide the test plays none.
	decided := filepath.Join(t.TempDir(), "decided.jsonl")
	strong := []string{"match", "castles", "--a", "1", "--b", "0", "--seed", "3", "--sprt", "0.5,0.6", "-n", "400", "--log", decided}
	code, once, errs := run(t, "", strong...)
	require.Equal(t, 0, code, errs)
	require.Contains(t, once, "H1 (score 0.6) accepted")
	before, err := os.ReadFile(decided)
	require.NoError(t, err)
	code, again, errs := run(t, "", strong...)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `played before, \d+ games: the test decided within them\n`, again)
	assert.NotContains(t, again, "going on from")
	after, err := os.ReadFile(decided)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "no game played")

	// A game line that reads as JSON but holds no game is refused.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(lines[0]+"\n{}\n"), 0o644))
	code, _, errs = run(t, "", append(whole, "-n", "4", "--log", bad)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "line 2: game 0 scored 0 after 0 plies")
}

// TestMatchPosition: --position starts every round's opening from that
// position (read canonically, the side to move its own), the report names
// it, and a text that does not read or where the game is over is refused
// with the reader's error.
func TestMatchPosition(t *testing.T) {
	const pos = "...S/..s./.F../.... 4/1/0 4/0/0 S"
	code, out, errs := run(t, "", "match", "castles", "--a", "0", "--b", "0", "-n", "4", "--position", "  "+pos)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "castles: A (level 0) vs B (level 0), 4 games in 2 pairs from the position \""+pos+"\" and 4 random plies, seed 1\n")

	m := newTestMatch(t, "castles", engine.Options{}, 0, 0)
	st, err := engine.ParsePosition(m.codec.Rules(), engine.Options{}, pos)
	require.NoError(t, err)
	m.start, m.position, m.bookPlies = st, pos, 2
	for round := range 3 {
		line, err := m.opening(context.Background(), round)
		require.NoError(t, err)
		require.Equal(t, 2, line.Plies())
		first := line
		for first.Parent() != nil {
			first = first.Parent()
		}
		assert.Equal(t, pos, first.State().(engine.Positioner).Position(), "round %d starts from the position", round)
	}

	for _, tc := range []struct{ pos, want string }{
		{"...S/..s./.F../...x 4/1/0 4/0/0 S", "pbem match: --position: castles position, column 19: 'x' on d1 is no cell content"},
		{"...S/..s./.F../.... 4/1/0 5/0/0 S", "pbem match: --position: castles position: Second has 6 units"},
	} {
		code, _, errs := run(t, "", "match", "castles", "--a", "0", "--b", "0", "-n", "2", "--position", tc.pos)
		assert.Equal(t, 2, code, tc.pos)
		assert.Contains(t, errs, tc.want, tc.pos)
	}
}
