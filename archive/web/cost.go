package web

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"pbem/archive"
)

// The costs of a request are bounded: its address (MaxURL), the pages
// computed from the whole archive at once (Options.MaxExpensive), which
// are kept until the store changes (pageCache), and the live-update
// streams (Options.MaxStreams, MaxStreamsPerClient, StreamLifetime).

// MaxURL is the longest request address (path and query, in bytes) the
// pages answer; a longer one gets 414.
const MaxURL = 2048

// retryAfter is what a busy answer asks the client to wait, in seconds.
const retryAfter = "5"

// expensive runs h when fewer than Options.MaxExpensive such requests are
// under way, and answers 503 otherwise. The page is written into memory
// while it holds its place and sent after, so that a slow reader keeps no
// other request waiting.
func (s *Server) expensive(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.busy <- struct{}{}:
		default:
			w.Header().Set("Retry-After", retryAfter)
			http.Error(w, "busy: other searches and tables are being computed; try again in a few seconds", http.StatusServiceUnavailable)
			return
		}
		b := &buffered{header: w.Header(), code: http.StatusOK}
		func() {
			defer func() { <-s.busy }()
			h(b, r)
		}()
		w.WriteHeader(b.code)
		w.Write(b.body.Bytes())
	}
}

// buffered is a response held in memory.
type buffered struct {
	header http.Header
	code   int
	wrote  bool
	body   bytes.Buffer
}

func (b *buffered) Header() http.Header { return b.header }

func (b *buffered) WriteHeader(code int) {
	if !b.wrote {
		b.code, b.wrote = code, true
	}
}

func (b *buffered) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}

// pageCache keeps pages computed from the whole archive while the store's
// stamp stays the same: a write (by any process) makes every page stale.
// Concurrent requests for a page being computed wait for it rather than
// computing it again.
type pageCache struct {
	mu      sync.Mutex
	stamp   archive.Stamp
	entries map[string]*cacheEntry
	// computed counts the pages computed (tests).
	computed atomic.Int64
}

// maxCached bounds the pages kept.
const maxCached = 64

type cacheEntry struct {
	done chan struct{}
	val  any
	err  error
}

// get returns the page of key at stamp, computing it when it is not kept.
// Errors are not kept.
func (c *pageCache) get(ctx context.Context, stamp archive.Stamp, key string, compute func() (any, error)) (any, error) {
	c.mu.Lock()
	if c.entries == nil || c.stamp != stamp {
		c.stamp, c.entries = stamp, map[string]*cacheEntry{}
	}
	e := c.entries[key]
	if e != nil {
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.val, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if len(c.entries) >= maxCached {
		for k := range c.entries { // any one
			delete(c.entries, k)
			break
		}
	}
	e = &cacheEntry{done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()

	c.computed.Add(1)
	e.val, e.err = compute()
	close(e.done)
	if e.err != nil {
		c.mu.Lock()
		if c.entries[key] == e {
			delete(c.entries, key)
		}
		c.mu.Unlock()
	}
	return e.val, e.err
}

// cached keeps the pages of p (by path) until the store changes.
func (s *Server) cached(p pageFunc) pageFunc {
	return func(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
		stamp, err := s.store.Stamp(ctx)
		if err != nil {
			return "", nil, err
		}
		type page struct {
			name string
			v    *view
		}
		got, err := s.cache.get(ctx, stamp, r.URL.Path, func() (any, error) {
			name, v, err := p(ctx, r, k)
			return page{name, v}, err
		})
		if err != nil {
			return "", nil, err
		}
		pg := got.(page)
		return pg.name, pg.v, nil
	}
}

// streamCount counts the live-update streams open, in all and by client.
type streamCount struct {
	mu       sync.Mutex
	total    int
	byClient map[netip.Prefix]int
}

// clientOf is the client a request counts against: its address, an IPv6
// one by its /64 (what one host is given).
func clientOf(r *http.Request) netip.Prefix {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap()
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.WithZone("").Prefix(64)
	return p
}

// open takes a place for a stream of client, or reports why there is none.
func (c *streamCount) open(client netip.Prefix, max, perClient int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.total >= max:
		return fmt.Sprintf("busy: %d live pages are open, the most the server keeps; this page will not update by itself", max)
	case c.byClient[client] >= perClient:
		return fmt.Sprintf("too many live pages: %d are open from your address, the most it may keep; close some", perClient)
	}
	if c.byClient == nil {
		c.byClient = map[netip.Prefix]int{}
	}
	c.total++
	c.byClient[client]++
	return ""
}

func (c *streamCount) close(client netip.Prefix) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total--
	if c.byClient[client]--; c.byClient[client] <= 0 {
		delete(c.byClient, client)
	}
}

// streamWriteTimeout bounds one write of a stream: a reader that takes
// longer loses the stream.
const streamWriteTimeout = time.Minute

// stream serves a game's live updates (events) within the bounds: a place
// among Options.MaxStreams and MaxStreamsPerClient, Options.StreamLifetime
// at most, each write within streamWriteTimeout (the server's write
// timeout, which a stream outlives, is moved for each).
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	client := clientOf(r)
	if why := s.streams.open(client, s.opts.MaxStreams, s.opts.MaxStreamsPerClient); why != "" {
		w.Header().Set("Retry-After", strconv.Itoa(60))
		http.Error(w, why, http.StatusServiceUnavailable)
		return
	}
	defer s.streams.close(client)
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.StreamLifetime)
	defer cancel()
	s.events(&streamWriter{ResponseWriter: w, rc: http.NewResponseController(w)}, r.WithContext(ctx))
}

// streamWriter moves the connection's write deadline before each write.
type streamWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (sw *streamWriter) Write(p []byte) (int, error) {
	sw.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) // not every writer has one
	return sw.ResponseWriter.Write(p)
}

func (sw *streamWriter) Flush() {
	sw.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	sw.rc.Flush()
}

// Unwrap lets a ResponseController reach the connection.
func (sw *streamWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }
