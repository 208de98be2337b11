package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

// TestLongAddressRefused answers 414, saying the bound, to an address
// longer than MaxURL (a search of one word written 3,000 times).
func TestLongAddressRefused(t *testing.T) {
	fx := newFixture(t)
	path := "/archive?q=" + strings.Repeat("cup+", 3000)
	code, body, _ := get(t, fx.srv, path)
	if code != http.StatusRequestURITooLong {
		t.Fatalf("GET of %d bytes = %d, want 414", len(path), code)
	}
	if want := fmt.Sprintf("request address of %d bytes; the pages take at most 2048", len(path)); !strings.Contains(body, want) {
		t.Errorf("body = %q, want %q", body, want)
	}
}

// TestSearchWordsOnce searches a word repeated within the address's bound
// as the word once, and refuses more than archive.MaxSearchWords words.
func TestSearchWordsOnce(t *testing.T) {
	fx := newFixture(t)
	count := regexp.MustCompile(`<p>(\d+) games`)
	_, once, _ := get(t, fx.srv, "/archive?q=autumn")
	code, repeated, _ := get(t, fx.srv, "/archive?q="+strings.Repeat("AUTUMN+autumn+", 100))
	if code != http.StatusOK {
		t.Fatalf("GET = %d", code)
	}
	want, got := count.FindStringSubmatch(once), count.FindStringSubmatch(repeated)
	if want == nil || got == nil || want[1] != got[1] || want[1] == "0" {
		t.Errorf("the repeated word found %v games, the word once %v", got, want)
	}
	_, body, _ := get(t, fx.srv, "/archive?q=a1+b2+c3+d4+e5+f6+g7+h8+i9")
	if !strings.Contains(body, `<p class="err">search of 9 different words; expected at most 8</p>`) {
		t.Errorf("9 words: no error in\n%s", body)
	}
}

// bigEvent imports an event of n players (P000...), game i between
// player i and player i+1 (mod n); the first player wins.
func bigEvent(tb testing.TB, store *archive.Store, name string, n int) {
	tb.Helper()
	var b strings.Builder
	for i := range n {
		tags := []notation.Tag{{Name: "Event", Value: name}, {Name: "Date", Value: "2026.10.01"},
			{Name: "First", Value: fmt.Sprintf("P%04d", i)}, {Name: "Second", Value: fmt.Sprintf("P%04d", (i+1)%n)}}
		rec, _ := record(tb, "castles", engine.Options{}, tags, 2, uint64(i), true)
		b.WriteString(rec)
		b.WriteString("\n")
	}
	if _, err := store.ImportFile(context.Background(), "big.pgn", []byte(b.String()), lookup, nil); err != nil {
		tb.Fatal(err)
	}
}

// crossRows counts the rows of the crosstable of a page.
func crossRows(body string) int {
	_, table, _ := strings.Cut(body, `<table class="crosstable">`)
	table, _, _ = strings.Cut(table, "</table>")
	return strings.Count(table, "<tr><td>")
}

// TestEventPages shows a crosstable of 250 players 100 rows a page, with
// links between the pages; the whole crosstable is still 250 columns wide.
func TestEventPages(t *testing.T) {
	fx := newFixture(t)
	bigEvent(t, fx.store, "Big Open", 250)
	for _, tc := range []struct {
		page       string
		rows       int
		prev, next string
	}{
		{"", 100, "", "2"},
		{"?page=1", 100, "", "2"},
		{"?page=2", 100, "1", "3"},
		{"?page=3", 50, "2", ""},
	} {
		code, body, _ := get(t, fx.srv, "/events/Big%20Open"+tc.page)
		if code != http.StatusOK {
			t.Fatalf("page %q: %d", tc.page, code)
		}
		if got := crossRows(body); got != tc.rows {
			t.Errorf("page %q: %d rows, want %d", tc.page, got, tc.rows)
		}
		_, table, _ := strings.Cut(body, `<table class="crosstable">`)
		table, _, _ = strings.Cut(table, "</tr>")
		if got := strings.Count(table, "<th>") - 5; got != 250 {
			t.Errorf("page %q: %d columns of results, want 250", tc.page, got)
		}
		for i := 1; i <= 3; i++ {
			if link := fmt.Sprintf(`<a href="/events/Big%%20Open?page=%d">%d</a>`, i, i); strings.Contains(body, link) == (tc.page == fmt.Sprintf("?page=%d", i) || tc.page == "" && i == 1) {
				t.Errorf("page %q: a link to page %d is %v, want it on every other page", tc.page, i, strings.Contains(body, link))
			}
		}
		for rel, want := range map[string]string{"prev": tc.prev, "next": tc.next} {
			link := regexp.MustCompile(`<a href="/events/Big%20Open\?page=(\d+)" rel="` + rel + `">`).FindStringSubmatch(body)
			if got := ""; link != nil {
				got = link[1]
				if got != want {
					t.Errorf("page %q: %s is page %s, want %q", tc.page, rel, got, want)
				}
			} else if want != "" {
				t.Errorf("page %q: no %s link, want page %s", tc.page, rel, want)
			}
		}
		if !strings.Contains(body, fmt.Sprintf("Page %s of 3", strings.TrimPrefix(cmpOr(tc.page, "?page=1"), "?page="))) {
			t.Errorf("page %q: no page number", tc.page)
		}
	}
	// page 1 ranks the winners first, page 3 holds the last 50 ranks
	_, body, _ := get(t, fx.srv, "/events/Big%20Open?page=3")
	if !strings.Contains(body, "players 201 to 250 of 250") || !strings.Contains(body, "Games 201 to 250 of 250") {
		t.Errorf("page 3 does not say which rows it shows")
	}
	for _, bad := range []string{"?page=4", "?page=0", "?page=x"} {
		if code, body, _ := get(t, fx.srv, "/events/Big%20Open"+bad); code != http.StatusBadRequest {
			t.Errorf("%s = %d %s, want 400", bad, code, body)
		}
	}
	// a small event is one page, with no links
	_, body, _ = get(t, fx.srv, "/events/Autumn%20Cup")
	if strings.Contains(body, "?page=") || strings.Contains(body, "Page 1") {
		t.Errorf("a one-page event shows page links")
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestCachedUntilTheStoreChanges computes an event's page, a rating list
// and a player's page once however often they are asked for, and again
// after a write.
func TestCachedUntilTheStoreChanges(t *testing.T) {
	fx := newFixture(t)
	events := 0 // computations of the event page: each asks for its tournaments
	fx.srv.opts.Tournaments = func(context.Context, string) ([]*TournamentView, error) { events++; return nil, nil }
	paths := []string{"/events/Autumn%20Cup", "/ratings/ziggurat", "/players/Alice"}
	for range 3 {
		for _, p := range paths {
			if code, _, _ := get(t, fx.srv, p); code != http.StatusOK {
				t.Fatalf("GET %s = %d", p, code)
			}
		}
	}
	if events != 1 || fx.srv.cache.computed.Load() != 3 {
		t.Errorf("3 times each: event computed %d times, %d pages computed; want 1 and 3", events, fx.srv.cache.computed.Load())
	}
	// a write: another game in the archive
	rec, _ := record(t, "elevation", engine.Options{}, []notation.Tag{{Name: "Event", Value: "Autumn Cup"}, {Name: "White", Value: "Zed"}, {Name: "Black", Value: "Alice"}}, 4, 9, true)
	if _, err := fx.store.ImportFile(context.Background(), "more.pgn", []byte(rec), lookup, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		get(t, fx.srv, p)
	}
	if events != 2 || fx.srv.cache.computed.Load() != 6 {
		t.Errorf("after a write: event computed %d times, %d pages computed; want 2 and 6", events, fx.srv.cache.computed.Load())
	}
	if _, body, _ := get(t, fx.srv, "/events/Autumn%20Cup"); !strings.Contains(body, "Zed") {
		t.Errorf("the event page after the write does not show the new game")
	}
}

// TestBusy answers 503 with Retry-After to an expensive request while
// Options.MaxExpensive are under way, and serves it once one ends.
func TestBusy(t *testing.T) {
	fx := newFixture(t)
	for range cap(fx.srv.busy) {
		fx.srv.busy <- struct{}{}
	}
	for _, p := range []string{"/archive?q=cup", "/events/Autumn%20Cup", "/ratings/ziggurat", "/players/Alice"} {
		code, body, h := get(t, fx.srv, p)
		if code != http.StatusServiceUnavailable || h.Get("Retry-After") != "5" || !strings.Contains(body, "try again in a few seconds") {
			t.Errorf("GET %s when busy = %d, Retry-After %q, %q; want 503, 5", p, code, h.Get("Retry-After"), body)
		}
	}
	if code, _, _ := get(t, fx.srv, fmt.Sprintf("/g/%d", fx.castles)); code != http.StatusOK {
		t.Errorf("a game's page when busy = %d, want 200", code)
	}
	<-fx.srv.busy
	if code, _, _ := get(t, fx.srv, "/archive?q=cup"); code != http.StatusOK {
		t.Errorf("GET /archive with a place free = %d, want 200", code)
	}
}

// openStream starts a stream of game id from addr; cancel ends it, done
// closes when it has.
func openStream(srv *Server, id int64, addr string) (rec *httptest.ResponseRecorder, cancel func(), done chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, "GET", fmt.Sprintf("/g/%d/events", id), nil)
	req.RemoteAddr = addr
	rec = httptest.NewRecorder()
	done = make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeHTTP(rec, req)
	}()
	return rec, cancel, done
}

// TestStreamCaps answers 503 to a stream beyond Options.MaxStreams in all
// or MaxStreamsPerClient from one client (an IPv6 /64 counting as one).
func TestStreamCaps(t *testing.T) {
	fx := newFixture(t)
	synctest.Test(t, func(t *testing.T) {
		srv, err := New(fx.store, &Options{Lookup: lookup, Notifier: &Broadcaster{}, MaxStreams: 3, MaxStreamsPerClient: 2})
		if err != nil {
			t.Fatal(err)
		}
		var cancels []func()
		var wg sync.WaitGroup
		open := func(addr string) {
			_, cancel, done := openStream(srv, fx.castles, addr)
			cancels = append(cancels, cancel)
			wg.Go(func() { <-done })
		}
		refused := func(addr, why string) {
			t.Helper()
			req := httptest.NewRequest("GET", fmt.Sprintf("/g/%d/events", fx.castles), nil)
			req.RemoteAddr = addr
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), why) {
				t.Errorf("a stream from %s = %d %q, want 503 %q", addr, rec.Code, rec.Body.String(), why)
			}
		}
		open("192.0.2.1:1000")
		open("[2001:db8::1]:1000")
		synctest.Wait()
		open("[2001:db8::2]:1000") // the same /64
		synctest.Wait()
		refused("192.0.2.2:1000", "3 live pages are open")
		cancels[0]()
		synctest.Wait()
		refused("[2001:db8:0:0:ffff::9]:1000", "2 are open from your address")
		open("192.0.2.1:1001")
		synctest.Wait()
		if srv.streams.total != 3 {
			t.Errorf("%d streams open, want 3", srv.streams.total)
		}
		for _, c := range cancels {
			c()
		}
		wg.Wait()
		if srv.streams.total != 0 || len(srv.streams.byClient) != 0 {
			t.Errorf("all closed: %d streams counted (%v)", srv.streams.total, srv.streams.byClient)
		}
	})
}

// TestStreamLifetime ends a stream after Options.StreamLifetime, having
// told the page to open another (retry).
func TestStreamLifetime(t *testing.T) {
	fx := newFixture(t)
	synctest.Test(t, func(t *testing.T) {
		srv, err := New(fx.store, &Options{Lookup: lookup, Notifier: &Broadcaster{}, StreamLifetime: 30 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		rec, cancel, done := openStream(srv, fx.castles, "192.0.2.1:1000")
		defer cancel()
		time.Sleep(30*time.Minute - time.Second)
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("the stream ended before its lifetime")
		default:
		}
		time.Sleep(time.Second)
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("the stream outlived its lifetime")
		}
		body := rec.Body.String()
		if n := strings.Count(body, ": keep-alive"); !strings.HasPrefix(body, "retry: 1000\n\n") || !(119 <= n && n <= 120) {
			t.Errorf("stream = %.40q... with %d heartbeats, want retry and 119 or 120 (one each 15s)", body, strings.Count(body, ": keep-alive"))
		}
		if srv.streams.total != 0 {
			t.Errorf("%d streams counted after it ended", srv.streams.total)
		}
	})
}
