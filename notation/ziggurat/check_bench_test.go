package ziggurat

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
	"pbem/notation/notationtest"
)

// BenchmarkCheck checks a file of 200 random games (as `pbem selfplay ziggurat`
// writes them) on one core as `pbem check` does; ns/ply is the figure to
// watch.
func BenchmarkCheck(b *testing.B) {
	c := New()
	text := notationtest.Records(b, c, 200, func(r *rand.Rand) engine.Options { return engine.Options{First: r.IntN(2)} },
		notationtest.AnyLegal)
	notationtest.BenchmarkCheck(b, c, text)
}
