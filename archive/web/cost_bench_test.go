package web

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// discard is a ResponseWriter that counts what it is sent.
type discard struct {
	h http.Header
	n int
}

func (d *discard) Header() http.Header {
	if d.h == nil {
		d.h = http.Header{}
	}
	return d.h
}
func (d *discard) WriteHeader(int)             {}
func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

// BenchmarkBigEvent serves the event page of an event of 4,000 players
// (4,000 games, each player in two): the whole crosstable on one page as
// the static site writes it ("unpaged", what the server sent before
// pages), the first page computed from the store, and the first page kept.
func BenchmarkBigEvent(b *testing.B) {
	fx := newFixture(b)
	bigEvent(b, fx.store, "Big Open", 4000)
	req := func(b *testing.B) *http.Request {
		r, err := http.NewRequest("GET", "/events/Big%20Open", nil)
		if err != nil {
			b.Fatal(err)
		}
		r.RequestURI = r.URL.RequestURI()
		return r
	}
	serve := func(b *testing.B, h http.Handler, reset bool) {
		b.ReportAllocs()
		size := 0
		for b.Loop() {
			if reset {
				fx.srv.cache.mu.Lock()
				fx.srv.cache.entries = nil
				fx.srv.cache.mu.Unlock()
			}
			w := &discard{}
			h.ServeHTTP(w, req(b))
			size = w.n
		}
		b.ReportMetric(float64(size), "bytes/page")
	}
	b.Run("unpaged", func(b *testing.B) {
		m := http.NewServeMux()
		m.HandleFunc("GET /events/{name}", fx.srv.page(fx.srv.eventPage))
		serve(b, m, false)
	})
	b.Run("first-page-computed", func(b *testing.B) { serve(b, fx.srv, true) })
	b.Run("first-page-cached", func(b *testing.B) { serve(b, fx.srv, false) })
}

// BenchmarkStreams opens 10,000 live-update streams at once: with the
// default caps (1,000 held, the rest refused) and with none (all held). It
// reports the heap and stacks held per stream (the handler's side: the
// connection's buffers come on top) and the streams held.
func BenchmarkStreams(b *testing.B) {
	fx := newFixture(b)
	for _, tc := range []struct {
		name string
		max  int
	}{{"capped", 0}, {"uncapped", 10_000}} {
		b.Run(tc.name, func(b *testing.B) {
			srv, err := New(fx.store, &Options{Lookup: lookup, Notifier: &Broadcaster{}, MaxStreams: tc.max, MaxStreamsPerClient: 10_000})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				var ms0, ms1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms0)
				ctx, cancel := context.WithCancel(context.Background())
				path := fmt.Sprintf("/g/%d/events", fx.castles)
				done := make(chan struct{}, 10_000)
				for range 10_000 {
					go func() {
						r, _ := http.NewRequestWithContext(ctx, "GET", path, nil)
						r.RemoteAddr, r.RequestURI = "192.0.2.1:1000", path
						srv.ServeHTTP(&flushDiscard{}, r)
						done <- struct{}{}
					}()
				}
				held := srv.opts.MaxStreams
				for refused := 0; ; time.Sleep(10 * time.Millisecond) {
					for len(done) > 0 {
						<-done
						refused++
					}
					srv.streams.mu.Lock()
					open := srv.streams.total
					srv.streams.mu.Unlock()
					if open == held && refused == 10_000-held {
						break
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&ms1)
				b.ReportMetric(float64(int64(ms1.HeapInuse+ms1.StackInuse)-int64(ms0.HeapInuse+ms0.StackInuse))/float64(held), "B/stream")
				b.ReportMetric(float64(held), "streams")
				b.ReportMetric(float64(int64(ms1.HeapInuse+ms1.StackInuse)-int64(ms0.HeapInuse+ms0.StackInuse))/(1<<20), "MiB")
				cancel()
				for range held {
					<-done
				}
			}
		})
	}
}

// flushDiscard is a discard that flushes.
type flushDiscard struct{ discard }

func (*flushDiscard) Flush() {}
