package elevation

import (
	"fmt"
	"testing"

	game "pbem/engine/elevation"
	"pbem/notation"
)

func TestCacheBounded(t *testing.T) {
	c := New()
	s := game.StartState()
	for i := 0; i < notation.CacheLimit+100; i++ {
		c.Decode(s, fmt.Sprintf("Sa1:b2>a2,-b%d", i))
	}
	if n := c.acts.Len(); n > notation.CacheLimit {
		t.Errorf("the cache holds %d texts, want at most %d", n, notation.CacheLimit)
	}
}
