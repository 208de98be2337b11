package web

import (
	"fmt"
	"html/template"
	"net/url"
	"strconv"

	"pbem/archive"
	"pbem/engine"
)

// gamePage is the body of a game page.
type gamePage struct {
	Heading string
	Game    string
	Status  string
	Event   string
	Event2  string // the event's page
	Round   string
	Date    string
	Result  string
	Reason  string
	Turn    string
	Days    int
	Players []playerRow
	SVG     template.HTML
	Ply     int
	Last    int
	Plies   []plyRow
	// Links to the first, previous, next and last positions ("" when
	// there is none).
	First, Prev, Next, End string
	PGN                    string
	Problem                string
	// Through links the archive's games through the position shown,
	// Explore the explorer at it ("" in a static site, or when the game
	// has no position notation; Explore also for a game set up from a
	// position).
	Through, Explore string
	// Analysis is the computer's annotated record, when a player
	// published it.
	Analysis string
}

type playerRow struct {
	Side, Name, URL string
	Colour          string
	ToMove          bool
	Clock           string
}

type plyRow struct {
	N         int
	Side      string
	Text      string
	URL       string
	Current   bool
	NewNumber bool // the side to move starts a new round here
	Number    int
}

// gameView builds the page of g at ply (-1: the last).
func (s *Server) gameView(g *game, ply int, k linker) *view {
	last := g.plies()
	if ply < 0 || ply > last {
		ply = last
	}
	p := &gamePage{Game: g.gameID(), Ply: ply, Last: last, Problem: archive.PublicText(g.Problem), Analysis: g.Analysis}
	// The last position is the game page itself.
	plyURL := func(n int) string {
		switch {
		case n == last:
			return k.url(g.Path)
		case k.noPlies:
			return ""
		}
		return k.url(g.Path + "?ply=" + strconv.Itoa(n))
	}
	id := ""
	switch {
	case g.Ref != nil:
		id = strconv.FormatInt(g.Ref.ID, 10)
		p.Heading = fmt.Sprintf("%s game %s", g.Ref.Game, id)
		p.Status = g.Ref.Status
		p.Days = g.Ref.Options.Days
		p.PGN = k.url(g.Path + ".pgn")
	case g.Entry != nil:
		id = strconv.FormatInt(g.Entry.ID, 10)
		p.Heading = fmt.Sprintf("%s, archived game %s", g.Entry.Game, id)
		p.Status = "archived"
		p.PGN = k.url(g.Path + ".pgn")
	}
	p.Event, p.Round, p.Date = g.tag("Event"), g.tag("Round"), g.tag("Date")
	if p.Event != "" && (k.site == nil || k.site.has(k.site.events, p.Event)) {
		p.Event2 = k.url("/events/" + k.slug(p.Event))
	}
	// shown as names are: no control or bidirectional characters
	p.Event, p.Round = archive.NameForm(p.Event), archive.NameForm(p.Round)
	var sides []string
	if g.Checked != nil {
		sides = g.Checked.Sides
		p.Result = g.Checked.Record.Result
		if p.Result == "*" {
			p.Result = ""
		}
		if g.Checked.Outcome.Over {
			p.Reason = g.Checked.Outcome.Reason
		} else if t := g.tag("Termination"); t != "" && p.Result != "" {
			p.Reason = t
		}
	} else if g.Ref != nil {
		for _, st := range g.Ref.Seats {
			sides = append(sides, st.Side)
		}
	}
	if !k.static && g.Checked != nil && ply < len(g.Checked.Lines) {
		if text, _, ok := engine.Position(g.Checked.Lines[ply].State()); ok {
			id := g.Checked.Codec.Rules().ID()
			p.Through = k.url("/archive?game=" + url.QueryEscape(id) + "&position=" + url.QueryEscape(text))
			if g.Checked.Position == "" && ply <= len(g.Checked.Record.Main.Plies) {
				var plies []string
				for _, pl := range g.Checked.Record.Main.Plies[:ply] {
					plies = append(plies, pl.Canon)
				}
				p.Explore = k.url(exploreURL(id, plies, nil))
			}
		}
	}
	toMove := -1
	if l := g.layoutAt(ply); l != nil {
		title := fmt.Sprintf("%s after %d plies", p.Heading, ply)
		p.SVG = template.HTML(SVG(l, title))
		p.Turn = l.Status
		if ply == last && (g.Ref == nil || g.Ref.Status == archive.Playing) {
			toMove = l.ToMove
		}
		for i := range sides {
			p.Players = append(p.Players, playerRow{Side: sides[i], Colour: sideColour(l, i)[0]})
		}
	} else {
		for i := range sides {
			p.Players = append(p.Players, playerRow{Side: sides[i], Colour: "#999"})
		}
	}
	for i := range p.Players {
		row := &p.Players[i]
		if g.Ref != nil {
			row.Name = seatName(g.Ref, i)
		} else {
			row.Name = PublicName(g.tag(row.Side))
		}
		if row.Name != "anonymous" {
			row.URL = k.url("/players/" + k.slug(row.Name))
		}
		if i == toMove && g.Ref != nil && g.Ref.Status == archive.Playing {
			row.ToMove = true
			if !g.Ref.Deadline.IsZero() {
				row.Clock = timeLeft(g.Ref.Deadline.Sub(s.opts.Now()))
			}
		}
	}
	if ply == last && p.Result != "" && (g.Checked == nil || !g.Checked.Outcome.Over) {
		// ended off the board (resignation, agreement, time)
		p.Turn = "Game over."
	}
	if g.Ref != nil && g.Ref.Status == archive.Invited {
		p.Turn = "Waiting for the players to accept the invitation."
	}
	if g.Checked != nil {
		for i, pl := range g.Checked.Record.Main.Plies[:last] {
			st := g.Checked.Lines[i].State()
			side := st.Sides()[st.ToMove()]
			text := pl.Canon
			if text == "" {
				text = pl.Text
			}
			p.Plies = append(p.Plies, plyRow{N: i + 1, Side: side, Text: text, URL: plyURL(i + 1), Current: i+1 == ply})
		}
	}
	if ply > 0 {
		p.First, p.Prev = plyURL(0), plyURL(ply-1)
	}
	if ply < last {
		p.Next, p.End = plyURL(ply+1), plyURL(last)
	}
	v := &view{Site: s.opts.Title, Title: p.Heading, Body: p, link: k, Static: k.static}
	// The page of the last position follows the game.
	if !k.static && ply == last && g.Ref != nil && archive.Active(g.Ref.Status) && s.opts.Notifier != nil {
		v.Live = g.Path + "/events"
	}
	return v
}

// resultText is a record's result token for the lists ("" for *).
func resultText(r string) string {
	if r == "*" {
		return ""
	}
	return r
}
