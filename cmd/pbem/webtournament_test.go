package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"pbem/archive"
	"pbem/archive/web"
	"pbem/referee"
)

// mailTournament runs tournaments through the referee by mail, as players
// and a director would.
type mailTournament struct {
	t     *testing.T
	ctx   context.Context
	store *archive.Store
	ref   *referee.Referee
	n     int
	// tours counts the tournaments created (their ids are 1, 2, ...).
	tours int64
}

const refereeAddr = "referee@pbem.example"

func (m *mailTournament) send(from referee.Address, to, subject, body string) {
	m.t.Helper()
	m.n++
	require.NoError(m.t, m.ref.Handle(m.ctx, referee.Request{From: from, To: to, Subject: subject, Body: body,
		MessageID: fmt.Sprintf("m%d@example.org", m.n), Received: time.Now()}))
}

func (m *mailTournament) tournament(id int64) *archive.Tournament {
	m.t.Helper()
	tr, err := m.store.Tournament(m.ctx, id)
	require.NoError(m.t, err)
	return tr
}

// tagged is the subject of a reply carrying a tournament token.
func tagged(id int64, token string) string { return fmt.Sprintf("Re: [pbem T%d %s] Cup", id, token) }

// start creates tournament T (the next id) by the director Dora, has the
// players join it (each confirms with the token mailed) and starts it.
func (m *mailTournament) start(args string, players ...string) int64 {
	m.t.Helper()
	dora := referee.Address{Name: "Dora", Addr: "dora@example.org"}
	m.send(dora, refereeAddr, "", "tournament new "+args)
	m.tours++
	id := m.tours
	require.Equal(m.t, args[1:strings.LastIndex(args, `"`)], m.tournament(id).Name)
	m.send(dora, refereeAddr, tagged(id, m.tournament(id).DirectorToken), fmt.Sprintf("tournament confirm T%d", id))
	for _, p := range players {
		a := referee.Address{Name: p, Addr: strings.ToLower(p) + "@example.org"}
		m.send(a, refereeAddr, "", fmt.Sprintf("join T%d", id))
		tr := m.tournament(id)
		m.send(a, refereeAddr, tagged(id, tr.Players[tr.Player(a.Addr)].Token), fmt.Sprintf("join T%d", id))
	}
	m.send(dora, refereeAddr, tagged(id, m.tournament(id).DirectorToken), fmt.Sprintf("tournament start T%d", id))
	require.Equal(m.t, archive.Running, m.tournament(id).Status, "the tournament did not start")
	return id
}

// play ends the pending games of tournament id: a two-player game by a
// resignation of either seat or an agreed draw, in turn; a table by
// resignations until it ends.
func (m *mailTournament) play(id int64) {
	m.t.Helper()
	k := 0
	for _, tg := range m.tournament(id).Games {
		if tg.Ranks != nil || tg.GameID == 0 {
			continue
		}
		g, err := m.store.Game(m.ctx, tg.GameID)
		require.NoError(m.t, err)
		if g.Status == archive.Over {
			continue
		}
		plus := func(i int) string { return fmt.Sprintf("referee+%d.%s@pbem.example", g.ID, g.Seats[i].Token) }
		k++
		if len(g.Seats) == 2 && k%3 == 0 {
			m.send(g.Seats[0].Player, plus(0), "", "draw")
			m.send(g.Seats[1].Player, plus(1), "", "accept draw")
		}
		for i := k; ; i++ {
			g, err = m.store.Game(m.ctx, tg.GameID)
			require.NoError(m.t, err)
			if g.Status == archive.Over {
				break
			}
			s := i % len(g.Seats)
			m.send(g.Seats[s].Player, plus(s), "", "resign")
		}
	}
}

// ask sends a command from a stranger and returns the preformatted table
// of the reply (the lines from the first that starts so, to the first
// blank one).
func (m *mailTournament) ask(command, starts string) []string {
	m.t.Helper()
	olga := referee.Address{Name: "Olga", Addr: "olga@example.org"}
	m.send(olga, refereeAddr, "", command)
	due, err := m.store.Due(m.ctx, time.Now().Add(time.Hour), 100_000)
	require.NoError(m.t, err)
	var replies []archive.Outgoing
	for _, o := range due {
		if len(o.To) == 1 && o.To[0].Addr == olga.Addr {
			replies = append(replies, o)
			require.NoError(m.t, m.store.Sent(m.ctx, o.ID))
		}
	}
	require.Len(m.t, replies, 1, "one reply to %q", command)
	var lines []string
	for _, l := range strings.Split(replies[0].Text, "\n") {
		switch {
		case lines == nil && strings.HasPrefix(l, starts):
			lines = append(lines, l)
		case lines != nil && l == "":
			return lines
		case lines != nil:
			lines = append(lines, l)
		}
	}
	m.t.Fatalf("the reply to %q has no table starting with %q:\n%s", command, starts, replies[0].Text)
	return nil
}

// section is the tournament's section of an event page: its standings
// table and its pairing tables, each as rows of cell texts, and its text.
func section(t *testing.T, page string, id int64) (standings [][]string, rounds [][][]string, text string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	require.NoError(t, err, "the event page parses as HTML")
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "section" || attrOf(n, "id") != fmt.Sprintf("T%d", id) {
			continue
		}
		var b strings.Builder
		for c := range n.Descendants() {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
			if c.Type == html.ElementNode && c.Data == "table" {
				rows := cells(c)
				if attrOf(c, "class") == "standings" {
					standings = rows
				} else {
					rounds = append(rounds, rows)
				}
			}
		}
		return standings, rounds, b.String()
	}
	t.Fatalf("the event page has no section T%d", id)
	return nil, nil, ""
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func cells(table *html.Node) [][]string {
	var rows [][]string
	for tr := range table.Descendants() {
		if tr.Type != html.ElementNode || tr.Data != "tr" {
			continue
		}
		var row []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
				var b strings.Builder
				for x := range c.Descendants() {
					if x.Type == html.TextNode {
						b.WriteString(x.Data)
					}
				}
				row = append(row, strings.TrimSpace(b.String()))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// mailStandings turns the page's standings into the rows of the
// standings mail (# Player Score Games [Byes] tie-breaks [withdrew]),
// each row's fields.
func mailStandings(rows [][]string, byes bool) [][]string {
	var out [][]string
	head := rows[0]
	for _, r := range rows[1:] {
		m := []string{r[0], r[1], r[2], r[len(r)-3]}
		if byes {
			m = append(m, r[len(r)-2])
		}
		m = append(m, r[3:len(head)-3]...)
		if r[len(r)-1] != "" {
			m = append(m, r[len(r)-1])
		}
		out = append(out, m)
	}
	return out
}

// mailPairings turns the page's table of a round into the lines of the
// pairings mail ("1. Ann - Bob  1-0"), byes left out.
func mailPairings(rows [][]string) []string {
	var out []string
	for _, r := range rows[1:] {
		line := r[0] + ". " + strings.ReplaceAll(r[1], ", ", " - ")
		res, forfeit := strings.CutSuffix(r[3], " (forfeit)")
		res = strings.TrimPrefix(res, "places ")
		res = strings.ReplaceAll(res, ", ", " ")
		if res == "1/2-1/2" {
			res = "1/2"
		}
		if res != "" {
			line += "  " + res
		}
		if forfeit {
			line += " forfeit"
		}
		out = append(out, line)
	}
	return out
}

func getPage(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	require.Equal(t, http.StatusOK, rec.Code, "GET %s: %s", path, body)
	return string(body)
}

// checkTournamentPage compares the tournament's section of an event page
// with what the referee mails: the standings row by row, and the pairings
// of every round line by line, each game linked to its page.
func checkTournamentPage(t *testing.T, m *mailTournament, page string, id int64, link func(gameID int64) string) {
	t.Helper()
	assert.Less(t, len(page), 40_000, "the event page stays small")
	assert.NotContains(t, page, "@example.org", "the event page shows no address")
	standings, rounds, text := section(t, page, id)
	mail := m.ask(fmt.Sprintf("tournament standings T%d", id), "#")
	byes := strings.Contains(mail[0], "Byes")
	require.Len(t, standings, len(mail), "the page has a row per player, as the mail")
	for i, row := range mailStandings(standings, byes) {
		assert.Equal(t, strings.Fields(mail[i+1]), row, "standings row %d", i+1)
	}
	tr := m.tournament(id)
	ev, err := tournamentEvent(tr)
	require.NoError(t, err)
	require.Len(t, rounds, ev.Paired(), "a pairing table per round paired")
	for r, rows := range rounds {
		lines := m.ask(fmt.Sprintf("tournament pairings T%d %d", id, r+1), "1. ")
		var games []string
		// The mail's lines of those who sat out, and the page's.
		kinds := []struct{ mail, page string }{{"bye: ", "Bye: "}, {"half-point bye: ", "Half-point bye: "}, {"absent: ", "Absent: "}}
		away := make([][]string, len(kinds))
	line:
		for _, l := range lines {
			for k, kind := range kinds {
				if name, ok := strings.CutPrefix(l, kind.mail); ok {
					away[k] = append(away[k], name)
					continue line
				}
			}
			games = append(games, l)
		}
		assert.Equal(t, games, mailPairings(rows), "round %d", r+1)
		want := fmt.Sprintf("Round %d\n", r+1)
		if i := strings.Index(text, want); assert.True(t, i >= 0, "the page has no round %d", r+1) {
			next, _, _ := strings.Cut(text[i+len(want):], "Round ")
			for k, kind := range kinds {
				line := kind.page + strings.Join(away[k], ", ") + "."
				assert.Equal(t, len(away[k]) > 0, strings.Contains(next, line), "round %d: the page says %q: %v", r+1, line, len(away[k]) > 0)
			}
		}
	}
	for _, g := range tr.Games {
		if g.GameID > 0 {
			assert.Contains(t, page, fmt.Sprintf(`<a href="%s">game %d</a>`, link(g.GameID), g.GameID))
		}
	}
}

// TestTournamentEventPages runs a Swiss of five over three rounds (a bye
// each round, a withdrawal after round 1, a half-point bye asked for in
// round 2 and an absence in round 3) and a tables event of six at
// tables of three by mail through the referee: the event pages that pbem
// serve shows and that pbem archive site writes give the standings and
// every round's pairings exactly as the referee mails them, with the
// archive's crosstable below.
func TestTournamentEventPages(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	store, err := archive.Open(ctx, data, nil)
	require.NoError(t, err)
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: refereeAddr})
	require.NoError(t, err)
	m := &mailTournament{t: t, ctx: ctx, store: store, ref: ref}

	swiss := m.start(`"Autumn Cup" castles swiss rounds=3 days=3 rated`, "Ann", "Bob", "Cy", "Dee", "Eve")
	// Ann asks for a half-point bye in round 2; the director marks Bob
	// absent from round 3.
	tr := m.tournament(swiss)
	ann := tr.Players[tr.Player("ann@example.org")]
	m.send(ann.Address, refereeAddr, tagged(swiss, ann.Token), fmt.Sprintf("tournament bye T%d 2", swiss))
	m.send(referee.Address{Name: "Dora", Addr: "dora@example.org"}, refereeAddr, tagged(swiss, tr.DirectorToken), fmt.Sprintf("tournament absent T%d 3 bob@example.org", swiss))
	require.Len(t, m.tournament(swiss).Byes, 3, "the pairing bye of round 1, Ann's half-point bye, Bob's absence")
	m.play(swiss)
	tr = m.tournament(swiss)
	quitter := tr.Players[2]
	m.send(referee.Address{Name: "Cy", Addr: quitter.Address.Addr}, refereeAddr, tagged(swiss, quitter.Token), fmt.Sprintf("tournament withdraw T%d", swiss))
	for range 3 {
		m.play(swiss)
	}
	require.Equal(t, archive.Finished, m.tournament(swiss).Status, "the Swiss did not finish")

	tables := m.start(`"Spring Tables" rpp tables rounds=2 players=3 days=4`, "Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
	for range 2 {
		m.play(tables)
	}
	require.Equal(t, archive.Finished, m.tournament(tables).Status, "the tables event did not finish")

	h, err := web.New(store, &web.Options{Lookup: referee.Lookup, Games: catalogIDs(), Private: privateGame, Tournaments: webTournaments(store)})
	require.NoError(t, err)
	served := func(id int64) string { return fmt.Sprintf("/g/%d", id) }
	for _, tc := range []struct {
		id    int64
		event string
	}{{swiss, "Autumn Cup"}, {tables, "spring tables"}} {
		page := getPage(t, h, "/events/"+url.PathEscape(tc.event))
		checkTournamentPage(t, m, page, tc.id, served)
		assert.Contains(t, page, `<table class="crosstable">`, "the crosstable stays")
		for _, g := range m.tournament(tc.id).Games {
			if g.GameID > 0 {
				getPage(t, h, served(g.GameID))
			}
		}
	}
	page := getPage(t, h, "/events/Autumn%20Cup")
	assert.Contains(t, page, "<td>withdrew</td>")
	assert.Contains(t, page, "(forfeit)", "Cy's games after the withdrawal are forfeited")

	dir := t.TempDir()
	code, _, errs := run(t, "", "archive", "site", dir, "--data", data)
	require.Equal(t, 0, code, errs)
	static := func(id int64) string { return fmt.Sprintf("../g/%d.html", id) }
	for _, tc := range []struct {
		id   int64
		file string
	}{{swiss, "Autumn_Cup.html"}, {tables, "Spring_Tables.html"}} {
		b, err := os.ReadFile(filepath.Join(dir, "events", tc.file))
		require.NoError(t, err)
		checkTournamentPage(t, m, string(b), tc.id, static)
	}
}
