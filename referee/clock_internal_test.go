package referee

import (
	"math/rand/v2"
	"testing"
	"time"
)

var testZones = []string{"UTC", "Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "Pacific/Chatham"}

// TestCountedAdvance: advance is the inverse of counted for any start,
// span and zone, daylight-saving changes included; with weekends off no
// Saturday or Sunday hour of the zone counts, and a week counts its five
// weekdays' hours.
func TestCountedAdvance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5000 {
		loc, err := time.LoadLocation(testZones[i%len(testZones)])
		if err != nil {
			t.Fatal(err)
		}
		from := base.Add(time.Duration(rng.Int64N(int64(3 * 365 * 24 * time.Hour))))
		d := time.Duration(rng.Int64N(int64(40 * 24 * time.Hour)))
		off := i%3 != 0
		to := advance(from, d, off, loc)
		if got := counted(from, to, off, loc); got != d {
			t.Fatalf("counted(%v, advance(%v, %v)) = %v in %s (off %v)", from, from, d, got, loc, off)
		}
		if to.Sub(from) < d {
			t.Fatalf("advance(%v, %v) = %v: less wall time than the clock counted", from, d, to)
		}
		if !off && to.Sub(from) != d {
			t.Fatalf("advance with weekends on is not plain addition")
		}
		// A weekend hour never counts: an hour of a Saturday.
		if off {
			l := from.In(loc)
			sat := time.Date(l.Year(), l.Month(), l.Day()+int((time.Saturday-l.Weekday()+7)%7), 10, 0, 0, 0, loc)
			if got := counted(sat, sat.Add(time.Hour), true, loc); got != 0 {
				t.Fatalf("an hour of Saturday %v in %s counted %v", sat, loc, got)
			}
		}
	}
	// A week: its five weekdays, whatever their length (23 or 25 hours on
	// a change of daylight saving).
	paris, _ := time.LoadLocation("Europe/Paris")
	monday := time.Date(2026, 3, 23, 0, 0, 0, 0, paris) // the week of the change to summer time (Sunday 29 March)
	if got := counted(monday, monday.AddDate(0, 0, 7), true, paris); got != 5*24*time.Hour {
		t.Errorf("a week with weekends off counted %v, want 120h", got)
	}
	monday = time.Date(2026, 3, 30, 0, 0, 0, 0, paris)
	if got := counted(monday.AddDate(0, 0, -3), monday.AddDate(0, 0, 1), true, paris); got != 48*time.Hour-time.Duration(0) {
		t.Errorf("Friday to Tuesday counted %v, want 48h (Friday and Monday)", got)
	}
	if got := counted(monday.AddDate(0, 0, -2), monday, false, paris); got != 47*time.Hour {
		t.Errorf("the weekend of the change counted %v with weekends on, want 47h", got)
	}
}
