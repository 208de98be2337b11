package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkTournamentEventPage renders the event page of a Swiss of 64
// players over 7 rounds (224 games, each looked up in the store to be
// linked unless private), above the fixture's crosstable of the event,
// computed each time (the server keeps it until the store changes).
func BenchmarkTournamentEventPage(b *testing.B) {
	fx := newFixture(b)
	const players, rounds = 64, 7
	v := &TournamentView{ID: 1, Name: "Autumn Cup", Game: "castles", Format: "Swiss", Status: "running",
		Rounds: rounds, Completed: rounds - 1, TieBreaks: []string{"Buchholz", "median Buchholz"}}
	for i := range players {
		v.Standings = append(v.Standings, TournamentStanding{Rank: i + 1, Name: fmt.Sprintf("Player %d", i),
			Score: "3.5", TieBreaks: []string{"20.5", "14.0"}, Games: rounds - 1})
	}
	ids := []int64{fx.castles, fx.ziggurat, fx.rpp, fx.private}
	for r := 1; r <= rounds; r++ {
		rd := TournamentRound{Number: r}
		for board := 1; board <= players/2; board++ {
			g := TournamentGame{Board: board, GameID: ids[(r+board)%len(ids)],
				Players: []string{"Player " + strconv.Itoa(2*board-2), "Player " + strconv.Itoa(2*board-1)}}
			if r < rounds {
				g.Ranks = []int{1, 2}
			}
			rd.Games = append(rd.Games, g)
		}
		v.Pairings = append(v.Pairings, rd)
	}
	fx.srv.opts.Tournaments = func(context.Context, string) ([]*TournamentView, error) { return []*TournamentView{v}, nil }
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		fx.srv.cache.mu.Lock()
		fx.srv.cache.entries = nil // computed each time, not kept
		fx.srv.cache.mu.Unlock()
		rec := httptest.NewRecorder()
		fx.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/events/Autumn%20Cup", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}
