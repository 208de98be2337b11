package ziggurat

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
	"pbem/engine/ziggurat"
)

// game returns a random game of up to n plies: the positions and the
// canonical text of the ply played in each.
func game(b testing.TB, n int) ([]engine.State, []string) {
	s, err := ziggurat.Rules{}.Start(engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c := New()
	r := rand.New(rand.NewPCG(21, 22))
	var states []engine.State
	var texts []string
	for range n {
		if s.Outcome().Over {
			break
		}
		ms := s.Legal()
		m := ms[r.IntN(len(ms))]
		states = append(states, s)
		texts = append(texts, c.Encode(s, m))
		if s, err = s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
	return states, texts
}

// BenchmarkDecodeApply decodes and applies the plies of a game, as the
// record checker does (ns/op is per ply; the parse cache is warm after the
// first pass, as plies repeat across records).
func BenchmarkDecodeApply(b *testing.B) {
	states, texts := game(b, 80)
	c := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := i % len(texts)
		m, err := c.Decode(states[k], texts[k])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := states[k].Apply(m); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkDecodeApplyStart decodes and applies one typical ply.
func BenchmarkDecodeApplyStart(b *testing.B) {
	s, _ := ziggurat.Rules{}.Start(engine.Options{})
	c := New()
	b.ReportAllocs()
	for b.Loop() {
		m, err := c.Decode(s, "Qa1-d4")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse is the cost of a cache miss: the participle parse.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse("Qd4xb6"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	states, texts := game(b, 80)
	c := New()
	moves := make([]engine.Move, len(texts))
	for i := range texts {
		moves[i], _ = c.Decode(states[i], texts[i])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := i % len(moves)
		_ = c.Encode(states[k], moves[k])
		i++
	}
}
