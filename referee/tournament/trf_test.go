package tournament

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTRFRoundTrip plays Swiss events (draws, byes, a withdrawal whose
// game is forfeited), writes each after every round as a tournament report
// and reads it back: the same games, results, forfeits and byes, by
// pairing number, and the same next round paired from either.
func TestTRFRoundTrip(t *testing.T) {
	for _, n := range []int{7, 10, 13} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		e := &Event{Name: "Cup", Format: Swiss, Rounds: 5, Players: entrants(n)}
		no := map[string]string{}
		for i, p := range e.Players {
			no[p.ID] = strconv.Itoa(i + 1)
		}
		for e.Paired() < e.Rounds {
			rd := pairApply(t, e)
			if rd.Number == 3 {
				g := e.Games[len(e.Games)-1]
				e.Withdrawn = []string{g.Players[1]}
				for _, fg := range e.Forfeits(g.Players[1]) {
					for i := range e.Games {
						if e.Games[i].Round == fg.Round && e.Games[i].Board == fg.Board {
							e.Games[i] = fg
						}
					}
				}
			}
			play(e, r)
			var buf bytes.Buffer
			if err := e.WriteTRF(&buf); err != nil {
				t.Fatal(err)
			}
			got, err := ReadTRF(&buf)
			if err != nil {
				t.Fatalf("%d players, round %d: %v\n%s", n, rd.Number, err, buf.String())
			}
			var want, have []string
			for _, g := range e.Games {
				want = append(want, fmt.Sprint(g.Round, no[g.Players[0]], no[g.Players[1]], g.Ranks, g.Forfeit))
			}
			for _, g := range got.Games {
				have = append(have, fmt.Sprint(g.Round, g.Players[0], g.Players[1], g.Ranks, g.Forfeit))
			}
			for _, b := range e.Byes {
				want = append(want, fmt.Sprint(b.Round, no[b.Player]))
			}
			for _, b := range got.Byes {
				have = append(have, fmt.Sprint(b.Round, b.Player))
			}
			if !sameSet(want, have) || got.Rounds != e.Rounds || got.Name != e.Name {
				t.Fatalf("%d players, round %d: read back %v (%d rounds, %q), want %v (%d, %q)\n%s", n, rd.Number, have, got.Rounds, got.Name, want, e.Rounds, e.Name, buf.String())
			}
			if !slices.Equal(got.Withdrawn, mapped(e.Withdrawn, no)) {
				t.Fatalf("%d players, round %d: withdrawn %v, want %v", n, rd.Number, got.Withdrawn, e.Withdrawn)
			}
			if e.Paired() == e.Rounds {
				continue
			}
			a, errA := e.Pair()
			b, errB := got.Pair()
			if errA != nil || errB != nil {
				t.Fatalf("%d players, round %d: Pair: %v; from the report: %v", n, rd.Number+1, errA, errB)
			}
			if x, y := pairingText(e, a), pairingText(got, b); x != y {
				t.Fatalf("%d players, round %d: paired %s, from the report %s", n, rd.Number+1, x, y)
			}
		}
	}
}

func mapped(ids []string, no map[string]string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, no[id])
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		if m[x]--; m[x] < 0 {
			return false
		}
	}
	return true
}

// trfLine writes a player line: number, name, score and rounds.
func trfLine(no int, name, score string, rounds ...string) string {
	l := fmt.Sprintf("001 %4d %4s %-33s %4s %3s %11s %10s %4s %4d", no, "", name, "", "", "", "", score, no)
	for _, r := range rounds {
		l += "  " + r
	}
	return l + "\n"
}

func TestReadTRFErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
	}{
		{"rounds", "XXR x\n", "XXR wants the number of rounds"},
		{"black1", "XXC black1\n", "XXC black1 is not supported"},
		{"order", trfLine(2, "B", "0.0"), `pairing number "   2", want 1`},
		{"short", "001    1      Ann\n", "a player line is 17 columns long"},
		{"result", trfLine(1, "A", "1.0", "   2 w X") + trfLine(2, "B", "0.0", "   1 b 0"), `round 1: result "X", want one of 1 = 0 + -`},
		{"colour", trfLine(1, "A", "1.0", "   2 x 1") + trfLine(2, "B", "0.0", "   1 b 0"), `round 1: colour "x", want w or b`},
		{"mismatch", trfLine(1, "A", "1.0", "   2 w 1") + trfLine(2, "B", "1.0", "   1 b 1"), "does not match line"},
		{"self", trfLine(1, "A", "1.0", "   1 w 1"), "opponent 1 is not another player"},
		{"score", trfLine(1, "A", "0.5", "   2 w 1") + trfLine(2, "B", "0.0", "   1 b 0"), "score 0.5, but the results add up to 1.0"},
		{"half bye", trfLine(1, "A", "0.5", "0000 - H"), `result "H" without an opponent`},
		{"comeback", trfLine(1, "A", "0.0", "0000 - Z", "0000 - U") + trfLine(2, "B", "0.0", "0000 - Z", "0000 - U"), "absent (0000 - Z), but a later round is not"},
		{"missing round", trfLine(1, "A", "1.0", "   2 w 1", "   3 b 0") + trfLine(2, "B", "0.0", "   1 b 0") + trfLine(3, "C", "1.0", "0000 - U", "   1 w 1"), "1 rounds, but others have 2"},
		{"too many rounds", "XXR 1\n" + trfLine(1, "A", "1.0", "   2 w 1", "0000 - U") + trfLine(2, "B", "1.0", "   1 b 0", "0000 - U"), "2 rounds played, but XXR says the event has 1"},
	} {
		_, err := ReadTRF(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: ReadTRF = %v, want an error containing %q", tc.name, err, tc.err)
		}
	}
}
