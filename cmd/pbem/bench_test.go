package main

import (
	"bytes"
	"os"
	"path/filepath"
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

// BenchmarkCheck measures `pbem check FILE` throughput (plies per second)
// on a selfplay corpus of 10,000 games per game, end to end (reading the
// file, checking, printing); run it on one core (make bench).
func BenchmarkCheck(b *testing.B) {
	for _, g := range referee.Games() {
		id := g.Rules().ID()
		o := engine.Options{}
		if id == "rpp" {
			o.Players = 4
		}
		b.Run(id, func(b *testing.B) {
			data := corpus(b, id, o, corpusGames)
			file := filepath.Join(b.TempDir(), id+".pgn")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				b.Fatal(err)
			}
			plies := 0
			notation.CheckFile("corpus", data, referee.Lookup, func(c *notation.Checked) {
				if !c.Valid() {
					b.Fatalf("the selfplay corpus has a problem: %v", c.Problems)
				}
				plies += c.Game.Plies
			})
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				c := &cli{stdout: &out, stderr: &out}
				if code := c.main([]string{"check", file}); code != 0 {
					b.Fatalf("pbem check = %d:\n%s", code, out.String())
				}
			}
			b.ReportMetric(float64(plies)*float64(b.N)/b.Elapsed().Seconds(), "plies/s")
			b.ReportMetric(float64(plies), "plies/corpus")
		})
	}
}

// BenchmarkParseRecords measures reading records alone (the participle
// record grammar, no move checking) on the castles corpus.
func BenchmarkParseRecords(b *testing.B) {
	data := corpus(b, "castles", engine.Options{}, corpusGames)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	games := 0
	for b.Loop() {
		recs, problems := notation.Parse("corpus", data)
		if len(problems) > 0 {
			b.Fatal(problems[0])
		}
		games = len(recs)
	}
	b.ReportMetric(float64(games)*float64(b.N)/b.Elapsed().Seconds(), "games/s")
}
