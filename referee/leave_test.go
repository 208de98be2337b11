package referee_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

// newTable starts rpp with n seats (p0 ... p(n-1), the creator's order).
func newTable(t *testing.T, db store, n int) *condGame {
	t.Helper()
	h := newHarness(t, db, nil)
	var addrs []string
	for i := range n {
		addrs = append(addrs, fmt.Sprintf("p%d@example.org", i))
	}
	h.send(fmt.Sprintf("from: %s\nsubject: new rpp with %s players=%d\n", addrs[0], strings.Join(addrs[1:], " "), n))
	for _, a := range addrs {
		h.send(fmt.Sprintf("from: %s\nto: {plus 1 %s}\n\naccept\n", a, a))
	}
	codec, _ := referee.Lookup("rpp")
	c := &condGame{t: t, h: h, id: 1, codec: codec, addrs: addrs, rng: rand.New(rand.NewPCG(uint64(n), 9))}
	g := c.game()
	if g.Status != archive.Playing {
		t.Fatalf("game is %s", g.Status)
	}
	c.opts = engine.Options{Players: g.Options.Players, Board: g.Options.Board}
	c.addrs = nil
	for _, st := range g.Seats {
		c.addrs = append(c.addrs, st.Player.Addr)
	}
	return c
}

// TestLeavers: in an 8-seat game two seats resign (one while another is
// to move, one on its own turn) and one runs out of time; the game goes
// on without them (their turns skipped), the record marks each leave,
// checks, and when the game ends the seats that left rank below every
// seat still in, in reverse order of leaving.
func TestLeavers(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		c := newTable(t, db, 8)
		seatOf := func(addr string) int { return slices.Index(c.addrs, addr) }
		play := func(k int) {
			for range k {
				l := c.line()
				if l.Outcome().Over {
					return
				}
				mover := l.State().ToMove()
				ply, _ := c.pick(l)
				c.send(mover, ply)
			}
		}
		play(5)
		l := c.line()
		notMover := (l.State().ToMove() + 3) % 8
		out := c.send(notMover, "resign")
		if !strings.Contains(flat(mailTo(out, c.addrs[(notMover+1)%8])), "resigned and leaves the game; the others play on") {
			t.Fatalf("the others are not told the game goes on:\n%s", out)
		}
		if g := c.game(); g.Status != archive.Playing {
			t.Fatalf("after one resignation the game is %s", g.Status)
		}
		if l2 := c.line(); l2.State().ToMove() != l.State().ToMove() {
			t.Errorf("a resignation out of turn moved the turn from %d to %d", l.State().ToMove(), l2.State().ToMove())
		}
		play(3)
		mover := c.line().State().ToMove()
		c.send(mover, "resign")
		if next := c.line().State().ToMove(); next == mover || next == notMover {
			t.Errorf("after the mover resigned, %d is to move", next)
		}
		// The next mover runs out of time.
		late := c.line().State().ToMove()
		tickOut := c.h.step("t", "tick", "time: +8d")
		g := c.game()
		if g.Status != archive.Playing || !strings.Contains(g.Record, c.game().Seats[late].Side+":time") {
			t.Fatalf("after a time forfeit the game is %s:\n%s\n%s", g.Status, g.Record, tickOut)
		}
		// The seats that left never move again; play on a while.
		for range 40 {
			l := c.line()
			if l.Outcome().Over {
				break
			}
			m := l.State().ToMove()
			if m == notMover || m == mover || m == late {
				t.Fatalf("seat %d, which left, is to move", m)
			}
			ply, _ := c.pick(l)
			c.send(m, ply)
		}
		// A leaver's commands are refused.
		if out := flat(mailTo(c.send(notMover, "draw"), c.addrs[notMover])); !strings.Contains(out, "have left game #1") {
			t.Errorf("a leaver's draw offer: %s", out)
		}
		// The rest resign one by one: the last one in wins.
		left := []int{notMover, mover, late}
		for {
			g := c.game()
			if g.Status == archive.Over {
				break
			}
			next := -1
			for i := range 8 {
				if !slices.Contains(left, i) {
					next = i
					break
				}
			}
			c.send(next, "resign")
			left = append(left, next)
		}
		g = c.game()
		recs, probs := notation.Parse("g", []byte(g.Record))
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		cg, problems := notation.Check(recs[0], testLookup)
		if len(problems) > 0 || cg == nil {
			t.Fatalf("the record does not check: %v\n%s", problems, g.Record)
		}
		ranks, err := notation.ParseResult(cg.Codec, cg.Sides, recs[0].Result)
		if err != nil {
			t.Fatal(err)
		}
		winner := slices.Index(ranks, 1)
		if slices.Contains(left, winner) || len(left) != 7 {
			t.Fatalf("winner %d, left %v, result %s", winner, left, recs[0].Result)
		}
		for k := 1; k < len(left); k++ {
			if ranks[left[k]] >= ranks[left[k-1]] {
				t.Errorf("seat %d left after seat %d but ranks %d, not above %d (result %s)", left[k], left[k-1], ranks[left[k]], ranks[left[k-1]], recs[0].Result)
			}
		}
		for _, tok := range []string{c.game().Seats[notMover].Side + ":resign", c.game().Seats[late].Side + ":time"} {
			if !strings.Contains(g.Record, tok) {
				t.Errorf("the record lacks %s:\n%s", tok, g.Record)
			}
		}
		_ = seatOf
		// The archive reads it too.
		var export strings.Builder
		if n, err := c.h.store.Export(c.h.ctx, &export, testLookup, archive.Filter{}, nil); err != nil || n != 1 {
			t.Errorf("export: %d games, %v", n, err)
		}
	})
}

// TestTwoSeatsResignAsBefore: with two players resign ends the game.
func TestTwoSeatsResignAsBefore(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		c := newTable(t, db, 2)
		c.send(1, "resign")
		if g := c.game(); g.Status != archive.Over || !strings.Contains(g.Record, `[Termination "resign"]`) || strings.Contains(g.Record, ":resign") {
			t.Errorf("two-seat resignation:\n%s", g.Record)
		}
	})
}

// TestLeaverBot: with leaver=bot:1 a player who resigns a game of three
// hands the seat to the computer, which plays it on; the player is told
// that its token no longer works, and the record names it with
// archive.PlayedByComputer.
func TestLeaverBot(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		h.send("from: p0@example.org\nsubject: new rpp with p1@example.org p2@example.org players=3 leaver=bot:1\n")
		for _, a := range []string{"p0", "p1", "p2"} {
			h.send(fmt.Sprintf("from: %s@example.org\nto: {plus 1 %s@example.org}\n\naccept\n", a, a))
		}
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.Options.Leaver != "bot:1" {
			t.Fatalf("leaver option = %q", g.Options.Leaver)
		}
		// A seat not to move resigns.
		codec, _ := referee.Lookup("rpp")
		c := &condGame{t: t, h: h, id: 1, codec: codec, opts: engine.Options{Players: 3, Board: g.Options.Board}, rng: rand.New(rand.NewPCG(1, 2))}
		mover := c.line().State().ToMove()
		seat := (mover + 1) % 3
		addr := g.Seats[seat].Player.Addr
		out := h.send(fmt.Sprintf("from: %s\nto: {plus 1 %s}\n\nresign\n", addr, addr))
		if !strings.Contains(flat(mailTo(out, addr)), "the referee's computer player (level 1) plays your seat to the end") {
			t.Errorf("the resigning player's reply:\n%s", mailTo(out, addr))
		}
		g, _ = h.store.Game(h.ctx, 1)
		if lv, ok := referee.BotLevel(g.Seats[seat].Player.Addr); !ok || lv != 1 {
			t.Fatalf("seat %d is %s, want the level 1 bot", seat, g.Seats[seat].Player.Addr)
		}
		if !strings.Contains(g.Record, archive.PlayedByComputer) || strings.Contains(g.Record, ":resign") {
			t.Errorf("record:\n%s", g.Record)
		}
		// The mover plays; then the computer plays the seat.
		m := g.Seats[mover].Player.Addr
		ply, _ := c.pick(c.line())
		h.send(fmt.Sprintf("from: %s\nto: {plus 1 %s}\n\n%s\n", m, m, ply))
		before := len(c.record().Main.Plies)
		h.step("b", "bots", "")
		if after := len(c.record().Main.Plies); after != before+1 {
			t.Errorf("the computer played %d plies for the seat, want 1", after-before)
		}
		// The old player's token is dead.
		out = h.send(fmt.Sprintf("from: %s\nsubject: Re: [pbem #1 x]\n\nshow 1\n", addr))
		if strings.Contains(out, "your move") {
			t.Errorf("the player who left still plays:\n%s", out)
		}
	})
}

// TestTakeover: in a game of four, a seat resigns; a player still in
// invites a newcomer, who accepts with the invitation's token: the seat
// comes back (Y:takeover in the record) and the newcomer plays it. A
// second seat that left is offered too late: every seat still in has
// played since, and the takeover is refused.
func TestTakeover(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		c := newTable(t, db, 4)
		play := func() {
			l := c.line()
			m := l.State().ToMove()
			ply, _ := c.pick(l)
			c.send(m, ply)
		}
		play()
		l := c.line()
		mover := l.State().ToMove()
		leaver := (mover + 2) % 4
		c.send(leaver, "resign")
		side := c.game().Seats[leaver].Side
		out := c.send(mover, fmt.Sprintf("takeover 1 %s newbie@example.org", side))
		invite := mailTo(out, "newbie@example.org")
		if !strings.Contains(flat(invite), "invites you to take over seat "+side) {
			t.Fatalf("no invitation:\n%s", out)
		}
		play()
		out = c.h.send("from: Newbie <newbie@example.org>\nto: {plus 1 newbie@example.org}\n\naccept\n")
		if !strings.Contains(flat(mailTo(out, "newbie@example.org")), "You took over seat "+side) {
			t.Fatalf("the takeover was not taken:\n%s", out)
		}
		g := c.game()
		if g.Seats[leaver].Player.Addr != "newbie@example.org" || !strings.Contains(g.Record, side+":takeover") {
			t.Fatalf("seat %d is %s; record:\n%s", leaver, g.Seats[leaver].Player.Addr, g.Record)
		}
		c.addrs[leaver] = "newbie@example.org"
		// The seat is in the turn order again: play until it moves.
		for range 4 {
			if c.line().State().ToMove() == leaver {
				break
			}
			play()
		}
		if m := c.line().State().ToMove(); m != leaver {
			t.Fatalf("the seat taken over never came to move (seat %d to move)", m)
		}
		ply, _ := c.pick(c.line())
		if out := c.send(leaver, ply); !strings.Contains(out, "You played "+ply) {
			t.Errorf("the newcomer's ply:\n%s", out)
		}
		// Too late: a seat that left a round ago.
		late := c.line().State().ToMove()
		c.send(late, "resign")
		for range 4 {
			play()
		}
		asker := c.line().State().ToMove()
		out = c.send(asker, fmt.Sprintf("takeover 1 %s other@example.org", c.game().Seats[late].Side))
		if !strings.Contains(flat(mailTo(out, c.addrs[asker])), "cannot be taken over any more") {
			t.Errorf("a late takeover was not refused:\n%s", mailTo(out, c.addrs[asker]))
		}
		recs, _ := notation.Parse("g", []byte(c.game().Record))
		if _, probs := notation.Check(recs[0], testLookup); len(probs) > 0 {
			t.Errorf("the record does not check: %v\n%s", probs, c.game().Record)
		}
	})
}
