package web

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/notation"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata")

func get(t *testing.T, h http.Handler, path string) (int, string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body), rec.Result().Header
}

// TestPagesGolden renders every kind of page over the fixture and compares
// it with its golden copy (go test -update rewrites them).
func TestPagesGolden(t *testing.T) {
	fx := newFixture(t)
	for _, tc := range []struct{ name, path string }{
		{"index", "/"},
		{"game-castles", fmt.Sprintf("/g/%d", fx.castles)},
		{"game-castles-ply2", fmt.Sprintf("/g/%d?ply=2", fx.castles)},
		{"game-ziggurat-over", fmt.Sprintf("/g/%d", fx.ziggurat)},
		{"game-rpp", fmt.Sprintf("/g/%d", fx.rpp)},
		{"game-invited", fmt.Sprintf("/g/%d", fx.invited)},
		{"entry-elevation", fmt.Sprintf("/a/%d", fx.entry)},
		{"record-castles", fmt.Sprintf("/g/%d.pgn", fx.castles)},
		{"archive", "/archive"},
		{"archive-search", "/archive?player=alice&game=ziggurat"},
		{"archive-bad-date", "/archive?since=yesterday"},
		{"event", "/events/Autumn%20Cup"},
		{"ratings-index", "/ratings"},
		{"ratings", "/ratings/ziggurat"},
		{"player", "/players/Alice"},
		{"explore", "/explore/ziggurat"},
		{"archive-position", "/archive?position=qdwwdq%2F6%2F6%2F6%2F6%2FQDWWDQ+QDWqdw+-+S+0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := get(t, fx.srv, tc.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d %s", tc.path, code, body)
			}
			if strings.Contains(body, "@example.org") {
				t.Errorf("GET %s shows an address", tc.path)
			}
			ext := ".html"
			if strings.HasSuffix(tc.path, ".pgn") {
				ext = ".pgn"
			}
			file := filepath.Join("testdata", tc.name+ext)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if body != string(want) {
				t.Errorf("GET %s differs from %s (go test -update rewrites it); got:\n%s", tc.path, file, body)
			}
		})
	}
}

var svgRE = regexp.MustCompile(`(?s)<svg .*?</svg>`)
var plyLinkRE = regexp.MustCompile(`href="(/g/\d+(?:\?ply=(\d+))?)"`)

// TestGamePageShowsEveryPly: every ply of a game is a link, and the page
// at each ply draws the position after that many plies.
func TestGamePageShowsEveryPly(t *testing.T) {
	fx := newFixture(t)
	for _, id := range []int64{fx.castles, fx.ziggurat, fx.rpp} {
		g, err := fx.srv.loadRef(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		last := g.plies()
		if last < 5 {
			t.Fatalf("game %d has %d plies; the fixture should play more", id, last)
		}
		for ply := 0; ply <= last; ply++ {
			path := fmt.Sprintf("/g/%d?ply=%d", id, ply)
			code, body, _ := get(t, fx.srv, path)
			if code != 200 {
				t.Fatalf("GET %s = %d", path, code)
			}
			if len(body) > 100_000 {
				t.Errorf("GET %s is %d bytes, want under 100 KB", path, len(body))
			}
			links := 0
			for _, m := range plyLinkRE.FindAllStringSubmatch(body, -1) {
				if strings.HasPrefix(m[1], fmt.Sprintf("/g/%d", id)) {
					links++
				}
			}
			// one link per ply, plus the step links
			if links < last {
				t.Errorf("GET %s has %d links to plies, want at least %d", path, links, last)
			}
			svg := svgRE.FindString(body)
			_, _, got, err := svgFacts(svg)
			if err != nil {
				t.Fatalf("GET %s: the board does not parse: %v", path, err)
			}
			want := layoutPieces(g.Checked.Lines[ply].State().(engine.Layouter).Layout(-1))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("GET %s draws %v, want the position after ply %d: %v", path, got, ply, want)
			}
			if !strings.Contains(body, fmt.Sprintf(`data-ply="%d"`, ply)) {
				t.Errorf("GET %s does not say it shows ply %d", path, ply)
			}
		}
	}
}

// TestGamePagesOfEveryBoardAreSmall: the longest game page of every game and
// board (a long game on the largest board) stays under 100 KB.
func TestGamePagesOfEveryBoardAreSmall(t *testing.T) {
	fx := newFixture(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			rec, _ := record(t, v.rules.ID(), v.opts, nil, 300, 9, false)
			recs, _ := notation.Parse("x", []byte(rec))
			cg, problems := notation.Check(recs[0], lookup)
			if cg == nil {
				t.Fatal(problems)
			}
			g := &game{Path: "/a/1", Record: rec, Checked: cg}
			var b strings.Builder
			if err := pages.ExecuteTemplate(&b, "game", fx.srv.gameView(g, -1, linker{})); err != nil {
				t.Fatal(err)
			}
			if b.Len() > 100_000 {
				t.Errorf("the page of a %d-ply %s game is %d bytes, want under 100 KB", g.plies(), v.name, b.Len())
			}
			t.Logf("%d plies: %d bytes", g.plies(), b.Len())
		})
	}
}

// TestPrivateGamesAreHidden: a private game has no page, no record and no
// event stream, and no list names it.
func TestPrivateGamesAreHidden(t *testing.T) {
	fx := newFixture(t)
	for _, p := range []string{"/g/%d", "/g/%d.pgn", "/g/%d/events", "/g/%d?ply=1"} {
		path := fmt.Sprintf(p, fx.private)
		if code, _, _ := get(t, fx.srv, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, code)
		}
	}
	for _, path := range []string{"/", "/archive", "/players/Bob"} {
		_, body, _ := get(t, fx.srv, path)
		if strings.Contains(body, "Mallory") || strings.Contains(body, fmt.Sprintf("/g/%d\"", fx.private)) {
			t.Errorf("GET %s lists the private game", path)
		}
	}
	if code, _, _ := get(t, fx.srv, "/players/Mallory"); code != http.StatusNotFound {
		t.Errorf("GET /players/Mallory = %d, want 404: the player has only a private game", code)
	}
}

func TestBadRequests(t *testing.T) {
	fx := newFixture(t)
	for _, tc := range []struct {
		path string
		code int
	}{
		{fmt.Sprintf("/g/%d?ply=x", fx.castles), 400},
		{fmt.Sprintf("/g/%d?ply=-1", fx.castles), 400},
		{"/g/999", 404},
		{"/g/abc", 404},
		{"/g/0", 404},
		{"/a/999", 404},
		{"/events/Nothing", 404},
		{"/ratings/chess", 404},
		{"/players/nobody", 404},
		{"/players/x@example.org", 404},
		{"/nowhere", 404},
	} {
		if code, body, _ := get(t, fx.srv, tc.path); code != tc.code {
			t.Errorf("GET %s = %d %q, want %d", tc.path, code, body, tc.code)
		}
	}
	// a ply beyond the end shows the last position
	_, body, _ := get(t, fx.srv, fmt.Sprintf("/g/%d?ply=999", fx.castles))
	if !strings.Contains(body, `data-ply="9"`) {
		t.Errorf("ply 999 of a 9-ply game does not show ply 9")
	}
}

func TestPublicName(t *testing.T) {
	for in, want := range map[string]string{
		"Alice <alice@example.org>":        "Alice",
		`"Bob B." <bob@example.org>`:       "Bob B.",
		"carol@example.org":                "carol",
		"<dan@example.org>":                "dan",
		"  Eve   Smith ":                   "Eve Smith",
		"?":                                "anonymous",
		"":                                 "anonymous",
		"Name with @ sign <x@example.org>": "x",
	} {
		if got := PublicName(in); got != want {
			t.Errorf("PublicName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGameURL(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"", ""},
		{"https://games.example.org", "https://games.example.org/g/42"},
		{"https://example.org/pbem/", "https://example.org/pbem/g/42"},
	} {
		if got := GameURL(tc.base, 42); got != tc.want {
			t.Errorf("GameURL(%q, 42) = %q, want %q", tc.base, got, tc.want)
		}
	}
}
