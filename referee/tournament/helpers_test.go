package tournament

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// entrants returns n players p01, p02, ... named P01, P02, ...
func entrants(n int) []Player {
	ps := make([]Player, n)
	for i := range ps {
		ps[i] = Player{ID: fmt.Sprintf("p%02d", i+1), Name: fmt.Sprintf("P%02d", i+1)}
	}
	return ps
}

// randomRanks returns a random result for k seats: for two, a win for
// either or a draw; for more, ranks with an occasional shared place.
func randomRanks(r *rand.Rand, k int) []int {
	if k == 2 {
		return [][]int{{1, 2}, {2, 1}, {1, 1}}[r.IntN(3)]
	}
	order := r.Perm(k)
	ranks := make([]int, k)
	for place, seat := range order {
		ranks[seat] = place + 1
		if place > 0 && r.IntN(5) == 0 {
			ranks[seat] = ranks[order[place-1]]
		}
	}
	return ranks
}

// play gives every pending game a random result.
func play(e *Event, r *rand.Rand) {
	for i := range e.Games {
		if !e.Games[i].Ended() {
			e.Games[i].Ranks = randomRanks(r, len(e.Games[i].Players))
		}
	}
}

// pairApply pairs the next round and records it, failing the test on error.
func pairApply(t testing.TB, e *Event) *Round {
	t.Helper()
	rd, err := e.Pair()
	if err != nil {
		t.Fatalf("Pair round %d: %v", e.Paired()+1, err)
	}
	e.Apply(rd)
	return rd
}

// colourDiffs returns each player's Whites minus Blacks over played
// two-player games.
func colourDiffs(e *Event) map[string]int {
	d := map[string]int{}
	for _, g := range e.Games {
		if g.Forfeit || len(g.Players) != 2 {
			continue
		}
		d[g.Players[0]]++
		d[g.Players[1]]--
	}
	return d
}

// meetings counts how often each two players met (key sorted).
func meetings(e *Event) map[[2]string]int {
	m := map[[2]string]int{}
	for _, g := range e.Games {
		for i, a := range g.Players {
			for _, b := range g.Players[i+1:] {
				k := [2]string{a, b}
				if b < a {
					k = [2]string{b, a}
				}
				m[k]++
			}
		}
	}
	return m
}

// checkRound verifies what holds for every round of every format: each
// active player is in exactly one game or bye, withdrawn players in none.
func checkRound(t testing.TB, e *Event, rd *Round) {
	t.Helper()
	seen := map[string]int{}
	for _, g := range rd.Games {
		if g.Round != rd.Number || g.Ended() {
			t.Fatalf("round %d: game %+v is not a pending game of the round", rd.Number, g)
		}
		for _, id := range g.Players {
			seen[id]++
		}
	}
	for _, g := range rd.Forfeited {
		if !g.Forfeit || !g.Ended() {
			t.Fatalf("round %d: forfeited game %+v has no forfeit result", rd.Number, g)
		}
	}
	for _, id := range rd.Byes {
		seen[id]++
	}
	for _, p := range e.Players {
		want := 1
		if slices.Contains(e.Withdrawn, p.ID) {
			want = 0
		}
		for _, g := range rd.Forfeited {
			if slices.Contains(g.Players, p.ID) {
				want = 0 // a round robin's scheduled game against a withdrawn player
			}
		}
		if seen[p.ID] != want {
			t.Fatalf("round %d: %s is in %d games or byes, want %d (games %v, byes %v)", rd.Number, p.ID, seen[p.ID], want, rd.Games, rd.Byes)
		}
	}
}

// itoa prints ranks as [1 2 3].
func itoa(ranks []int) string { return fmt.Sprint(ranks) }
