package mail

import (
	"context"
	"sync"
	"time"
)

// group runs fn over what several goroutines ask for, together: a call of
// do whose item arrives while fn runs waits for the next run, which takes
// every item that arrived meanwhile (group commit: one fsync or one
// transaction for many). add leaves an item for the next run without
// waiting; do with an empty item only waits for a run to cover what was
// added before.
type group struct {
	fn func(ctx context.Context, items []string) error
	// linger is how long a run started by add waits for more items
	// before it starts; a do cuts the wait short.
	linger time.Duration
	hurry  chan struct{}

	mu      sync.Mutex
	pending []string
	waiters []chan error
	running bool
}

func (g *group) add(item string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, item)
	if !g.running {
		g.running = true
		go func() {
			if g.linger > 0 {
				t := time.NewTimer(g.linger)
				select {
				case <-t.C:
				case <-g.hurry:
					t.Stop()
				}
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			g.loop(context.Background())
		}()
	}
}

// start asks for a run that covers what was added before, as do("")
// does, without waiting: the channel gets the run's result.
func (g *group) start() <-chan error {
	ch := make(chan error, 1)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waiters = append(g.waiters, ch)
	if !g.running {
		g.running = true
		go func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.loop(context.Background())
		}()
	}
	return ch
}

func (g *group) do(ctx context.Context, item string) error {
	ch := make(chan error, 1)
	g.mu.Lock()
	if item != "" {
		g.pending = append(g.pending, item)
	}
	g.waiters = append(g.waiters, ch)
	if g.hurry != nil {
		select {
		case g.hurry <- struct{}{}:
		default:
		}
	}
	if !g.running {
		g.running = true
		g.loop(ctx)
	}
	g.mu.Unlock()
	return <-ch
}

// loop runs fn until nothing waits; g.mu is held, and released while fn
// runs.
func (g *group) loop(ctx context.Context) {
	for len(g.waiters) > 0 || len(g.pending) > 0 {
		items, ws := g.pending, g.waiters
		g.pending, g.waiters = nil, nil
		g.mu.Unlock()
		err := g.fn(ctx, items)
		for _, w := range ws {
			w <- err
		}
		g.mu.Lock()
		if err != nil && len(g.waiters) == 0 {
			break // failed: what was added meanwhile waits for the next do
		}
	}
	g.running = false
}
