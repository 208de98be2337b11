package elevation_test

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/engine/elevation"
)

// TestHash: Hash tells positions apart exactly as Key does, over random
// games.
func TestHash(t *testing.T) {
	s, err := elevation.Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckHashes(t, s, 40, 300, 1)
}
