package referee

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"pbem/archive"
)

var zeroTime time.Time

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

// Reminder bits of archive.Game.Reminded.
const (
	remindHalf = 1 << iota // after half the time
	remindLast             // one day before the end
)

// startTurn starts the clock of the side to move: its days from now, or
// from the end of its player's vacation.
func (s *session) startTurn(g *game) error {
	mover := g.mover()
	p, err := s.player(g.Seats[mover].Player.Addr)
	if err != nil {
		return err
	}
	from := s.now
	if p.VacationUntil.After(from) {
		from = p.VacationUntil
	}
	g.TurnStart = s.now
	g.Deadline = from.Add(days(g.Options.Days))
	g.Reminded = 0
	g.Due = g.nextDue()
	s.touch(g)
	return nil
}

// reminders says which reminders a turn of the game has: with one day per
// move only the half-time one, with two days only the last-day one.
func (g *game) reminders() (half, last bool) {
	d := days(g.Options.Days)
	last = d > 24*time.Hour
	half = !last || d/2 > 24*time.Hour
	return half, last
}

func (g *game) halfTime() time.Time { return g.Deadline.Add(-days(g.Options.Days) / 2) }
func (g *game) lastDay() time.Time  { return g.Deadline.Add(-24 * time.Hour) }

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
	return r
}

// Tick does what the clocks ask at now: reminders (after half the time, one
// day before the end), time forfeits, expired invitations. Each game's
// change is committed on its own; a second Tick at the same time does
// nothing. It returns the store errors it met (the games concerned are
// tried again at the next Tick).
func (r *Referee) Tick(ctx context.Context, now time.Time) error {
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
		case !s.now.Before(g.Deadline):
			why := g.who(mover) + " ran out of time"
			s.tell(g, true, "%s: the deadline was %s.", why, stamp(g.Deadline))
			s.finish(g, leaveOutcome(g, mover, why), "time", why)
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
