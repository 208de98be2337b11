package bot_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"pbem/engine"
	"pbem/engine/bot"
)

// benchPositions runs f on each game's start and the position after 10
// random plies.
func benchPositions(b *testing.B, f func(b *testing.B, line *engine.Line)) {
	for _, v := range variants {
		for _, at := range []int{0, 10} {
			line := engine.NewLine(v.start(b))
			r := rand.New(rand.NewPCG(1, 1))
			for range at {
				moves := line.State().Legal()
				line, _ = line.Play(moves[r.IntN(len(moves))])
			}
			if line.Outcome().Over {
				continue
			}
			name := v.String() + "/start"
			if at > 0 {
				name = v.String() + "/ply10"
			}
			b.Run(name, func(b *testing.B) { f(b, line) })
		}
	}
}

// BenchmarkLevel5 times one level-5 move per game: at the start and after
// 10 random plies. Most stop at the level's time, not its playouts.
func BenchmarkLevel5(b *testing.B) {
	p, _ := bot.New(5, 1)
	benchPositions(b, func(b *testing.B, line *engine.Line) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.MoveLine(context.Background(), line); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPlayouts times a search of 1000 playouts per game and reports
// the time of one playout (with its share of the tree), which sets how
// many playouts level 5 reaches in its time.
func BenchmarkPlayouts(b *testing.B) {
	const playouts = 1000
	p, _ := bot.NewBudget(bot.Budget{Playouts: playouts}, 1)
	benchPositions(b, func(b *testing.B, line *engine.Line) {
		b.ReportAllocs()
		var n int
		start := time.Now()
		for b.Loop() {
			r, err := p.Search(context.Background(), line)
			if err != nil {
				b.Fatal(err)
			}
			n += r.Playouts
		}
		if n > 0 {
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n), "ns/playout")
		}
	})
}
