package engine

import (
	"math/bits"
	"math/rand/v2"
)

// Mix folds the 128-bit product of a and b into 64 bits: the step of the
// games' Hash methods (Hasher), which read a board several squares to a
// word and mix the words with HashKeys.
func Mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashKeys make hashes differ from one run to the next; odd, so that no
// product with them loses bits.
var hashKeys = func() (k [12]uint64) {
	for i := range k {
		k[i] = rand.Uint64() | 1
	}
	return k
}()

// HashKeys are the run's random keys for Mix.
func HashKeys() [12]uint64 { return hashKeys }
