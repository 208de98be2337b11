package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"pbem/archive"
	"pbem/engine"
)

// explorePage is /explore/GAME?after=PLIES: the position after the plies
// from the start, drawn, and every ply played from it in the public
// archive with its count and results for the side to move, each a link
// one ply deeper.
type explorePage struct {
	Game     string
	Plies    []exploreStep // the plies from the start, each a link back to it
	Position string
	SVG      template.HTML
	Mover    string
	Moves    []exploreRow
	Start    string // the link to the start
	// Player (the start of a public name) and Event narrow the games
	// counted; After is the plies and Players rpp's seats (when given),
	// for the filters' form.
	Player, Event, After, Players string
}

type exploreStep struct {
	Ply, URL string
}

type exploreRow struct {
	Ply, URL                               string
	Games, Wins, Draws, Losses, Unfinished int
	AverageRank                            string
	WinPercent                             string
}

// exploreURL is the explorer's address of the position after plies, with
// the filters of keep (players, player, event) kept.
func exploreURL(game string, plies []string, keep url.Values) string {
	v := url.Values{}
	if len(plies) > 0 {
		v.Set("after", strings.Join(plies, " "))
	}
	for _, name := range []string{"players", "player", "event"} {
		if x := keep.Get(name); x != "" {
			v.Set(name, x)
		}
	}
	u := "/explore/" + url.PathEscape(game)
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}

func (s *Server) explorePage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	c, err := s.opts.Lookup(r.PathValue("game"))
	if err != nil {
		return "", nil, errHidden
	}
	id := c.Rules().ID()
	o := engine.Options{}
	if v := r.URL.Query().Get("players"); v != "" {
		if o.Players, err = strconv.Atoi(v); err != nil {
			return "", nil, errBadRequest{fmt.Sprintf("players=%q: expected a number of seats", v)}
		}
	}
	st, err := c.Rules().Start(o)
	if err != nil {
		return "", nil, errBadRequest{err.Error()}
	}
	q := r.URL.Query()
	p := &explorePage{Game: id, Start: k.url(exploreURL(id, nil, q)), Player: strings.TrimSpace(q.Get("player")),
		Event: strings.TrimSpace(q.Get("event")), Players: q.Get("players")}
	var plies []string
	for i, text := range strings.Fields(r.URL.Query().Get("after")) {
		m, err := c.Decode(st, text)
		if err == nil {
			var next engine.State
			if next, err = st.Apply(m); err == nil {
				text = c.Encode(st, m)
				st = next
			}
		}
		if err != nil {
			return "", nil, errBadRequest{fmt.Sprintf("ply %d %q: %v", i+1, text, err)}
		}
		plies = append(plies, text)
		p.Plies = append(p.Plies, exploreStep{Ply: text, URL: k.url(exploreURL(id, plies, q))})
	}
	text, _, ok := engine.Position(st)
	if !ok {
		return "", nil, errHidden
	}
	p.Position = text
	p.Mover = st.Sides()[st.ToMove()]
	if lo, ok := st.(engine.Layouter); ok {
		p.SVG = template.HTML(SVG(lo.Layout(-1), fmt.Sprintf("%s after %d plies", id, len(plies))))
	}
	p.After = strings.Join(plies, " ")
	// The player is matched by public name, never by address; private
	// games are not counted (Public).
	played, err := s.store.Explore(ctx, s.opts.Lookup, archive.Filter{Game: id, Position: text, Options: o, Public: true,
		Name: p.Player, Event: p.Event})
	if err != nil {
		return "", nil, err
	}
	for _, m := range played {
		row := exploreRow{Ply: m.Ply, URL: k.url(exploreURL(id, append(plies[:len(plies):len(plies)], m.Ply), q)),
			Games: m.Games, Wins: m.Wins, Draws: m.Draws, Losses: m.Losses, Unfinished: m.Unfinished, AverageRank: "-", WinPercent: "-"}
		if f := m.Finished(); f > 0 {
			row.AverageRank = strconv.FormatFloat(m.AverageRank(), 'f', 2, 64)
			row.WinPercent = strconv.Itoa((200*m.Wins+100*m.Draws+f)/(2*f)) + "%"
		}
		p.Moves = append(p.Moves, row)
	}
	return "explore", &view{Site: s.opts.Title, Title: "Explorer: " + id, Body: p, link: k, Static: k.static}, nil
}
