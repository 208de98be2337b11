package referee

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"pbem/archive"
	"pbem/internal/english"
)

// defaultDigestHour is the hour of a digest asked for without one, in
// the player's time zone (tz; UTC by default).
const defaultDigestHour = "08:00"

// parseHour reads HH:MM (00:00 to 23:59) into minutes after midnight.
func parseHour(s string) (int, bool) {
	var h, m int
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	if _, err := fmt.Sscanf(s, "%02d:%02d", &h, &m); err != nil || h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// gamesDigestCmd: digest games daily [HH:MM] asks for a mail a day, at
// HH:MM in the sender's time zone (08:00 without one), listing the games
// waiting on the sender's move; digest games off stops it. It changes the
// sender's settings, so it needs the sender's token of one of its games.
func (s *session) gamesDigestCmd(c *cmd) error {
	const form = "digest games daily [HH:MM] (a mail a day, at that hour of your time zone, listing the games waiting on your move) or digest games off"
	f := strings.Fields(strings.ToLower(c.rest))
	// f[0] is "games"
	if len(f) < 2 || f[1] != "daily" && f[1] != "off" || f[1] == "off" && len(f) > 2 || len(f) > 3 {
		return mistake(nil, form, "digest games takes daily (and an hour) or off, not %q", strings.Join(f[1:], " "))
	}
	hour := defaultDigestHour
	if len(f) == 3 {
		if _, ok := parseHour(f[2]); !ok {
			return mistake(nil, form, "%q is no hour: expected HH:MM, from 00:00 to 23:59", f[2])
		}
		hour = f[2]
	}
	p, err := s.ownPlayer()
	if err != nil {
		return err
	}
	s.mine.label = "digest"
	if f[1] == "off" {
		p.Digest = ""
		s.touchPlayer(p)
		s.mine.add("You will get no more daily digest of your games. Your games' own mail keeps coming.")
		return nil
	}
	p.Digest = hour
	s.touchPlayer(p)
	// Asking for it again undoes an earlier one-click unsubscription.
	s.resubscribe = append(s.resubscribe, archive.Unsubscription{Addr: p.Address.Addr, Kind: archive.UnsubDigest})
	zone := p.TZ
	if zone == "" {
		zone = "UTC"
	}
	s.mine.add("You will get a digest of the games waiting on your move once a day at %s (%s), on the days when at least one waits. \"digest games off\" stops it; \"tz ZONE\" sets your time zone.", hour, zone)
	return nil
}

// tickDigests sends the daily digests due at now: to each player who asked
// for one, once their hour has come in their time zone, unless the day
// already had its digest. The mail and the day's mark are one commit, so
// that a restart neither loses nor repeats a digest; a day when no game
// waits is marked too, with no mail.
func (r *Referee) tickDigests(ctx context.Context, now time.Time) error {
	ds := r.store
	ps, err := ds.DigestPlayers(ctx)
	if err != nil {
		return fmt.Errorf("referee: digests: %w", err)
	}
	var errs []error
	for _, p := range ps {
		ch, err := r.digestChange(ctx, p, now)
		if err == nil && ch != nil {
			err = r.store.Commit(ctx, ch)
			if err == nil {
				r.stats.queued.Add(int64(len(ch.Outbox)))
			}
		}
		if err != nil && !errors.Is(err, archive.ErrConflict) {
			// a conflict: the player changed meanwhile; the next tick
			// reads it again
			errs = append(errs, fmt.Errorf("referee: digest of %s: %w", p.Address.Addr, err))
		}
	}
	return errors.Join(errs...)
}

// digestChange is the digest of p at now, with p's day marked (nil: not
// due).
func (r *Referee) digestChange(ctx context.Context, p *archive.Player, now time.Time) (ch *archive.Change, err error) {
	defer func() {
		if x := recover(); x != nil {
			r.stats.panics.Add(1)
			r.log.Error("panic in the digest", "player", p.Address.Addr, "panic", x, "stack", string(debug.Stack()))
			ch, err = nil, fmt.Errorf("internal error: %v", x)
		}
	}()
	minute, ok := parseHour(p.Digest)
	if !ok {
		minute, _ = parseHour(defaultDigestHour)
	}
	loc := time.UTC
	if p.TZ != "" {
		if l, err := time.LoadLocation(p.TZ); err == nil {
			loc = l
		}
	}
	local := now.In(loc)
	day := local.Format(time.DateOnly)
	if p.DigestSent == day || local.Hour()*60+local.Minute() < minute {
		return nil, nil
	}
	s := r.newSession(ctx, nil, "digest:"+p.Address.Addr+":"+day)
	s.now = now.UTC()
	s.players[normAddr(p.Address.Addr)] = p
	p.DigestSent = day
	s.touchPlayer(p)
	if off, err := r.store.Unsubscribed(ctx, p.Address.Addr, archive.UnsubDigest); err != nil {
		return nil, err
	} else if off {
		// unsubscribed with one click: the setting goes too
		p.Digest = ""
		return s.change(), nil
	}
	ags, err := r.store.ActiveGamesOf(ctx, p.Address.Addr)
	if err != nil {
		return nil, err
	}
	var waiting []*game
	for _, ag := range ags {
		g, err := s.adopt(ag)
		if err != nil {
			var ue *userError
			if errors.As(err, &ue) {
				continue
			}
			return nil, err
		}
		if g.Status == archive.Playing && g.mover() == g.seatOf(p.Address.Addr) && g.mover() >= 0 {
			waiting = append(waiting, g)
		}
	}
	if len(waiting) == 0 {
		return s.change(), nil
	}
	slices.SortStableFunc(waiting, func(a, b *game) int {
		switch {
		case a.Deadline.IsZero() != b.Deadline.IsZero():
			if a.Deadline.IsZero() {
				return 1
			}
			return -1
		case !a.Deadline.Equal(b.Deadline):
			return a.Deadline.Compare(b.Deadline)
		}
		return 0
	})
	d := &draft{to: p.Address, seat: -1, kind: "digest", label: "your move in " + english.Plural(len(waiting), "game")}
	waits := "1 game waits"
	if len(waiting) > 1 {
		waits = fmt.Sprintf("%d games wait", len(waiting))
	}
	d.add("%s on your move, the nearest deadline first. Reply to a game's own address below (or to its last mail) with your move.", waits)
	for _, g := range waiting {
		seat := g.mover()
		var others []string
		for i := range g.Seats {
			if i != seat {
				others = append(others, g.name(i))
			}
		}
		text := fmt.Sprintf("Game #%d, %s, against %s: ply %d, you play %s.\n", g.ID, g.kind(), strings.Join(others, ", "), g.plies()+1, g.Seats[seat].Side)
		if g.Deadline.IsZero() {
			text += "No clock.\n"
		} else {
			text += fmt.Sprintf("Time left: %s, until %s.\n", duration(counted(s.now, g.Deadline, g.control().WeekendsOff, loc)), stampIn(g.Deadline, loc))
		}
		text += "Reply to: " + r.replyAddress(g, g.Seats[seat].Token)
		d.addPre(text)
	}
	d.add("\"digest games off\" in a reply to any of your games' mail stops this digest.")
	s.extra = append(s.extra, d)
	return s.change(), nil
}

// replyAddress is the plus-address of g with token, as its mails give it.
func (r *Referee) replyAddress(g *game, token string) string {
	if token == "" {
		return fmt.Sprintf("%s+%d@%s", r.local, g.ID, r.domain)
	}
	return fmt.Sprintf("%s+%d.%s@%s", r.local, g.ID, token, r.domain)
}
