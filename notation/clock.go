package notation

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Clocks in records (NOTATION.md, "Clocks"): the [TimeControl] tag says
// the control, as PGN writes it ("1/604800": one move in 7 days;
// "2592000+86400": a bank of 30 days and a day added after each of a
// side's plies); [TimeMax] caps a bank, [TimeGrace] is the time a side may
// still move after its clock ran out, [TimeWeekends "off"] says that
// weekends did not count. After each ply a comment
// {[%emt 1d04h12m] [%clk 29d19h48m]} gives the time the ply took (as the
// clock counted it) and the side's clock after it.

// Control is a record's time control.
type Control struct {
	// PerMove is the time for each move ("1/SECONDS"); zero for a bank.
	PerMove time.Duration
	// Base and Inc are a bank's start and increment; Max caps the bank
	// (zero: no cap).
	Base, Inc, Max time.Duration
	// Grace is how long after its clock ran out a side may still move.
	Grace time.Duration
	// Weekends off: Saturdays and Sundays did not count.
	WeekendsOff bool
}

// Bank reports whether the control is a bank of time (else a time per
// move).
func (c Control) Bank() bool { return c.PerMove == 0 }

// Start is a side's clock before its first ply.
func (c Control) Start() time.Duration {
	if c.Bank() {
		return c.Base
	}
	return c.PerMove
}

// After is a side's clock after a ply that took emt on a clock of before:
// a time per move starts again; a bank loses emt (never below zero, as a
// ply in the grace empties it) and gains the increment, up to the cap.
func (c Control) After(before, emt time.Duration) time.Duration {
	if !c.Bank() {
		return c.PerMove
	}
	left := max(before-emt, 0) + c.Inc
	if c.Max > 0 {
		left = min(left, c.Max)
	}
	return left
}

// TimeControl is the [TimeControl] tag's value of the control.
func (c Control) TimeControl() string {
	if !c.Bank() {
		return fmt.Sprintf("1/%d", int64(c.PerMove/time.Second))
	}
	return fmt.Sprintf("%d+%d", int64(c.Base/time.Second), int64(c.Inc/time.Second))
}

// Tags are the control's tags: TimeControl, and TimeMax, TimeGrace and
// TimeWeekends when they apply.
func (c Control) Tags() []Tag {
	tags := []Tag{{Name: "TimeControl", Value: c.TimeControl()}}
	if c.Max > 0 && c.Bank() {
		tags = append(tags, Tag{Name: "TimeMax", Value: strconv.FormatInt(int64(c.Max/time.Second), 10)})
	}
	if c.Grace > 0 {
		tags = append(tags, Tag{Name: "TimeGrace", Value: strconv.FormatInt(int64(c.Grace/time.Second), 10)})
	}
	if c.WeekendsOff {
		tags = append(tags, Tag{Name: "TimeWeekends", Value: "off"})
	}
	return tags
}

// RecordControl reads a record's control from its tags. ok is false when
// the record has no [TimeControl] or one pbem does not keep clocks for
// ("?", "-", moves per period).
func RecordControl(r *Record) (c Control, ok bool, err error) {
	v, has := r.Tag("TimeControl")
	if !has || v == "?" || v == "-" || v == "" {
		return c, false, nil
	}
	seconds := func(s, what string) (time.Duration, error) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > 1<<40 {
			return 0, fmt.Errorf("bad %s %q; expected a number of seconds", what, s)
		}
		return time.Duration(n) * time.Second, nil
	}
	switch {
	case strings.HasPrefix(v, "1/"):
		if c.PerMove, err = seconds(v[2:], "[TimeControl] time per move"); err == nil && c.PerMove == 0 {
			err = fmt.Errorf("bad [TimeControl %q]: no time per move; expected 1/SECONDS", v)
		}
	case strings.Contains(v, "+"):
		base, inc, _ := strings.Cut(v, "+")
		if c.Base, err = seconds(base, "[TimeControl] bank"); err == nil {
			c.Inc, err = seconds(inc, "[TimeControl] increment")
		}
		if err == nil && c.Base == 0 {
			err = fmt.Errorf("bad [TimeControl %q]: an empty bank; expected BASE+INC with BASE above 0", v)
		}
	default:
		return c, false, nil // a control pbem keeps no clock for
	}
	if err != nil {
		return c, false, err
	}
	if v, has := r.Tag("TimeMax"); has && c.Bank() {
		if c.Max, err = seconds(v, "[TimeMax]"); err != nil {
			return c, false, err
		}
	}
	if v, has := r.Tag("TimeGrace"); has {
		if c.Grace, err = seconds(v, "[TimeGrace]"); err != nil {
			return c, false, err
		}
	}
	if v, has := r.Tag("TimeWeekends"); has {
		switch v {
		case "off":
			c.WeekendsOff = true
		case "on":
		default:
			return c, false, fmt.Errorf("bad [TimeWeekends %q]; expected off or on", v)
		}
	}
	return c, true, nil
}

// FormatClock writes a span as the clock comments do, in whole minutes:
// 1d04h12m, 0d00h05m; a negative span gets a "-".
func FormatClock(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	m := int64(d / time.Minute)
	return fmt.Sprintf("%s%dd%02dh%02dm", sign, m/(24*60), m/60%24, m%60)
}

// ParseClock reads FormatClock's form (the day, hour and minute parts each
// optional but one: 1d04h12m, 30d, 5h, 12m).
func ParseClock(s string) (time.Duration, error) {
	t := s
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	var d time.Duration
	parts := 0
	for _, u := range []struct {
		c    byte
		unit time.Duration
	}{{'d', 24 * time.Hour}, {'h', time.Hour}, {'m', time.Minute}} {
		i := strings.IndexByte(t, u.c)
		if i < 0 {
			continue
		}
		n, err := strconv.ParseInt(t[:i], 10, 64)
		if err != nil || i == 0 || n < 0 || n > 1<<30 {
			return 0, fmt.Errorf("bad clock %q; expected days, hours and minutes as 1d04h12m", s)
		}
		d += time.Duration(n) * u.unit
		t = t[i+1:]
		parts++
	}
	if t != "" || parts == 0 {
		return 0, fmt.Errorf("bad clock %q; expected days, hours and minutes as 1d04h12m", s)
	}
	if neg {
		d = -d
	}
	return d, nil
}

// ClockComment is the comment pbem writes after a ply.
func ClockComment(emt, clk time.Duration) string {
	return fmt.Sprintf("[%%emt %s] [%%clk %s]", FormatClock(emt), FormatClock(clk))
}

// plyClock is what a ply's comments say of the clocks: the time it took
// and the side's clock after it (has* false when absent), and time a
// referee's operator added to the clock of the side to move after it
// ([%clkadd DUR]).
type plyClock struct {
	emt, clk, add   time.Duration
	hasEmt, hasClk  bool
	bad, badCommand string
}

// readClock reads the clock commands of a ply's comments.
func readClock(comments []string) plyClock {
	var pc plyClock
	for _, c := range comments {
		for rest := c; ; {
			i := strings.Index(rest, "[%")
			if i < 0 {
				break
			}
			j := strings.IndexByte(rest[i:], ']')
			if j < 0 {
				break
			}
			cmd, arg, _ := strings.Cut(strings.TrimSpace(rest[i+2:i+j]), " ")
			rest = rest[i+j+1:]
			var dst *time.Duration
			switch cmd {
			case "emt":
				dst, pc.hasEmt = &pc.emt, true
			case "clk":
				dst, pc.hasClk = &pc.clk, true
			case "clkadd":
				dst = &pc.add
			default:
				continue // another program's command
			}
			d, err := ParseClock(strings.TrimSpace(arg))
			if err != nil && pc.bad == "" {
				pc.bad, pc.badCommand = err.Error(), "%"+cmd
			}
			if cmd == "clkadd" {
				d += pc.add
			}
			*dst = d
		}
	}
	return pc
}

// clocks checks the clock comments of the main line against the record's
// control: each side's clock before a ply is its clock after its previous
// one (or the control's start, plus what an operator added); a ply that
// took more than that and the grace means the side's clock ran out before
// the game ended, an error unless it is the last ply of a game lost on
// time ([Termination "time"]); a clock after a ply must be what the
// control makes of the one before and the time taken.
func (c *checker) clocks(r *Record) {
	ctl, ok, err := RecordControl(r)
	if err != nil {
		t := r.tag("TimeControl")
		c.add(t.Pos, 0, t.Value, "%v", err)
		return
	}
	if !ok {
		return
	}
	g := c.g
	term, _ := r.Tag("Termination")
	clock := make([]time.Duration, len(g.Sides))
	for i := range clock {
		clock[i] = ctl.Start()
	}
	if pc := readClock(r.Main.Comments); pc.add != 0 && len(g.Lines) > 0 {
		clock[g.Lines[0].State().ToMove()] += pc.add
	}
	n := len(g.Lines) - 1
	for i, p := range r.Main.Plies {
		if i >= n {
			break // not checked: illegal, or after the end
		}
		side := g.Lines[i].State().ToMove()
		pc := readClock(p.Comments)
		if pc.bad != "" {
			c.add(p.Pos, i+1, p.Text, "%s: %s", pc.badCommand, pc.bad)
			continue
		}
		if pc.hasEmt {
			if pc.emt < 0 {
				c.add(p.Pos, i+1, p.Text, "[%%emt %s] is negative; expected the time the ply took", FormatClock(pc.emt))
			} else if pc.emt > clock[side]+ctl.Grace && !(i == n-1 && term == "time") {
				c.add(p.Pos, i+1, p.Text, "the clock of %s ran out before the game ended: it had %s%s and the ply took %s",
					g.Sides[side], FormatClock(clock[side]), graceText(ctl.Grace), FormatClock(pc.emt))
			}
			want := ctl.After(clock[side], pc.emt)
			if pc.hasClk && pc.clk != want {
				c.add(p.Pos, i+1, p.Text, "[%%clk %s] disagrees with the control: %s's clock of %s less the %s the ply took%s is %s",
					FormatClock(pc.clk), g.Sides[side], FormatClock(clock[side]), FormatClock(pc.emt), incText(ctl), FormatClock(want))
			}
			clock[side] = want
		}
		if pc.hasClk {
			clock[side] = pc.clk
		}
		if pc.add != 0 {
			clock[g.Lines[i+1].State().ToMove()] += pc.add
		}
	}
}

func graceText(g time.Duration) string {
	if g == 0 {
		return ""
	}
	return " and a grace of " + FormatClock(g)
}

func incText(c Control) string {
	switch {
	case !c.Bank():
		return " (a time per move: the clock starts again)"
	case c.Inc > 0 && c.Max > 0:
		return fmt.Sprintf(" plus the increment %s, at most %s,", FormatClock(c.Inc), FormatClock(c.Max))
	case c.Inc > 0:
		return fmt.Sprintf(" plus the increment %s", FormatClock(c.Inc))
	}
	return ""
}
