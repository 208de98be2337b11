package tournament

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestBergerTables: the tables of 6 players as FIDE publishes them.
func TestBergerTables(t *testing.T) {
	want := []string{
		"[[1 6] [2 5] [3 4]]",
		"[[6 4] [5 3] [1 2]]",
		"[[2 6] [3 1] [4 5]]",
		"[[6 5] [1 4] [2 3]]",
		"[[3 6] [4 2] [5 1]]",
	}
	for c, w := range want {
		if got := fmt.Sprint(berger(6, c+1)); got != w {
			t.Errorf("berger(6, %d) = %s, want %s", c+1, got, w)
		}
	}
	if got, w := fmt.Sprint(berger(4, 2)), "[[4 3] [1 2]]"; got != w {
		t.Errorf("berger(4, 2) = %s, want %s", got, w)
	}
}

// TestRoundRobinSchedules: for 2 to 17 players, single and double: each
// pair meets once (twice, sides swapped), each player plays or sits out
// once a round, an odd field gives every player one bye per cycle, and no
// player has more than one White more than Blacks or the reverse, at any
// time in the first cycle.
func TestRoundRobinSchedules(t *testing.T) {
	for _, f := range []Format{RoundRobin, DoubleRoundRobin} {
		for n := 2; n <= 17; n++ {
			t.Run(fmt.Sprintf("%s/%d", f, n), func(t *testing.T) {
				e := &Event{Format: f, Players: entrants(n)}
				cycle := n - 1 + n%2
				for r := 1; r <= e.TotalRounds(); r++ {
					rd := pairApply(t, e)
					checkRound(t, e, rd)
					if r == cycle {
						for id, d := range colourDiffs(e) {
							if d < -1 || d > 1 || n%2 == 1 && d != 0 {
								t.Fatalf("after round %d %s has colour difference %d", r, id, d)
							}
						}
					}
				}
				if _, err := e.Pair(); !errors.Is(err, ErrFinished) {
					t.Fatalf("Pair after the last round: %v, want ErrFinished", err)
				}
				sides := map[[2]string]int{} // white, black -> games
				for _, g := range e.Games {
					sides[[2]string{g.Players[0], g.Players[1]}]++
				}
				for i, a := range e.Players {
					for _, b := range e.Players[i+1:] {
						ab, ba := sides[[2]string{a.ID, b.ID}], sides[[2]string{b.ID, a.ID}]
						if f == RoundRobin && ab+ba != 1 || f == DoubleRoundRobin && (ab != 1 || ba != 1) {
							t.Fatalf("%s-%s: %d games with %s White, %d with %s White", a.ID, b.ID, ab, a.ID, ba, b.ID)
						}
					}
				}
				byes := map[string]int{}
				for _, b := range e.Byes {
					byes[b.Player]++
				}
				for _, p := range e.Players {
					if want := (n % 2) * (e.TotalRounds() / cycle); byes[p.ID] != want {
						t.Fatalf("%s has %d byes, want %d", p.ID, byes[p.ID], want)
					}
				}
			})
		}
	}
}

// TestRoundRobinWithdrawal: after a withdrawal the remaining scheduled
// games of the player are forfeited to the opponents, and their bye is
// dropped.
func TestRoundRobinWithdrawal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	e := &Event{Format: RoundRobin, Players: entrants(5)}
	pairApply(t, e)
	play(e, r)
	pairApply(t, e)
	e.Withdrawn = []string{"p03"}
	fs := e.Forfeits("p03")
	for _, f := range fs {
		for i := range e.Games {
			if e.Games[i].Round == f.Round && e.Games[i].Board == f.Board {
				e.Games[i] = f
			}
		}
	}
	play(e, r)
	forfeited := 0
	for e.Paired() < e.TotalRounds() {
		rd := pairApply(t, e)
		checkRound(t, e, rd)
		for _, g := range rd.Forfeited {
			forfeited++
			if g.Players[0] == "p03" && g.Ranks[0] != 2 || g.Players[1] == "p03" && g.Ranks[1] != 2 {
				t.Errorf("forfeit %v ranks %v: p03 should lose", g.Players, g.Ranks)
			}
		}
		play(e, r)
	}
	// p03 meets four opponents: rounds 1 and 2 (or its bye) played, the rest forfeited.
	played := 0
	for _, g := range e.Games {
		if !g.Forfeit && (g.Players[0] == "p03" || g.Players[1] == "p03") {
			played++
		}
	}
	if played+len(fs)+forfeited != 4 {
		t.Errorf("p03: %d played, %d forfeited when leaving, %d forfeited later; want 4 games in all", played, len(fs), forfeited)
	}
	if m := meetings(e); len(m) != 10 {
		t.Errorf("%d pairs met, want 10", len(m))
	}
}
