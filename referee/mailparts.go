package referee

import (
	"fmt"
	"net/url"
	"strings"

	"pbem/archive"
)

// calendarSlot is how long before a deadline the event of the calendar
// part starts: it ends when the mover's time runs out, as on the web's
// calendar of deadlines (the same UID, so one event either way).
const calendarSlot = archive.CalendarSlot

// calendarHost is the host of the events' UIDs: the web's, as its
// calendar of deadlines writes them, else the referee's mail domain.
func (r *Referee) calendarHost() string {
	if b := strings.TrimRight(r.opts.WebBaseURL, "/"); b != "" {
		return strings.TrimPrefix(strings.TrimPrefix(b, "https://"), "http://")
	}
	return r.domain
}

// calendarPart is the iCalendar object (RFC 5545, METHOD:PUBLISH, RFC
// 6047) of a board mail to d.to: an event per game of the mail whose move
// is the recipient's and that has a deadline, "" when none. The UID is
// the game's, so that a calendar updates the one event; SEQUENCE is the
// game's version once the change is stored (it moves on with every ply,
// as DTSTAMP does with the time); the event ends at the stored deadline.
func (s *session) calendarPart(d *draft, replyTo string) string {
	var c archive.ICS
	n := 0
	for _, g := range d.blocks {
		seat := g.seatOf(d.to.Addr)
		if g.Status != archive.Playing || g.Deadline.IsZero() || seat < 0 || g.mover() != seat {
			continue
		}
		if n == 0 {
			c.Line("BEGIN:VCALENDAR")
			c.Line("VERSION:2.0")
			c.Line("PRODID:-//pbem//deadline//EN")
			c.Line("CALSCALE:GREGORIAN")
			c.Line("METHOD:PUBLISH")
		}
		n++
		reply := replyTo
		if len(d.blocks) > 1 || reply == "" {
			reply = s.r.replyAddress(g, g.Seats[seat].Token)
		}
		c.Event(archive.ICSEvent{
			UID:      fmt.Sprintf("pbem-game-%d@%s", g.ID, s.r.calendarHost()),
			Stamp:    s.now,
			Sequence: g.Version + 1,
			Start:    g.Deadline.Add(-calendarSlot),
			End:      g.Deadline,
			Summary:  fmt.Sprintf("Your move in %s #%d", g.kind(), g.ID),
			Description: fmt.Sprintf("Your time in %s game #%d (ply %d, you play %s) runs out at %s, the end of this event. Reply with your move to %s",
				g.kind(), g.ID, g.plies()+1, g.Seats[seat].Side, stamp(g.Deadline), reply),
			URL: s.r.gameURL(g),
		})
	}
	if n == 0 {
		return ""
	}
	c.Line("END:VCALENDAR")
	return c.String()
}

// unsubscribeKind is the kind of mail d is, when its recipient may stop
// it (RFC 8058): a watcher's mail of a game, the daily digest of one's
// games. "" for the rest: a player's own game mail keeps coming, and so
// does every answer to a request.
func unsubscribeKind(d *draft) string {
	switch {
	case d.kind == "digest":
		return archive.UnsubDigest
	case d.kind == "news" && d.game != nil && d.seat < 0 && d.game.watchedBy(d.to.Addr) >= 0:
		return archive.UnsubWatch
	}
	return ""
}

// unsubscribeHeader is the List-Unsubscribe value that stops kind for
// addr: the one-click address on the web (when the referee has one), and
// the mailto: form the referee reads (unsubscribeCmd).
func (r *Referee) unsubscribeHeader(addr, kind string) string {
	tok := archive.UnsubscribeToken(r.opts.UnsubscribeSecret, addr, kind)
	mailto := fmt.Sprintf("<mailto:%s?subject=%s>", r.opts.Address, url.PathEscape("unsubscribe "+kind+" "+tok))
	base := strings.TrimRight(r.opts.WebBaseURL, "/")
	if base == "" {
		return mailto
	}
	return fmt.Sprintf("<%s/unsubscribe?%s>, %s", base, archive.UnsubscribeQuery(r.opts.UnsubscribeSecret, addr, kind), mailto)
}

// unsubscribed reports whether addr stopped kind (false when the store
// cannot say: the mail goes, rather than being lost).
func (s *session) unsubscribed(addr, kind string) bool {
	us := s.r.store
	off, err := us.Unsubscribed(s.ctx, addr, kind)
	if err != nil {
		s.r.log.Warn("unsubscriptions unread", "address", addr, "kind", kind, "err", err)
		return false
	}
	return off
}

// unsubscribeCmd: unsubscribe KIND TOKEN, the mailto: form of a mail's
// List-Unsubscribe (the subject a mail client sends), stops that kind of
// mail to the sender. The token is the sender's address's for that kind:
// a forged sender without it changes nothing.
func (s *session) unsubscribeCmd(c *cmd) error {
	form := "unsubscribe KIND TOKEN, as the List-Unsubscribe of a mail gives it (KIND one of " + strings.Join(archive.UnsubscribeKinds, ", ") + ")"
	f := strings.Fields(c.rest)
	if len(f) != 2 {
		return mistake(nil, form, "unsubscribe takes a kind and a token")
	}
	kind := strings.ToLower(f[0])
	if !archive.ValidUnsubscribeKind(kind) {
		return mistake(nil, form, "%q is no kind of mail one can stop", f[0])
	}
	if !tokenEqual(f[1], archive.UnsubscribeToken(s.r.opts.UnsubscribeSecret, s.from.Addr, kind)) {
		return mistake(nil, form, "this token does not stop %s mail to %s", kind, s.from.Addr)
	}
	s.unsubscribe = append(s.unsubscribe, archive.Unsubscription{Addr: s.from.Addr, Kind: kind})
	if kind == archive.UnsubDigest {
		p, err := s.player(s.from.Addr)
		if err != nil {
			return err
		}
		if p.Digest != "" {
			p.Digest = ""
			s.touchPlayer(p)
		}
	}
	s.mine.label = "unsubscribed"
	what := map[string]string{
		archive.UnsubWatch:      "mail of the games you watch",
		archive.UnsubDigest:     "daily digest of your games",
		archive.UnsubTournament: "daily standings of your tournaments",
	}[kind]
	s.mine.add("You will get no more %s. The mail of your own games keeps coming.", what)
	return nil
}
