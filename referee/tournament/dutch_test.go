package tournament

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedSwiss holds rounds paired by a FIDE-endorsed Dutch engine: TRF
// files and, in cases.jsonl, that engine's pairing of the next round.
const sharedSwiss = "../../../shared/swiss"

// pairingText writes a round as the cases do: "white-black" by pairing
// number, in board order, then "bye-0".
func pairingText(e *Event, rd *Round) string {
	no := map[string]int{}
	for i, p := range e.Players {
		no[p.ID] = i + 1
	}
	var parts []string
	for _, g := range rd.Games {
		parts = append(parts, fmt.Sprintf("%d-%d", no[g.Players[0]], no[g.Players[1]]))
	}
	for _, b := range rd.Byes {
		parts = append(parts, fmt.Sprintf("%d-0", no[b]))
	}
	return strings.Join(parts, " ")
}

// compareRounds classes a pairing against the reference: "same", "colours"
// (same pairs and bye, some sides swapped) or "different".
func compareRounds(got, want string) string {
	norm := func(s string, sides bool) []string {
		f := strings.Fields(s)
		for i, p := range f {
			a, b, _ := strings.Cut(p, "-")
			if !sides && b != "0" && a > b {
				a, b = b, a
			}
			f[i] = a + "-" + b
		}
		slices.Sort(f)
		return f
	}
	switch {
	case slices.Equal(norm(got, true), norm(want, true)):
		return "same"
	case slices.Equal(norm(got, false), norm(want, false)):
		return "colours"
	}
	return "different"
}

func sizeBand(n int) string {
	switch {
	case n <= 10:
		return "6-10"
	case n <= 17:
		return "11-17"
	case n <= 23:
		return "18-23"
	}
	return "24-30"
}

// TestDutchReference pairs every round of the shared corpus (when it is
// there) and compares pairs, colours and bye with the Dutch engine's; an
// empty reference means the Dutch rules leave no valid pairing, and Pair
// must say so (ErrNoValidPairing). Agreement is reported by field size.
func TestDutchReference(t *testing.T) {
	f, err := os.Open(filepath.Join(sharedSwiss, "cases.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no %s/cases.jsonl here: the reference rounds are not available", sharedSwiss)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkReference(t, sharedSwiss, f)
}

// TestDutchSample pairs the rounds of testdata/dutch, 14 of the reference
// rounds kept with the package (two of each size, two that differed only
// in colours from the simplified pairing, two with no valid pairing, two
// last rounds).
func TestDutchSample(t *testing.T) {
	f, err := os.Open("testdata/dutch/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkReference(t, "testdata/dutch", f)
}

// checkReference pairs each case of cases (JSON lines naming a TRF file
// under dir and the reference pairing) and fails on every difference.
func checkReference(t *testing.T, dir string, cases io.Reader) {
	t.Helper()
	type tally struct{ same, colours, different, errs int }
	byBand := map[string]*tally{}
	sc := bufio.NewScanner(cases)
	var failed int
	for sc.Scan() {
		var c struct {
			TRF     string `json:"trf"`
			Players int    `json:"players"`
			Dutch   string `json:"dutch"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s/cases.jsonl: %v", dir, err)
		}
		band := sizeBand(c.Players)
		if byBand[band] == nil {
			byBand[band] = &tally{}
		}
		tl := byBand[band]
		fail := func(format string, args ...any) {
			if failed++; failed <= 20 {
				t.Errorf("%s: "+format, append([]any{c.TRF}, args...)...)
			}
		}
		file, err := os.Open(filepath.Join(dir, c.TRF))
		if err != nil {
			t.Fatal(err)
		}
		e, err := ReadTRF(file)
		file.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.TRF, err)
		}
		rd, err := e.Pair()
		switch {
		case c.Dutch == "" && errors.Is(err, ErrNoValidPairing):
			tl.same++
			continue
		case c.Dutch == "" && err == nil:
			tl.different++
			fail("paired %s; the Dutch rules find no valid pairing", pairingText(e, rd))
			continue
		case err != nil:
			tl.errs++
			fail("%v; want %s", err, c.Dutch)
			continue
		}
		got := pairingText(e, rd)
		switch compareRounds(got, c.Dutch) {
		case "same":
			tl.same++
		case "colours":
			tl.colours++
			fail("colours: got %s, want %s", got, c.Dutch)
		default:
			tl.different++
			fail("got %s, want %s", got, c.Dutch)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var all tally
	for _, band := range []string{"6-10", "11-17", "18-23", "24-30"} {
		tl := byBand[band]
		if tl == nil {
			continue
		}
		n := tl.same + tl.colours + tl.different + tl.errs
		t.Logf("%5s players: %4d rounds, %4d equal (%.1f%%), %d colours only, %d different, %d errors",
			band, n, tl.same, 100*float64(tl.same)/float64(n), tl.colours, tl.different, tl.errs)
		all.same += tl.same
		all.colours += tl.colours
		all.different += tl.different
		all.errs += tl.errs
	}
	t.Logf("all: %d equal of %d", all.same, all.same+all.colours+all.different+all.errs)
}

// TestDutchCustoms pairs the rounds of testdata/customs, Swiss events
// with the customs of club events, each round paired by bbpPairings (see
// TestGenerateCustoms): half-point byes asked in advance (H) and absences
// (Z) of players paired again later, the Baku acceleration (XXA lines)
// and XXC black1. Pair must give the engine's pairs, colours and bye.
func TestDutchCustoms(t *testing.T) {
	f, err := os.Open("testdata/customs/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkReference(t, "testdata/customs", f)
}
