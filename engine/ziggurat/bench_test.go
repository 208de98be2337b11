package ziggurat

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
)

// midgame returns the position after 30 random plies from the start (seeded,
// so always the same), a typical position with stacks on the board.
func midgame(b testing.TB) *State {
	s := start(b, engine.Options{})
	r := rand.New(rand.NewPCG(3, 4))
	for range 30 {
		ms := s.Moves()
		n, err := s.Play(ms[r.IntN(len(ms))])
		if err != nil {
			b.Fatal(err)
		}
		s = n
	}
	return s
}

func BenchmarkLegalStart(b *testing.B) {
	s := start(b, engine.Options{})
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

func BenchmarkLegalMidgame(b *testing.B) {
	s := midgame(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Legal()
	}
}

// BenchmarkApply applies a typical ply (a zig slide) to the start position.
func BenchmarkApply(b *testing.B) {
	s := start(b, engine.Options{})
	var m engine.Move = Move{Kind: Step, Unit: Queen, From: SquareAt(0, 1), To: SquareAt(3, 4)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyMidgame applies each legal move of a midgame position.
func BenchmarkApplyMidgame(b *testing.B) {
	s := midgame(b)
	ms := s.Legal()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Apply(ms[i%len(ms)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkKey(b *testing.B) {
	s := midgame(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Key()
	}
}

func BenchmarkPerft3(b *testing.B) {
	s := start(b, engine.Options{})
	b.ReportAllocs()
	for b.Loop() {
		perft(s, 3)
	}
}
