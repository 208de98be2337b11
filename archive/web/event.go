package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// PageRows is how many players of a crosstable, and games of its list, an
// event page shows: an event of 4,000 players is 40 pages of 100 rows of
// 4,000 columns, not one page of 16 million cells.
const PageRows = 100

// eventCache is an event page as the cache keeps it: the page without the
// crosstable's cells, and the cells that hold a result, row by row (a
// crosstable of many players is mostly empty).
type eventCache struct {
	site, title string
	body        *eventPage // Heads nil, Players without Results
	cells       [][]cell
	// heads are the crosstable's column heads, written once.
	heads template.HTML
}

type cell struct {
	col    int
	result string
}

func newEventCache(v *view) *eventCache {
	p := v.Body.(*eventPage)
	body := *p
	body.Heads = nil
	body.Players = make([]standingRow, len(p.Players))
	c := &eventCache{site: v.Site, title: v.Title, body: &body, cells: make([][]cell, len(p.Players))}
	var b strings.Builder
	for i := range p.Players {
		b.WriteString("<th>" + strconv.Itoa(i+1) + "</th>")
	}
	c.heads = template.HTML(b.String())
	for i, row := range p.Players {
		for j, res := range row.Results {
			if res != "" {
				c.cells[i] = append(c.cells[i], cell{j, res})
			}
		}
		row.Results = nil
		body.Players[i] = row
	}
	return c
}

// eventPageView is one page of an event.
type eventPageView struct {
	*eventPage
	// HeadCells and Table are the crosstable's heads and the rows of the page,
	// their cells written as HTML: a template executed per cell takes a
	// second for a page of 100 rows of 4,000 columns.
	HeadCells template.HTML
	Table     []eventRow
	// Page is the page shown, of Pages; From and To number the players
	// shown, of Rows; GamesFrom and GamesTo the games of List, of Listed.
	Page, Pages                int
	From, To, Rows             int
	GamesFrom, GamesTo, Listed int
	Prev, Next                 string
	Links                      []pageLink
}

type eventRow struct {
	standingRow
	Cells template.HTML
}

type pageLink struct {
	N       int
	URL     string
	Current bool
}

// pages counts the pages of n rows.
func pageCount(n int) int { return max(1, (n+PageRows-1)/PageRows) }

// page is page n (from 1) of the event, its links to the other pages
// under path.
func (c *eventCache) page(n int, path string, k linker) (*view, error) {
	rows, listed := len(c.body.Players), len(c.body.List)
	pages := max(pageCount(rows), pageCount(listed))
	if n > pages {
		return nil, errBadRequest{fmt.Sprintf("no page %d: the event has %d", n, pages)}
	}
	p := &eventPageView{Page: n, Pages: pages, Rows: rows, Listed: listed}
	body := *c.body
	p.eventPage = &body
	if n > 1 {
		body.Tournaments = nil // on the first page only
	}
	lo, hi := min((n-1)*PageRows, rows), min(n*PageRows, rows)
	p.From, p.To = lo+1, hi
	body.Players = c.body.Players[lo:hi]
	p.HeadCells = c.heads
	var b strings.Builder
	for i := lo; i < hi; i++ {
		b.Reset()
		col := 0
		for _, x := range c.cells[i] {
			b.WriteString(strings.Repeat("<td></td>", x.col-col))
			b.WriteString("<td>" + template.HTMLEscapeString(x.result) + "</td>")
			col = x.col + 1
		}
		b.WriteString(strings.Repeat("<td></td>", rows-col))
		p.Table = append(p.Table, eventRow{standingRow: c.body.Players[i], Cells: template.HTML(b.String())})
	}
	glo, ghi := min((n-1)*PageRows, listed), min(n*PageRows, listed)
	p.GamesFrom, p.GamesTo = glo+1, ghi
	body.List = c.body.List[glo:ghi]
	link := func(i int) string { return k.url(path + "?page=" + strconv.Itoa(i)) }
	if pages > 1 {
		for i := 1; i <= pages; i++ {
			p.Links = append(p.Links, pageLink{N: i, URL: link(i), Current: i == n})
		}
		if n > 1 {
			p.Prev = link(n - 1)
		}
		if n < pages {
			p.Next = link(n + 1)
		}
	}
	return &view{Site: c.site, Title: c.title, Body: p, link: k}, nil
}

// pageParam reads ?page=N: 1 when absent.
func pageParam(r *http.Request) (int, error) {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, errBadRequest{fmt.Sprintf("bad page %q; expected a page number such as 1 or 2", v)}
	}
	return n, nil
}

// pagedEvent serves an event's page n (?page=n): the tournaments (on the
// first page), PageRows rows of the crosstable and PageRows games of the
// list. The event is computed once per change of the store.
func (s *Server) pagedEvent(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	n, err := pageParam(r)
	if err != nil {
		return "", nil, err
	}
	stamp, err := s.store.Stamp(ctx)
	if err != nil {
		return "", nil, err
	}
	got, err := s.cache.get(ctx, stamp, "event\x00"+r.PathValue("name"), func() (any, error) {
		_, v, err := s.eventPage(ctx, r, k)
		if err != nil {
			return nil, err
		}
		return newEventCache(v), nil
	})
	if err != nil {
		return "", nil, err
	}
	v, err := got.(*eventCache).page(n, r.URL.EscapedPath(), k)
	if err != nil {
		return "", nil, err
	}
	if !k.static && v.Body.(*eventPageView).Listed > 0 {
		v.Feed = feedPath("/events/" + url.PathEscape(r.PathValue("name")))
	}
	return "eventpage", v, nil
}

// The event page of the server, a page at a time; of one page, it is the
// event page of the static site.
var _ = template.Must(pages.New("eventpage").Parse(`{{define "pager"}}<nav class="pages" aria-label="pages">Page {{.Page}} of {{.Pages}}:
{{if .Prev}}<a href="{{.Prev}}" rel="prev">&larr; previous</a>{{end}}
{{range .Links}}{{if .Current}}<strong aria-current="page">{{.N}}</strong>{{else}}<a href="{{.URL}}">{{.N}}</a>{{end}} {{end}}
{{if .Next}}<a href="{{.Next}}" rel="next">next &rarr;</a>{{end}}</nav>
{{end}}
{{define "eventpage"}}{{template "top" .}}{{with .Body}}
<h1>{{.Event}}</h1>
{{if .Links}}{{template "pager" .}}{{end}}{{range .Tournaments}}{{template "tournament" .}}{{end}}{{if or .Players (and (eq .Page 1) (not .Tournaments))}}{{if .Tournaments}}<h2>Crosstable</h2>
{{end}}<p>{{.Games}} games with a result{{if .Links}}; players {{.From}} to {{.To}} of {{.Rows}}{{end}}.</p>
<table class="crosstable"><tr><th>#</th><th>player</th><th>games</th><th>score</th><th>SB</th>{{.HeadCells}}</tr>
{{range .Table}}<tr><td>{{.Rank}}</td><td>{{if .Name.URL}}<a href="{{.Name.URL}}">{{.Name.Name}}</a>{{else}}{{.Name.Name}}{{end}}</td><td>{{.Games}}</td><td>{{.Score}}</td><td>{{.SB}}</td>{{.Cells}}</tr>
{{end}}</table>
{{end}}{{if or .List (and (eq .Page 1) (not .Tournaments))}}<h2>Games</h2>{{if .Links}}<p>Games {{.GamesFrom}} to {{.GamesTo}} of {{.Listed}}.</p>{{end}}{{template "rows" .List}}
{{end}}{{if .Links}}{{template "pager" .}}{{end}}{{end}}{{template "bottom" .}}{{end}}`))
