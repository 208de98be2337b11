package bot

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"pbem/engine"
	"pbem/engine/rpp"
)

// BenchmarkTree8 weighs the tree of a level-5 search in an 8-seat rpp game,
// the largest position, at the playouts a fast machine reaches in level
// 5's time (its budget without the time limit): bytes/op is all the search
// allocated, tree-MB what its tree holds at the end (live after a
// collection), nodes its nodes. Run it with -benchtime=1x: one search takes
// seconds. uncapped is the same search with no node cap.
func BenchmarkTree8(b *testing.B) {
	s, err := rpp.Rules{}.Start(engine.Options{Players: 8})
	if err != nil {
		b.Fatal(err)
	}
	line := engine.NewLine(s)
	for _, bc := range []struct {
		name     string
		maxNodes int
	}{{"level5", 0}, {"uncapped", 1 << 30}} {
		b.Run(bc.name, func(b *testing.B) {
			budget := levels[5]
			budget.Time, budget.Playouts, budget.MaxNodes = 0, 40000, bc.maxNodes
			b.ReportAllocs()
			var tree, nodes float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				sr := newSearch(budget, rand.New(rand.NewPCG(1, positionHash(line))))
				if _, err := sr.run(context.Background(), line); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				tree += float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
				nodes += float64(sr.nodes)
				runtime.KeepAlive(sr.root)
			}
			b.ReportMetric(tree/float64(b.N), "tree-MB")
			b.ReportMetric(nodes/float64(b.N), "nodes")
		})
	}
}
