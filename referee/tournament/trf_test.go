package tournament

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
		{"xxa number", "XXA  x  1.0\n", `XXA wants a pairing number in columns 5-8, found " x  "`},
		{"xxa points", "XXA    1  1.3\n", `XXA: round 1: "1.3" is not a number of points in halves`},
		{"xxa field", "XXA    1  1.0x 0.5\n", `XXA: round 1: " 1.0x" is not points in a field of five columns`},
		{"xxa player", "XXA    2  1.0\n" + trfLine(1, "A", "0.0"), "XXA for player 2, but the players are 1-1"},
		{"order", trfLine(2, "B", "0.0"), `pairing number "   2", want 1`},
		{"short", "001    1      Ann\n", "a player line is 17 columns long"},
		{"result", trfLine(1, "A", "1.0", "   2 w X") + trfLine(2, "B", "0.0", "   1 b 0"), `round 1: result "X", want one of 1 = 0 + -`},
		{"colour", trfLine(1, "A", "1.0", "   2 x 1") + trfLine(2, "B", "0.0", "   1 b 0"), `round 1: colour "x", want w or b`},
		{"mismatch", trfLine(1, "A", "1.0", "   2 w 1") + trfLine(2, "B", "1.0", "   1 b 1"), "does not match line"},
		{"self", trfLine(1, "A", "1.0", "   1 w 1"), "opponent 1 is not another player"},
		{"score", trfLine(1, "A", "0.5", "   2 w 1") + trfLine(2, "B", "0.0", "   1 b 0"), "score 0.5, but the results add up to 1.0"},
		{"full-point bye", trfLine(1, "A", "1.0", "0000 - F"), `result "F" without an opponent; want U (the pairing-allocated bye), H (a half-point bye) or Z (an absence)`},
		{"half bye score", trfLine(1, "A", "1.0", "0000 - H", "   2 w 0") + trfLine(2, "B", "1.0", "0000 - H", "   1 b 1"), "score 1.0, but the results add up to 0.5"},
		{"beyond the next round", trfLine(1, "A", "1.0", "   2 w 1", "0000 - H", "0000 - H") + trfLine(2, "B", "0.0", "   1 b 0"), "3 rounds, but the rounds played are 1 of 2"},
		{"two pairing byes", trfLine(1, "A", "2.0", "0000 - U", "0000 - U"), "two byes"},
		{"missing round", trfLine(1, "A", "1.0", "   2 w 1", "   3 b 0") + trfLine(2, "B", "0.0", "   1 b 0") + trfLine(3, "C", "1.0", "0000 - U", "   1 w 1"), "1 rounds, but others have 2"},
		{"too many rounds", "XXR 1\n" + trfLine(1, "A", "1.0", "   2 w 1", "0000 - U") + trfLine(2, "B", "1.0", "   1 b 0", "0000 - U"), "2 rounds played, but XXR says the event has 1"},
	} {
		_, err := ReadTRF(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: ReadTRF = %v, want an error containing %q", tc.name, err, tc.err)
		}
	}
}

// TestTRFCustomsRoundTrip reads each report of testdata/customs (H, Z,
// XXC black1, XXA), writes it again and reads that: the same byes of
// each kind, virtual points, initial colour and withdrawals, and the same
// next round paired.
func TestTRFCustomsRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/customs/trf/*.trf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no reports in testdata/customs/trf (%v)", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := ReadTRF(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var buf bytes.Buffer
		if err := a.WriteTRF(&buf); err != nil {
			t.Fatalf("%s: WriteTRF: %v", name, err)
		}
		c, err := ReadTRF(&buf)
		if err != nil {
			t.Fatalf("%s: reading it written again: %v\n%s", name, err, buf.String())
		}
		if fmt.Sprint(a.Byes, a.VirtualPoints, a.InitialBlack, a.Withdrawn) != fmt.Sprint(c.Byes, c.VirtualPoints, c.InitialBlack, c.Withdrawn) {
			t.Errorf("%s: written again, byes, virtual points, initial black, withdrawn %v %v %v %v; want %v %v %v %v",
				name, c.Byes, c.VirtualPoints, c.InitialBlack, c.Withdrawn, a.Byes, a.VirtualPoints, a.InitialBlack, a.Withdrawn)
		}
		ra, errA := a.Pair()
		rc, errC := c.Pair()
		if (errA == nil) != (errC == nil) || errA == nil && pairingText(a, ra) != pairingText(c, rc) {
			t.Errorf("%s: paired %v (%v), written again %v (%v)", name, ra, errA, rc, errC)
		}
	}
}
