package main

import (
	"bytes"
	"testing"

	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

// corpusGames is the size of the selfplay corpus `make bench` checks.
const corpusGames = 10000

// corpus returns the canonical records of n selfplay games of a game.
func corpus(b *testing.B, id string, o engine.Options, n int) []byte {
	b.Helper()
	codec, err := referee.Lookup(id)
	if err != nil {
		b.Skip(err)
	}
	var buf bytes.Buffer
	for i := range n {
		notation.Write(&buf, selfplay(codec, o, 1, i, 300))
	}
	return buf.Bytes()
}

// BenchmarkCheck measures `pbem check` throughput (plies per second) on a
// selfplay corpus of 10,000 games per game; run it on one core (make bench).
func BenchmarkCheck(b *testing.B) {
	for _, g := range referee.Games() {
		id := g.Rules().ID()
		o := engine.Options{}
		if id == "rpp" {
			o.Players = 4
		}
		b.Run(id, func(b *testing.B) {
			data := corpus(b, id, o, corpusGames)
			plies := 0
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				plies = 0
				errs := 0
				notation.CheckFile("corpus", data, referee.Lookup, func(c *notation.Checked) {
					if c.Game != nil {
						plies += c.Game.Plies
					}
					errs += len(c.Problems)
				})
				if errs > 0 {
					b.Fatalf("the selfplay corpus has %d problems", errs)
				}
			}
			b.ReportMetric(float64(plies)*float64(b.N)/b.Elapsed().Seconds(), "plies/s")
			b.ReportMetric(float64(plies), "plies/corpus")
		})
	}
}
