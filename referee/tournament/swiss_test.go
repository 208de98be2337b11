package tournament

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// quality is what the Dutch system's criteria measure of a pairing,
// computed from the event alone (not from the pairing code): the bye's
// score (as low as possible), then the players of the top score group who
// float down, paired with a lower score or given the bye (C5: the first
// bracket pairs as many as it can). Later brackets depend on who floated
// and on the colours, which only the reference rounds pin down.
type quality struct {
	byeScore, topFloats int
}

func (q quality) less(o quality) bool {
	return cmp.Or(cmp.Compare(q.byeScore, o.byeScore), cmp.Compare(q.topFloats, o.topFloats)) < 0
}

func (q quality) plus(o quality) quality {
	return quality{q.byeScore + o.byeScore, q.topFloats + o.topFloats}
}

// colourHistory returns each player's colours of played games, in round
// order (0 White, 1 Black).
func colourHistory(e *Event) map[string][]int {
	games := slices.Clone(e.Games)
	slices.SortStableFunc(games, func(a, b Game) int { return cmp.Compare(a.Round, b.Round) })
	seq := map[string][]int{}
	for _, g := range games {
		if !g.Forfeit && len(g.Players) == 2 {
			seq[g.Players[0]] = append(seq[g.Players[0]], 0)
			seq[g.Players[1]] = append(seq[g.Players[1]], 1)
		}
	}
	return seq
}

// mustHave returns the colour a player must have by the absolute
// criterion (C3): the lesser colour at a difference of 2 or more, else the
// other colour after two games in a row with one colour; -1 for none.
func mustHave(seq []int) int {
	d := 0
	for _, c := range seq {
		d += 1 - 2*c
	}
	switch n := len(seq); {
	case d >= 2:
		return 1
	case d <= -2:
		return 0
	case n >= 2 && seq[n-1] == seq[n-2]:
		return 1 - seq[n-1]
	}
	return -1
}

// topscorer reports whether a player of score s (half points) is a
// topscorer of the last round: more than half the possible score before
// it, when the last round is being paired.
func topscorer(e *Event, s int) bool {
	return e.Paired()+1 == e.TotalRounds() && s > e.Paired()
}

// swissFacts returns the active players ranked (score, then seed) with
// their scores, who met whom, who had a bye, and the colour each must
// have (-1 for none).
func swissFacts(e *Event) (ranked []string, score map[string]int, met map[[2]string]bool, hadBye map[string]bool, must map[string]int) {
	score = map[string]int{}
	for _, g := range e.Games {
		for i, a := range g.Players {
			for j := range g.Players {
				if i != j && g.Ranks[i] < g.Ranks[j] {
					score[a] += 2
				} else if i != j && g.Ranks[i] == g.Ranks[j] {
					score[a]++
				}
			}
		}
	}
	hadBye = map[string]bool{}
	for _, b := range e.Byes {
		score[b.Player] += 2
		hadBye[b.Player] = true
	}
	met = map[[2]string]bool{}
	for _, g := range e.Games {
		met[[2]string{g.Players[0], g.Players[1]}] = true
		met[[2]string{g.Players[1], g.Players[0]}] = true
	}
	for _, p := range e.Players {
		if !slices.Contains(e.Withdrawn, p.ID) {
			ranked = append(ranked, p.ID)
		}
	}
	seed := map[string]int{}
	for i, p := range e.Players {
		seed[p.ID] = i
	}
	slices.SortFunc(ranked, func(a, b string) int { return cmp.Or(score[b]-score[a], seed[a]-seed[b]) })
	must = map[string]int{}
	hist := colourHistory(e)
	for _, id := range ranked {
		must[id] = mustHave(hist[id])
	}
	return ranked, score, met, hadBye, must
}

// measure returns the quality of round rd paired on event e (before Apply).
func measure(e *Event, rd *Round) quality {
	ranked, score, _, _, _ := swissFacts(e)
	top := score[ranked[0]]
	var q quality
	for _, id := range rd.Byes {
		q.byeScore = score[id]
		q.topFloats += btoi(score[id] == top)
	}
	for _, g := range rd.Games {
		a, b := score[g.Players[0]], score[g.Players[1]]
		q.topFloats += btoi(a != b && max(a, b) == top)
	}
	return q
}

// bestSwiss searches every pairing of the active players exhaustively and
// returns the best quality one can have; ok is false when no pairing obeys
// the absolute criteria (no repeat, at most one bye each, no two players
// who must have the same colour, unless one is a topscorer of the last
// round).
func bestSwiss(e *Event) (best quality, ok bool) {
	ranked, score, met, hadBye, must := swissFacts(e)
	n := len(ranked)
	top := score[ranked[0]]
	type res struct {
		q  quality
		ok bool
	}
	memo := map[uint64]res{}
	var solve func(mask uint64, byeLeft bool) res
	solve = func(mask uint64, byeLeft bool) res {
		if mask == 0 {
			return res{ok: !byeLeft}
		}
		key := mask<<1 | map[bool]uint64{true: 1}[byeLeft]
		if r, found := memo[key]; found {
			return r
		}
		i := 0
		for mask&(1<<i) == 0 {
			i++
		}
		rest := mask &^ (1 << i)
		var out res
		try := func(r res, add quality) {
			if !r.ok {
				return
			}
			q := r.q.plus(add)
			if !out.ok || q.less(out.q) {
				out = res{q, true}
			}
		}
		a := ranked[i]
		if byeLeft && !hadBye[a] {
			try(solve(rest, false), quality{score[a], btoi(score[a] == top)})
		}
		for j := i + 1; j < n; j++ {
			b := ranked[j]
			if rest&(1<<j) == 0 || met[[2]string{a, b}] {
				continue
			}
			if must[a] >= 0 && must[a] == must[b] && !topscorer(e, score[a]) && !topscorer(e, score[b]) {
				continue
			}
			try(solve(rest&^(1<<j), byeLeft), quality{0, btoi(score[a] != score[b] && max(score[a], score[b]) == top)})
		}
		memo[key] = out
		return out
	}
	r := solve(1<<n-1, n%2 == 1)
	return r.q, r.ok
}

// TestSwissProperties plays Swiss events of 4 to 40 players over
// min(N-1, 9) rounds with random results (and, in one of three, a
// withdrawal after round 2), and checks every round: each active player is
// paired once; no two players meet twice; nobody has two byes; nobody
// gets a colour difference beyond +/-2 or three games in a row with one
// colour, except in a pair with a topscorer of the last round (C3); the
// bye's score and the top group's floaters are as few as exhaustive search
// finds (fields of up to 14); and Pair fails only when exhaustive search finds no valid
// pairing either.
func TestSwissProperties(t *testing.T) {
	var rounds, stuck int
	for n := 4; n <= 40; n++ {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%d/%d", n, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), seed))
				e := &Event{Format: Swiss, Rounds: min(n-1, 9), Players: entrants(n)}
				for e.Paired() < e.Rounds {
					if e.Paired() == 2 && seed == 2 {
						e.Withdrawn = []string{e.Players[r.IntN(n)].ID}
					}
					active := n - len(e.Withdrawn)
					rd, err := e.Pair()
					if err != nil {
						if !errors.Is(err, ErrNoValidPairing) {
							t.Fatalf("round %d: %v", e.Paired()+1, err)
						}
						if active > 14 {
							t.Logf("round %d: %v (too many players to confirm by exhaustive search)", e.Paired()+1, err)
							stuck++
							return
						}
						if _, ok := bestSwiss(e); ok {
							t.Fatalf("round %d: %v, but exhaustive search finds a pairing", e.Paired()+1, err)
						}
						stuck++
						return
					}
					checkRound(t, e, rd)
					q := measure(e, rd)
					if active <= 14 {
						if best, ok := bestSwiss(e); !ok || best.less(q) {
							t.Fatalf("round %d: pairing of quality %+v; exhaustive search finds %+v (ok %v)", rd.Number, q, best, ok)
						}
					}
					_, score, _, _, _ := swissFacts(e)
					exempt := map[string]bool{} // in a pair with a topscorer of the last round
					for _, g := range rd.Games {
						if topscorer(e, score[g.Players[0]]) || topscorer(e, score[g.Players[1]]) {
							exempt[g.Players[0]], exempt[g.Players[1]] = true, true
						}
					}
					e.Apply(rd)
					rounds++
					for k, c := range meetings(e) {
						if c > 1 {
							t.Fatalf("round %d: %v met %d times", rd.Number, k, c)
						}
					}
					byes := map[string]int{}
					for _, b := range e.Byes {
						if byes[b.Player]++; byes[b.Player] > 1 {
							t.Fatalf("round %d: %s has a second bye", rd.Number, b.Player)
						}
					}
					for id, seq := range colourHistory(e) {
						d, k := colourDiffs(e)[id], len(seq)
						three := k >= 3 && seq[k-1] == seq[k-2] && seq[k-2] == seq[k-3]
						if (d < -2 || d > 2 || three) && !exempt[id] {
							t.Fatalf("round %d: %s has colours %v (difference %d)", rd.Number, id, seq, d)
						}
					}
					play(e, r)
				}
			})
		}
	}
	t.Logf("%d rounds paired; %d events stuck with no valid pairing left", rounds, stuck)
}

// TestBakuAcceleration: group A is the first 2 x ceil(n/4) seeds; of a
// 9-round event the first 5 rounds are accelerated, rounds 1-3 by one
// point (2 half points), 4-5 by half a point; VirtualPoints replace them.
func TestBakuAcceleration(t *testing.T) {
	e := &Event{Format: Swiss, Rounds: 9, Players: entrants(10), Accelerated: true}
	for _, tc := range []struct {
		seed  int // from 1
		round int
		want  int
	}{
		{1, 1, 2}, {6, 3, 2}, {6, 4, 1}, {1, 5, 1}, {1, 6, 0}, {7, 1, 0}, {10, 2, 0},
	} {
		if got := e.Acceleration(e.Players[tc.seed-1].ID, tc.round); got != tc.want {
			t.Errorf("10 players, 9 rounds: Acceleration(seed %d, round %d) = %d half points, want %d", tc.seed, tc.round, got, tc.want)
		}
	}
	e = &Event{Format: Swiss, Rounds: 5, Players: entrants(9), Accelerated: true}
	// 9 players: group A is 6; 5 rounds: 3 accelerated, 1-2 by a point.
	for _, tc := range []struct{ seed, round, want int }{{6, 2, 2}, {6, 3, 1}, {6, 4, 0}, {7, 1, 0}} {
		if got := e.Acceleration(e.Players[tc.seed-1].ID, tc.round); got != tc.want {
			t.Errorf("9 players, 5 rounds: Acceleration(seed %d, round %d) = %d, want %d", tc.seed, tc.round, got, tc.want)
		}
	}
	e.VirtualPoints = map[string][]int{e.Players[8].ID: {0, 1}}
	if a, b := e.Acceleration(e.Players[8].ID, 2), e.Acceleration(e.Players[0].ID, 1); a != 1 || b != 0 {
		t.Errorf("with VirtualPoints: Acceleration = %d and %d, want 1 (given) and 0 (not given)", a, b)
	}
}
