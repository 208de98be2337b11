package notation

import (
	"strings"
	"sync"
	"sync/atomic"
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
//
// Reads take no lock: the entries live in a map that is never written once
// published (read through an atomic pointer), so that goroutines reading at
// once do not contend for a shared lock word. New entries go to a small
// locked map first and are published with the rest, in a new map, once they
// are many or often read (the copies cost O(1) per entry and per read,
// amortized).
type Cache[T any] struct {
	snap atomic.Pointer[map[string]T] // published; never written

	mu    sync.Mutex
	fresh map[string]T // not yet published
	hits  int          // reads of fresh since it was last published
	size  int          // entries of snap and fresh
}

// freshReads (and a quarter of the entries, so that publishing costs
// O(1) per read) is how many reads of unpublished entries prompt publishing
// them.
const freshReads = 64

// Get returns the value parsed from text, calling parse on a miss.
func (c *Cache[T]) Get(text string, parse func(string) (T, error)) (T, error) {
	if m := c.snap.Load(); m != nil {
		if v, ok := (*m)[text]; ok {
			return v, nil
		}
	}
	c.mu.Lock()
	v, ok := c.fresh[text]
	if ok {
		if c.hits++; c.hits >= freshReads+c.size/4 {
			c.publish()
		}
	}
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := parse(text)
	if err != nil || len(text) > CacheMaxText {
		return v, err
	}
	c.mu.Lock()
	if _, ok := c.fresh[text]; !ok {
		if c.size >= CacheLimit {
			c.snap.Store(nil)
			c.fresh, c.size = nil, 0
		}
		if c.fresh == nil {
			c.fresh = make(map[string]T)
		}
		c.fresh[strings.Clone(text)] = v
		c.size++
		if len(c.fresh) >= c.size/3+8 {
			c.publish()
		}
	}
	c.mu.Unlock()
	return v, nil
}

// publish makes the fresh entries readable without the lock. c.mu is held.
func (c *Cache[T]) publish() {
	c.hits = 0
	if len(c.fresh) == 0 {
		return
	}
	m := make(map[string]T, c.size)
	if old := c.snap.Load(); old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	for k, v := range c.fresh {
		m[k] = v
	}
	c.snap.Store(&m)
	c.fresh = nil
}

// Len is the number of entries held.
func (c *Cache[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}
