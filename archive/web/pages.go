package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
)

// gameRow is one game in a list.
type gameRow struct {
	// EntryID is the archived game (0 for a game not archived).
	EntryID int64
	// Path is the game's page on the site; URL the link to it.
	Path    string
	URL     string
	Game    string
	ID      string
	Status  string
	Event   string
	Date    string
	Players []nameLink
	Result  string
	Turn    string
}

type nameLink struct{ Name, URL string }

// player names a player (by public name, whatever the name given) and
// links its page.
func (k linker) player(name string) nameLink {
	name = PublicName(name)
	if name == "anonymous" || k.site != nil && !k.site.has(k.site.players, name) {
		return nameLink{Name: name}
	}
	return nameLink{Name: name, URL: k.url("/players/" + k.slug(name))}
}

// refRow lists a referee game.
func (s *Server) refRow(g *archive.Game, k linker) gameRow {
	path := "/g/" + strconv.FormatInt(g.ID, 10)
	r := gameRow{Path: path, URL: k.url(path), Game: g.Game, ID: strconv.FormatInt(g.ID, 10),
		Status: g.Status, Event: archive.NameForm(g.Options.Event), Date: g.Updated.Format("2006.01.02")}
	for i := range g.Seats {
		r.Players = append(r.Players, k.player(seatName(g, i)))
	}
	return r
}

// foundRow lists an archived game.
func foundRow(fd *archive.Found, k linker) gameRow {
	r := gameRow{EntryID: fd.ID, Game: fd.Game, Event: archive.NameForm(fd.Event), Date: fd.Date, Result: resultText(fd.Result), Status: "over"}
	if fd.GameID != 0 {
		r.ID = strconv.FormatInt(fd.GameID, 10)
		r.Path = "/g/" + r.ID
	} else {
		r.ID = "a" + strconv.FormatInt(fd.ID, 10)
		r.Path = "/a/" + strconv.FormatInt(fd.ID, 10)
	}
	r.URL = k.url(r.Path)
	if len(fd.Plies) > 0 {
		// Found by position: the link shows the game there.
		r.URL = k.url(r.Path + "?ply=" + strconv.Itoa(fd.Plies[0]))
	}
	for _, sd := range fd.Sides {
		r.Players = append(r.Players, k.player(PublicName(sd.Player)))
	}
	return r
}

type indexPage struct {
	Active  []gameRow
	Results []gameRow
	Games   []nameLink // ratings per game
}

// listLimit bounds the lists of the front page.
const listLimit = 50

func (s *Server) indexPage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	p := &indexPage{}
	active, err := s.store.RecentGames(ctx, []string{archive.Playing, archive.Invited}, listLimit)
	if err != nil {
		return "", nil, err
	}
	for _, g := range active {
		if row := s.refRow(g, k); !s.hidden(g) && k.written(row.Path) {
			p.Active = append(p.Active, row)
		}
	}
	over, err := s.store.RecentGames(ctx, []string{archive.Over}, listLimit)
	if err != nil {
		return "", nil, err
	}
	for _, g := range over {
		if s.hidden(g) {
			continue
		}
		row := s.refRow(g, k)
		if !k.written(row.Path) {
			continue
		}
		if e, err := s.store.EntryOfGame(ctx, g.ID); err == nil {
			row.Result = resultText(e.Result)
		}
		p.Results = append(p.Results, row)
	}
	for _, id := range s.opts.Games {
		p.Games = append(p.Games, nameLink{Name: id, URL: k.url("/ratings/" + k.slug(id))})
	}
	v := &view{Site: s.opts.Title, Title: s.opts.Title, Body: p, link: k, Static: k.static}
	if !k.static {
		v.Feed = feedPath("/")
	}
	return "index", v, nil
}

type archivePage struct {
	Game, Player, Event, Since, Q string
	// Position is a position text: the games through it.
	Position string
	Games    []gameRow
	Total    int
	Shown    int
	Error    string
	// A search by position is paged: More says that more games than Total
	// are found; First is the number of the page's first game; Prev and
	// Next link the pages around ("" for none).
	More       bool
	First      int
	Prev, Next string
}

// archiveLimit bounds the games one search page lists (the newest).
const archiveLimit = 200

func (s *Server) archivePage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	q := r.URL.Query()
	p := &archivePage{Game: q.Get("game"), Player: q.Get("player"), Event: q.Get("event"), Since: q.Get("since"), Q: q.Get("q"),
		Position: strings.TrimSpace(q.Get("position"))}
	// The player is matched by public name, never by address.
	f := archive.Filter{Game: p.Game, Name: p.Player, Event: p.Event, Since: strings.ReplaceAll(p.Since, "-", "."), Text: strings.Fields(p.Q),
		Position: p.Position}
	if f.Position != "" && f.Game == "" {
		if f.Game = s.positionGame(f.Position); f.Game == "" {
			p.Error = "the position is no game's position text; choose the game to see what is wrong with it"
			return "archive", &view{Site: s.opts.Title, Title: "Archive", Body: p, link: k, Static: k.static}, nil
		}
	}
	limit := archiveLimit
	if k.static {
		limit = -1
	}
	if f.Position != "" && !k.static {
		page := 1
		if v := q.Get("page"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || (n-1)*positionPageSize > maxPositionOffset {
				return "", nil, errBadRequest{fmt.Sprintf("page=%q: expected a page from 1 to %d", v, maxPositionOffset/positionPageSize+1)}
			}
			page = n
		}
		offset := (page - 1) * positionPageSize
		rows, total, more, err := s.positionSearch(ctx, f, positionPageSize, offset, k)
		if err != nil {
			p.Error = strings.TrimPrefix(err.Error(), "archive: ")
		}
		p.Games, p.Total, p.Shown, p.More, p.First = rows, total, len(rows), more, offset+1
		pageURL := func(n int) string {
			v := url.Values{}
			for _, name := range []string{"game", "player", "event", "since", "q", "position"} {
				if x := q.Get(name); x != "" {
					v.Set(name, x)
				}
			}
			if n > 1 {
				v.Set("page", strconv.Itoa(n))
			}
			return k.url("/archive?" + v.Encode())
		}
		if page > 1 {
			p.Prev = pageURL(page - 1)
		}
		if more || offset+len(rows) < total {
			p.Next = pageURL(page + 1)
		}
		return "archive", &view{Site: s.opts.Title, Title: "Archive", Body: p, link: k, Static: k.static}, nil
	}
	rows, total, err := s.search(ctx, f, limit, k)
	if err != nil {
		p.Error = strings.TrimPrefix(err.Error(), "archive: ")
	}
	p.Games, p.Total, p.Shown = rows, total, len(rows)
	return "archive", &view{Site: s.opts.Title, Title: "Archive", Body: p, link: k, Static: k.static}, nil
}

// positionGame is the game whose notation reads a position text, "" for
// none.
func (s *Server) positionGame(text string) string {
	for _, id := range s.opts.Games {
		if _, err := archive.ReadPosition(s.opts.Lookup, id, engine.Options{}, text); err == nil {
			return id
		}
	}
	return ""
}

// positionPageSize is the games one page of a search by position lists
// on the archive page (archiveLimit; lowered by tests).
var positionPageSize = archiveLimit

// maxPositionOffset bounds how deep a search by position pages, on the
// archive page and in the API: a deeper page costs a longer walk of the
// index.
const maxPositionOffset = 100_000

// positionSearch is a page of the public games through f's position, the
// newest first: limit games after offset, the count of them all and
// whether more than that are found (archive.SearchPosition). Private games
// are neither shown nor counted (f.Public); one that Options.Private hides
// besides is left out of the page and the count.
func (s *Server) positionSearch(ctx context.Context, f archive.Filter, limit, offset int, k linker) ([]gameRow, int, bool, error) {
	f.Public = true
	page, err := s.store.SearchPosition(ctx, s.opts.Lookup, f, nil, limit, offset)
	if err != nil {
		return nil, 0, false, err
	}
	total := page.Total
	rows := make([]gameRow, 0, len(page.Games))
	for _, fd := range page.Games {
		if fd.GameID != 0 && s.opts.Private != nil {
			if g, err := s.store.Game(ctx, fd.GameID); err == nil && s.hidden(g) {
				total--
				continue
			}
		}
		rows = append(rows, foundRow(fd, k))
	}
	return rows, total, page.More, nil
}

// search lists the archived games f selects, the newest first, at most
// limit of them (-1: all), and counts them all. Games that are private are
// left out (f.Public).
func (s *Server) search(ctx context.Context, f archive.Filter, limit int, k linker) ([]gameRow, int, error) {
	f.Public = true
	var found []*archive.Found
	total := 0
	err := s.store.Query(ctx, s.opts.Lookup, f, func(fd *archive.Found) error {
		total++
		found = append(found, fd)
		if limit >= 0 && len(found) > 2*limit {
			found = slices.Clone(found[len(found)-limit:])
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if limit >= 0 && len(found) > limit {
		found = found[len(found)-limit:]
	}
	rows := make([]gameRow, 0, len(found))
	for i := len(found) - 1; i >= 0; i-- {
		fd := found[i]
		if fd.GameID != 0 && s.opts.Private != nil {
			if g, err := s.store.Game(ctx, fd.GameID); err == nil && s.hidden(g) {
				total--
				continue
			}
		}
		row := foundRow(fd, k)
		if !k.written(row.Path) {
			total--
			continue
		}
		rows = append(rows, row)
	}
	return rows, total, nil
}

type eventPage struct {
	Event string
	// Tournaments run by the referee under the event's name.
	Tournaments []tournamentSection
	Games       int
	Players     []standingRow
	Heads       []int
	List        []gameRow
}

type standingRow struct {
	Rank    int
	Name    nameLink
	Games   int
	Score   string
	SB      string
	Results []string
}

func (s *Server) eventPage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	name := r.PathValue("name")
	t, err := s.store.Crosstable(ctx, s.opts.Lookup, name, archive.Filter{Public: true})
	if err != nil {
		return "", nil, err
	}
	rows, _, err := s.search(ctx, archive.Filter{Event: name}, -1, k)
	if err != nil {
		return "", nil, err
	}
	tours, err := s.tournaments(ctx, name, k)
	if err != nil {
		return "", nil, err
	}
	if t.Games == 0 && len(rows) == 0 && len(tours) == 0 {
		return "", nil, errHidden
	}
	if t.Games == 0 && len(rows) == 0 {
		t.Event = tours[0].Name
	}
	for _, sec := range tours {
		for i := range sec.Entrants {
			sec.Entrants[i].Name = PublicName(sec.Entrants[i].Name)
		}
	}
	p := &eventPage{Event: archive.NameForm(t.Event), Tournaments: tours, Games: t.Games, List: rows}
	for i, st := range t.Players {
		p.Heads = append(p.Heads, i+1)
		p.Players = append(p.Players, standingRow{Rank: st.Rank, Name: k.player(PublicName(st.Name)), Games: st.Games,
			Score: strconv.FormatFloat(st.Score(), 'f', 1, 64), SB: strconv.FormatFloat(st.TieBreak(), 'f', 2, 64), Results: st.Results})
	}
	return "event", &view{Site: s.opts.Title, Title: "Event " + p.Event, Body: p, link: k, Static: k.static}, nil
}

func (s *Server) ratingsIndex(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	p := &indexPage{}
	for _, id := range s.opts.Games {
		p.Games = append(p.Games, nameLink{Name: id, URL: k.url("/ratings/" + k.slug(id))})
	}
	return "ratingsindex", &view{Site: s.opts.Title, Title: "Ratings", Body: p, link: k, Static: k.static}, nil
}

type ratingsPage struct {
	Game    string
	Games   int
	Players []ratingRow
}

type ratingRow struct {
	Rank   int
	Name   nameLink
	Rating int
	Games  int
}

func (s *Server) ratingsPage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	id := r.PathValue("game")
	c, err := s.opts.Lookup(id)
	if err != nil {
		return "", nil, errHidden
	}
	id = c.Rules().ID()
	lists, err := s.store.RatingsOf(ctx, s.opts.Lookup, archive.Filter{Game: id, Public: true})
	if err != nil {
		return "", nil, err
	}
	p := &ratingsPage{Game: id}
	for _, rl := range lists {
		p.Games = rl.Games
		for i, pl := range rl.Players {
			p.Players = append(p.Players, ratingRow{Rank: i + 1, Name: k.player(PublicName(pl.Name)), Rating: int(pl.Rating + 0.5), Games: pl.Games})
		}
	}
	return "ratings", &view{Site: s.opts.Title, Title: "Ratings: " + id, Body: p, link: k, Static: k.static}, nil
}

type playerPage struct {
	Name     string
	Active   []gameRow
	Games    []gameRow
	Total    int
	Ratings  []historyRow
	Archived int
}

type historyRow struct {
	Game   string
	URL    string
	Rating int
	Points []pointRow
}

type pointRow struct {
	URL, Date string
	Rating    int
}

func (s *Server) playerPage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	name := r.PathValue("name")
	if PublicName(name) != name || name == "anonymous" {
		return "", nil, errHidden
	}
	p := &playerPage{Name: name}
	active, err := s.store.RecentGames(ctx, []string{archive.Playing, archive.Invited}, 1000)
	if err != nil {
		return "", nil, err
	}
	for _, g := range active {
		if s.hidden(g) {
			continue
		}
		for i := range g.Seats {
			if row := s.refRow(g, k); strings.EqualFold(seatName(g, i), name) && k.written(row.Path) {
				p.Active = append(p.Active, row)
				break
			}
		}
	}
	rows, _, err := s.search(ctx, archive.Filter{Name: name}, -1, k)
	if err != nil {
		return "", nil, err
	}
	for _, row := range rows {
		for _, pl := range row.Players {
			if strings.EqualFold(pl.Name, name) {
				p.Games = append(p.Games, row)
				break
			}
		}
	}
	gameURL := map[int64]string{}
	for _, row := range p.Games {
		gameURL[row.EntryID] = row.URL
	}
	p.Total = len(p.Games)
	if len(p.Games) > archiveLimit {
		p.Games = p.Games[:archiveLimit]
	}
	var hs []*archive.RatingHistory
	if k.site != nil {
		hs, err = k.site.histories(ctx)
	} else {
		hs, err = s.store.RatingHistories(ctx, s.opts.Lookup, archive.Filter{Public: true})
	}
	if err != nil {
		return "", nil, err
	}
	for _, h := range hs {
		if !strings.EqualFold(PublicName(h.Name), name) {
			continue
		}
		hr := historyRow{Game: h.Game, URL: k.url("/ratings/" + k.slug(h.Game))}
		for _, pt := range h.Points {
			hr.Points = append(hr.Points, pointRow{URL: gameURL[pt.EntryID], Date: pt.Date, Rating: int(pt.Rating + 0.5)})
		}
		hr.Rating = hr.Points[len(hr.Points)-1].Rating
		p.Ratings = append(p.Ratings, hr)
	}
	if len(p.Active) == 0 && len(p.Games) == 0 && len(p.Ratings) == 0 {
		return "", nil, errHidden
	}
	v := &view{Site: s.opts.Title, Title: "Player " + name, Body: p, link: k, Static: k.static}
	if !k.static && len(p.Games) > 0 {
		v.Feed = feedPath("/players/" + url.PathEscape(name))
	}
	return "player", v, nil
}

// events streams the changes of game id as Server-Sent Events: an event
// "move" whenever the game changes, so that the page fetches itself again.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	id, err := parseID(r.PathValue("id"))
	if err != nil || s.opts.Notifier == nil {
		http.NotFound(w, r)
		return
	}
	if _, err := s.loadRef(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ids, cancel := s.opts.Notifier.Subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fmt.Fprint(w, "retry: 1000\n\n")
	fl.Flush()
	tick := time.NewTicker(s.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case got := <-ids:
			if got != id {
				continue
			}
			fmt.Fprintf(w, "event: move\ndata: %d\n\n", id)
			fl.Flush()
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
		}
	}
}
