package notationtest

import (
	"bytes"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"pbem/engine"
	"pbem/notation"
)

// Records writes n seeded random games of c as a record file, as `pbem
// selfplay` does: each from options(r) and at most 300 plies of moves
// move(state, r) picks.
func Records(b *testing.B, c notation.Codec, n int, options func(r *rand.Rand) engine.Options, move func(s engine.State, r *rand.Rand) engine.Move) []byte {
	var buf bytes.Buffer
	for i := range n {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		bl, err := notation.NewBuilder(c, options(r), []notation.Tag{{Name: "Event", Value: "bench"}})
		if err != nil {
			b.Fatal(err)
		}
		for ply := 0; ply < 300 && !bl.Line().Outcome().Over; ply++ {
			if err := bl.Play(move(bl.Line().State(), r)); err != nil {
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

// BenchmarkCheck checks text (a record file of c's games) on one core as
// `pbem check` does (reading, parsing, decoding and playing every ply),
// with its lazy collector; ns/ply is the figure to watch.
func BenchmarkCheck(b *testing.B, c notation.Codec, text []byte) {
	defer debug.SetGCPercent(debug.SetGCPercent(1000))
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

// AnyLegal is a move function for Records: one of the state's legal
// moves, at random.
func AnyLegal(s engine.State, r *rand.Rand) engine.Move {
	ms := s.Legal()
	return ms[r.IntN(len(ms))]
}
