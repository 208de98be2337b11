package bot_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"pbem/engine"
	"pbem/engine/bot"
)

// BenchmarkLevel5 times one level-5 move per game: at the start and after
// 10 random plies.
func BenchmarkLevel5(b *testing.B) {
	p, _ := bot.New(5, 1)
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
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.MoveLine(context.Background(), line); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
