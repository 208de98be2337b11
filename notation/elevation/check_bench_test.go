package elevation

import (
	"bytes"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"pbem/engine"
	"pbem/notation"
)

// records writes n seeded random games as a record file, as `pbem
// selfplay elevation` does.
func records(b *testing.B, c *Codec, n int) []byte {
	var buf bytes.Buffer
	for i := range n {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		o := engine.Options{}
		bl, err := notation.NewBuilder(c, o, []notation.Tag{{Name: "Event", Value: "bench"}})
		if err != nil {
			b.Fatal(err)
		}
		for ply := 0; ply < 300 && !bl.Line().Outcome().Over; ply++ {
			m := bl.Line().State().(engine.Sampler).RandomMove(r)
			if err := bl.Play(m); err != nil {
				b.Fatal(err)
			}
		}
		bl.Finish(nil, "")
		if err := notation.Write(&buf, bl.Game()); err != nil {
			b.Fatal(err)
		}
	}
	return buf.Bytes()
}

// BenchmarkCheck checks a file of random games on one core as `pbem check`
// does (reading, parsing, decoding and playing every ply), with its lazy
// collector; ns/ply is the figure to watch.
func BenchmarkCheck(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(1000))
	c := New()
	text := records(b, c, 60)
	checker := &notation.Checker{Lookup: func(string) (notation.Codec, error) { return c, nil }, NoCanon: true, Workers: 1}
	b.ReportAllocs()
	plies := 0
	for b.Loop() {
		err := checker.Run("bench.pgn", bytes.NewReader(text), func(ch *notation.Checked) {
			if len(ch.Problems) > 0 {
				b.Fatal(ch.Problems[0])
			}
			plies += ch.Game.Plies
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(plies), "ns/ply")
}
