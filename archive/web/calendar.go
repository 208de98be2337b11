package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"pbem/archive"
)

// calendarSlot is how long before a deadline its event starts: the
// event ends when the mover's time runs out.
const calendarSlot = archive.CalendarSlot

// deadlines serves /players/NAME/deadlines.ics?key=KEY: the deadlines of
// the games where the player with that public name and calendar key has
// the move, as iCalendar (RFC 5545), an event per game (its UID the
// game's, so that a client updates it as the game moves on). Private games
// are there too: the key is the player's own. A wrong or revoked key is
// 404; a good key under another name than the player's is redirected to
// the player's current name.
func (s *Server) deadlines(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	p, err := s.store.CalendarOwner(r.Context(), key)
	if errors.Is(err, archive.ErrNotFound) {
		err = errHidden
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if name := archive.CalendarName(p); name != r.PathValue("name") {
		// The player's name changed since the address was mailed: the
		// key stays good, the address follows the name.
		http.Redirect(w, r, archive.CalendarPath(name, key), http.StatusMovedPermanently)
		return
	}
	games, err := s.store.ActiveGamesOf(r.Context(), p.Address.Addr)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	base := s.base(r)
	host := strings.TrimPrefix(strings.TrimPrefix(base, "https://"), "http://")
	now := s.opts.Now().UTC()
	var c archive.ICS
	c.Line("BEGIN:VCALENDAR")
	c.Line("VERSION:2.0")
	c.Line("PRODID:-//pbem//deadlines//EN")
	c.Line("CALSCALE:GREGORIAN")
	c.Line("METHOD:PUBLISH")
	c.Line("X-WR-CALNAME:" + archive.ICSText(s.opts.Title+": deadlines of "+archive.CalendarName(p)))
	for _, ref := range games {
		if ref.Status != archive.Playing || ref.Deadline.IsZero() {
			continue
		}
		g := &game{Ref: ref, Path: fmt.Sprintf("/g/%d", ref.ID), Record: ref.Record}
		s.check(g)
		if g.Checked == nil {
			continue
		}
		st := g.Checked.Lines[g.plies()].State()
		mover := st.ToMove()
		if mover < 0 || mover >= len(ref.Seats) || !strings.EqualFold(ref.Seats[mover].Player.Addr, p.Address.Addr) {
			continue
		}
		var others []string
		for i := range ref.Seats {
			if i != mover {
				others = append(others, seatName(ref, i))
			}
		}
		end := ref.Deadline.UTC()
		ev := archive.ICSEvent{
			UID:      fmt.Sprintf("pbem-game-%d@%s", ref.ID, host),
			Stamp:    now,
			Sequence: ref.Version,
			Modified: ref.Updated.UTC(),
			Start:    end.Add(-calendarSlot),
			End:      end,
			Summary:  fmt.Sprintf("Your move: %s game %d against %s", ref.Game, ref.ID, strings.Join(others, ", ")),
			Description: fmt.Sprintf("Your time in %s game %d (%s) runs out at %s UTC, the end of this event. Reply to the game's mail with your move.",
				ref.Game, ref.ID, st.Sides()[mover], end.Format("2006-01-02 15:04")),
		}
		if !s.hidden(ref) {
			ev.URL = base + g.Path
		}
		c.Event(ev)
	}
	c.Line("END:VCALENDAR")
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Cache-Control", "private, no-cache")
	w.Write([]byte(c.String()))
}
