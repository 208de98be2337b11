package tournament

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sumPoints checks that the standings hand out exactly the points played:
// every ended game the pairwise points of its seats, every bye its value.
func sumPoints(t *testing.T, e *Event, st *Standings) {
	t.Helper()
	want := len(e.Byes) * e.byePoints()
	for _, g := range e.Games {
		if g.Ended() {
			want += len(g.Players) * (len(g.Players) - 1) // half points: one point per pair
		}
	}
	got := 0
	for _, r := range st.Players {
		got += r.Points
	}
	if got != want {
		t.Errorf("standings hand out %d half points, want %d", got, want)
	}
}

// writeText renders the standings and checks the width.
func writeText(t *testing.T, st *Standings) string {
	t.Helper()
	var b strings.Builder
	if err := st.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if len([]rune(line)) > MaxWidth {
			t.Errorf("line longer than %d columns: %q", MaxWidth, line)
		}
	}
	return b.String()
}

// TestEventRoundRobinOfFive plays a round robin of five with random
// results: five rounds, each player sits out once, every pair meets once,
// the standings count every game and bye, and the pairings text shows
// each round's results.
func TestEventRoundRobinOfFive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	e := &Event{Name: "Autumn Cup", Format: RoundRobin, Players: entrants(5)}
	if e.TotalRounds() != 5 {
		t.Fatalf("TotalRounds = %d, want 5", e.TotalRounds())
	}
	for e.Paired() < e.TotalRounds() {
		rd := pairApply(t, e)
		checkRound(t, e, rd)
		if len(rd.Games) != 2 || len(rd.Byes) != 1 {
			t.Fatalf("round %d: %d games and byes %v, want 2 games and 1 bye", rd.Number, len(rd.Games), rd.Byes)
		}
		play(e, r)
	}
	if m := meetings(e); len(m) != 10 || slices.Max(mapValues(m)) != 1 {
		t.Errorf("meetings %v, want each of the 10 pairs once", m)
	}
	st, err := e.Standings()
	if err != nil {
		t.Fatal(err)
	}
	sumPoints(t, e, st)
	for _, row := range st.Players {
		if row.Games != 4 || row.Byes != 1 {
			t.Errorf("%s: %d games, %d byes; want 4 and 1", row.Player.ID, row.Games, row.Byes)
		}
	}
	text := writeText(t, st)
	if !strings.HasPrefix(text, "Autumn Cup: round robin, 5 players, after round 5 of 5\n") {
		t.Errorf("standings title:\n%s", text)
	}
	var b strings.Builder
	if err := e.WritePairings(&b, 1); err != nil {
		t.Fatal(err)
	}
	// Round 1 on the Berger tables of six, player 6 being the bye: 1-6
	// (so 1 sits out), 2-5, 3-4.
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "Autumn Cup: round 1 of 5" || !strings.HasPrefix(lines[2], "1. P02 - P05  ") ||
		!strings.HasPrefix(lines[3], "2. P03 - P04  ") || lines[4] != "bye: P01" {
		t.Errorf("pairings of round 1:\n%s", b.String())
	}
}

func mapValues[K comparable](m map[K]int) []int {
	var vs []int
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

// TestEventSwissOfNine plays a Swiss of nine over four rounds; a player
// withdraws during round 3, whose pending game is forfeited, and is not
// paired in round 4.
func TestEventSwissOfNine(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	e := &Event{Name: "Open", Format: Swiss, Rounds: 4, Players: entrants(9)}
	var gone string
	for e.Paired() < e.Rounds {
		rd := pairApply(t, e)
		checkRound(t, e, rd)
		if rd.Number == 3 {
			gone = rd.Games[0].Players[1]
			e.Withdrawn = append(e.Withdrawn, gone)
			fs := e.Forfeits(gone)
			if len(fs) != 1 || fs[0].Round != 3 || fs[0].Ranks[1] != 2 || !fs[0].Forfeit {
				t.Fatalf("Forfeits(%s) = %+v, want its round-3 game lost", gone, fs)
			}
			e.Games[len(e.Games)-len(rd.Games)] = fs[0]
		}
		if rd.Number == 4 {
			if len(rd.Games) != 4 || len(rd.Byes) != 0 {
				t.Errorf("round 4 of 8 players left: %d games, byes %v", len(rd.Games), rd.Byes)
			}
			for _, g := range rd.Games {
				if slices.Contains(g.Players, gone) {
					t.Errorf("withdrawn %s paired in round 4", gone)
				}
			}
		}
		play(e, r)
	}
	for k, c := range meetings(e) {
		if c > 1 {
			t.Errorf("%v met %d times", k, c)
		}
	}
	byes := map[string]int{}
	for _, b := range e.Byes {
		byes[b.Player]++
	}
	if len(e.Byes) != 3 || len(byes) != 3 {
		t.Errorf("byes %v, want one in each of rounds 1-3, to three players", e.Byes)
	}
	st, err := e.Standings()
	if err != nil {
		t.Fatal(err)
	}
	sumPoints(t, e, st)
	text := writeText(t, st)
	if !strings.Contains(text, "withdrew") || !strings.Contains(text, "Buch  Med") {
		t.Errorf("standings:\n%s", text)
	}
	if _, err := e.Pair(); !errors.Is(err, ErrFinished) {
		t.Errorf("Pair after round 4: %v, want ErrFinished", err)
	}
}

// mostPairs returns, by exhaustive search over every split of six players
// into two tables of three for each of three rounds, the most distinct
// pairs that can have met.
func mostPairs() int {
	var splits [][2][3]int
	for a := 1; a < 6; a++ {
		for b := a + 1; b < 6; b++ {
			var rest []int
			for x := 1; x < 6; x++ {
				if x != a && x != b {
					rest = append(rest, x)
				}
			}
			splits = append(splits, [2][3]int{{0, a, b}, {rest[0], rest[1], rest[2]}})
		}
	}
	most := 0
	for _, s1 := range splits {
		for _, s2 := range splits {
			for _, s3 := range splits {
				met := map[[2]int]bool{}
				for _, s := range [][2][3]int{s1, s2, s3} {
					for _, tb := range s {
						met[[2]int{tb[0], tb[1]}], met[[2]int{tb[0], tb[2]}], met[[2]int{tb[1], tb[2]}] = true, true, true
					}
				}
				most = max(most, len(met))
			}
		}
	}
	return most
}

// TestEventTablesOfSix plays six players at tables of three for three
// rounds: two tables of three each round, the first seat to a player who
// sat first least often at the table, as many distinct pairs met as three
// rounds allow (13 of 15, by exhaustive search: each table always holds
// two players who sat together before), and the same event and seed draw
// the same tables.
func TestEventTablesOfSix(t *testing.T) {
	most := mostPairs()
	if most != 13 {
		t.Fatalf("exhaustive search: at most %d pairs, want 13", most)
	}
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(6, seed))
			e := &Event{Name: "Race", Format: Tables, Rounds: 3, TableSizes: []int{3}, Seed: seed, Players: entrants(6)}
			first := map[string]int{}
			for e.Paired() < e.Rounds {
				rd := pairApply(t, e)
				checkRound(t, e, rd)
				if len(rd.Games) != 2 || len(rd.Byes) != 0 || len(rd.Games[0].Players) != 3 {
					t.Fatalf("round %d: %+v, want two tables of three", rd.Number, rd)
				}
				for _, g := range rd.Games {
					for _, id := range g.Players[1:] {
						if first[id] < first[g.Players[0]] {
							t.Errorf("round %d: %s sits first (%d times before) though %s at the table did so %d times",
								rd.Number, g.Players[0], first[g.Players[0]], id, first[id])
						}
					}
				}
				for _, g := range rd.Games {
					first[g.Players[0]]++
				}
				play(e, r)
			}
			if m := meetings(e); len(m) != most {
				t.Errorf("%d distinct pairs met, want %d: %v", len(m), most, m)
			}
			st, err := e.Standings()
			if err != nil {
				t.Fatal(err)
			}
			sumPoints(t, e, st)
			writeText(t, st)
			again := &Event{Format: Tables, Rounds: 3, TableSizes: []int{3}, Seed: seed, Players: entrants(6), Games: e.Games[:2]}
			rd, _ := again.Pair()
			if fmt.Sprint(rd.Games[0].Players, rd.Games[1].Players) != fmt.Sprint(e.Games[2].Players, e.Games[3].Players) {
				t.Errorf("the same event and seed drew %v, then %v", e.Games[2:4], rd.Games)
			}
		})
	}
}

// TestTablesOddCounts: players who cannot fill the tables sit out, or sit
// at the smaller tables the game allows.
func TestTablesOddCounts(t *testing.T) {
	for _, c := range []struct {
		n     int
		sizes []int
		want  string // table sizes, largest first, and byes
	}{
		{7, []int{3}, "[3 3] 1"},
		{7, []int{3, 2}, "[3 2 2] 0"},
		{7, []int{3, 4}, "[4 3] 0"},
		{8, []int{4, 3}, "[4 4] 0"},
		{10, []int{4, 3}, "[4 3 3] 0"},
		{5, []int{4}, "[4] 1"},
		{2, []int{3}, "[] 2"},
	} {
		e := &Event{Format: Tables, Rounds: 2, TableSizes: c.sizes, Players: entrants(c.n)}
		rd, err := e.Pair()
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int
		for _, g := range rd.Games {
			sizes = append(sizes, len(g.Players))
		}
		if sizes == nil {
			sizes = []int{}
		}
		slices.Sort(sizes)
		slices.Reverse(sizes)
		if got := fmt.Sprint(sizes, " ", len(rd.Byes)); got != c.want {
			t.Errorf("%d players at %v: %s, want %s", c.n, c.sizes, got, c.want)
		}
		checkRound(t, e, rd)
	}
	// The bye goes round: seven players at tables of three over seven
	// rounds, each sits out once.
	r := rand.New(rand.NewPCG(7, 3))
	e := &Event{Format: Tables, Rounds: 7, TableSizes: []int{3}, Players: entrants(7)}
	for e.Paired() < e.Rounds {
		pairApply(t, e)
		play(e, r)
	}
	byes := map[string]int{}
	for _, b := range e.Byes {
		byes[b.Player]++
	}
	if len(byes) != 7 {
		t.Errorf("byes %v, want each of 7 players once", byes)
	}
}

// TestCheck: inconsistent events are refused with what was wrong.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		e    Event
		want string
	}{
		{"format", Event{Players: abcde(2)}, "unknown format 0"},
		{"swiss rounds", Event{Format: Swiss, Players: abcde(2)}, "needs a number of rounds"},
		{"too many rounds", Event{Format: Swiss, Rounds: 5, Players: abcde(4)}, "at most 3 Swiss rounds"},
		{"table sizes", Event{Format: Tables, Rounds: 1, Players: abcde(4)}, "needs its table sizes"},
		{"twice", Event{Format: RoundRobin, Players: append(abcde(2), Player{ID: "a"})}, `"a" entered twice`},
		{"stranger", Event{Format: RoundRobin, Players: abcde(2), Games: []Game{game(1, "a", "z", "1-0")}}, `names "z", who is not entered`},
		{"double", Event{Format: RoundRobin, Players: abcde(3), Games: []Game{game(1, "a", "b", "1-0"), game(1, "a", "c", "1-0")}}, `"a" is paired twice in round 1`},
		{"ranks", Event{Format: RoundRobin, Players: abcde(2), Games: []Game{{Round: 1, Players: []string{"a", "b"}, Ranks: []int{1}}}}, "1 ranks for 2 seats"},
		{"two byes", Event{Format: Swiss, Rounds: 3, Players: abcde(3), Byes: []Bye{{Round: 1, Player: "a"}, {Round: 2, Player: "a"}}}, "two byes"},
		{"rr rounds", Event{Format: RoundRobin, Rounds: 2, Players: abcde(4)}, "has 3 rounds, not 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.e.Check()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Check() = %v, want an error containing %q", err, c.want)
			}
			if _, perr := c.e.Pair(); perr == nil || perr.Error() != err.Error() {
				t.Errorf("Pair() = %v, want Check's error", perr)
			}
		})
	}
	e := &Event{Format: Swiss, Rounds: 1, Players: abcde(3), Games: []Game{{Round: 1, Players: []string{"a", "b"}}}, Byes: []Bye{{Round: 1, Player: "c"}}}
	if _, err := e.Pair(); !errors.Is(err, ErrFinished) {
		t.Errorf("Pair of a finished Swiss = %v, want ErrFinished", err)
	}
	e.Rounds = 2
	if _, err := e.Pair(); err == nil || !strings.Contains(err.Error(), "has no result yet") {
		t.Errorf("Pair with a pending game = %v, want an error about it", err)
	}
}
