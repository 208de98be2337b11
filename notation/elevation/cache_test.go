package elevation

import (
	"fmt"
	"testing"

	game "pbem/engine/elevation"
)

func TestCacheBounded(t *testing.T) {
	c := New()
	s := game.StartState()
	for i := 0; i < cacheSize+100; i++ {
		c.Decode(s, fmt.Sprintf("Sa1:b2>a2,-b2 %d", i))
	}
	n := 0
	c.cache.Range(func(_, _ any) bool { n++; return true })
	if n > cacheSize {
		t.Errorf("the cache holds %d texts, want at most %d", n, cacheSize)
	}
}
