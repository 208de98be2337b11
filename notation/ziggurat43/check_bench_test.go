package ziggurat43

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
	"pbem/notation/notationtest"
)

// BenchmarkCheck checks a file of 200 random games (as `pbem selfplay ziggurat43`
// writes them) on one core as `pbem check` does; ns/ply is the figure to
// watch.
func BenchmarkCheck(b *testing.B) {
	c := New()
	text := notationtest.Records(b, c, 200, func(*rand.Rand) engine.Options { return engine.Options{} },
		notationtest.AnyLegal)
	notationtest.BenchmarkCheck(b, c, text)
}
