package referee

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	_ "time/tzdata" // zones for tz on machines without a zoneinfo database

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

var zeroTime time.Time

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

// Reminder bits of archive.Game.Reminded.
const (
	remindHalf = 1 << iota // after half the time
	remindLast             // one day before the end
	remindLate             // the others were told the mover is late (grace)
)

// control is the game's time control.
func (g *game) control() notation.Control {
	o := g.Options
	c := notation.Control{Grace: time.Duration(o.Grace) * time.Second, WeekendsOff: o.Weekends == "off"}
	if o.Base > 0 {
		c.Base, c.Inc, c.Max = time.Duration(o.Base)*time.Second, time.Duration(o.Inc)*time.Second, time.Duration(o.Max)*time.Second
	} else {
		c.PerMove = days(o.Days)
	}
	return c
}

// clockOf is seat's clock before its next ply: for a bank, what the clock
// comment of its last ply says (else the bank's start); for a time per
// move, that time.
func (g *game) clockOf(seat int) time.Duration {
	c := g.control()
	if !c.Bank() || g.b == nil {
		return c.Start()
	}
	if i := g.lastPlyOf(seat); i >= 0 {
		if clk, ok := clockComment(g.comments[i+1]); ok {
			return clk
		}
	}
	return c.Start()
}

// clockComment reads the [%clk] of a ply's comments.
func clockComment(comments []string) (time.Duration, bool) {
	for _, c := range comments {
		if _, rest, ok := strings.Cut(c, "[%clk "); ok {
			v, _, _ := strings.Cut(rest, "]")
			if d, err := notation.ParseClock(strings.TrimSpace(v)); err == nil {
				return d, true
			}
		}
	}
	return 0, false
}

// zone is the time zone of seat's player (UTC when none is set).
func (s *session) zone(addr string) *time.Location {
	p, err := s.player(addr)
	if err != nil || p.TZ == "" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(p.TZ); err == nil {
		return loc
	}
	return time.UTC
}

// weekend reports whether t falls on a Saturday or Sunday in loc.
func weekend(t time.Time, loc *time.Location) bool {
	d := t.In(loc).Weekday()
	return d == time.Saturday || d == time.Sunday
}

// nextDay is the start of the day after t's in loc (daylight-saving
// changes included).
func nextDay(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc)
}

// counted is how much of [a, b) a clock counts: all of it, or with
// weekends off only what falls on Monday to Friday in loc.
func counted(a, b time.Time, off bool, loc *time.Location) time.Duration {
	if !b.After(a) {
		return 0
	}
	if !off {
		return b.Sub(a)
	}
	var n time.Duration
	for t := a; t.Before(b); {
		end := nextDay(t, loc)
		if end.After(b) {
			end = b
		}
		if !weekend(t, loc) {
			n += end.Sub(t)
		}
		t = end
	}
	return n
}

// advance is when a clock started at from has counted d.
func advance(from time.Time, d time.Duration, off bool, loc *time.Location) time.Time {
	if !off {
		return from.Add(d)
	}
	t := from
	for {
		end := nextDay(t, loc)
		if weekend(t, loc) {
			t = end
			continue
		}
		if span := end.Sub(t); d <= span {
			return t.Add(d)
		} else {
			d -= span
		}
		t = end
	}
}

// startTurn starts the clock of the side to move: its time (a bank, or
// the time per move) from now, or from the end of its player's vacation,
// counted as the control counts (weekends off in the player's zone).
func (s *session) startTurn(g *game) error {
	mover := g.mover()
	addr := g.Seats[mover].Player.Addr
	p, err := s.player(addr)
	if err != nil {
		return err
	}
	from := s.now
	if p.VacationUntil.After(from) && !g.Options.NoVacation {
		from = p.VacationUntil
	}
	c := g.control()
	g.TurnStart = s.now
	g.Deadline = advance(from, g.clockOf(mover), c.WeekendsOff, s.zone(addr))
	g.Reminded = 0
	g.Due = g.nextDue()
	s.touch(g)
	return nil
}

// charge writes, after the ply seat just played on a clock of before
// (clockOf before the ply), the time it took and the seat's clock after it ({[%emt ...] [%clk ...]}): the time taken is what
// the clock counted of the seat's time (time the operator or a vacation
// added counts for this move only), in whole minutes.
func (s *session) charge(g *game, seat int, before time.Duration) {
	c := g.control()
	loc := s.zone(g.Seats[seat].Player.Addr)
	var left time.Duration
	if s.now.Before(g.Deadline) {
		left = counted(s.now, g.Deadline, c.WeekendsOff, loc)
	} else {
		left = -counted(g.Deadline, s.now, c.WeekendsOff, loc)
	}
	emt := max(before-left, 0).Truncate(time.Minute)
	g.comment(notation.ClockComment(emt, c.After(before, emt)))
}

// allowance is the time the mover had when its turn began.
func (g *game) allowance() time.Duration {
	if g.b == nil || g.line().Outcome().Over {
		return days(g.Options.Days)
	}
	return g.clockOf(g.mover())
}

// reminders says which reminders a turn of the game has: with one day per
// move only the half-time one, with two days only the last-day one.
func (g *game) reminders() (half, last bool) {
	d := g.allowance()
	last = d > 24*time.Hour
	half = !last || d/2 > 24*time.Hour
	return half, last
}

func (g *game) halfTime() time.Time { return g.Deadline.Add(-g.allowance() / 2) }
func (g *game) lastDay() time.Time  { return g.Deadline.Add(-24 * time.Hour) }

// graceEnd is when a mover whose clock ran out loses on time: the
// deadline, or the end of the grace after it (wall time, weekends too).
func (g *game) graceEnd() time.Time {
	return g.Deadline.Add(time.Duration(g.Options.Grace) * time.Second)
}

// nextDue is when the clock next needs the referee.
func (g *game) nextDue() time.Time {
	switch g.Status {
	case archive.Invited:
		return g.Deadline
	case archive.Playing:
	default:
		return zeroTime
	}
	due := g.Deadline
	if g.Reminded&remindLate != 0 {
		due = g.graceEnd()
	}
	half, last := g.reminders()
	if half && g.Reminded&remindHalf == 0 && g.halfTime().Before(due) {
		due = g.halfTime()
	}
	if last && g.Reminded&remindLast == 0 && g.lastDay().Before(due) {
		due = g.lastDay()
	}
	return due
}

// remindedBefore keeps the reminder bits of reminders whose time is not
// after now (after the deadline moved, later ones are sent again).
func (g *game) remindedBefore(now time.Time) int {
	r := g.Reminded
	if g.halfTime().After(now) {
		r &^= remindHalf
	}
	if g.lastDay().After(now) {
		r &^= remindLast
	}
	if !g.Deadline.Before(now) {
		r &^= remindLate
	}
	return r
}

// Tick does what the clocks ask at now: reminders (after half the time, one
// day before the end), time forfeits, expired invitations, the players'
// daily digests (digest.go). Each game's
// change is committed on its own; a second Tick at the same time does
// nothing. It returns the store errors it met (the games concerned are
// tried again at the next Tick).
func (r *Referee) Tick(ctx context.Context, now time.Time) error {
	r.busy.Add(1)
	defer r.busy.Add(-1)
	gs, err := r.store.DueGames(ctx, now)
	if err != nil {
		return fmt.Errorf("referee: tick: %w", err)
	}
	var errs []error
	for _, ag := range gs {
		if err := r.tickGame(ctx, ag, now); err != nil {
			errs = append(errs, fmt.Errorf("referee: tick: game %d: %w", ag.ID, err))
		}
	}
	if err := r.tickTournaments(ctx, now); err != nil {
		errs = append(errs, err)
	}
	if err := r.tickDigests(ctx, now); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (r *Referee) tickGame(ctx context.Context, ag *archive.Game, now time.Time) error {
	var err error
	for range maxAttempts {
		var ch *archive.Change
		ch, err = r.tickChange(ctx, ag, now)
		if err != nil || ch == nil {
			return err
		}
		err = r.store.Commit(ctx, ch)
		if err == nil {
			r.stats.queued.Add(int64(len(ch.Outbox)))
		}
		if !errors.Is(err, archive.ErrConflict) {
			return err
		}
		r.stats.conflicts.Add(1)
		if ag, err = r.store.Game(ctx, ag.ID); err != nil {
			return err
		}
	}
	return err
}

// tickChange decides what the clock does to one game (nil: nothing).
func (r *Referee) tickChange(ctx context.Context, ag *archive.Game, now time.Time) (ch *archive.Change, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.stats.panics.Add(1)
			r.log.Error("panic in the clock", "game", ag.ID, "panic", p, "stack", string(debug.Stack()))
			ch, err = nil, fmt.Errorf("internal error: %v", p)
		}
	}()
	s := r.newSession(ctx, nil, fmt.Sprintf("tick:%d:%d", ag.ID, ag.Version))
	s.now = now.UTC()
	g, err := s.adopt(ag)
	if err != nil {
		var ue *userError
		if errors.As(err, &ue) {
			return nil, errors.New(ue.reason)
		}
		return nil, err
	}
	if g.Due.IsZero() || g.Due.After(s.now) {
		return nil, nil
	}
	switch g.Status {
	case archive.Invited:
		if s.now.Before(g.Deadline) {
			g.Due = g.nextDue()
			break
		}
		confirmed := g.confirmed()
		g.Status = archive.Expired
		g.Due = zeroTime
		if confirmed {
			s.tell(g, false, "The invitation expired: %s did not accept by %s. Game #%d is cancelled.", g.waiting(), stamp(g.Deadline), g.ID)
		}
	case archive.Playing:
		mover := g.mover()
		half, last := g.reminders()
		switch {
		case !s.now.Before(g.graceEnd()) && g.canLeave(mover) && g.Options.Leaver != "":
			if err := s.handOver(g, mover, "ran out of time"); err != nil {
				return nil, err
			}
		case !s.now.Before(g.graceEnd()) && g.canLeave(mover):
			if err := s.leave(g, mover, engine.LeaveTime, fmt.Sprintf("%s ran out of time (the deadline was %s)", g.who(mover), stamp(g.Deadline))); err != nil {
				return nil, err
			}
		case !s.now.Before(g.graceEnd()):
			why := g.who(mover) + " ran out of time"
			if g.Options.Grace > 0 {
				s.tell(g, true, "%s: the deadline was %s, and the grace of %s after it is over.", why, stamp(g.Deadline), duration(g.graceEnd().Sub(g.Deadline)))
			} else {
				s.tell(g, true, "%s: the deadline was %s.", why, stamp(g.Deadline))
			}
			s.finish(g, leaveOutcome(g, mover, why), "time", why)
		case !s.now.Before(g.Deadline) && g.Reminded&remindLate == 0:
			g.Reminded |= remindLate | remindHalf | remindLast
			s.tell(g, true, "%s is late: the clock ran out at %s. The grace lets them still move until %s; then the game is lost on time.",
				g.who(mover), stamp(g.Deadline), stamp(g.graceEnd()))
		case last && g.Reminded&remindLast == 0 && !s.now.Before(g.lastDay()):
			g.Reminded |= remindLast | remindHalf
			s.tellSeats(g, []int{mover}, "Last reminder: it is your move in game #%d (ply %d), and you have less than a day left: until %s. If you do not move by then, you lose on time.",
				g.ID, g.plies()+1, stamp(g.Deadline))
		case half && g.Reminded&remindHalf == 0 && !s.now.Before(g.halfTime()):
			g.Reminded |= remindHalf
			s.tellSeats(g, []int{mover}, "Reminder: it is your move in game #%d (ply %d). Half of your time is gone; you have until %s (%s).",
				g.ID, g.plies()+1, stamp(g.Deadline), duration(g.Deadline.Sub(s.now)))
		}
		if g.Status == archive.Playing {
			g.Due = g.nextDue()
		}
	default:
		g.Due = zeroTime
	}
	s.touch(g)
	if err := s.tournamentResults(); err != nil {
		return nil, err
	}
	return s.change(), nil
}

// tzCmd: tz ZONE sets the sender's time zone (an IANA name such as
// Europe/Paris, or UTC): deadlines in its mail are shown in it, and in
// games with weekends off its Saturdays and Sundays do not count.
func (s *session) tzCmd(c *cmd) error {
	const form = "tz ZONE, with ZONE a time zone's IANA name such as Europe/Paris, America/New_York or UTC"
	name := strings.TrimSpace(c.rest)
	if name == "" {
		return mistake(nil, form, "a time zone must follow tz")
	}
	loc, err := time.LoadLocation(name)
	if err != nil || strings.EqualFold(name, "local") || len(name) > 64 {
		return mistake(nil, form, "%q is not a time zone the referee knows", name)
	}
	p, err := s.ownPlayer()
	if err != nil {
		return err
	}
	old := s.zone(s.from.Addr)
	p.TZ = loc.String()
	if p.TZ == "UTC" {
		p.TZ = ""
	}
	s.touchPlayer(p)
	// A turn under way with weekends off keeps its clock time, counted
	// from now on in the new zone's weekends.
	gs, err := s.store.ActiveGamesOf(s.ctx, s.from.Addr)
	if err != nil {
		return err
	}
	for _, ag := range gs {
		g, err := s.adopt(ag)
		if err != nil || g.Status != archive.Playing || g.b == nil || g.mover() != g.seatOf(s.from.Addr) || !g.control().WeekendsOff {
			continue
		}
		if g.Deadline.After(s.now) {
			g.Deadline = advance(s.now, counted(s.now, g.Deadline, true, old), true, loc)
			g.Reminded = g.remindedBefore(s.now)
			g.Due = g.nextDue()
			s.touch(g)
		}
	}
	s.mine.label = "time zone"
	s.mine.add("Your time zone is %s from now on (it is %s there now): deadlines in your mail are shown in it, and in games with weekends off its Saturdays and Sundays do not count.",
		loc.String(), stampIn(s.now, loc))
	return nil
}
