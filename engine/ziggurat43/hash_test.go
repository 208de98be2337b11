package ziggurat43_test

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/engine/ziggurat43"
)

// TestHash: Hash tells positions apart exactly as Key does, over random
// games.
func TestHash(t *testing.T) {
	s, err := ziggurat43.Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckHashes(t, s, 40, 300, 1)
}
