package web

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pbem/archive"
	"pbem/engine"
)

// TestExplorePage: the explorer starts at the start of a game, lists the
// ply the archived game played with its count and result, links one ply
// deeper, and refuses a ply that does not play.
func TestExplorePage(t *testing.T) {
	fx := newFixture(t)
	es, err := fx.store.Entries(context.Background(), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var zig archive.Entry
	for _, e := range es {
		if e.Game == "ziggurat" {
			zig = e
		}
	}
	// The first two plies of the archived ziggurat game.
	plies := regexp.MustCompile(`\n1\. (\S+) (\S+)`).FindStringSubmatch(zig.Record)
	if plies == nil {
		t.Fatalf("no plies in %q", zig.Record)
	}
	code, body, _ := get(t, fx.srv, "/explore/ziggurat")
	if code != http.StatusOK {
		t.Fatalf("GET /explore/ziggurat = %d %s", code, body)
	}
	row := `<tr><td><a href="/explore/ziggurat?after=` + strings.ReplaceAll(plies[1], "@", "%40") + `">` + plies[1] + `</a></td><td>1</td>`
	for _, want := range []string{"<h1>Explorer: ziggurat</h1>", "<code>qdwwdq/6/6/6/6/QDWWDQ QDWqdw - S 0</code>", row, "<svg", "Results for South, the side to move."} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /explore/ziggurat lacks %q:\n%s", want, body)
		}
	}
	code, body, _ = get(t, fx.srv, "/explore/ziggurat?after="+plies[1])
	if code != http.StatusOK || !strings.Contains(body, ">"+plies[2]+"</a></td><td>1</td>") {
		t.Errorf("GET /explore/ziggurat?after=%s = %d, without the reply %s:\n%s", plies[1], code, plies[2], body)
	}
	code, body, _ = get(t, fx.srv, "/explore/ziggurat?after="+plies[1]+"+"+plies[2]+"+pass")
	if code == http.StatusOK && !strings.Contains(body, "No archived game plays on") {
		t.Errorf("a position no game reached: %s", body)
	}
	code, body, _ = get(t, fx.srv, "/explore/ziggurat?after=Qa1-a9")
	if code != http.StatusBadRequest || !strings.Contains(body, `ply 1 "Qa1-a9"`) {
		t.Errorf("GET /explore/ziggurat?after=Qa1-a9 = %d %s, want 400 naming the ply", code, body)
	}
	if code, _, _ := get(t, fx.srv, "/explore/chess"); code != http.StatusNotFound {
		t.Errorf("GET /explore/chess = %d, want 404", code)
	}
}

// TestPositionPagesAndExplorerFilters: a search by position pages on the
// archive page and in the API, the newest first, with the count of them
// all; the explorer narrows its counts to a player (by public name, never
// an address) and an event, and its links one ply deeper keep the filters.
// A private game is never counted nor shown.
func TestPositionPagesAndExplorerFilters(t *testing.T) {
	fx := newFixture(t)
	var public []string // the public castles games' ids, the newest first
	oscar := 0
	for i := range 5 {
		names, event := []string{"Oscar", "Trent"}, "Winter Cup"
		if i%2 == 1 {
			names, event = []string{"Uma", "Vic"}, "Summer Cup"
		} else {
			oscar++
		}
		g := addGame(t, fx.store, archive.Over, archive.GameOptions{}, event, "", names...)
		public = append([]string{fmt.Sprint(g.ID)}, public...)
	}
	addGame(t, fx.store, archive.Over, archive.GameOptions{Private: true}, "Winter Cup", "", "Pia", "Oscar")
	srv := privateServer(t, fx)
	start, err := archive.AfterPlies(lookup, "castles", engine.Options{}, "")
	if err != nil {
		t.Fatal(err)
	}

	// The API, by pages of two.
	var got []string
	next := "/api/v1/games?limit=2&position=" + url.QueryEscape(start)
	for pages := 0; next != ""; pages++ {
		if pages > 3 {
			t.Fatalf("more than 3 pages: %s", next)
		}
		code, body, _ := get(t, srv, next)
		var l APIGameList
		if err := json.Unmarshal([]byte(body), &l); code != http.StatusOK || err != nil {
			t.Fatalf("GET %s = %d %v %s", next, code, err, body)
		}
		if l.Total != 5 || l.More {
			t.Errorf("GET %s: total %d, more %v; want 5 games in all", next, l.Total, l.More)
		}
		for _, g := range l.Games {
			got = append(got, g.ID)
		}
		next = l.Next
	}
	if !slices.Equal(got, public) {
		t.Errorf("the API's pages list %q, want %q", got, public)
	}

	// The archive page, by pages of two.
	defer func(n int) { positionPageSize = n }(positionPageSize)
	positionPageSize = 2
	path := "/archive?position=" + url.QueryEscape(start)
	for _, tc := range []struct {
		page       string
		want, link []string
	}{
		{"", []string{"5 games through the position; 1 to 2 shown, the newest first.", `rel="next"`, "page=2"}, public[:2]},
		{"&page=2", []string{"3 to 4 shown", `rel="prev"`, `rel="next"`, "page=3"}, public[2:4]},
		{"&page=3", []string{"5 to 5 shown", `rel="prev"`}, public[4:]},
	} {
		code, body, _ := get(t, srv, path+tc.page)
		if code != http.StatusOK {
			t.Fatalf("GET %s%s = %d %s", path, tc.page, code, body)
		}
		for _, want := range tc.want {
			if !strings.Contains(body, want) {
				t.Errorf("GET %s%s lacks %q:\n%s", path, tc.page, want, body)
			}
		}
		for _, id := range tc.link {
			if !strings.Contains(body, `href="/g/`+id+`?ply=0"`) {
				t.Errorf("GET %s%s does not list game %s", path, tc.page, id)
			}
		}
		if tc.page == "&page=3" && strings.Contains(body, `rel="next"`) {
			t.Errorf("the last page links a next one")
		}
		if strings.Contains(body, "Pia") {
			t.Errorf("GET %s%s shows the private game", path, tc.page)
		}
	}
	if code, body, _ := get(t, srv, path+"&page=0"); code != http.StatusBadRequest || !strings.Contains(body, `page="0": expected a page from 1 to`) {
		t.Errorf("page=0: %d %s", code, body)
	}

	// The explorer counts the public games only, narrowed by the filters.
	rowRE := regexp.MustCompile(`<tr><td><a href="([^"]+)">[^<]+</a></td><td>([0-9]+)</td>`)
	explore := func(path string) (games int, links []string) {
		t.Helper()
		code, body, _ := get(t, srv, path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, code, body)
		}
		for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[2])
			games += n
			links = append(links, html.UnescapeString(m[1]))
		}
		return games, links
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"", 5},
		{"?player=oscar", oscar},
		{"?player=OSC", oscar},
		{"?player=uma", 5 - oscar},
		{"?player=pia", 0}, // private
		{"?player=p0", 0},  // an address is no name
		{"?event=summer+cup", 5 - oscar},
		{"?event=winter+cup&player=trent", oscar},
		{"?event=winter+cup&player=uma", 0},
	} {
		games, links := explore("/explore/castles" + tc.query)
		if games != tc.want {
			t.Errorf("GET /explore/castles%s counts %d games, want %d", tc.query, games, tc.want)
		}
		if tc.query == "" || games == 0 {
			continue
		}
		// One ply deeper keeps the filters, and counts within them.
		q, _ := url.ParseQuery(tc.query[1:])
		deeper := 0
		for _, l := range links {
			u, err := url.Parse(l)
			if err != nil || u.Query().Get("player") != q.Get("player") || u.Query().Get("event") != q.Get("event") || u.Query().Get("after") == "" {
				t.Errorf("the link %q from /explore/castles%s loses the filters", l, tc.query)
				continue
			}
			n, _ := explore(l)
			deeper += n
		}
		if deeper > games {
			t.Errorf("one ply deeper from /explore/castles%s counts %d games, more than %d", tc.query, deeper, games)
		}
	}
}
