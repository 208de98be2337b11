package enginetest

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
)

// CheckHashes plays random games from start (the Sampler's moves when the
// state has one, else Legal's) and checks that a state implementing
// engine.Hasher hashes exactly as its Key tells positions apart: equal keys
// have equal hashes, and no two keys seen share a hash (64-bit hashes make
// that a certainty at this size, and Line confirms repeats by Key anyway).
func CheckHashes(t *testing.T, start engine.State, games, plies int, seed uint64) {
	t.Helper()
	if _, ok := start.(engine.Hasher); !ok {
		t.Fatalf("%T is not an engine.Hasher", start)
	}
	hashOf := map[string]uint64{}
	keyOf := map[uint64]string{}
	seen := func(s engine.State) {
		k, h := s.Key(), s.(engine.Hasher).Hash()
		if old, ok := hashOf[k]; ok && old != h {
			t.Fatalf("one key, two hashes (%#x, %#x):\n%s", old, h, s.Render(-1))
		}
		if old, ok := keyOf[h]; ok && old != k {
			t.Fatalf("keys %q and %q share hash %#x", old, k, h)
		}
		hashOf[k], keyOf[h] = h, k
	}
	for g := range games {
		r := rand.New(rand.NewPCG(seed, uint64(g)))
		s := start
		seen(s)
		for range plies {
			if s.Outcome().Over {
				break
			}
			var m engine.Move
			if smp, ok := s.(engine.Sampler); ok {
				m = smp.RandomMove(r)
			} else {
				moves := s.Legal()
				if len(moves) == 0 {
					break
				}
				m = moves[r.IntN(len(moves))]
			}
			next, err := s.Apply(m)
			if err != nil {
				t.Fatalf("game %d: Apply(%#v) = %v for a generated move", g, m, err)
			}
			s = next
			seen(s)
		}
	}
	if len(hashOf) < games {
		t.Fatalf("only %d positions seen in %d games", len(hashOf), games)
	}
}
