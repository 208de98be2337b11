package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/referee"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeWebPages plays castles by mail through pbem serve with web.addr
// set: the game's page shows it, and an open event stream of the page
// receives a "move" event for the plies mailed after it was opened.
func TestServeWebPages(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := testConfig(t)
	cfg.Web.Addr = "127.0.0.1:0"
	out := &syncBuffer{}
	s := &server{cfg: cfg, out: out, embedded: true}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, func(*server) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	m := regexp.MustCompile(`pbem serve: web pages (http://\S+)/\n`).FindStringSubmatch(out.String())
	require.NotNil(t, m, "serve does not say where the web pages are:\n%s", out.String())
	base := m[1]

	codec, err := referee.Lookup("castles")
	require.NoError(t, err)
	var ps []*player
	for _, name := range []string{"alice", "bob"} {
		pass, _ := s.mails.Password(name)
		ps = append(ps, &player{addr: name + "@" + s.mails.Domain(), pass: pass, imapAddr: s.mails.IMAPAddr(), smtpAddr: s.mails.SMTPAddr()})
	}
	// Play in the background while the test watches the page.
	var transcript syncBuffer
	played := make(chan error, 1)
	go func() {
		played <- playByMail(ctx, &transcript, s.mails.RefereeAddress(), ps, codec, 6, rand.New(rand.NewPCG(1, 2)))
	}()

	// The game page exists once the invitation is accepted.
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/g/1")
		require.NoError(t, err)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		require.True(t, time.Now().Before(deadline), "no page for game 1 after 20s")
		time.Sleep(100 * time.Millisecond)
	}
	resp, err := http.Get(base + "/g/1/events")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: ") {
				events <- sc.Text()
			}
		}
	}()
	select {
	case ev := <-events:
		assert.Equal(t, "event: move", ev)
	case <-time.After(30 * time.Second):
		t.Fatalf("no event within 30s of play:\n%s", transcript.String())
	}
	require.NoError(t, <-played, transcript.String())
	page, err := http.Get(base + "/g/1")
	require.NoError(t, err)
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	for _, want := range []string{"castles game 1", "<svg", "Result: <strong>", "(resign)", "Game over"} {
		assert.Contains(t, string(body), want)
	}
	assert.NotContains(t, string(body), "@pbem.local", "the page shows no address")
	// The API plays through this server's referee: a ply in the finished
	// game, with a player's key, is the referee's refusal (422), not the
	// 503 of a server that does not play.
	g, err := s.store.Game(ctx, 1)
	require.NoError(t, err)
	req, err := http.NewRequest("POST", base+"/api/v1/games/1/move", strings.NewReader(`{"ply": 7, "move": "pass"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+g.Seats[0].Token)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	api, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%s", api)
	assert.Contains(t, string(api), "is over")
	cancel()
	require.NoError(t, <-done)
}
