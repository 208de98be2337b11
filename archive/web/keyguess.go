package web

import (
	"context"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Wrong keys are bounded per client address, as mail without a valid
// token is bounded per sender: a client that sent MaxKeyFailures keys
// that prove no seat (401, 403, and 404, the answer of a private game to
// a wrong key) within KeyFailureWindow is answered 429
// until the window ends, whatever key it sends, so that tokens cannot be
// guessed at the speed of HTTP.
const (
	MaxKeyFailures   = 30
	KeyFailureWindow = time.Hour
	// maxKeyClients bounds the clients remembered; beyond it, windows
	// that ended are dropped, and if none has, the oldest window is.
	maxKeyClients = 10000
)

type keyWindow struct {
	start time.Time
	count int
}

// keyFailures counts the wrong keys of each client address.
type keyFailures struct {
	mu sync.Mutex
	m  map[netip.Prefix]*keyWindow
}

// blocked reports how long client must wait, 0 when it may try a key.
func (k *keyFailures) blocked(client netip.Prefix, now time.Time) time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	w := k.m[client]
	if w == nil || now.Sub(w.start) >= KeyFailureWindow || w.count < MaxKeyFailures {
		return 0
	}
	return w.start.Add(KeyFailureWindow).Sub(now)
}

// fail counts a wrong key of client.
func (k *keyFailures) fail(client netip.Prefix, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[netip.Prefix]*keyWindow{}
	}
	w := k.m[client]
	if w == nil || now.Sub(w.start) >= KeyFailureWindow {
		if w == nil && len(k.m) >= maxKeyClients {
			k.evict(now)
		}
		w = &keyWindow{start: now}
		k.m[client] = w
	}
	w.count++
}

// evict drops the windows that ended, else the oldest.
func (k *keyFailures) evict(now time.Time) {
	var oldest netip.Prefix
	var at time.Time
	for c, w := range k.m {
		if now.Sub(w.start) >= KeyFailureWindow {
			delete(k.m, c)
			continue
		}
		if at.IsZero() || w.start.Before(at) {
			oldest, at = c, w.start
		}
	}
	if len(k.m) >= maxKeyClients {
		delete(k.m, oldest)
	}
}

// keyed wraps an endpoint that reads a key: a client over its wrong keys
// is answered 429, and the 401 and 403 answers count.
func (s *Server) keyed(f apiFunc) http.HandlerFunc {
	inner := s.api(f)
	return func(w http.ResponseWriter, r *http.Request) {
		client := clientOf(r)
		if wait := s.keys.blocked(client, s.opts.Now()); wait > 0 {
			s.api(func(_ context.Context, _ *http.Request) (any, error) {
				return nil, &apiStatus{code: http.StatusTooManyRequests, retry: wait,
					msg: "too many wrong keys from this address; try again after Retry-After seconds"}
			})(w, r)
			return
		}
		cw := &codeWriter{ResponseWriter: w}
		inner(cw, r)
		switch cw.code {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			if r.Header.Get("Authorization") == "" {
				break // no key tried
			}
			s.keys.fail(client, s.opts.Now())
		}
	}
}

// codeWriter notes the status written.
type codeWriter struct {
	http.ResponseWriter
	code int
}

func (c *codeWriter) WriteHeader(code int) {
	c.code = code
	c.ResponseWriter.WriteHeader(code)
}
