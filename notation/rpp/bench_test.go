package rpp

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
	"pbem/engine/rpp"
)

// record is a random 4-player game: the position before each ply and the
// ply's canonical text.
func record(b *testing.B, plies int) ([]engine.State, []string) {
	c := New()
	s, err := rpp.Rules{}.Start(engine.Options{Players: 4})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var states []engine.State
	var texts []string
	for len(states) < plies {
		ms := s.Legal()
		if len(ms) == 0 {
			break
		}
		m := ms[r.IntN(len(ms))]
		states = append(states, s)
		texts = append(texts, c.Encode(s, m))
		if s, err = s.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
	return states, texts
}

// BenchmarkDecodeApply: Decode then Apply of the plies of a game, one ply
// per op (the parse cache is warm after the first round, as in a record
// checker).
func BenchmarkDecodeApply(b *testing.B) {
	states, texts := record(b, 300)
	c := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m, err := c.Decode(states[i], texts[i])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := states[i].Apply(m); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % len(states)
	}
}

// BenchmarkDecodeCold: Decode of plies never seen (the cache is skipped),
// which is the participle parse.
func BenchmarkDecodeCold(b *testing.B) {
	states, texts := record(b, 300)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := parse(texts[i]); err != nil {
			b.Fatal(err)
		}
		_ = states[i]
		i = (i + 1) % len(states)
	}
}

// BenchmarkEncode writes the plies of a game.
func BenchmarkEncode(b *testing.B) {
	states, texts := record(b, 300)
	c := New()
	ms := make([]engine.Move, len(texts))
	for i := range texts {
		ms[i], _ = c.Decode(states[i], texts[i])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = c.Encode(states[i], ms[i])
		i = (i + 1) % len(states)
	}
}
