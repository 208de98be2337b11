package elevation

import (
	"math/rand/v2"
	"testing"

	"pbem/engine"
	"pbem/notation/notationtest"
)

// BenchmarkCheck checks a file of 60 random games (as `pbem selfplay elevation`
// writes them) on one core as `pbem check` does; ns/ply is the figure to
// watch.
func BenchmarkCheck(b *testing.B) {
	c := New()
	text := notationtest.Records(b, c, 60, func(*rand.Rand) engine.Options { return engine.Options{} },
		func(s engine.State, r *rand.Rand) engine.Move { return s.(engine.Sampler).RandomMove(r) })
	notationtest.BenchmarkCheck(b, c, text)
}
