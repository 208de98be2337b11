package referee

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCatalogListsEveryGame fails naming the catalog line a new game lacks:
// every engine/<game> directory must be in the catalog. engine/enginetest
// (the conformance suite), engine/bot (the generic computer player) and
// engine/picture (the drawings of a Layout) are layers over the contract,
// not games.
func TestCatalogListsEveryGame(t *testing.T) {
	dirs, err := os.ReadDir("../engine")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "enginetest" || d.Name() == "bot" || d.Name() == "picture" {
			continue
		}
		c, err := Lookup(d.Name())
		if err != nil || c.Rules().ID() != d.Name() {
			t.Errorf("engine/%s is not in the catalog: add %s.New() to catalog in referee/catalog.go (Lookup: %v)", d.Name(), d.Name(), err)
		}
		if _, err := os.Stat("../notation/" + d.Name()); err != nil {
			t.Errorf("engine/%s has no notation/%s package", d.Name(), d.Name())
		}
	}
	for _, c := range catalog {
		assert.NotContains(t, planned, c.Rules().ID(), "a catalogued game is still listed as planned")
	}
}
