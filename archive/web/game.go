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

func (s *Server) hidden(g *archive.Game) bool { return s.opts.Private != nil && s.opts.Private(g) }

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
// value: the display name of "Name <addr>", never an address. A value that
// is only an address gives the address's local part ("carol"), as the
// referee's mails to non-players do; no name at all gives "anonymous".
func PublicName(v string) string {
	v = strings.TrimSpace(v)
	addr := ""
	if i := strings.LastIndexByte(v, '<'); i >= 0 && strings.HasSuffix(v, ">") {
		addr = strings.Trim(v[i:], "<>")
		v = strings.Trim(strings.TrimSpace(v[:i]), `"`)
	}
	v = strings.Join(strings.Fields(v), " ")
	switch {
	case strings.Contains(v, "@") && !strings.ContainsAny(v, " "):
		addr, v = v, ""
	case strings.Contains(v, "@"):
		v = ""
	}
	if v == "" || v == "?" || v == "-" {
		if local, _, ok := strings.Cut(addr, "@"); ok && local != "" {
			return local
		}
		return "anonymous"
	}
	return v
}

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

// PublicRecord is the record of g for download with every tag that holds
// an address replaced by the player's public name.
func (g *game) PublicRecord() string {
	if g.Checked == nil {
		return hideAddresses(g.Record)
	}
	r := g.Checked.Record
	tags := make([]notation.Tag, len(r.Tags))
	copy(tags, r.Tags)
	for i := range r.Tags {
		if strings.Contains(r.Tags[i].Value, "@") {
			r.Tags[i].Value = PublicName(r.Tags[i].Value)
		}
	}
	defer func() { r.Tags = tags }()
	if g.plies() != len(r.Main.Plies) {
		// an illegal ply: the canonical writer needs a valid game
		return hideAddresses(g.Record)
	}
	return notation.Format(g.Checked)
}

// hideAddresses rewrites header lines [Tag "..."] whose value holds an
// address, for a record that cannot be checked.
func hideAddresses(rec string) string {
	lines := strings.Split(rec, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "[") || !strings.Contains(t, "@") {
			continue
		}
		name, _, ok := strings.Cut(t[1:], " ")
		if !ok {
			continue
		}
		lines[i] = fmt.Sprintf("[%s %q]", name, "anonymous")
	}
	return strings.Join(lines, "\n")
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
