package castles_test

import (
	"testing"

	"pbem/engine"
	"pbem/engine/castles"
	"pbem/engine/enginetest"
)

// TestHash: Hash tells positions apart exactly as Key does, over random
// games.
func TestHash(t *testing.T) {
	s, err := castles.Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckHashes(t, s, 40, 300, 1)
}
