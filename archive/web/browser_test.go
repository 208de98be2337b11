package web

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"pbem/archive"
	"pbem/archive/web/browsertest"
	"pbem/engine"
	"pbem/notation"
)

// browser starts the headless Chromium the browser tests share.
func browser(t *testing.T) context.Context { return browsertest.Start(t) }

// artifactDir is where the screenshots go (browsertest.ArtifactDir).
func artifactDir(t *testing.T) string { return browsertest.ArtifactDir(t) }

// waitPly waits until the page shows ply (after a navigation or a live
// update) and its document is complete.
func waitPly(t *testing.T, ctx context.Context, ply int) {
	t.Helper()
	js := fmt.Sprintf(`document.readyState === "complete" && document.querySelector('.step[data-ply="%d"]') !== null`, ply)
	deadline := time.Now().Add(30 * time.Second)
	for {
		// a navigation destroys the page's context: evaluate again
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page does not show ply %d after 30s (last error: %v)", ply, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// boardPieces reads the board the page shows and the ply it says it shows.
func boardPieces(t *testing.T, ctx context.Context) (ply string, pieces []string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#board svg"))); err != nil {
		t.Fatal(err)
	}
	// the page's script (keys, live updates) runs once the document is
	// complete
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete"`)); err != nil {
		t.Fatal(err)
	}
	// and takes input once it has been painted
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	svg, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("#board svg")))
	if err != nil {
		t.Fatal(err)
	}
	attr, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(".step"), "data-ply"))
	if err != nil {
		t.Fatal(err)
	}
	ply = attr.Value
	_, _, pieces, err = svgFacts(svg)
	if err != nil {
		t.Fatalf("the board in the browser does not parse: %v", err)
	}
	slices.Sort(pieces)
	return ply, pieces
}

// wantPieces is what the board must show after ply plies of g.
func wantPieces(g *game, ply int) []string {
	want := layoutPieces(g.Checked.Lines[ply].State().(engine.Layouter).Layout(-1))
	slices.Sort(want)
	return want
}

// TestBrowser drives a headless Chromium over the pages: it steps through
// a game by link and by key and checks the board shown is the position at
// each ply, takes a screenshot of every game's board, and sees an open page
// update when a move is stored.
func TestBrowser(t *testing.T) {
	begin := time.Now()
	ctx := browser(t)
	t.Logf("chromium started in %.1fs", time.Since(begin).Seconds())
	fx := newFixture(t)
	// games of every kind and board, for the screenshots
	var recs strings.Builder
	for _, v := range variants {
		rec, _ := record(t, v.rules.ID(), v.opts, []notation.Tag{{Name: "Event", Value: "Screenshots"}, {Name: "Round", Value: v.name}}, 30, 21, false)
		recs.WriteString(rec)
	}
	if _, err := fx.store.ImportFile(context.Background(), "shots.pgn", []byte(recs.String()), lookup, nil); err != nil {
		t.Fatal(err)
	}
	poller := NewPoller(fx.store, time.Second, nil)
	pctx, pcancel := context.WithCancel(context.Background())
	go poller.Run(pctx)
	srv, err := New(fx.store, &Options{Lookup: lookup, Notifier: poller, Now: func() time.Time { return t0 },
		Private: func(g *archive.Game) bool { return g.ID == fx.private }})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv)
	// Open event streams end with pctx, so that Close does not wait for
	// them.
	hs.Config.BaseContext = func(net.Listener) context.Context { return pctx }
	hs.Start()
	defer hs.Close()
	defer pcancel()
	g, err := srv.loadRef(context.Background(), fx.castles)
	if err != nil {
		t.Fatal(err)
	}
	gameURL := fmt.Sprintf("%s/g/%d", hs.URL, fx.castles)

	check := func(step string, want int) {
		t.Helper()
		ply, got := boardPieces(t, ctx)
		if ply != fmt.Sprint(want) {
			t.Fatalf("%s: the page shows ply %s, want %d", step, ply, want)
		}
		if w := wantPieces(g, want); !slices.Equal(got, w) {
			t.Fatalf("%s: the board shows %v, want the position after %d plies: %v", step, got, want, w)
		}
	}
	// by link
	if err := chromedp.Do(ctx, chromedp.Navigate(gameURL+"?ply=2")); err != nil {
		t.Fatal(err)
	}
	check("open ?ply=2", 2)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`ol.moves li:nth-child(5) a`))); err != nil {
		t.Fatal(err)
	}
	waitPly(t, ctx, 5)
	check("click ply 5", 5)
	// by key
	for _, k := range []struct {
		key  string
		want int
	}{{kb.ArrowRight, 6}, {kb.ArrowRight, 7}, {kb.ArrowLeft, 6}, {kb.Home, 0}, {kb.ArrowRight, 1}, {kb.End, 9}} {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(k.key)); err != nil {
			t.Fatalf("key %q: %v", k.key, err)
		}
		waitPly(t, ctx, k.want)
		check(fmt.Sprintf("key %q", k.key), k.want)
	}

	// screenshots of every game's board
	dir := artifactDir(t)
	found := map[string]string{}
	err = fx.store.Query(context.Background(), lookup, archive.Filter{Event: "Screenshots"}, func(fd *archive.Found) error {
		found[fd.Round] = fmt.Sprintf("%s/a/%d", hs.URL, fd.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		if err := chromedp.Do(ctx, chromedp.Navigate(found[v.name])); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#board svg")))
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if len(png) < 1000 {
			t.Errorf("%s: the screenshot has %d bytes", v.name, len(png))
		}
		if err := os.WriteFile(filepath.Join(dir, v.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s (%.1fs into the test)", dir, time.Since(begin).Seconds())

	// live: the open page of the last position shows a move once it is
	// stored
	if err := chromedp.Do(ctx, chromedp.Navigate(gameURL)); err != nil {
		t.Fatal(err)
	}
	check("open the game", 9)
	time.Sleep(500 * time.Millisecond) // let the event stream connect
	rec, _ := record(t, "castles", engine.Options{}, tagsOf(g.Ref.Seats, "Autumn Cup"), 10, 1, false)
	ref, err := fx.store.Game(context.Background(), fx.castles)
	if err != nil {
		t.Fatal(err)
	}
	ref.Record = rec
	stored := time.Now()
	if err := fx.store.Commit(context.Background(), &archive.Change{At: stored, Games: []*archive.Game{ref}}); err != nil {
		t.Fatal(err)
	}
	waitPly(t, ctx, 10)
	t.Logf("the open page showed the stored move %.2fs after it was committed", time.Since(stored).Seconds())
	if g, err = srv.loadRef(context.Background(), fx.castles); err != nil {
		t.Fatal(err)
	}
	check("live update", 10)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "game-page-live.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
