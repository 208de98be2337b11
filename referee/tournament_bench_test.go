package referee_test

import (
	"fmt"
	"testing"

	"pbem/archive"
	"pbem/referee"
	"pbem/referee/tournament"
)

// tablesAfter is a tables tournament of n entrants at tables of seats
// after rounds rounds, every game ended with the first seat first.
func tablesAfter(b *testing.B, n, seats, rounds int) *tournament.Event {
	t := &archive.Tournament{Name: "Bench", Game: "rpp", Format: "tables", Rounds: rounds + 1, Seats: seats, Seed: 7, Status: archive.Running}
	for i := range n {
		t.Players = append(t.Players, archive.TournamentPlayer{Address: archive.Address{Addr: fmt.Sprintf("p%03d@example.org", i)}, Joined: true})
	}
	e := referee.TournamentEvent(t)
	for range rounds {
		rd, err := e.Pair()
		if err != nil {
			b.Fatal(err)
		}
		for i := range rd.Games {
			g := &rd.Games[i]
			g.Ranks = make([]int, len(g.Players))
			for k := range g.Ranks {
				g.Ranks[k] = k + 1
			}
		}
		e.Apply(rd)
	}
	return e
}

// BenchmarkTablesPairing is the cost of pairing a round of a tables
// tournament on the mail path (the result that ends a round opens the
// next), as large as the referee lets one be: MaxTablesSeats seats in all
// (entrants times seats per table), after 20 rounds, when most players
// have met and the draw's search runs longest.
func BenchmarkTablesPairing(b *testing.B) {
	for _, seats := range []int{2, 3, 4, 8, 16} {
		n := referee.MaxTablesSeats / seats
		b.Run(fmt.Sprintf("entrants=%d/seats=%d", n, seats), func(b *testing.B) {
			e := tablesAfter(b, n, seats, 20)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Pair(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
