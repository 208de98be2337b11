package tournament

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"pbem/archive/score"
)

// game returns an ended two-player game: "1-0", "0-1" or "1/2".
func game(round int, white, black, result string) Game {
	ranks := map[string][]int{"1-0": {1, 2}, "0-1": {2, 1}, "1/2": {1, 1}}[result]
	return Game{Round: round, Players: []string{white, black}, Ranks: ranks}
}

// abcde returns players A to E with IDs a to e.
func abcde(n int) []Player {
	var ps []Player
	for _, c := range "ABCDE"[:n] {
		ps = append(ps, Player{ID: strings.ToLower(string(c)), Name: string(c)})
	}
	return ps
}

// TestStandingsRoundRobin: a round robin of four by hand. A beats B and D
// and draws C; B beats C and draws D; C beats D. Scores: A 2.5, B 1.5,
// C 1.5, D 0.5. Sonneborn-Berger: A 1x1.5 + 0.5x1.5 + 1x0.5 = 2.75;
// B 1x1.5 (C) + 0.5x0.5 (D) = 1.75; C 0.5x2.5 (A) + 1x0.5 (D) = 1.75;
// D 0.5x1.5 (B) = 0.75. B and C share second place.
func TestStandingsRoundRobin(t *testing.T) {
	e := &Event{Name: "Club Cup", Format: RoundRobin, Players: abcde(4), Games: []Game{
		game(1, "a", "d", "1-0"), game(1, "b", "c", "1-0"),
		game(2, "d", "c", "0-1"), game(2, "a", "b", "1-0"),
		game(3, "b", "d", "1/2"), game(3, "c", "a", "1/2"),
	}}
	st, err := e.Standings()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := st.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `Club Cup: round robin, 4 players, after round 3 of 3

#  Player  Score  Games    SB
1  A         2.5      3  2.75
2  B         1.5      3  1.75
2  C         1.5      3  1.75
4  D         0.5      3  0.75
`
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := st.Players[0]; got.Points != 5 || got.SB != 11 || got.Score() != 2.5 {
		t.Errorf("A: Points %d SB %d, want 5 (half points) and 11 (quarter points)", got.Points, got.SB)
	}
}

// TestStandingsSwiss: Buchholz and median Buchholz by hand, with byes, and
// then a forfeit. Round 1: A-B 1-0, C-D 1/2, E bye. Round 2: A-C 1-0,
// B-E 0-1, D bye. Round 3: A-E 1/2, D-B 1-0, C bye. Scores: A, D, E 2.5,
// C 1.5, B 0. A bye counts as an opponent with the player's own score:
// Buchholz A 0+1.5+2.5 = 4 (median, dropping the highest and the lowest,
// 1.5); E 2.5 (bye)+0+2.5 = 5 (2.5); D 1.5+2.5 (bye)+0 = 4 (1.5); C 2.5+
// 2.5+1.5 (bye) = 6.5 (2.5); B 2.5x3 = 7.5 (2.5). So E first, A and D
// share second.
func TestStandingsSwiss(t *testing.T) {
	e := &Event{Name: "Open", Format: Swiss, Rounds: 3, Players: abcde(5),
		Games: []Game{
			game(1, "a", "b", "1-0"), game(1, "c", "d", "1/2"),
			game(2, "a", "c", "1-0"), game(2, "b", "e", "0-1"),
			game(3, "a", "e", "1/2"), game(3, "d", "b", "1-0"),
		},
		Byes: []Bye{{Round: 1, Player: "e"}, {Round: 2, Player: "d"}, {Round: 3, Player: "c"}},
	}
	check := func(want string) {
		t.Helper()
		st, err := e.Standings()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := st.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
		}
	}
	check(`Open: Swiss, 5 players, after round 3 of 3

#  Player  Score  Games  Byes  Buch  Med
1  E         2.5      2     1   5.0  2.5
2  A         2.5      3     0   4.0  1.5
2  D         2.5      2     1   4.0  1.5
4  C         1.5      2     1   6.5  2.5
5  B         0.0      3     0   7.5  2.5
`)
	// B withdrew before round 3: D-B is a forfeit. D's forfeit counts as
	// an opponent of D's own score (C 1.5 + bye 2.5 + 2.5 = 6.5, median
	// 2.5), and B's as one of B's (2.5 + 2.5 + 0 = 5, median 2.5).
	e.Games[5].Forfeit = true
	e.Withdrawn = []string{"b"}
	check(`Open: Swiss, 5 players, after round 3 of 3

#  Player  Score  Games  Byes  Buch  Med
1  D         2.5      2     1   6.5  2.5
2  E         2.5      2     1   5.0  2.5
3  A         2.5      3     0   4.0  1.5
4  C         1.5      2     1   6.5  2.5
5  B         0.0      3     0   5.0  2.5  withdrew
`)
}

// TestStandingsTables: a table of S scores S minus the rank, shared
// places averaged; Sonneborn-Berger counts the table pair by pair.
// Round 1: table a b c ranked 1 2 2 (a 2, b and c 0.5 each); table d e f
// ranked 1 2 3 (d 2, e 1, f 0). Round 2: a d e ranked 3 1 2 (d 2, e 1,
// a 0); b c f ranked 1 1 1 (1 each). Scores: d 4, a 2, e 2, b 1.5, c 1.5,
// f 1. SB of a: 1 (beat b) x1.5 + 1 (beat c) x1.5 = 3, nothing from round
// 2. SB of e: 1x1 (f) + 1x2 (a) = 3 (lost to d twice). So a and e tie on
// both and share second. SB of d: 1x2 (e) + 1x1 (f) + 1x2 (a) + 1x2 (e)
// = 7; of b: 1/2x1.5 (c, round 1) + 1/2x1.5 (c) + 1/2x1 (f) = 2, and c
// the same; of f: 1/2x1.5 (b) + 1/2x1.5 (c) = 1.5.
func TestStandingsTables(t *testing.T) {
	ps := []Player{{ID: "a", Name: "a"}, {ID: "b", Name: "b"}, {ID: "c", Name: "c"}, {ID: "d", Name: "d"}, {ID: "e", Name: "e"}, {ID: "f", Name: "f"}}
	e := &Event{Name: "Race", Format: Tables, Rounds: 2, TableSizes: []int{3}, Players: ps, Games: []Game{
		{Round: 1, Players: []string{"a", "b", "c"}, Ranks: []int{1, 2, 2}},
		{Round: 1, Players: []string{"d", "e", "f"}, Ranks: []int{1, 2, 3}},
		{Round: 2, Players: []string{"a", "d", "e"}, Ranks: []int{3, 1, 2}},
		{Round: 2, Players: []string{"b", "c", "f"}, Ranks: []int{1, 1, 1}},
	}}
	st, err := e.Standings()
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, r := range st.Players {
		got += r.Player.ID + ":" + score.Half(r.Points) + "/" + score.Quarter(r.SB) + "#" + string(rune('0'+r.Rank)) + " "
	}
	if want := "d:4.0/7.00#1 a:2.0/3.00#2 e:2.0/3.00#2 b:1.5/2.00#4 c:1.5/2.00#4 f:1.0/1.50#6 "; got != want {
		t.Errorf("standings %s, want %s", got, want)
	}
}

// TestWriteTextWidth: long names are cut so that no line passes 72
// columns.
func TestWriteTextWidth(t *testing.T) {
	ps := abcde(2)
	ps[0].Name = strings.Repeat("Bartholomew ", 10)
	e := &Event{Name: "Cup", Format: Swiss, Rounds: 1, Players: ps, Games: []Game{game(1, "a", "b", "1-0")}}
	e.Withdrawn = []string{"a"}
	st, err := e.Standings()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	st.WriteText(&b)
	for _, line := range strings.Split(b.String(), "\n") {
		if n := len([]rune(line)); n > MaxWidth {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	if !strings.Contains(b.String(), "Bartholomew Bartholomew") || !strings.Contains(b.String(), "~") {
		t.Errorf("the long name is not cut with ~:\n%s", b.String())
	}
}

// TestForfeits: a withdrawal forfeits the pending games only; a table
// puts the withdrawn last and the rest first.
func TestForfeits(t *testing.T) {
	e := &Event{Format: Tables, Rounds: 2, TableSizes: []int{3}, Players: abcde(5), Games: []Game{
		{ID: "g1", Round: 1, Board: 1, Players: []string{"a", "b", "c"}, Ranks: []int{1, 2, 3}},
		{ID: "g2", Round: 2, Board: 1, Players: []string{"c", "a", "d"}},
		{ID: "g3", Round: 2, Board: 2, Players: []string{"b", "e"}},
	}}
	fs := e.Forfeits("a")
	if len(fs) != 1 || fs[0].ID != "g2" || !fs[0].Forfeit || itoa(fs[0].Ranks) != "[1 3 1]" {
		t.Errorf("Forfeits(a) = %+v, want g2 ranked 1 3 1 (c and d share first)", fs)
	}
	e.Withdrawn = []string{"d"}
	if fs := e.Forfeits("a"); len(fs) != 1 || itoa(fs[0].Ranks) != "[1 2 2]" {
		t.Errorf("Forfeits(a) with d gone = %+v, want g2 ranked 1 2 2", fs)
	}
	if fs := e.Forfeits("e"); len(fs) != 1 || fs[0].ID != "g3" || itoa(fs[0].Ranks) != "[1 2]" {
		t.Errorf("Forfeits(e) = %+v, want g3 won by b", fs)
	}
	if e.Games[1].Ranks != nil {
		t.Errorf("Forfeits changed the event: %+v", e.Games[1])
	}
}

// TestOpens: a round opens when the round before has ended, or at the
// director's date (not in a Swiss event, paired on the scores).
func TestOpens(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []Format{RoundRobin, Swiss} {
		e := &Event{Format: f, Rounds: 3, Players: abcde(4), Games: []Game{
			game(1, "a", "b", "1-0"), {Round: 1, Players: []string{"c", "d"}},
		}}
		for _, c := range []struct {
			round     int
			date, now time.Time
			want      bool
		}{
			{1, time.Time{}, day, true},
			{2, time.Time{}, day, false},
			{2, day, day.Add(-time.Hour), false},
			{2, day, day, f != Swiss},
			{4, time.Time{}, day, false},
			{0, time.Time{}, day, false},
		} {
			if got := e.Opens(c.round, c.date, c.now); got != c.want {
				t.Errorf("%s: Opens(%d, %v, %v) = %v, want %v", f, c.round, c.date, c.now, got, c.want)
			}
		}
		e.Games[1].Ranks = []int{1, 1}
		if !e.Opens(2, time.Time{}, day) {
			t.Errorf("%s: round 2 does not open once round 1 has ended", f)
		}
	}
}

// TestStandingsRequestedByes scores the byes asked for: round 1: A-B 1-0,
// C-D 1/2, E the pairing bye; round 2: C-A 1-0, B the pairing bye, E a
// half-point bye, D absent; A asked for a half-point bye in round 3, not
// yet paired. Scores: C, E 1.5; A, B 1; D 0.5 (A's bye of round 3 does not
// count yet). Every unplayed round counts as an opponent of the player's
// own score: Buchholz E 1.5+1.5 = 3; C 0.5+1 = 1.5; A 1+1.5 = 2.5 (the
// bye to come adds nothing); B 1+1 = 2; D 1.5+0.5 = 2.
func TestStandingsRequestedByes(t *testing.T) {
	e := &Event{Name: "Club", Format: Swiss, Rounds: 3, Players: abcde(5),
		Games: []Game{
			game(1, "a", "b", "1-0"), game(1, "c", "d", "1/2"),
			game(2, "c", "a", "1-0"),
		},
		Byes: []Bye{
			{Round: 1, Player: "e"},
			{Round: 2, Player: "b"}, {Round: 2, Player: "e", Kind: HalfPoint}, {Round: 2, Player: "d", Kind: ZeroPoint},
			{Round: 3, Player: "a", Kind: HalfPoint},
		},
	}
	st, err := e.Standings()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := st.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `Club: Swiss, 5 players, after round 2 of 3

#  Player  Score  Games  Byes  Buch  Med
1  E         1.5      0     2   3.0  0.0
2  C         1.5      2     0   1.5  0.0
3  A         1.0      2     0   2.5  0.0
4  B         1.0      1     1   2.0  0.0
5  D         0.5      1     1   2.0  0.0
`
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
	// Round 3 leaves A out (the bye asked for); the others are paired,
	// and B, who has had the pairing bye, does not get it again.
	rd, err := e.Pair()
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, g := range rd.Games {
		in = append(in, g.Players...)
	}
	slices.Sort(in)
	if !slices.Equal(in, []string{"b", "c", "d", "e"}) || len(rd.Byes) != 0 {
		t.Errorf("round 3 pairs %v with byes %v; want b, c, d and e paired, A (bye asked) left out", in, rd.Byes)
	}
}

// TestPairEveryoneAway: a Swiss round with every player away is no valid
// pairing, not an empty round (which would never count as paired).
func TestPairEveryoneAway(t *testing.T) {
	e := &Event{Format: Swiss, Rounds: 1, Players: abcde(2),
		Byes: []Bye{{Round: 1, Player: "a", Kind: HalfPoint}, {Round: 1, Player: "b", Kind: ZeroPoint}}}
	if rd, err := e.Pair(); !errors.Is(err, ErrNoValidPairing) {
		t.Errorf("Pair = %v, %v; want an error wrapping ErrNoValidPairing", rd, err)
	}
}

// TestRequestedByeErrors: Check refuses requested byes where they cannot
// be.
func TestRequestedByeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Event
		err  string
	}{
		{"round robin", Event{Format: RoundRobin, Players: abcde(4), Byes: []Bye{{Round: 1, Player: "a", Kind: HalfPoint}}}, "only a Swiss event takes requested byes"},
		{"beyond the last round", Event{Format: Swiss, Rounds: 2, Players: abcde(4), Byes: []Bye{{Round: 3, Player: "a", Kind: ZeroPoint}}}, "but the event has 2 rounds"},
		{"and a game", Event{Format: Swiss, Rounds: 2, Players: abcde(4), Games: []Game{game(1, "a", "b", "1-0")}, Byes: []Bye{{Round: 1, Player: "a", Kind: HalfPoint}}}, `"a" is paired twice in round 1`},
		{"pairing bye after a half-point bye is fine, two pairing byes are not", Event{Format: Swiss, Rounds: 3, Players: abcde(3), Byes: []Bye{{Round: 1, Player: "a", Kind: HalfPoint}, {Round: 2, Player: "a"}, {Round: 3, Player: "a"}}}, "two byes"},
		{"kind", Event{Format: Swiss, Rounds: 2, Players: abcde(4), Byes: []Bye{{Round: 1, Player: "a", Kind: 7}}}, "unknown kind 7"},
		{"virtual points", Event{Format: Swiss, Rounds: 2, Players: abcde(4), VirtualPoints: map[string][]int{"z": {2}}}, `virtual points for "z", who is not entered`},
	} {
		err := tc.e.Check()
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: Check = %v, want an error containing %q", tc.name, err, tc.err)
		}
	}
}
