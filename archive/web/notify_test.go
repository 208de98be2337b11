package web

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pbem/archive"
)

func TestBroadcaster(t *testing.T) {
	var b Broadcaster
	a, cancelA := b.Subscribe()
	c, cancelC := b.Subscribe()
	b.Notify(7)
	if got := <-a; got != 7 {
		t.Errorf("a got %d, want 7", got)
	}
	if got := <-c; got != 7 {
		t.Errorf("c got %d, want 7", got)
	}
	cancelC()
	cancelC() // twice is harmless
	// a subscriber that does not read misses ids and blocks no one
	for i := range 100 {
		b.Notify(int64(i))
	}
	n := 0
	for len(a) > 0 {
		<-a
		n++
	}
	if n == 0 || n == 100 {
		t.Errorf("a slow subscriber got %d of 100 ids, want its buffer's worth", n)
	}
	select {
	case id := <-c:
		t.Errorf("a cancelled subscriber got %d", id)
	default:
	}
	cancelA()
}

// wait returns the next id from ch, or fails after 10s.
func wait(t *testing.T, ch <-chan int64) int64 {
	t.Helper()
	select {
	case id := <-ch:
		return id
	case <-time.After(10 * time.Second):
		t.Fatal("no id within 10s")
		return 0
	}
}

// TestPoller: a commit to a game, by any writer, reaches the subscribers
// once.
func TestPoller(t *testing.T) {
	fx := newFixture(t)
	p := NewPoller(fx.store, 10*time.Millisecond, nil)
	ids, cancel := p.Subscribe()
	defer cancel()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	defer func() { stop(); <-done }()
	time.Sleep(50 * time.Millisecond) // the fixture's commits are long past
	for _, id := range []int64{fx.rpp, fx.castles, fx.rpp} {
		g, err := fx.store.Game(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := fx.store.Commit(context.Background(), &archive.Change{At: time.Now(), Games: []*archive.Game{g}}); err != nil {
			t.Fatal(err)
		}
		if got := wait(t, ids); got != id {
			t.Errorf("poller reported game %d, want %d", got, id)
		}
	}
	time.Sleep(100 * time.Millisecond)
	select {
	case id := <-ids:
		t.Errorf("poller reported game %d again with no change", id)
	default:
	}
}

// TestEvents: the event stream of a game sends "move" when that game
// changes, and nothing for other games.
func TestEvents(t *testing.T) {
	fx := newFixture(t)
	hs := httptest.NewServer(fx.srv)
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/g/%d/events", hs.URL, fx.castles), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if l := <-lines; l != "retry: 1000" {
		t.Fatalf("first line %q, want the retry interval", l)
	}
	// the subscription is made before the first line is sent
	fx.bc.Notify(fx.rpp)
	fx.bc.Notify(fx.castles)
	var got []string
	for l := range lines {
		if l != "" {
			got = append(got, l)
		}
		if strings.HasPrefix(l, "data:") {
			break
		}
	}
	want := []string{"event: move", fmt.Sprintf("data: %d", fx.castles)}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stream = %q, want %q", got, want)
	}
}
