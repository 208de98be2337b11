package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// tournamentViews are the tournaments of the fixture's events: a Swiss
// and a tables event of the Autumn Cup (names are not unique), and the
// Winter Open, which has not started and has no game.
func tournamentViews(fx *fixture) map[string][]*TournamentView {
	swiss := &TournamentView{ID: 1, Name: "Autumn Cup", Game: "ziggurat", Format: "Swiss", Status: "running",
		Rounds: 3, Completed: 1, TieBreaks: []string{"Buchholz", "median Buchholz"},
		Standings: []TournamentStanding{
			{Rank: 1, Name: "Alice", Score: "1.0", TieBreaks: []string{"0.0", "0.0"}, Games: 1},
			{Rank: 1, Name: "Carol", Score: "1.0", TieBreaks: []string{"0.0", "0.0"}, Games: 1},
			{Rank: 1, Name: "Eve", Score: "1.0", TieBreaks: []string{"1.0", "0.0"}, Byes: 1},
			{Rank: 4, Name: "Bob", Score: "0.0", TieBreaks: []string{"1.0", "0.0"}, Games: 1},
			{Rank: 5, Name: "Dan", Score: "0.0", TieBreaks: []string{"0.0", "0.0"}, Games: 1, Withdrawn: true},
		},
		Pairings: []TournamentRound{
			{Number: 1, Games: []TournamentGame{
				{Board: 1, GameID: fx.ziggurat, Players: []string{"Bob", "Alice"}, Ranks: []int{2, 1}},
				{Board: 2, Players: []string{"Carol", "Dan"}, Ranks: []int{1, 2}, Forfeit: true},
			}, Byes: []string{"Eve"}},
			{Number: 2, Games: []TournamentGame{
				{Board: 1, GameID: fx.castles, Players: []string{"Alice", "Carol"}},
				{Board: 2, GameID: fx.private, Players: []string{"Eve", "Bob"}},
				{Board: 3, GameID: 999, Players: []string{"Bob", "Eve"}, Ranks: []int{1, 1}},
			}},
			{Number: 3, HalfByes: []string{"Alice"}, Absent: []string{"Carol"}},
		},
		Note: "Ties are broken by Buchholz.",
	}
	tables := &TournamentView{ID: 2, Name: "Autumn Cup", Game: "rpp", Format: "tables of 3", Status: "finished",
		Rounds: 1, Completed: 1, TieBreaks: []string{"Sonneborn-Berger"},
		Standings: []TournamentStanding{
			{Rank: 1, Name: "Carol", Score: "2.0", TieBreaks: []string{"1.00"}, Games: 1},
			{Rank: 2, Name: "Alice", Score: "1.0", TieBreaks: []string{"0.00"}, Games: 1},
			{Rank: 3, Name: "Dan", Score: "0.0", TieBreaks: []string{"0.00"}, Games: 1},
		},
		Pairings: []TournamentRound{{Number: 1, Games: []TournamentGame{
			{Board: 1, GameID: fx.rpp, Players: []string{"Carol", "Dan", "Alice"}, Ranks: []int{1, 3, 2}},
		}}},
	}
	entering := &TournamentView{ID: 3, Name: "Winter Open", Game: "castles", Format: "round robin", Status: "entering",
		Joined: []string{"Alice", "Bob"}}
	return map[string][]*TournamentView{"autumn cup": {swiss, tables}, "winter open": {entering}}
}

// withTournaments gives the fixture's server the tournaments of
// tournamentViews; it records the events asked for.
func withTournaments(fx *fixture) *[]string {
	views := tournamentViews(fx)
	var asked []string
	fx.srv.opts.Tournaments = func(ctx context.Context, event string) ([]*TournamentView, error) {
		asked = append(asked, event)
		return views[strings.ToLower(event)], nil
	}
	return &asked
}

// TestTournamentEventPage: the event page of an event run as tournaments
// shows each one's standings and the pairings of every round, its games
// linked but the private one and one the store lacks, then the
// crosstable; the golden pages hold the whole of it.
func TestTournamentEventPage(t *testing.T) {
	fx := newFixture(t)
	asked := withTournaments(fx)
	for _, tc := range []struct{ name, path string }{
		{"event-tournament", "/events/autumn%20cup"},
		{"event-tournament-entering", "/events/Winter%20Open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := get(t, fx.srv, tc.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d %s", tc.path, code, body)
			}
			golden(t, tc.name, body)
			if len(body) > 20_000 {
				t.Errorf("GET %s is %d bytes, want under 20 KB", tc.path, len(body))
			}
			if strings.Contains(body, "@") {
				t.Errorf("GET %s shows an address", tc.path)
			}
			if _, err := html.Parse(strings.NewReader(body)); err != nil {
				t.Errorf("GET %s does not parse as HTML: %v", tc.path, err)
			}
		})
	}
	if want := []string{"autumn cup", "Winter Open"}; !slices.Equal(*asked, want) {
		t.Errorf("the hook was asked for %q, want %q (the event as its path names it)", *asked, want)
	}

	_, body, _ := get(t, fx.srv, "/events/Autumn%20Cup")
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	views := tournamentViews(fx)["autumn cup"]
	sections := findAll(doc, func(n *html.Node) bool { return n.Data == "section" && attr(n, "class") == "tournament" })
	if len(sections) != len(views) {
		t.Fatalf("the page has %d tournament sections, want %d", len(sections), len(views))
	}
	for i, v := range views {
		sec := sections[i]
		if got, want := attr(sec, "id"), fmt.Sprintf("T%d", v.ID); got != want {
			t.Errorf("section %d is %q, want %q", i, got, want)
		}
		// The standings: one row per player, every column as given.
		tables := findAll(sec, func(n *html.Node) bool { return n.Data == "table" })
		rows := tableRows(tables[0])
		head := append(append([]string{"#", "player", "points"}, v.TieBreaks...), "games", "byes", "")
		if !slices.Equal(rows[0], head) {
			t.Errorf("T%d standings header = %q, want %q", v.ID, rows[0], head)
		}
		if len(rows)-1 != len(v.Standings) {
			t.Fatalf("T%d standings have %d rows, want %d", v.ID, len(rows)-1, len(v.Standings))
		}
		for j, st := range v.Standings {
			want := append(append([]string{fmt.Sprint(st.Rank), st.Name, st.Score}, st.TieBreaks...), fmt.Sprint(st.Games), fmt.Sprint(st.Byes), "")
			if st.Withdrawn {
				want[len(want)-1] = "withdrew"
			}
			if !slices.Equal(rows[j+1], want) {
				t.Errorf("T%d standings row %d = %q, want %q", v.ID, j+1, rows[j+1], want)
			}
		}
		// The pairings: a table per round, a row per game.
		if len(tables)-1 != len(v.Pairings) {
			t.Fatalf("T%d has %d pairing tables, want one per round (%d)", v.ID, len(tables)-1, len(v.Pairings))
		}
		for r, rd := range v.Pairings {
			rows := tableRows(tables[r+1])
			if len(rows)-1 != len(rd.Games) {
				t.Errorf("T%d round %d has %d rows, want %d", v.ID, rd.Number, len(rows)-1, len(rd.Games))
				continue
			}
			for j, g := range rd.Games {
				if got, want := rows[j+1][1], strings.Join(g.Players, ", "); got != want {
					t.Errorf("T%d round %d board %d players = %q, want %q", v.ID, rd.Number, g.Board, got, want)
				}
			}
		}
	}
	text := textOf(doc)
	for _, want := range []string{"Bye: Eve.", "Half-point bye: Alice.", "Absent: Carol.", "1-0", "0-1", "1/2-1/2", "(forfeit)", "places 1, 3, 2", "after round 1 of 3", "Crosstable"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	links := map[string]bool{}
	for _, a := range findAll(doc, func(n *html.Node) bool { return n.Data == "a" }) {
		links[attr(a, "href")] = true
	}
	for id, want := range map[int64]bool{fx.ziggurat: true, fx.castles: true, fx.rpp: true, fx.private: false, 999: false} {
		if got := links[fmt.Sprintf("/g/%d", id)]; got != want {
			t.Errorf("link to game %d: %v, want %v", id, got, want)
		}
	}
}

// TestTournamentEventPageMissing: an event with neither a game nor a
// tournament has no page; a failing hook is an internal error.
func TestTournamentEventPageMissing(t *testing.T) {
	fx := newFixture(t)
	withTournaments(fx)
	if code, _, _ := get(t, fx.srv, "/events/Summer%20Open"); code != http.StatusNotFound {
		t.Errorf("GET /events/Summer Open = %d, want 404", code)
	}
	fx.srv.opts.Tournaments = func(context.Context, string) ([]*TournamentView, error) {
		return nil, errors.New("disk on fire")
	}
	fx.srv.opts.Logger = slog.New(slog.DiscardHandler)
	if code, _, _ := get(t, fx.srv, "/events/Autumn%20Cup"); code != http.StatusInternalServerError {
		t.Errorf("GET /events/Autumn Cup with a failing hook = %d, want 500", code)
	}
}

// TestTournamentSite: the static site's event page shows the tournaments
// too, its games linked relatively (the checker follows every link) and
// the private game not at all.
func TestTournamentSite(t *testing.T) {
	fx := newFixture(t)
	withTournaments(fx)
	dir := t.TempDir()
	if _, err := fx.srv.WriteSite(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	checkSite(t, dir, fx)
	data, err := os.ReadFile(filepath.Join(dir, "events", "Autumn_Cup.html"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(data)
	for _, want := range []string{`id="T1"`, `id="T2"`, "<td>withdrew</td>", "Bye: <a href=\"../players/Eve.html\">Eve</a>.",
		fmt.Sprintf(`<a href="../g/%d.html">game %d</a>`, fx.ziggurat, fx.ziggurat)} {
		if !strings.Contains(body, want) {
			t.Errorf("the site's event page lacks %q", want)
		}
	}
	if strings.Contains(body, fmt.Sprintf("g/%d", fx.private)) {
		t.Error("the site's event page links the private game")
	}
}

// golden compares body with testdata/NAME.html (-update rewrites it).
func golden(t *testing.T, name, body string) {
	t.Helper()
	file := filepath.Join("testdata", name+".html")
	if *update {
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
		t.Errorf("the page differs from %s (go test -update rewrites it); got:\n%s", file, body)
	}
}

func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// tableRows are the cells' texts of a table, row by row.
func tableRows(table *html.Node) [][]string {
	var rows [][]string
	for _, tr := range findAll(table, func(n *html.Node) bool { return n.Data == "tr" }) {
		var row []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
				row = append(row, strings.TrimSpace(textOf(c)))
			}
		}
		rows = append(rows, row)
	}
	return rows
}
