package rpp_test

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/engine/rpp"
)

// TestHash: Hash tells positions apart exactly as Key does, over random
// games.
func TestHash(t *testing.T) {
	s, err := rpp.Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckHashes(t, s, 40, 300, 1)
	for _, n := range []int{2, 3, 4, 6} {
		s, err := rpp.Rules{}.Start(engine.Options{Players: n})
		if err != nil {
			t.Fatal(err)
		}
		enginetest.CheckHashes(t, s, 10, 300, uint64(n))
	}
}
