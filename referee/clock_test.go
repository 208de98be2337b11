package referee_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"pbem/archive"
	"pbem/notation"
	"pbem/referee"
)

// weekdayTime counts [a, b) without Saturdays and Sundays (UTC), minute by
// minute: the test's own count, independent of the referee's.
func weekdayTime(a, b time.Time) time.Duration {
	var n time.Duration
	for t := a; t.Before(b); t = t.Add(time.Minute) {
		if d := t.UTC().Weekday(); d != time.Saturday && d != time.Sunday {
			n += min(time.Minute, b.Sub(t))
		}
	}
	return n
}

// lastClock reads the clock comment of the last ply of a record.
func lastClock(t *testing.T, record string) (emt, clk time.Duration) {
	t.Helper()
	recs, probs := notation.Parse("r", []byte(record))
	if len(probs) > 0 || len(recs) != 1 || len(recs[0].Main.Plies) == 0 {
		t.Fatalf("record: %v\n%s", probs, record)
	}
	p := recs[0].Main.Plies[len(recs[0].Main.Plies)-1]
	for _, c := range p.Comments {
		var e, k string
		if _, err := fmt.Sscanf(c, "[%%emt %s [%%clk %s", &e, &k); err == nil {
			emt, err1 := notation.ParseClock(strings.TrimSuffix(e, "]"))
			clk, err2 := notation.ParseClock(strings.TrimSuffix(k, "]"))
			if err1 != nil || err2 != nil {
				t.Fatalf("clock comment %q: %v %v", c, err1, err2)
			}
			return emt, clk
		}
	}
	t.Fatalf("ply %s has no clock comment: %q", p.Text, p.Comments)
	return 0, 0
}

// TestClockProperties plays toy games under a bank with an increment, a
// cap and weekends off, with random thinking times, vacations and
// restarts of the referee: after each ply the clock is what the control
// makes of the one before (never above the cap, never below zero), the
// time a ply took is the weekday time it took (less a vacation), the
// record checks, and a game lost on time was lost by a side whose clock
// had run out.
func TestClockProperties(t *testing.T) {
	const base, inc, capacity = 36 * time.Hour, 12 * time.Hour, 60 * time.Hour
	eachStore(t, func(t *testing.T, db store) {
		rng := rand.New(rand.NewPCG(3, 5))
		plies, losses, vacations := 0, 0, 0
		defer func() {
			t.Logf("%d plies, %d vacations, %d games lost on time", plies, vacations, losses)
			if losses == 0 || vacations == 0 || plies < 20 {
				t.Errorf("the random games did not try every case: %d plies, %d vacations, %d losses on time", plies, vacations, losses)
			}
		}()
		for game := range 6 {
			h := newHarness(t, db, nil)
			h.send("from: alice@example.org\nsubject: new toy with bob@example.org players=2 time=36h+12h max=60h weekends=off\n")
			h.send("from: alice@example.org\nto: {plus 1 alice@example.org}\n\naccept\n")
			h.send("from: bob@example.org\nto: {plus 1 bob@example.org}\n\naccept\n")
			clock := []time.Duration{base, base}
			addr := []string{"alice", "bob"}
			mover, timeLoss := 0, false
			for ply := 0; ply < 20 && !timeLoss; ply++ {
				g, err := h.store.Game(h.ctx, 1)
				if err != nil {
					t.Fatal(err)
				}
				if g.Status != archive.Playing {
					break
				}
				start := h.now
				vacation := rng.IntN(8) == 0
				if vacation {
					vacations++
					h.send(fmt.Sprintf("from: %s@example.org\nto: {plus 1 %s@example.org}\n\nvacation 1\n", addr[mover], addr[mover]))
				}
				if rng.IntN(4) == 0 {
					h.ref = h.restart()
				}
				// Think: a random time, now and then longer than the clock.
				think := time.Duration(rng.Int64N(int64(clock[mover]*5/4))).Truncate(time.Minute) + time.Minute
				h.step("t", "tick", "time: +"+think.String())
				g, err = h.store.Game(h.ctx, 1)
				if err != nil {
					t.Fatal(err)
				}
				used := weekdayTime(start, h.now)
				if g.Status == archive.Over {
					if term := g.Record; !strings.Contains(term, `[Termination "time"]`) {
						t.Fatalf("game %d over but not on time:\n%s", game, g.Record)
					}
					if !vacation && used < clock[mover] {
						t.Fatalf("game %d lost on time by a side that had used %v of %v", game, used, clock[mover])
					}
					timeLoss = true
					losses++
					break
				}
				if !vacation && used >= clock[mover] {
					t.Fatalf("game %d: %v of weekday time used of a clock of %v, and the game goes on", game, used, clock[mover])
				}
				h.send(fmt.Sprintf("from: %s@example.org\nto: {plus 1 %s@example.org}\n\n+1\n", addr[mover], addr[mover]))
				g, err = h.store.Game(h.ctx, 1)
				if err != nil {
					t.Fatal(err)
				}
				used = weekdayTime(start, h.now) // the ply came a minute after the tick
				emt, clk := lastClock(t, g.Record)
				want := min(max(clock[mover]-emt, 0)+inc, capacity)
				if clk != want || clk < 0 || clk > capacity {
					t.Fatalf("game %d ply %d: clock %v after %v taken on %v, want %v", game, ply+1, clk, emt, clock[mover], want)
				}
				if got := used.Truncate(time.Minute); !vacation && emt != got {
					t.Fatalf("game %d ply %d: %%emt %v, want the %v of weekday time taken", game, ply+1, emt, got)
				} else if vacation && emt > got {
					t.Fatalf("game %d ply %d: %%emt %v beyond the %v of weekday time taken", game, ply+1, emt, got)
				}
				recs, _ := notation.Parse("r", []byte(g.Record))
				if _, probs := notation.Check(recs[0], testLookup); len(probs) > 0 {
					t.Fatalf("game %d: the record does not check: %v\n%s", game, probs, g.Record)
				}
				clock[mover] = clk
				mover = 1 - mover
				plies++
			}
		}
	})
}

// TestAdminClockOnBank: pbem admin clock gives the side to move time on
// its bank: the deadline moves by as much, and the ply then played is
// charged that much less (the gift counts for that move only).
func TestAdminClockOnBank(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		h.send("from: alice@example.org\nsubject: new toy with bob@example.org players=2 time=2d+1d\n")
		h.send("from: alice@example.org\nto: {plus 1 alice@example.org}\n\naccept\n")
		h.send("from: bob@example.org\nto: {plus 1 bob@example.org}\n\naccept\n")
		before, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		words, err := referee.AdminWords(`clock 1 +1d "travel"`)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.ref.Admin(h.ctx, "cli:operator", words); err != nil {
			t.Fatal(err)
		}
		after, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := after.Deadline.Sub(before.Deadline); got != 24*time.Hour {
			t.Fatalf("the deadline moved by %v, want 24h", got)
		}
		// Alice thinks 2 days 12 hours: past her bank of 2 days, within
		// the gift; she is charged 1 day 12 hours.
		h.step("t", "tick", "time: +60h")
		h.send("from: alice@example.org\nto: {plus 1 alice@example.org}\n\n+1\n")
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != archive.Playing {
			t.Fatalf("game is %s:\n%s", g.Status, g.Record)
		}
		emt, clk := lastClock(t, g.Record)
		if emt > 36*time.Hour+2*time.Minute || emt < 36*time.Hour-2*time.Minute || clk != 48*time.Hour-emt+24*time.Hour {
			t.Errorf("emt %v clk %v, want about 36h charged and the bank less it plus the increment", emt, clk)
		}
	})
}
