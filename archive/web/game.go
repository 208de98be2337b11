package web

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

// errHidden is returned for a game that does not exist or is private: both
// are "not found" to a visitor.
var errHidden = errors.New("web: no such game")

// game is a game as its page shows it: a referee game (Ref set) or an
// archived record without one (Entry set).
type game struct {
	Ref   *archive.Game
	Entry *archive.Entry
	// Path is the page, "/g/ID" or "/a/ID".
	Path   string
	Record string
	// Checked is the record read and checked; nil while invitations are
	// pending or when the record cannot be read.
	Checked *notation.Game
	Problem string
	// Analysis is the computer's analysis a player published (a finished
	// referee game only); "" for none.
	Analysis string
}

// loadRef reads a referee game, or errHidden.
func (s *Server) loadRef(ctx context.Context, id int64) (*game, error) {
	g, err := s.store.Game(ctx, id)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, errHidden
	}
	if err != nil {
		return nil, err
	}
	if s.hidden(g) {
		return nil, errHidden
	}
	out := &game{Ref: g, Path: "/g/" + strconv.FormatInt(id, 10), Record: g.Record}
	s.check(out)
	if g.Status == archive.Over {
		a, err := s.store.PublishedAnalysis(ctx, id)
		switch {
		case err == nil:
			out.Analysis = a.Text
		case !errors.Is(err, archive.ErrNotFound):
			return nil, err
		}
	}
	return out, nil
}

// loadEntry reads an archived game, or errHidden.
func (s *Server) loadEntry(ctx context.Context, id int64) (*game, error) {
	e, err := s.store.Entry(ctx, id)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, errHidden
	}
	if err != nil {
		return nil, err
	}
	if e.GameID != 0 {
		if g, err := s.store.Game(ctx, e.GameID); err == nil && s.hidden(g) {
			return nil, errHidden
		}
	}
	out := &game{Entry: &e, Path: "/a/" + strconv.FormatInt(id, 10), Record: e.Record}
	s.check(out)
	return out, nil
}

// hidden reports whether a referee game is kept from every page: a game
// created private, a request its inviter has not confirmed
// (archive.Shown), or one Options.Private hides.
func (s *Server) hidden(g *archive.Game) bool {
	return !archive.Shown(g) || s.opts.Private != nil && s.opts.Private(g)
}

// check reads and checks the record of g.
func (s *Server) check(g *game) {
	if g.Record == "" {
		return
	}
	recs, problems := notation.Parse("game", []byte(g.Record))
	if len(recs) == 0 {
		g.Problem = "the record cannot be read"
		if len(problems) > 0 {
			g.Problem = problems[0].Msg
		}
		return
	}
	ch, problems := notation.Check(recs[0], s.opts.Lookup)
	g.Checked = ch
	if ch == nil && len(problems) > 0 {
		g.Problem = problems[0].Msg
	}
}

// plies is the number of plies of the main line that could be played.
func (g *game) plies() int {
	if g.Checked == nil {
		return 0
	}
	return len(g.Checked.Lines) - 1
}

// tag returns a tag of the record.
func (g *game) tag(name string) string {
	if g.Checked != nil {
		v, _ := g.Checked.Record.Tag(name)
		return v
	}
	if g.Entry != nil {
		for _, t := range g.Entry.Tags {
			if t.Name == name {
				return t.Value
			}
		}
	}
	return ""
}

// gameID is the catalog id of the game ("castles").
func (g *game) gameID() string {
	switch {
	case g.Ref != nil:
		return g.Ref.Game
	case g.Entry != nil:
		return g.Entry.Game
	}
	return ""
}

// PublicName is how the pages name a player from a seat's name or a tag
// value (archive.PublicName): the display name of "Name <addr>",
// normalised, never an address. A value that is only an address gives the
// address's local part ("carol"), as the referee's mails to non-players
// do; no name at all gives "anonymous".
func PublicName(v string) string { return archive.PublicName(v) }

// seatName is the public name of seat i of a referee game.
func seatName(g *archive.Game, i int) string {
	if i < 0 || i >= len(g.Seats) {
		return "anonymous"
	}
	p := g.Seats[i].Player
	if p.Name == "" {
		return PublicName(p.Addr)
	}
	return PublicName(p.Name + " <" + p.Addr + ">")
}

// PublicRecord is the record of g for download with public names only:
// every tag that holds an address gives the player's public name (or has
// its addresses replaced by their local parts), and so does every comment
// (the referee writes "carol@pbem.local (First) resigned"; an imported
// record may hold anything).
func (g *game) PublicRecord() string {
	if g.Checked == nil || g.plies() != len(g.Checked.Record.Main.Plies) {
		// unread, or an illegal ply: the canonical writer needs a valid game
		return hideAddresses(g.Record)
	}
	r := g.Checked.Record
	tags := r.Tags
	r.Tags = make([]notation.Tag, len(tags))
	for i, t := range tags {
		t.Value = archive.PublicTag(t.Value)
		r.Tags[i] = t
	}
	var lines []*notation.Line
	var comments [][]string
	var walk func(l *notation.Line)
	walk = func(l *notation.Line) {
		lines = append(lines, l)
		comments = append(comments, l.Comments)
		l.Comments = publicComments(l.Comments)
		for _, p := range l.Plies {
			for _, v := range p.Variations {
				walk(v)
			}
		}
	}
	walk(r.Main)
	var plies []*notation.Ply
	var plyComments [][]string
	for _, l := range lines {
		for _, p := range l.Plies {
			plies = append(plies, p)
			plyComments = append(plyComments, p.Comments)
			p.Comments = publicComments(p.Comments)
		}
	}
	defer func() {
		r.Tags = tags
		for i, l := range lines {
			l.Comments = comments[i]
		}
		for i, p := range plies {
			p.Comments = plyComments[i]
		}
	}()
	return notation.Format(g.Checked)
}

func publicComments(cs []string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = archive.PublicText(c)
	}
	return out
}

// hideAddresses rewrites a record that cannot be checked: a header line
// [Tag "..."] whose value holds an address gives the public name (or
// "anonymous" when it cannot be read), and the
// comments ({...} and ; to the end of the line) have their addresses
// replaced; the moves are left as written.
func hideAddresses(rec string) string {
	var b strings.Builder
	depth := false // inside {...}
	var comment strings.Builder
	lines := strings.SplitAfter(rec, "\n")
	for _, l := range lines {
		if !depth {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "[") && strings.ContainsAny(t, "@＠") {
				if name, value, ok := strings.Cut(t[1:], " "); ok {
					v, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(value, "]")))
					if err != nil {
						v = "anonymous"
					}
					fmt.Fprintf(&b, "[%s %q]", name, archive.PublicTag(v))
					if strings.HasSuffix(l, "\n") {
						b.WriteByte('\n')
					}
					continue
				}
			}
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case depth && c == '}':
				b.WriteString(archive.PublicText(comment.String()))
				comment.Reset()
				b.WriteByte(c)
				depth = false
			case depth:
				comment.WriteByte(c)
			case c == '{':
				b.WriteByte(c)
				depth = true
			case c == ';':
				rest := strings.TrimRight(l[i+1:], "\n")
				b.WriteByte(';')
				b.WriteString(archive.PublicText(rest))
				b.WriteString(l[i+1+len(rest):])
				i = len(l)
			default:
				b.WriteByte(c)
			}
		}
	}
	if depth {
		b.WriteString(archive.PublicText(comment.String()))
	}
	return b.String()
}

// timeLeft writes a duration as days and hours ("2d 5h"), or hours and
// minutes under a day.
func timeLeft(d time.Duration) string {
	if d <= 0 {
		return "time is up"
	}
	days := int(d / (24 * time.Hour))
	hours := int(d % (24 * time.Hour) / time.Hour)
	if days > 0 {
		return fmt.Sprintf("%dd %dh left", days, hours)
	}
	return fmt.Sprintf("%dh %dm left", hours, int(d%time.Hour/time.Minute))
}

// layoutAt is the layout of the position after ply plies, or nil when the
// game does not describe its positions.
func (g *game) layoutAt(ply int) *engine.Layout {
	if g.Checked == nil || ply < 0 || ply >= len(g.Checked.Lines) {
		return nil
	}
	lo, ok := g.Checked.Lines[ply].State().(engine.Layouter)
	if !ok {
		return nil
	}
	return lo.Layout(-1)
}
