package referee_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

// TestEveryGameByCommands plays every game of the catalog by mail: a game
// for two seats and, where the game allows it, for three; random legal
// plies (written by the game's codec) as the first line of replies, until
// the game ends or 40 plies, then a resignation. Every ply must be
// accepted and the archived record must pass the record checker.
func TestEveryGameByCommands(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		games := referee.Games()
		if len(games) == 0 {
			t.Skip("the catalog is empty")
		}
		for _, c := range games {
			id := c.Rules().ID()
			for _, n := range []int{2, 3} {
				if _, err := c.Rules().Sides(engine.Options{Players: n}); err != nil {
					continue
				}
				t.Run(fmt.Sprintf("%s/%d", id, n), func(t *testing.T) {
					t.Parallel()
					playByCommands(t, db, c, n)
				})
			}
		}
	})
}

func playByCommands(t *testing.T, db store, c notation.Codec, n int) {
	h := newHarness(t, db, map[string]string{"rate-limit": "1000000"})
	// The catalog's own lookup, not the test one.
	ref, err := referee.New(h.store, &referee.Options{Address: "referee@pbem.example", Clock: h.clock, RateLimit: 1000000})
	if err != nil {
		t.Fatal(err)
	}
	h.ref = ref
	players := []string{"p0@example.org", "p1@example.org", "p2@example.org"}[:n]
	send := func(from, to, body string) string {
		t.Helper()
		return h.send(fmt.Sprintf("from: %s\nto: %s\n\n%s\n", from, to, body))
	}
	out := send(players[0], "referee@pbem.example", fmt.Sprintf("new %s with %s players=%d", c.Rules().ID(), strings.Join(players[1:], " "), n))
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "To confirm it and send the invitations") {
		t.Fatalf("new:\n%s", out)
	}
	if out := send(players[0], h.expand("{plus 1 "+players[0]+"}"), "accept"); !strings.Contains(out, "You invited") {
		t.Fatalf("the inviter's confirmation:\n%s", out)
	}
	for _, p := range players[1:] {
		send(p, h.expand("{plus 1 "+p+"}"), "accept")
	}
	r := rand.New(rand.NewPCG(7, uint64(n)))
	for ply := 1; ply <= 40; ply++ {
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != "playing" {
			break
		}
		line := replay(t, g.Record)
		st := line.State()
		var m engine.Move
		if smp, ok := st.(engine.Sampler); ok {
			m = smp.RandomMove(r)
		} else {
			legal := st.Legal()
			m = legal[r.IntN(len(legal))]
		}
		mover := g.Seats[st.ToMove()].Player.Addr
		text := c.Encode(st, m)
		out := send(mover, h.expand("{plus 1 "+mover+"}"), text)
		if !strings.Contains(out, "You played") {
			t.Fatalf("ply %d %q by %s refused:\n%s", ply, text, mover, out)
		}
		h.now = h.now.Add(time.Hour)
	}
	g, err := h.store.Game(h.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The mover resigns; with three seats or more the game goes on
	// without it, until one seat is left.
	for range len(g.Seats) {
		if g.Status != "playing" {
			break
		}
		st := replay(t, g.Record).State()
		p := g.Seats[st.ToMove()].Player.Addr
		if out := send(p, h.expand("{plus 1 "+p+"}"), "resign"); !strings.Contains(out, "You resigned") {
			t.Fatalf("resign:\n%s", out)
		}
		if g, err = h.store.Game(h.ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	e, err := h.store.EntryOfGame(h.ctx, 1)
	if err != nil {
		t.Fatalf("the finished game is not archived: %v", err)
	}
	checkRecordWith(t, e.Record, referee.Lookup)
	if p := ref.Stats().Panics; p > 0 {
		t.Errorf("%d panics recovered", p)
	}
}

// replay reads a stored record and returns the game so far.
func replay(t *testing.T, record string) *engine.Line {
	t.Helper()
	var line *engine.Line
	notation.CheckFile("stored", []byte(record), referee.Lookup, func(c *notation.Checked) {
		if len(c.Problems) > 0 || c.Game == nil {
			t.Fatalf("stored record is invalid: %v\n%s", c.Problems, record)
		}
		line = c.Game.Final()
	})
	if line == nil {
		t.Fatalf("no game in the stored record:\n%s", record)
	}
	return line
}

func checkRecordWith(t testing.TB, record string, lookup notation.Lookup) {
	t.Helper()
	notation.CheckFile("archive", []byte(record), lookup, func(c *notation.Checked) {
		for _, p := range c.Problems {
			t.Errorf("archived record is invalid: %s\n%s", p, record)
		}
	})
}
