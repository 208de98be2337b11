package referee

import (
	"os"
	"testing"

	"pbem/engine"

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

// TestCatalogGamesHavePositions: every game writes and reads its
// positions (docs/NOTATION.md, "Positions"), which the records set up from
// a position and the archive's position search need.
func TestCatalogGamesHavePositions(t *testing.T) {
	for _, c := range catalog {
		r := c.Rules()
		t.Run(r.ID(), func(t *testing.T) {
			s, err := r.Start(engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			text, _, ok := engine.Position(s)
			if !ok {
				t.Fatalf("%T is not an engine.Positioner: add Position to engine/%s", s, r.ID())
			}
			back, err := engine.ParsePosition(r, engine.Options{}, text)
			if err != nil {
				t.Fatalf("ParsePosition(%q): %v", text, err)
			}
			if back.Key() != s.Key() {
				t.Errorf("the start read back from %q is another position", text)
			}
		})
	}
}
