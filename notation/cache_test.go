package notation_test

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pbem/notation"
)

func TestCache(t *testing.T) {
	var c notation.Cache[int]
	var calls atomic.Int64 // parse runs outside the cache's lock
	parse := func(s string) (int, error) {
		calls.Add(1)
		if s == "bad" {
			return 0, errors.New("bad")
		}
		return len(s), nil
	}
	for range 3 {
		if v, err := c.Get("abc", parse); v != 3 || err != nil {
			t.Fatalf("Get(abc) = %d, %v; want 3, nil", v, err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("parse called %d times for one text, want 1", n)
	}
	if _, err := c.Get("bad", parse); err == nil {
		t.Error("Get(bad) succeeded")
	}
	c.Get("bad", parse)
	if n := calls.Load(); n != 3 {
		t.Errorf("errors are cached: parse called %d times, want 3", n)
	}
	long := strings.Repeat("x", notation.CacheMaxText+1)
	c.Get(long, parse)
	if c.Len() != 1 {
		t.Errorf("Len() = %d after a long text, want 1 (long texts are not kept)", c.Len())
	}
	for i := range notation.CacheLimit + 5 {
		c.Get(strconv.Itoa(i), parse)
	}
	if n := c.Len(); n > notation.CacheLimit {
		t.Errorf("Len() = %d, want at most %d", n, notation.CacheLimit)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 1000 {
				c.Get(strconv.Itoa(i*1000+j), parse)
			}
		})
	}
	wg.Wait()
}
