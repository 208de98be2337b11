package web

import (
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"pbem/archive"
)

// atomDoc is an Atom document as a reader sees it: every element a test
// checks, in the Atom namespace only.
type atomDoc struct {
	XMLName xml.Name
	ID      []string      `xml:"http://www.w3.org/2005/Atom id"`
	Title   []string      `xml:"http://www.w3.org/2005/Atom title"`
	Updated []string      `xml:"http://www.w3.org/2005/Atom updated"`
	Authors []atomDocName `xml:"http://www.w3.org/2005/Atom author"`
	Links   []atomDocLink `xml:"http://www.w3.org/2005/Atom link"`
	Entries []atomDocItem `xml:"http://www.w3.org/2005/Atom entry"`
}

type atomDocName struct {
	Name string `xml:"http://www.w3.org/2005/Atom name"`
}

type atomDocLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr"`
	Href string `xml:"href,attr"`
}

type atomDocItem struct {
	ID      []string      `xml:"http://www.w3.org/2005/Atom id"`
	Title   []string      `xml:"http://www.w3.org/2005/Atom title"`
	Updated []string      `xml:"http://www.w3.org/2005/Atom updated"`
	Authors []atomDocName `xml:"http://www.w3.org/2005/Atom author"`
	Links   []atomDocLink `xml:"http://www.w3.org/2005/Atom link"`
	Content struct {
		Type string `xml:"type,attr"`
		Text string `xml:",chardata"`
	} `xml:"http://www.w3.org/2005/Atom content"`
}

// iriRE is an absolute IRI as atom:id needs (RFC 4287 4.2.6).
var iriRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$`)

// checkAtom parses an Atom feed and checks what RFC 4287 requires of it
// (4.1.1, 4.1.2): one id (an absolute IRI), title and updated (a date as
// RFC 3339 writes it) on the feed and on each entry, an author on the
// feed or on every entry, an alternate link on each entry (it has no
// content with a src, so needs one). It returns the document.
func checkAtom(t *testing.T, path, body string) *atomDoc {
	t.Helper()
	var d atomDoc
	if err := xml.Unmarshal([]byte(body), &d); err != nil {
		t.Fatalf("GET %s: the feed is not XML: %v\n%s", path, err, body)
	}
	if d.XMLName.Space != "http://www.w3.org/2005/Atom" || d.XMLName.Local != "feed" {
		t.Fatalf("GET %s: the root is %v, want atom:feed", path, d.XMLName)
	}
	one := func(what string, vals []string) string {
		t.Helper()
		if len(vals) != 1 || strings.TrimSpace(vals[0]) == "" {
			t.Errorf("GET %s: %s is %q, want exactly one non-empty", path, what, vals)
			return ""
		}
		return vals[0]
	}
	date := func(what string, vals []string) {
		t.Helper()
		if v := one(what, vals); v != "" {
			if _, err := time.Parse(time.RFC3339, v); err != nil {
				t.Errorf("GET %s: %s %q is not an RFC 3339 date: %v", path, what, v, err)
			}
		}
	}
	id := func(what string, vals []string) string {
		t.Helper()
		v := one(what, vals)
		if v != "" && !iriRE.MatchString(v) {
			t.Errorf("GET %s: %s %q is not an absolute IRI", path, what, v)
		}
		return v
	}
	id("feed id", d.ID)
	one("feed title", d.Title)
	date("feed updated", d.Updated)
	self := false
	for _, l := range d.Links {
		self = self || l.Rel == "self" && strings.HasSuffix(l.Href, path)
	}
	if !self {
		t.Errorf("GET %s: no link rel=self to the feed: %+v", path, d.Links)
	}
	feedAuthor := len(d.Authors) > 0 && d.Authors[0].Name != ""
	ids := map[string]bool{}
	for i, e := range d.Entries {
		what := fmt.Sprintf("entry %d", i+1)
		if v := id(what+" id", e.ID); ids[v] {
			t.Errorf("GET %s: %s repeats the id %s", path, what, v)
		} else {
			ids[v] = true
		}
		one(what+" title", e.Title)
		date(what+" updated", e.Updated)
		if !feedAuthor && (len(e.Authors) == 0 || e.Authors[0].Name == "") {
			t.Errorf("GET %s: %s has no author and neither has the feed", path, what)
		}
		alt := false
		for _, l := range e.Links {
			alt = alt || (l.Rel == "alternate" || l.Rel == "") && iriRE.MatchString(l.Href)
		}
		if !alt {
			t.Errorf("GET %s: %s has no link rel=alternate: %+v", path, what, e.Links)
		}
	}
	return &d
}

// feed gets a feed, which must be served as Atom.
func feed(t *testing.T, h http.Handler, path string) *atomDoc {
	t.Helper()
	code, body, hdr := get(t, h, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200:\n%s", path, code, body)
	}
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
		t.Errorf("GET %s: Content-Type %q, want application/atom+xml", path, ct)
	}
	return checkAtom(t, path, body)
}

// TestFeeds: the front page, an event and a public player have Atom feeds
// of their finished games, each with its players, result and final board,
// and their pages link them.
func TestFeeds(t *testing.T) {
	fx := newFixture(t)
	zig := fmt.Sprintf("http://example.com/g/%d", fx.ziggurat)
	spring := fmt.Sprintf("http://example.com/a/%d", fx.entry)
	for _, tc := range []struct {
		page, feed string
		want       []string // entry ids, newest first
		title      string
	}{
		{"/", "/feed.atom", []string{zig}, "pbem: finished games"},
		{"/events/Autumn%20Cup", "/events/Autumn%20Cup/feed.atom", []string{zig}, "pbem: Event Autumn Cup"},
		{"/events/Spring%20Cup", "/events/Spring%20Cup/feed.atom", []string{spring}, "pbem: Event Spring Cup"},
		{"/players/Alice", "/players/Alice/feed.atom", []string{zig}, "pbem: Player Alice"},
		{"/players/Dan", "/players/Dan/feed.atom", []string{spring}, "pbem: Player Dan"},
	} {
		t.Run(tc.feed, func(t *testing.T) {
			d := feed(t, fx.srv, tc.feed)
			if d.Title[0] != tc.title {
				t.Errorf("title %q, want %q", d.Title[0], tc.title)
			}
			var got []string
			for _, e := range d.Entries {
				got = append(got, e.ID[0])
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("entries %q, want %q", got, tc.want)
			}
			_, page, _ := get(t, fx.srv, tc.page)
			link := `<link rel="alternate" type="application/atom+xml"`
			if !strings.Contains(page, link) || !strings.Contains(page, `href="`+tc.feed+`"`) {
				t.Errorf("the page %s does not link its feed %s", tc.page, tc.feed)
			}
		})
	}
	d := feed(t, fx.srv, "/events/Autumn%20Cup/feed.atom")
	e := d.Entries[0]
	if got := e.Title[0]; !strings.Contains(got, "Bob v Alice") || !strings.Contains(got, "ziggurat") {
		t.Errorf("entry title %q, want the game and its players", got)
	}
	if len(e.Authors) != 2 || e.Authors[0].Name != "Bob" || e.Authors[1].Name != "Alice" {
		t.Errorf("entry authors %+v, want Bob and Alice", e.Authors)
	}
	g, err := fx.store.Game(t.Context(), fx.ziggurat)
	if err != nil {
		t.Fatal(err)
	}
	gv := &game{Ref: g, Record: g.Record}
	fx.srv.check(gv)
	board := gv.Checked.Lines[gv.plies()].State().Render(-1)
	if e.Content.Type != "html" || !strings.Contains(e.Content.Text, "<pre>"+html.EscapeString(board)+"</pre>") {
		t.Errorf("the entry's content does not show the final board\n%s\nwant\n%s", e.Content.Text, board)
	}
	if !strings.Contains(e.Content.Text, gv.Checked.Record.Result) {
		t.Errorf("the entry's content does not give the result %s:\n%s", gv.Checked.Record.Result, e.Content.Text)
	}
	for _, path := range []string{"/events/Nothing/feed.atom", "/players/Nobody/feed.atom", "/players/p0@example.org/feed.atom", "/players/Eve/feed.atom"} {
		if code, _, _ := get(t, fx.srv, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404 (no finished game, or no public name)", path, code)
		}
	}
}

// TestFeedBaseURL: the ids and links of a feed use Options.BaseURL when
// set.
func TestFeedBaseURL(t *testing.T) {
	fx := newFixture(t)
	srv, err := New(fx.store, &Options{Lookup: lookup, BaseURL: "https://pbem.example.org/", Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	d := feed(t, srv, "/feed.atom")
	if d.ID[0] != "https://pbem.example.org/feed.atom" {
		t.Errorf("feed id %q, want https://pbem.example.org/feed.atom", d.ID[0])
	}
	if want := fmt.Sprintf("https://pbem.example.org/g/%d", fx.ziggurat); len(d.Entries) != 1 || d.Entries[0].ID[0] != want {
		t.Errorf("entries %+v, want one of id %s", d.Entries, want)
	}
}

// TestPrivateGamesInNoFeed: a finished private game, even of a public
// event, is in no feed, and a player of private games only has none.
func TestPrivateGamesInNoFeed(t *testing.T) {
	fx := newFixture(t)
	g := addGame(t, fx.store, archive.Over, archive.GameOptions{Private: true}, "Autumn Cup", "", "Oscar", "Trent")
	alone := addGame(t, fx.store, archive.Over, archive.GameOptions{Private: true}, "", "", "Oscar", "Trent")
	srv := privateServer(t, fx)
	for _, path := range []string{"/players/Oscar/feed.atom", "/players/Trent/feed.atom",
		"/events/" + url.PathEscape(fmt.Sprintf("pbem game #%d", alone.ID)) + "/feed.atom"} {
		if code, body, _ := get(t, srv, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404 for a private game's player or event:\n%s", path, code, body)
		}
	}
	for _, path := range []string{"/feed.atom", "/events/Autumn%20Cup/feed.atom", "/players/Alice/feed.atom"} {
		d := feed(t, srv, path)
		for _, e := range d.Entries {
			for _, id := range []int64{g.ID, alone.ID} {
				if strings.HasSuffix(e.ID[0], fmt.Sprintf("/g/%d", id)) {
					t.Errorf("GET %s lists the private game %d", path, id)
				}
			}
			if strings.Contains(e.Title[0], "Oscar") || strings.Contains(e.Content.Text, "Trent") {
				t.Errorf("GET %s names a player of a private game: %s", path, e.Title[0])
			}
		}
		if len(d.Entries) == 0 {
			t.Errorf("GET %s has no entry; want the public ziggurat game", path)
		}
	}
}
