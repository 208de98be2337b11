package rpp_test

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/engine/rpp"
)

// TestConformance runs the shared suite without a codec (notation/rpp runs
// it with one).
func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Config{
		Rules: rpp.Rules{},
		Options: []engine.Options{
			{}, {Players: 3}, {Players: 4, First: 2}, {Players: 5}, {Players: 6}, {Players: 7}, {Players: 8},
			{Players: 2, Board: "hex7"}, {Players: 3, Board: "square7"},
		},
		Playouts: 10,
		MaxPlies: 600,
		Seed:     1,
	})
}
