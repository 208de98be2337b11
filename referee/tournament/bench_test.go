package tournament

import (
	"math/rand/v2"
	"testing"
)

// played returns an event of n players after rounds random rounds.
func played(b *testing.B, e *Event, rounds int) *Event {
	r := rand.New(rand.NewPCG(1, uint64(len(e.Players))))
	for e.Paired() < rounds {
		pairApply(b, e)
		play(e, r)
	}
	return e
}

// BenchmarkPairSwiss64 pairs round 9 of a Swiss of 64 players.
func BenchmarkPairSwiss64(b *testing.B) {
	e := played(b, &Event{Format: Swiss, Rounds: 9, Players: entrants(64)}, 8)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Pair(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPairSwiss200 pairs round 9 of a Swiss of 200 players.
func BenchmarkPairSwiss200(b *testing.B) {
	e := played(b, &Event{Format: Swiss, Rounds: 9, Players: entrants(200)}, 8)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Pair(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPairTables60 draws round 6 of 60 players at tables of 4.
func BenchmarkPairTables60(b *testing.B) {
	e := played(b, &Event{Format: Tables, Rounds: 6, TableSizes: []int{4}, Players: entrants(60)}, 5)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Pair(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStandingsSwiss64 computes the standings of the Swiss of 64
// after 9 rounds.
func BenchmarkStandingsSwiss64(b *testing.B) {
	e := played(b, &Event{Format: Swiss, Rounds: 9, Players: entrants(64)}, 9)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Standings(); err != nil {
			b.Fatal(err)
		}
	}
}
