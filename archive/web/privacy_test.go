package web

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

// addGame stores a referee game of castles between players (display
// names, addresses p0@example.org ...) with options o; an Over game is
// archived too. comment, when set, follows the first ply of its record.
func addGame(t *testing.T, store *archive.Store, status string, o archive.GameOptions, event, comment string, names ...string) *archive.Game {
	t.Helper()
	ctx := context.Background()
	id, err := store.NewGameID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := lookup("castles")
	sides, _ := c.Rules().Sides(engine.Options{})
	o.Days, o.Rated = 3, true
	if event == "" {
		event = fmt.Sprintf("pbem game #%d", id)
	}
	g := &archive.Game{ID: id, Game: "castles", Status: status, Seats: seats(sides, names...), Options: o,
		TurnStart: t0, Deadline: t0.Add(72 * time.Hour), Thread: fmt.Sprintf("t%d@x", id)}
	ch := &archive.Change{At: t0, Games: []*archive.Game{g}}
	if status != archive.Invited {
		rec, _ := record(t, "castles", engine.Options{}, tagsOf(g.Seats, event), 6, uint64(id), status == archive.Over)
		if comment != "" {
			rec = strings.Replace(rec, " 1. ", " {"+comment+"} 1. ", 1)
		}
		g.Record = rec
		if status == archive.Over {
			recs, _ := notation.Parse("x", []byte(rec))
			cg, problems := notation.Check(recs[0], lookup)
			if cg == nil {
				t.Fatalf("the record does not check: %v\n%s", problems, rec)
			}
			e := archive.EntryOf(cg, t0)
			e.GameID, e.Rated = id, true
			ch.Entries = []*archive.Entry{e}
		}
	}
	if err := store.Commit(ctx, ch); err != nil {
		t.Fatal(err)
	}
	return g
}

// privateServer is a server over the fixture's store that hides the
// games created private, as pbem serve wires it.
func privateServer(t *testing.T, fx *fixture) *Server {
	t.Helper()
	var ids []string
	for _, c := range catalog {
		ids = append(ids, c.Rules().ID())
	}
	srv, err := New(fx.store, &Options{Lookup: lookup, Games: ids, Now: func() time.Time { return t0 },
		Private: func(g *archive.Game) bool { return g.Options.Private || g.ID == fx.private }})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestPrivateGamesOnNoPage: a finished private game (of no event: its
// Event is "pbem game #N") is on no page: not its event's crosstable, not
// the ratings, not its players' pages, not the static site.
func TestPrivateGamesOnNoPage(t *testing.T) {
	fx := newFixture(t)
	g := addGame(t, fx.store, archive.Over, archive.GameOptions{Private: true}, "", "", "Oscar", "Trent")
	srv := privateServer(t, fx)
	event := "/events/" + url.PathEscape(fmt.Sprintf("pbem game #%d", g.ID))
	for _, path := range []string{event, "/players/Oscar", "/players/Trent", fmt.Sprintf("/g/%d", g.ID), fmt.Sprintf("/g/%d.pgn", g.ID)} {
		if code, body, _ := get(t, srv, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404 for a private game; got:\n%s", path, code, body)
		}
	}
	for _, path := range []string{"/ratings/castles", "/", "/archive", "/archive?player=oscar"} {
		if _, body, _ := get(t, srv, path); strings.Contains(body, "Oscar") || strings.Contains(body, "Trent") {
			t.Errorf("GET %s shows a player of the private game", path)
		}
	}
	dir := t.TempDir()
	if _, err := srv.WriteSite(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	checkSite(t, dir, fx)
	for _, f := range []string{"players/Trent.html", "players/Oscar.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the static site has %s, a player of a private game only", f)
		}
	}
}

// TestNoAddressInRecordsAndSearch: the records for download name players
// by public name in their comments too, the player search matches names
// and never addresses, and tournament sections never show an address
// that was given as a name.
func TestNoAddressInRecordsAndSearch(t *testing.T) {
	fx := newFixture(t)
	g := addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Autumn Cup", "carol@pbem.local (First) resigned; Carol <carol@pbem.local> wrote", "Carol", "Dan")
	imported := `[Game "castles"] [Event "Import"] [First "Erin"] [Second "Frank <frank@example.org>"] [Termination "resign"]
0... @c3 {frank@example.org: ask me at frank@example.org} 1. Ca1-b2 {Erin <erin@example.org>} 1-0
`
	if _, err := fx.store.ImportFile(context.Background(), "i.pgn", []byte(imported), lookup, func(ch *notation.Checked) {
		for _, p := range ch.Problems {
			t.Error(p)
		}
	}); err != nil {
		t.Fatal(err)
	}
	var entry int64
	if err := fx.store.Query(context.Background(), lookup, archive.Filter{Event: "Import"}, func(fd *archive.Found) error {
		entry = fd.ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fmt.Sprintf("/g/%d.pgn", g.ID), fmt.Sprintf("/a/%d.pgn", entry)} {
		code, body, _ := get(t, fx.srv, path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, code)
		}
		if strings.Contains(body, "@") && regexp.MustCompile(`[a-z]@[a-z]`).MatchString(body) {
			t.Errorf("GET %s shows an address:\n%s", path, body)
		}
	}
	_, body, _ := get(t, fx.srv, fmt.Sprintf("/g/%d.pgn", g.ID))
	if !strings.Contains(body, "{carol (First) resigned; Carol wrote}") {
		t.Errorf("the referee's comment does not name carol by public name:\n%s", body)
	}
	_, body, _ = get(t, fx.srv, fmt.Sprintf("/a/%d.pgn", entry))
	if !strings.Contains(body, "{frank: ask me at frank}") || !strings.Contains(body, "{Erin}") {
		t.Errorf("the imported comments keep an address or lose a name:\n%s", body)
	}

	// The player search: by name, never by address.
	for _, tc := range []struct {
		q    string
		want int
	}{{"example", 0}, {"example.org", 0}, {"p1@", 0}, {"@", 0}, {"frank", 1}, {"Fra", 1}, {"carol", 2}} {
		_, body, _ := get(t, fx.srv, "/archive?player="+url.QueryEscape(tc.q))
		if want := fmt.Sprintf("<p>%d games", tc.want); !strings.Contains(body, want) {
			t.Errorf("/archive?player=%s: want %q in:\n%s", tc.q, want, body)
		}
	}

	// Nor do the words of a search read an address.
	for _, q := range []string{"example.org", "frank@", "p0@example"} {
		_, body, _ := get(t, fx.srv, "/archive?q="+url.QueryEscape(q))
		if !strings.Contains(body, "<p>0 games") {
			t.Errorf("/archive?q=%s finds games by an address", q)
		}
	}

	// A tournament whose entrant gave an address as a name.
	fx.srv.opts.Tournaments = func(ctx context.Context, event string) ([]*TournamentView, error) {
		if event != "Winter Open" {
			return nil, nil
		}
		return []*TournamentView{
			{ID: 1, Name: "Winter Open", Game: "castles", Format: "round robin", Status: "entering", Joined: []string{"eve@example.org", "Eve <eve@example.org>"}},
			{ID: 2, Name: "Winter Open", Game: "castles", Format: "round robin", Status: "running", Rounds: 1,
				Standings: []TournamentStanding{{Rank: 1, Name: "mallory@example.org", Score: "1.0"}},
				Pairings:  []TournamentRound{{Number: 1, Games: []TournamentGame{{Board: 1, Players: []string{"mallory@example.org", "Trent"}}}, Byes: []string{"peggy@example.org"}}}},
		}, nil
	}
	code, body, _ := get(t, fx.srv, "/events/Winter%20Open")
	if code != http.StatusOK {
		t.Fatalf("GET /events/Winter Open = %d", code)
	}
	if strings.Contains(body, "@example.org") {
		t.Errorf("the tournament section shows an address:\n%s", body)
	}
	for _, want := range []string{"eve", "mallory", "peggy"} {
		if !strings.Contains(body, want) {
			t.Errorf("the tournament section lacks %q", want)
		}
	}
}

// TestUnconfirmedRequestsAreNotShown: a game its inviter has not
// confirmed is not on the front page and has no page.
func TestUnconfirmedRequestsAreNotShown(t *testing.T) {
	fx := newFixture(t)
	g := addGame(t, fx.store, archive.Invited, archive.GameOptions{Inviter: "p0@example.org", Event: "Buy cheap pills"}, "", "", "Oscar", "Victor")
	g.Seats[0].Joined = false
	ref, err := fx.store.Game(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	ref.Seats[0].Joined = false
	if err := fx.store.Commit(context.Background(), &archive.Change{At: t0, Games: []*archive.Game{ref}}); err != nil {
		t.Fatal(err)
	}
	_, body, _ := get(t, fx.srv, "/")
	for _, s := range []string{"Oscar", "Victor", "pills", fmt.Sprintf("/g/%d", g.ID)} {
		if strings.Contains(body, s) {
			t.Errorf("the front page shows %q of an unconfirmed request", s)
		}
	}
	for _, path := range []string{fmt.Sprintf("/g/%d", g.ID), "/players/Victor"} {
		if code, _, _ := get(t, fx.srv, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, code)
		}
	}
	// Confirmed, it is shown.
	ref.Seats[0].Joined = true
	if err := fx.store.Commit(context.Background(), &archive.Change{At: t0, Games: []*archive.Game{ref}}); err != nil {
		t.Fatal(err)
	}
	if _, body, _ := get(t, fx.srv, "/"); !strings.Contains(body, "Victor") {
		t.Errorf("the front page lacks a confirmed invitation")
	}
}

// TestSiteFileNames: a long name, and names that differ only in letters
// a file name cannot hold, each get a page of their own, linked the same
// from every page.
func TestSiteFileNames(t *testing.T) {
	fx := newFixture(t)
	long := strings.Repeat("Bartholomew ", 30) + "Jr"
	addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Autumn Cup", "", long, "Jörg")
	addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Autumn Cup", "", "Jürg", "Jörg")
	addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Autumn_Cup", "", "Autumn Cup", "Jürg")
	dir := t.TempDir()
	if _, err := fx.srv.WriteSite(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	files := checkSite(t, dir, fx)
	pages := map[string]string{}
	for _, name := range []string{long, "Jörg", "Jürg", "Autumn Cup"} {
		f := "players/" + fileSlug(name) + ".html"
		if !files[f] {
			t.Errorf("the site lacks %s, the page of %.20q", f, name)
			continue
		}
		if other, ok := pages[f]; ok {
			t.Errorf("%q and %q share %s", name, other, f)
		}
		pages[f] = name
		data, _ := os.ReadFile(filepath.Join(dir, f))
		if !strings.Contains(string(data), "<h1>"+name+"</h1>") {
			t.Errorf("%s is not the page of %.20q", f, name)
		}
	}
	if a, b := fileSlug("Autumn Cup"), fileSlug("Autumn_Cup"); a == b {
		t.Errorf("fileSlug: two events share %s", a)
	}
	for _, f := range []string{"events/" + fileSlug("Autumn Cup") + ".html", "events/" + fileSlug("Autumn_Cup") + ".html"} {
		if !files[f] {
			t.Errorf("the site lacks %s", f)
		}
	}
	if n := len(fileSlug(long)); n > 64 {
		t.Errorf("fileSlug of a long name has %d bytes", n)
	}
}

// TestNamesNormalised: a display name with bidirectional controls or
// full-width letters is shown in its plain form, and is one player with
// the name written plainly.
func TestNamesNormalised(t *testing.T) {
	fx := newFixture(t)
	addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Autumn Cup", "", "Ali\u202ece\u202c", "Ｂｏｂ")
	g := addGame(t, fx.store, archive.Playing, archive.GameOptions{Event: "Spring\u202e Cup"}, "Spring\u202e Cup", "", "Alice", "Bob")
	for _, path := range []string{"/", "/archive", "/events/Autumn%20Cup", "/ratings/castles", "/players/Alice", "/players/Bob",
		fmt.Sprintf("/g/%d", g.ID)} {
		code, body, _ := get(t, fx.srv, path)
		if code != http.StatusOK {
			t.Errorf("GET %s = %d", path, code)
		}
		if strings.ContainsAny(body, "\u202e\u202cＢ") {
			t.Errorf("GET %s shows a bidi control or a full-width letter", path)
		}
	}
	_, body, _ := get(t, fx.srv, "/players/Bob")
	if n := strings.Count(body, "<a href=\"/g/"); n < 2 {
		t.Errorf("/players/Bob lists %d games, want Bob's and Ｂｏｂ's", n)
	}
	if code, _, _ := get(t, fx.srv, "/players/"+url.PathEscape("Ｂｏｂ")); code != http.StatusNotFound {
		t.Errorf("the full-width spelling has a page of its own")
	}
}

var scriptRE = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// TestContentSecurityPolicy: the pages allow no inline script but their
// own, by its hash.
func TestContentSecurityPolicy(t *testing.T) {
	fx := newFixture(t)
	_, body, h := get(t, fx.srv, fmt.Sprintf("/g/%d", fx.castles))
	csp := h.Get("Content-Security-Policy")
	var script string
	for _, d := range strings.Split(csp, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == "script-src" {
			script = d
		}
	}
	if script == "" || strings.Contains(script, "unsafe-inline") {
		t.Fatalf("script-src %q: want the hash of the page's script, no 'unsafe-inline'", script)
	}
	ms := scriptRE.FindAllStringSubmatch(body, -1)
	if len(ms) != 1 {
		t.Fatalf("the page has %d scripts, want 1", len(ms))
	}
	sum := sha256.Sum256([]byte(ms[0][1]))
	if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(script, want) {
		t.Errorf("script-src %q lacks the page script's hash %s", script, want)
	}
}

// TestStaticSitePolicy: a static site's pages carry the policy in a meta
// element, for hosts that send no header.
func TestStaticSitePolicy(t *testing.T) {
	fx := newFixture(t)
	dir := t.TempDir()
	if _, err := fx.srv.WriteSite(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("g/%d.html", fx.castles)))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(string(data))
	if m == nil || html.UnescapeString(m[1]) != contentSecurityPolicy {
		t.Errorf("the static game page lacks the policy %q in a meta element:\n%.600s", contentSecurityPolicy, data)
	}
}

// TestPublicRecordUnchecked: a record that cannot be checked is given
// with the addresses of its tags and comments hidden and its moves as
// written (a drop "@c3" is no address).
func TestPublicRecordUnchecked(t *testing.T) {
	rec := `[Game "castles"]
[First "Ann <ann@example.org>"]
[Second "bo@example.org"]

0... @c3 {ann@example.org: hi; see
Bo <bo@example.org>} 1. Ca1-c3 ; mail me at ann@example.org
2. X@d4 *
`
	g := &game{Record: rec}
	got := g.PublicRecord()
	want := `[Game "castles"]
[First "Ann"]
[Second "bo"]

0... @c3 {ann: hi; see Bo} 1. Ca1-c3 ;mail me at ann
2. X@d4 *
`
	if got != want {
		t.Errorf("PublicRecord() =\n%s\nwant\n%s", got, want)
	}
}

// TestConditionsOnNoPage: a seat's conditional lines, stored with its
// game, are on no page, record or stream, neither while the game is
// played nor in the static site.
func TestConditionsOnNoPage(t *testing.T) {
	fx := newFixture(t)
	g := addGame(t, fx.store, archive.Playing, archive.GameOptions{}, "Winter Cup", "", "Quinn", "Rita")
	const secret = "Cz9-zz9secret"
	g.Conditions = []archive.Conditions{{Seat: 1, Base: 6, Lines: [][]string{{"Ca1-b2", secret}}}}
	stored, err := fx.store.Game(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored.Conditions = g.Conditions
	if err := fx.store.Commit(context.Background(), &archive.Change{At: t0, Games: []*archive.Game{stored}}); err != nil {
		t.Fatal(err)
	}
	if back, err := fx.store.Game(context.Background(), g.ID); err != nil || len(back.Conditions) != 1 {
		t.Fatalf("the store did not keep the conditions: %+v, %v", back, err)
	}
	for _, path := range []string{fmt.Sprintf("/g/%d", g.ID), fmt.Sprintf("/g/%d.pgn", g.ID), "/", "/archive", "/players/Rita"} {
		code, body, _ := get(t, fx.srv, path)
		if code != http.StatusOK {
			t.Errorf("GET %s = %d", path, code)
		}
		if strings.Contains(body, secret) || strings.Contains(body, "zz9") {
			t.Errorf("GET %s shows a conditional line", path)
		}
	}
	rec, cancel, done := openStream(fx.srv, g.ID, "")
	cancel()
	<-done
	if strings.Contains(rec.Body.String(), "zz9") {
		t.Errorf("the live stream shows a conditional line")
	}
	dir := t.TempDir()
	if _, err := fx.srv.WriteSite(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "zz9") {
				t.Errorf("the static site's %s shows a conditional line", path)
			}
		}
		return nil
	})
}

// TestLeaversOnPages: a table game in which seats left (Y:resign, G:time
// in the record) is imported and shown like any other: its page, its
// record for download, and the archive's list.
func TestLeaversOnPages(t *testing.T) {
	fx := newFixture(t)
	text := `[Game "rpp"] [Event "Leavers"] [Players "3"] [R "Rae"] [Y "Yul"] [G "Gus"]
1. R:La5-b6 Y:Le1-e2 G:time 2. R:Lb6-b5 Y:resign R>Y>G
`
	if _, err := fx.store.ImportFile(context.Background(), "l.pgn", []byte(text), lookup, func(ch *notation.Checked) {
		for _, p := range ch.Problems {
			t.Error(p)
		}
	}); err != nil {
		t.Fatal(err)
	}
	var entry int64
	if err := fx.store.Query(context.Background(), lookup, archive.Filter{Event: "Leavers"}, func(fd *archive.Found) error {
		entry = fd.ID
		return nil
	}); err != nil || entry == 0 {
		t.Fatalf("the game is not archived: %v", err)
	}
	for _, path := range []string{fmt.Sprintf("/a/%d", entry), fmt.Sprintf("/a/%d.pgn", entry)} {
		code, body, _ := get(t, fx.srv, path)
		if code != http.StatusOK || !strings.Contains(body, "G:time") || !strings.Contains(body, "Y:resign") {
			t.Errorf("GET %s = %d, without the leaves:\n%s", path, code, body)
		}
	}
	if _, body, _ := get(t, fx.srv, "/archive?event=Leavers"); !strings.Contains(body, "Rae") {
		t.Errorf("the archive does not list the game")
	}
}
