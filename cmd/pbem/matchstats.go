package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The statistics of a match come from its rounds, not its games: a round is
// one opening played once with bot A in each seat (a pair of games in a
// two-seat game, four games in a four-seat rpp game), and its result is A's
// mean score over the round, from 0 to 1. In a two-seat game that is the
// pentanomial result of chess engine testing (0, 1/4, 1/2, 3/4 or 1 for the
// pair); the seat advantage, which is large in some games, falls out of it.
//
// The sequential test is the generalized SPRT of fishtest (Michel Van den
// Bergh's LLRcalc, "logistic" model): the hypotheses are expected scores s0
// and s1, and the log-likelihood ratio is that of the maximum-likelihood
// distributions over the round results with mean s1 and with mean s0, each
// found from the empirical distribution of the rounds (Proposition 1.1 of
// "support_MLE_multinomial"). Empty cells of the distribution get a count of
// 1e-3, as fishtest's regularize does, so that s0 and s1 always lie inside
// its support.

// roundStats are the round results of a match so far, on a grid of cells
// k/cells (every result a round can have).
type roundStats struct {
	cells  int
	counts []float64 // counts[k]: rounds whose result is k/cells
	n      int
	sum    float64
	sumSq  float64
}

// newRoundStats holds the results of rounds of a game of seats sides: each
// game's score is a multiple of 1/(2(seats-1)) (half a point per side beaten
// or tied with), and a round's mean over its seats games a multiple of
// 1/(2 seats (seats-1)).
func newRoundStats(seats int) *roundStats {
	cells := 2 * seats * max(seats-1, 1)
	return &roundStats{cells: cells, counts: make([]float64, cells+1)}
}

// add records a round whose mean score is x.
func (st *roundStats) add(x float64) {
	k := int(math.Round(x * float64(st.cells)))
	k = min(max(k, 0), st.cells)
	st.counts[k]++
	st.n++
	st.sum += x
	st.sumSq += x * x
}

// mean is A's score: the mean of the round results.
func (st *roundStats) mean() float64 {
	if st.n == 0 {
		return 0.5
	}
	return st.sum / float64(st.n)
}

// interval is the 95% confidence interval of the score from the variance of
// the round results (which is smaller than that of single games when the
// seats are unequal: a round gives each bot every seat); when all rounds
// scored the same, the Wilson interval of the rounds.
func (st *roundStats) interval() (lo, hi float64) {
	const z = 1.959964
	if st.n < 2 {
		return 0, 1
	}
	n := float64(st.n)
	m := st.mean()
	v := max(st.sumSq/n-m*m, 0)
	if v < 1e-12 {
		// Every round the same (all won, say): no spread to go by. The
		// Wilson interval of the rounds taken as trials still says how
		// far so few rounds may be from the truth.
		d := 1 + z*z/n
		centre := (m + z*z/(2*n)) / d
		half := z * math.Sqrt(m*(1-m)/n+z*z/(4*n*n)) / d
		return max(0, centre-half), min(1, centre+half)
	}
	half := z * math.Sqrt(v/n)
	return max(0, m-half), min(1, m+half)
}

// pdf is the empirical distribution of the round results, empty cells given
// the count 1e-3 (fishtest's regularize).
func (st *roundStats) pdf() (a, p []float64) {
	const epsilon = 1e-3
	total := 0.0
	for _, c := range st.counts {
		total += max(c, epsilon)
	}
	for k, c := range st.counts {
		a = append(a, float64(k)/float64(st.cells))
		p = append(p, max(c, epsilon)/total)
	}
	return a, p
}

// llr is the generalized log-likelihood ratio of the rounds for the score
// s1 against s0 (0 < s0, s1 < 1).
func (st *roundStats) llr(s0, s1 float64) float64 {
	if st.n == 0 {
		return 0
	}
	a, p := st.pdf()
	return float64(st.n) * llrPDF(a, p, s0, s1)
}

// llrPDF is the log-likelihood ratio per observation of the distribution
// (a, p) for the mean s1 against s0: with q = mleMean(a, p, s), the
// maximum-likelihood distribution of mean s is p_i / (1 + q (a_i - s)).
func llrPDF(a, p []float64, s0, s1 float64) float64 {
	q0, q1 := mleMean(a, p, s0), mleMean(a, p, s1)
	sum := 0.0
	for i := range a {
		sum += p[i] * (math.Log1p(q0*(a[i]-s0)) - math.Log1p(q1*(a[i]-s1)))
	}
	return sum
}

// mleMean solves sum_i p_i (a_i - s) / (1 + q (a_i - s)) = 0 for q, which
// gives the distribution closest to (a, p) (the most likely) among those of
// mean s. The left side falls as q grows, from +inf at q = -1/(max a - s)
// to -inf at q = 1/(s - min a): bisection finds the root. s must lie
// strictly between the smallest and the largest a of positive p.
func mleMean(a, p []float64, s float64) float64 {
	lo, hi := math.Inf(-1), math.Inf(1)
	for i := range a {
		if p[i] <= 0 {
			continue
		}
		switch d := a[i] - s; {
		case d > 0:
			lo = max(lo, -1/d)
		case d < 0:
			hi = min(hi, -1/d)
		}
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		panic(fmt.Sprintf("mleMean: the mean %v is outside the distribution's support %v", s, a))
	}
	f := func(q float64) float64 {
		sum := 0.0
		for i := range a {
			d := a[i] - s
			sum += p[i] * d / (1 + q*d)
		}
		return sum
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// sprt is a sequential probability ratio test of the score s0 (H0) against
// s1 (H1) with error rates alpha and beta: it accepts H1 once the
// log-likelihood ratio reaches upper, H0 once it falls to lower.
type sprt struct {
	s0, s1       float64
	lower, upper float64
}

func newSPRT(s0, s1, alpha, beta float64) sprt {
	return sprt{s0: s0, s1: s1, lower: math.Log(beta / (1 - alpha)), upper: math.Log((1 - beta) / alpha)}
}

// decide returns "H1" or "H0" when llr has crossed a bound, else "".
func (t sprt) decide(llr float64) string {
	switch {
	case llr >= t.upper:
		return "H1"
	case llr <= t.lower:
		return "H0"
	}
	return ""
}

// parseSPRT reads --sprt "S0,S1".
func parseSPRT(v string) (s0, s1 float64, err error) {
	x, y, ok := strings.Cut(v, ",")
	var err0, err1 error
	if ok {
		s0, err0 = strconv.ParseFloat(strings.TrimSpace(x), 64)
		s1, err1 = strconv.ParseFloat(strings.TrimSpace(y), 64)
	}
	if !ok || err0 != nil || err1 != nil {
		return 0, 0, fmt.Errorf("--sprt %q: expected two scores S0,S1 such as 0.5,0.6", v)
	}
	if !(0 < s0 && s0 < s1 && s1 < 1) {
		return 0, 0, fmt.Errorf("--sprt %q: expected scores with 0 < S0 < S1 < 1", v)
	}
	return s0, s1, nil
}
