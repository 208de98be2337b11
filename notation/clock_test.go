package notation_test

import (
	"strings"
	"testing"
	"time"

	"pbem/notation"
)

func TestClockText(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		text string
	}{
		{0, "0d00h00m"},
		{28*time.Hour + 12*time.Minute, "1d04h12m"},
		{30*24*time.Hour - 5*time.Minute, "29d23h55m"},
		{-2 * time.Hour, "-0d02h00m"},
	} {
		if got := notation.FormatClock(tc.d); got != tc.text {
			t.Errorf("FormatClock(%v) = %q, want %q", tc.d, got, tc.text)
		}
		if got, err := notation.ParseClock(tc.text); err != nil || got != tc.d {
			t.Errorf("ParseClock(%q) = %v, %v; want %v", tc.text, got, err, tc.d)
		}
	}
	for text, want := range map[string]time.Duration{"30d": 720 * time.Hour, "5h": 5 * time.Hour, "12m": 12 * time.Minute, "1d2h": 26 * time.Hour} {
		if got, err := notation.ParseClock(text); err != nil || got != want {
			t.Errorf("ParseClock(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "1x", "1d2", "h5", "--1d", "1.5d"} {
		if _, err := notation.ParseClock(bad); err == nil {
			t.Errorf("ParseClock(%q) succeeded", bad)
		}
	}
}

// TestCheckClocks: check reads the clock comments against the control: a
// side whose clock ran out before the game ended is an error (unless the
// game was lost on time with that ply), and so is a clock the control
// cannot give.
func TestCheckClocks(t *testing.T) {
	const bank = `[Game "toy"] [White "A"] [Black "B"] [TimeControl "86400+3600"] [TimeMax "93600"]`
	for _, tc := range []struct {
		name, record string
		want         []string
	}{
		{"bank", bank + `
1. t1 {[%emt 0d02h00m] [%clk 0d23h00m]} t1 {[%emt 0d00h30m] [%clk 1d00h30m]}
2. t1 {[%emt 0d23h00m] [%clk 0d01h00m]} {conditional} t1 {[%emt 0d00h00m] [%clk 1d01h30m]} *`, nil},
		{"ran out", bank + `
1. t1 {[%emt 1d00h01m] [%clk 0d01h00m]} t1 *`, []string{"ply 1", "the clock of White ran out before the game ended: it had 1d00h00m and the ply took 1d00h01m"}},
		{"lost on time", bank + ` [Termination "time"]
1. t1 {[%emt 1d00h01m] [%clk 0d01h00m]} 0-1`, nil},
		{"grace", bank + ` [TimeGrace "3600"]
1. t1 {[%emt 1d00h30m] [%clk 0d01h00m]} t1 *`, nil},
		{"wrong clock", bank + `
1. t1 {[%emt 0d02h00m] [%clk 0d23h30m]} t1 *`, []string{"[%clk 0d23h30m] disagrees with the control", "is 0d23h00m"}},
		{"operator's gift", bank + `
1. t1 {[%emt 0d02h00m] [%clk 0d23h00m]} t1 {[%emt 0d01h00m] [%clk 1d00h00m]} {[%clkadd 1d]}
2. t1 {[%emt 1d12h00m] [%clk 0d12h00m]} *`, nil},
		{"per move", `[Game "toy"] [TimeControl "1/86400"]
1. t1 {[%emt 0d23h00m] [%clk 1d00h00m]} t1 {[%emt 1d01h00m] [%clk 1d00h00m]} t1 *`, []string{"ply 2", "the clock of Black ran out"}},
		{"bad clock", bank + `
1. t1 {[%emt 2 hours]} *`, []string{`%emt: bad clock "2 hours"`}},
		{"bad control", `[Game "toy"] [TimeControl "0+60"] 1. t1 *`, []string{"an empty bank"}},
		{"other control", `[Game "toy"] [TimeControl "40/7200"] 1. t1 {[%emt 9d00h00m]} *`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems, _ := checkAll(t, tc.record)
			got := strings.Join(problems, "\n")
			if len(tc.want) == 0 && got != "" {
				t.Errorf("problems:\n%s\nwant none", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems:\n%s\nwant one with %q", got, w)
				}
			}
		})
	}
}
