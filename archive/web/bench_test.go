package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

// benchGames stores one playing 80-ply game of each variant and returns
// the server and the games' paths.
func benchGames(b *testing.B) (*Server, []string) {
	fx := newFixture(b)
	var paths []string
	for _, v := range variants {
		id, err := fx.store.NewGameID(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		c, _ := lookup(v.rules.ID())
		sides, _ := c.Rules().Sides(v.opts)
		g := &archive.Game{ID: id, Game: v.rules.ID(), Status: archive.Playing, Seats: seats(sides, "Ann", "Ben", "Cid"),
			Options: archive.GameOptions{Players: v.opts.Players, Days: 3}, Deadline: t0.Add(time.Hour), Thread: fmt.Sprint(id)}
		g.Record, _ = record(b, v.rules.ID(), v.opts, tagsOf(g.Seats, "Bench"), 80, 5, false)
		if err := fx.store.Commit(context.Background(), &archive.Change{At: t0, Games: []*archive.Game{g}}); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, fmt.Sprintf("/g/%d", id))
	}
	return fx.srv, paths
}

// BenchmarkGamePage renders the game page of an 80-ply game of each game
// and board: reading the store, checking the record, drawing the board.
func BenchmarkGamePage(b *testing.B) {
	srv, paths := benchGames(b)
	for i, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest("GET", paths[i], nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// BenchmarkSVG draws the board of each game and board.
func BenchmarkSVG(b *testing.B) {
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			rec, _ := record(b, v.rules.ID(), v.opts, nil, 80, 5, false)
			recs, _ := notation.Parse("x", []byte(rec))
			cg, _ := notation.Check(recs[0], lookup)
			l := cg.Final().State().(engine.Layouter).Layout(-1)
			b.ReportAllocs()
			for b.Loop() {
				SVG(l, "board")
			}
		})
	}
}

// BenchmarkServe measures requests/s of game pages (every game and board in
// turn) over HTTP from parallel clients.
func BenchmarkServe(b *testing.B) {
	srv, paths := benchGames(b)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	client := hs.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	b.ReportAllocs()
	b.SetParallelism(4)
	start := time.Now()
	n := 0
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			resp, err := client.Get(hs.URL + paths[i%len(paths)])
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
				b.Errorf("status %d", resp.StatusCode)
			}
			i++
		}
	})
	n = b.N
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "req/s")
}
