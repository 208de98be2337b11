package web

import (
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"time"

	"pbem/archive"
)

// feedLimit bounds the entries of a feed: the newest finished games.
const feedLimit = 30

// Atom (RFC 4287) documents, written with encoding/xml.
type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Author  atomPerson  `xml:"author"`
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	ID      string       `xml:"id"`
	Title   string       `xml:"title"`
	Updated string       `xml:"updated"`
	Authors []atomPerson `xml:"author"`
	Links   []atomLink   `xml:"link"`
	Summary string       `xml:"summary"`
	Content atomContent  `xml:"content"`
}

type atomContent struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

// base is the site's absolute address for the links and ids of a feed:
// Options.BaseURL, or the address the request came to.
func (s *Server) base(r *http.Request) string {
	if s.opts.BaseURL != "" {
		return strings.TrimRight(s.opts.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// feedPath is the address of the Atom feed of a page.
func feedPath(page string) string {
	if page == "/" {
		return "/feed.atom"
	}
	return page + "/feed.atom"
}

// indexFeed serves /feed.atom: the games finished most recently, as the
// front page lists them.
func (s *Server) indexFeed(w http.ResponseWriter, r *http.Request) {
	over, err := s.store.RecentGames(r.Context(), []string{archive.Over}, feedLimit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var games []*game
	for _, ref := range over {
		if s.hidden(ref) {
			continue
		}
		g := &game{Ref: ref, Path: fmt.Sprintf("/g/%d", ref.ID), Record: ref.Record}
		s.check(g)
		games = append(games, g)
	}
	s.writeFeed(w, r, "/", s.opts.Title+": finished games", games)
}

// eventFeed serves /events/NAME/feed.atom: the event's finished games,
// the newest first; 404 for an event with none.
func (s *Server) eventFeed(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	rows, _, err := s.search(r.Context(), archive.Filter{Event: name}, feedLimit, linker{})
	if err == nil && len(rows) == 0 {
		err = errHidden
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.rowsFeed(w, r, "/events/"+url.PathEscape(name), "Event "+archive.NameForm(name), rows)
}

// playerFeed serves /players/NAME/feed.atom: a public player's finished
// games, the newest first; 404 for a name that is not a public name or
// that has none.
func (s *Server) playerFeed(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if PublicName(name) != name || name == "anonymous" {
		s.fail(w, r, errHidden)
		return
	}
	rows, _, err := s.search(r.Context(), archive.Filter{Name: name}, -1, linker{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var mine []gameRow
	for _, row := range rows {
		for _, pl := range row.Players {
			if strings.EqualFold(pl.Name, name) {
				mine = append(mine, row)
				break
			}
		}
		if len(mine) == feedLimit {
			break
		}
	}
	if len(mine) == 0 {
		s.fail(w, r, errHidden)
		return
	}
	s.rowsFeed(w, r, "/players/"+url.PathEscape(name), "Player "+name, mine)
}

// rowsFeed loads the games of a list and writes their feed.
func (s *Server) rowsFeed(w http.ResponseWriter, r *http.Request, page, title string, rows []gameRow) {
	var games []*game
	for _, row := range rows {
		var g *game
		var err error
		if id, ok := strings.CutPrefix(row.Path, "/g/"); ok {
			n, _ := parseID(id)
			g, err = s.loadRef(r.Context(), n)
		} else {
			g, err = s.loadEntry(r.Context(), row.EntryID)
		}
		if errors.Is(err, errHidden) {
			continue
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		games = append(games, g)
	}
	s.writeFeed(w, r, page, s.opts.Title+": "+title, games)
}

// writeFeed writes the Atom feed of the page at path page: an entry per
// game, with its players, result and final board.
func (s *Server) writeFeed(w http.ResponseWriter, r *http.Request, page, title string, games []*game) {
	base := s.base(r)
	f := atomFeed{ID: base + feedPath(page), Title: title, Author: atomPerson{Name: s.opts.Title},
		Links: []atomLink{{Rel: "self", Type: "application/atom+xml", Href: base + feedPath(page)}, {Rel: "alternate", Type: "text/html", Href: base + page}}}
	var newest time.Time
	for _, g := range games {
		e, at := s.feedEntry(base, g)
		if at.After(newest) {
			newest = at
		}
		f.Entries = append(f.Entries, e)
	}
	if newest.IsZero() {
		newest = s.opts.Now()
	}
	f.Updated = newest.UTC().Format(time.RFC3339)
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	fmt.Fprint(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", " ")
	if err := enc.Encode(f); err != nil {
		s.opts.Logger.Error("web: feed failed", "path", r.URL.Path, "err", err)
	}
}

// feedEntry is the entry of one finished game and when it last changed.
func (s *Server) feedEntry(base string, g *game) (atomEntry, time.Time) {
	v := s.gameView(g, -1, linker{})
	p := v.Body.(*gamePage)
	var at time.Time
	switch {
	case g.Ref != nil:
		at = g.Ref.Updated
	case g.Entry != nil:
		at = g.Entry.Created
	}
	var names []string
	e := atomEntry{ID: base + g.Path, Updated: at.UTC().Format(time.RFC3339),
		Links: []atomLink{{Rel: "alternate", Type: "text/html", Href: base + g.Path}}}
	var who []string
	for _, pl := range p.Players {
		names = append(names, pl.Name)
		who = append(who, fmt.Sprintf("%s (%s)", pl.Name, pl.Side))
		e.Authors = append(e.Authors, atomPerson{Name: pl.Name})
	}
	result := p.Result
	if result == "" {
		result = "no result"
	}
	e.Title = fmt.Sprintf("%s: %s, %s", p.Game, strings.Join(names, " v "), result)
	summary := strings.Join(who, " v ") + ": " + result
	if p.Reason != "" {
		summary += " (" + p.Reason + ")"
	}
	if p.Event != "" {
		summary += "; " + p.Event
	}
	if p.Date != "" {
		summary += ", " + p.Date
	}
	e.Summary = summary + "."
	var c strings.Builder
	c.WriteString("<p>" + html.EscapeString(e.Summary) + "</p>\n")
	if last := g.plies(); g.Checked != nil {
		c.WriteString("<pre>" + html.EscapeString(g.Checked.Lines[last].State().Render(-1)) + "</pre>\n")
	}
	c.WriteString(`<p><a href="` + html.EscapeString(base+g.Path) + `">the game</a>, <a href="` + html.EscapeString(base+g.Path+".pgn") + `">its record</a></p>`)
	e.Content = atomContent{Type: "html", Text: c.String()}
	return e, at
}
