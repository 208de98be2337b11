package rpp_test

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
	"pbem/engine/rpp"
)

// TestConformance runs the shared suite without a codec on the variants
// that notation/rpp does not run (it runs 2, 3, 4, 6 and 8 seats with the
// codec).
func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Config{
		Rules: rpp.Rules{},
		Options: []engine.Options{
			{}, {Players: 5}, {Players: 7}, {Players: 6, Board: "hex7", First: 5}, {Players: 3, Board: "square7", First: 2},
		},
		Playouts: 4,
		MaxPlies: 300,
		Seed:     1,
	})
}
