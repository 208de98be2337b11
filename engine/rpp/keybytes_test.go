package rpp

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"

	"pbem/engine"
)

// keysDigest is the SHA-256 of the keys of every position of random games
// of 2, 3, 4, 6 and 8 seats.
func keysDigest(t *testing.T) string {
	h := sha256.New()
	for _, n := range []int{2, 3, 4, 6, 8} {
		r := rand.New(rand.NewPCG(5, uint64(n)))
		st, err := Rules{}.Start(engine.Options{Players: n})
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 200 && !st.Outcome().Over; ply++ {
			h.Write([]byte(st.Key()))
			ms := st.Legal()
			st, err = st.Apply(ms[r.IntN(len(ms))])
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestKeyBytesAreStable: Key's bytes over random games of every seat count
// are those of before the incremental hash and the packed piles. Bots seed
// their search from Key (engine/bot positionHash), so a change of its bytes
// changes every bot's moves, and the transcripts and matches with them.
func TestKeyBytesAreStable(t *testing.T) {
	const want = "9e9c9caf412d43a95da3c71216a7ec7c350dee6e6fab9354be13d4fe7f90bcd6"
	if got := keysDigest(t); got != want {
		t.Errorf("the keys of the random games digest to %s, want %s", got, want)
	}
}
