package elevation_test

import (
	"testing"

	"pbem/engine"
	"pbem/engine/elevation"
	"pbem/engine/enginetest"
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
