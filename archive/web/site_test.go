package web

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

var hrefRE = regexp.MustCompile(`(?:href|action)="([^"]*)"`)

// TestWriteSite writes the fixture as a static site and follows every
// link of every page: each leads to a file of the site (relative links
// only), no page shows an address, and the private game is not there.
func TestWriteSite(t *testing.T) {
	fx := newFixture(t)
	for _, plies := range []bool{true, false} {
		t.Run(fmt.Sprintf("plies=%v", plies), func(t *testing.T) { testWriteSite(t, fx, plies) })
	}
}

func testWriteSite(t *testing.T, fx *fixture, plies bool) {
	dir := t.TempDir()
	st, err := fx.srv.WriteSite(context.Background(), dir, &SiteOptions{Plies: plies})
	if err != nil {
		t.Fatal(err)
	}
	if st.Games != 5 {
		t.Errorf("wrote %d games, want 5 (castles, ziggurat, rpp, the invitation, the import)", st.Games)
	}
	files := checkSite(t, dir, fx)
	if len(files) != st.Pages {
		t.Errorf("stats say %d files, the directory holds %d", st.Pages, len(files))
	}
	for _, want := range []string{"index.html", "archive.html", "ratings.html", "ratings/castles.html",
		fmt.Sprintf("g/%d.html", fx.castles), fmt.Sprintf("g/%d.pgn", fx.castles),
		fmt.Sprintf("g/%d.html", fx.ziggurat), fmt.Sprintf("a/%d.html", fx.entry),
		"events/Autumn_Cup.html", "events/Spring_Cup.html", "players/Alice.html", "players/Dan.html"} {
		if !files[want] {
			t.Errorf("the site lacks %s", want)
		}
	}
	for _, ply := range []string{fmt.Sprintf("g/%d/0.html", fx.castles), fmt.Sprintf("a/%d/3.html", fx.entry)} {
		if files[ply] != plies {
			t.Errorf("the site has %s: %v, want %v", ply, files[ply], plies)
		}
	}
}

// checkSite reads every file of a static site and follows every link of
// every page: each leads to a file of the site (relative links only), no
// page shows an address, the private game is not there, and no page has a
// form or a live stream. It returns the site's files.
func checkSite(t *testing.T, dir string, fx *fixture) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		body := string(data)
		if strings.Contains(body, "@example.org") {
			t.Errorf("%s shows an address", f)
		}
		if strings.Contains(body, "Mallory") || strings.Contains(f, fmt.Sprintf("g/%d", fx.private)) {
			t.Errorf("%s is or shows the private game", f)
		}
		if !strings.HasSuffix(f, ".html") {
			continue
		}
		if strings.Contains(body, "<form") || strings.Contains(body, "data-live") {
			t.Errorf("%s has a form or a live stream, which a static site cannot serve", f)
		}
		for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
			link := m[1]
			if strings.HasPrefix(link, "/") || strings.Contains(link, "://") {
				t.Errorf("%s links to %q, want a relative link", f, link)
				continue
			}
			target := path.Join(path.Dir(f), link)
			if !files[target] {
				t.Errorf("%s links to %q (%s), which the site lacks", f, link, target)
			}
		}
	}
	return files
}

// TestWriteSiteSelects writes the games of one event only.
func TestWriteSiteSelects(t *testing.T) {
	fx := newFixture(t)
	dir := t.TempDir()
	st, err := fx.srv.WriteSite(context.Background(), dir, &SiteOptions{Events: []string{"spring cup"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Games != 1 {
		t.Errorf("wrote %d games, want the one game of the Spring Cup", st.Games)
	}
	checkSite(t, dir, fx)
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("a/%d.html", fx.entry))); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("a/%d/0.html", fx.entry))); err == nil {
		t.Error("a page per ply was written without Plies")
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("g/%d.html", fx.castles))); err == nil {
		t.Error("a game of another event was written")
	}
}

// importGames archives n games of random play (one record file).
func importGames(tb testing.TB, store *archive.Store, n int) {
	tb.Helper()
	var b strings.Builder
	ids := []string{"castles", "ziggurat", "elevation", "ziggurat43", "rpp"}
	for i := range n {
		id := ids[i%len(ids)]
		o := engine.Options{}
		if id == "rpp" {
			o.Players = 2 + i%3
		}
		tags := []notation.Tag{{Name: "Event", Value: fmt.Sprintf("League %d", i%20)}, {Name: "Date", Value: "2026.05.01"}}
		c, _ := lookup(id)
		sides, _ := c.Rules().Sides(o)
		for j, sd := range sides {
			tags = append(tags, notation.Tag{Name: sd, Value: fmt.Sprintf("Player %d", (i*7+j*13)%60)})
		}
		rec, _ := record(tb, id, o, tags, 40, uint64(i), true)
		b.WriteString(rec)
	}
	if _, err := store.ImportFile(context.Background(), "many.pgn", []byte(b.String()), lookup, nil); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkWriteSite writes a static site of 200 archived games (40 plies
// each, 60 players, 20 events) per iteration, with one page per game or a
// page per ply; games/s is the figure.
func BenchmarkWriteSite(b *testing.B) {
	for _, plies := range []bool{false, true} {
		b.Run(fmt.Sprintf("plies=%v", plies), func(b *testing.B) {
			fx := newFixture(b)
			importGames(b, fx.store, 200)
			b.ReportAllocs()
			games := 0
			for b.Loop() {
				st, err := fx.srv.WriteSite(context.Background(), b.TempDir(), &SiteOptions{Plies: plies})
				if err != nil {
					b.Fatal(err)
				}
				games += st.Games
			}
			b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
		})
	}
}
