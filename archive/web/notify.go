package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"pbem/archive"
)

// Notifier tells of games that changed (a move, an offer, the end), so
// that open pages update.
type Notifier interface {
	// Subscribe returns a channel that receives the id of every game that
	// changes from now on, and a function that ends the subscription. A
	// subscriber that does not keep up misses ids rather than blocking
	// the others.
	Subscribe() (ids <-chan int64, cancel func())
}

// Broadcaster is a Notifier told of changes by its owner (Notify). The
// zero value is ready to use.
type Broadcaster struct {
	mu   sync.Mutex
	subs map[chan int64]struct{}
}

// Subscribe implements Notifier.
func (b *Broadcaster) Subscribe() (<-chan int64, func()) {
	ch := make(chan int64, 16)
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[chan int64]struct{}{}
	}
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, ch)
			b.mu.Unlock()
		})
	}
}

// Notify tells every subscriber that game id changed.
func (b *Broadcaster) Notify(id int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- id:
		default: // a slow subscriber misses this one
		}
	}
}

// Poller is a Notifier that learns of changes by reading the store every
// Interval: it needs no hook in the referee, and it sees changes made by
// any process that writes the store.
type Poller struct {
	Broadcaster
	store    *archive.Store
	interval time.Duration
	log      *slog.Logger
}

// NewPoller returns a Poller of store (interval 0 means one second, so
// that an open page updates within two seconds of a move).
func NewPoller(store *archive.Store, interval time.Duration, log *slog.Logger) *Poller {
	if interval <= 0 {
		interval = time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &Poller{store: store, interval: interval, log: log}
}

// Run polls until ctx is done. It reports the games changed from about
// one interval before it started.
func (p *Poller) Run(ctx context.Context) {
	// seen holds the versions of the games changed at the instant since:
	// the next poll reads them again.
	seen := map[int64]int64{}
	since := time.Now().Add(-p.interval)
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		stamps, err := p.store.Changed(ctx, since)
		if err != nil && ctx.Err() == nil {
			p.log.Warn("web: polling the store for changes failed", "err", err)
		}
		if len(stamps) > 0 {
			latest := stamps[len(stamps)-1].Updated
			next := map[int64]int64{}
			for _, st := range stamps {
				if v, ok := seen[st.ID]; !ok || v != st.Version {
					p.Notify(st.ID)
				}
				if st.Updated.Equal(latest) {
					next[st.ID] = st.Version
				}
			}
			since, seen = latest, next
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
