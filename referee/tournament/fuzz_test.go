package tournament

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// FuzzPair runs whole events of every format from fuzzed sizes, seeds
// and withdrawals: Pair never panics, every round it returns is valid
// (each active player once, no repeat in round robins and Swiss, at most
// one Swiss bye each), and it fails only on a Swiss event where
// exhaustive search confirms that no valid pairing is left.
func FuzzPair(f *testing.F) {
	f.Add(uint64(1), uint8(9), uint8(2), uint8(4), uint8(3))
	f.Add(uint64(2), uint8(5), uint8(0), uint8(0), uint8(1))
	f.Add(uint64(3), uint8(6), uint8(3), uint8(3), uint8(0))
	f.Add(uint64(4), uint8(30), uint8(2), uint8(9), uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, size, format, rounds, withdrawAt uint8) {
		n := 2 + int(size)%40
		e := &Event{Format: Format(1 + int(format)%4), Players: entrants(n), Seed: seed}
		switch e.Format {
		case Swiss:
			e.Rounds = 1 + int(rounds)%min(n-1, 9)
		case Tables:
			e.Rounds = 1 + int(rounds)%6
			e.TableSizes = [][]int{{3}, {4, 3}, {3, 2}, {2}, {5, 4}}[int(format/4)%5]
		}
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		for {
			if e.Paired() == int(withdrawAt)%8 && len(e.Withdrawn) == 0 {
				gone := e.Players[r.IntN(n)].ID
				e.Withdrawn = append(e.Withdrawn, gone)
				for _, fg := range e.Forfeits(gone) {
					for i := range e.Games {
						if e.Games[i].Round == fg.Round && e.Games[i].Board == fg.Board {
							e.Games[i] = fg
						}
					}
				}
			}
			rd, err := e.Pair()
			if errors.Is(err, ErrFinished) {
				break
			}
			if err != nil {
				if e.Format != Swiss || n-len(e.Withdrawn) > 14 {
					t.Fatalf("round %d: %v", e.Paired()+1, err)
				}
				if _, ok := bestSwiss(e); ok {
					t.Fatalf("round %d: %v, but exhaustive search finds a pairing", e.Paired()+1, err)
				}
				return
			}
			checkRound(t, e, rd)
			e.Apply(rd)
			if e.Format != Tables {
				for k, c := range meetings(e) {
					if c > 1+btoi(e.Format == DoubleRoundRobin) {
						t.Fatalf("round %d: %v met %d times", rd.Number, k, c)
					}
				}
			}
			if e.Format == Swiss {
				var byes []string
				for _, b := range e.Byes {
					if slices.Contains(byes, b.Player) {
						t.Fatalf("round %d: %s has a second bye", rd.Number, b.Player)
					}
					byes = append(byes, b.Player)
				}
			}
			play(e, r)
		}
		if _, err := e.Standings(); err != nil {
			t.Fatal(err)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
