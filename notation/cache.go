package notation

import (
	"strings"
	"sync"
)

// CacheLimit is how many entries a Cache holds before it starts afresh,
// and CacheMaxText the longest text it keeps (no real ply is longer).
const (
	CacheLimit   = 1 << 14
	CacheMaxText = 96
)

// Cache keeps what a codec parsed, by text: records repeat the same plies
// (and parts of plies) constantly, and the grammar is the expensive part of
// reading them. It is safe for concurrent use; a full cache is cleared.
// Only successful parses are kept.
type Cache[T any] struct {
	mu sync.RWMutex
	m  map[string]T
}

// Get returns the value parsed from text, calling parse on a miss.
func (c *Cache[T]) Get(text string, parse func(string) (T, error)) (T, error) {
	c.mu.RLock()
	v, ok := c.m[text]
	c.mu.RUnlock()
	if ok {
		return v, nil
	}
	v, err := parse(text)
	if err != nil || len(text) > CacheMaxText {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= CacheLimit {
		c.m = make(map[string]T)
	}
	c.m[strings.Clone(text)] = v
	c.mu.Unlock()
	return v, nil
}

// Len is the number of entries held.
func (c *Cache[T]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
