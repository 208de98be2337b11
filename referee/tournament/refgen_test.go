//go:build refgen

package tournament

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGenerateCustoms writes testdata/customs: Swiss events with the
// customs of club events (half-point byes asked in advance, absences with
// a return, XXC black1, the Baku acceleration), every round paired by
// bbpPairings, the FIDE-endorsed Dutch engine, as the shared corpus is:
// each round's report (written by WriteTRF) and, in cases.jsonl, the
// engine's pairing of it. It needs the engine:
//
//	BBPPAIRINGS=/path/to/bbpPairings.exe go test -tags refgen -run GenerateCustoms ./referee/tournament/
//
// TestDutchCustoms then checks Pair against those cases.
func TestGenerateCustoms(t *testing.T) {
	bbp := os.Getenv("BBPPAIRINGS")
	if bbp == "" {
		t.Skip("BBPPAIRINGS names no bbpPairings executable")
	}
	dir := "testdata/customs"
	if err := os.RemoveAll(filepath.Join(dir, "trf")); err != nil { // README.md stays
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "trf"), 0o755); err != nil {
		t.Fatal(err)
	}
	var cases bytes.Buffer
	tmp := t.TempDir()
	r := rand.New(rand.NewPCG(40, 2026))
	for ti := range 36 {
		n := 6 + r.IntN(15)
		rounds := min(4+r.IntN(5), n-1+n%2)
		e := &Event{Name: fmt.Sprintf("customs %d", ti), Format: Swiss, Rounds: rounds, Players: entrants(n),
			InitialBlack: ti%2 == 1, Accelerated: ti%3 == 0}
		var what []string
		if e.InitialBlack {
			what = append(what, "black1")
		}
		if e.Accelerated {
			what = append(what, "baku")
		}
		halves := map[string]int{}
		for round := 1; round <= rounds; round++ {
			// Requests for this round: a half-point bye (at most two a
			// player) or an absence, for a few players.
			active := n
			for _, p := range e.Players {
				if active <= 3 {
					break
				}
				switch x := r.IntN(100); {
				case x < 9 && halves[p.ID] < 2:
					halves[p.ID]++
					e.Byes = append(e.Byes, Bye{Round: round, Player: p.ID, Kind: HalfPoint})
					active--
				case x >= 9 && x < 15:
					e.Byes = append(e.Byes, Bye{Round: round, Player: p.ID, Kind: ZeroPoint})
					active--
				}
			}
			var trf bytes.Buffer
			if err := e.WriteTRF(&trf); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("t%03d_r%d.trf", ti, round)
			if err := os.WriteFile(filepath.Join(dir, "trf", name), trf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(tmp, "out.txt")
			os.Remove(out)
			cmd := exec.Command(bbp, "--dutch", filepath.Join(dir, "trf", name), "-p", out)
			msg, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if errors.As(err, &exit) && strings.Contains(string(msg), "No valid pairing") {
				writeCase(t, &cases, name, n, round, "", customs(what, trf.String()))
				break
			}
			if err != nil {
				t.Fatalf("%s: %v: %s\n%s", name, err, msg, trf.String())
			}
			text, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Fields(string(text))
			var pairs []string
			bye := ""
			board := 0
			for k := 1; k+1 < len(lines); k += 2 {
				a, _ := strconv.Atoi(lines[k])
				b, _ := strconv.Atoi(lines[k+1])
				if b == 0 {
					e.Byes = append(e.Byes, Bye{Round: round, Player: e.Players[a-1].ID})
					bye = fmt.Sprintf("%d-0", a)
					continue
				}
				pairs = append(pairs, fmt.Sprintf("%d-%d", a, b))
				board++
				g := Game{Round: round, Board: board, Players: []string{e.Players[a-1].ID, e.Players[b-1].ID}}
				g.Ranks = randomRanks(r, 2)
				e.Games = append(e.Games, g)
			}
			if bye != "" {
				pairs = append(pairs, bye)
			}
			writeCase(t, &cases, name, n, round, strings.Join(pairs, " "), customs(what, trf.String()))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cases.jsonl"), cases.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeCase(t *testing.T, w *bytes.Buffer, name string, players, round int, dutch string, what []string) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"trf": "trf/" + name, "players": players, "round": round, "dutch": dutch, "customs": strings.Join(what, " ")})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(append(b, '\n'))
}

// customs lists the customs a round's report shows: the event's, then H
// and Z when some player has one.
func customs(what []string, trf string) []string {
	out := append([]string(nil), what...)
	for _, c := range []string{"H", "Z"} {
		if strings.Contains(trf, "0000 - "+c) {
			out = append(out, c)
		}
	}
	return out
}
