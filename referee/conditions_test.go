package referee_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

// condGame is a game under way in a harness, with its seats' addresses,
// for the tests of conditional moves.
type condGame struct {
	t     *testing.T
	h     *harness
	id    int64
	codec notation.Codec
	opts  engine.Options
	addrs []string
	rng   *rand.Rand
	// others collects every mail to anyone but the owner of the lines
	// under test, to check that none shows them.
	owner  string
	others strings.Builder
}

var condPlayers = []string{"alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org"}

// newCondGame starts game #1 of kind with n players (the creator's
// order: alice, bob, carol) and a confirmed watcher, dave.
func newCondGame(t *testing.T, db store, kind string, n int) *condGame {
	t.Helper()
	codec, err := referee.Lookup(kind)
	if err != nil {
		t.Skipf("%s is not in the catalog: %v", kind, err)
	}
	h := newHarness(t, db, nil)
	opts := ""
	if kind == "rpp" {
		opts = fmt.Sprintf(" players=%d", n)
	}
	h.send(fmt.Sprintf("from: alice@example.org\nsubject: new %s with %s%s\n", kind, strings.Join(condPlayers[1:n], " "), opts))
	for _, a := range condPlayers[:n] {
		h.send(fmt.Sprintf("from: %s\nto: {plus 1 %s}\n\naccept\n", a, a))
	}
	g, err := h.store.Game(h.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != archive.Playing {
		t.Fatalf("game #1 is %s, want playing", g.Status)
	}
	c := &condGame{t: t, h: h, id: 1, codec: codec, opts: engine.Options{Players: g.Options.Players, Board: g.Options.Board},
		rng: rand.New(rand.NewPCG(uint64(len(kind)), uint64(n)))}
	for _, st := range g.Seats {
		c.addrs = append(c.addrs, st.Player.Addr)
	}
	h.send("from: dave@example.org\nsubject: watch 1\n")
	h.send("from: dave@example.org\nsubject: Re: [pbem #1 {token 1 dave@example.org}] game\n\nwatch 1\n")
	if g := c.game(); len(g.Observers) != 1 || !g.Observers[0].Confirmed {
		t.Fatalf("dave does not watch: %+v", g.Observers)
	}
	return c
}

// game is the stored game.
func (c *condGame) game() *archive.Game {
	c.t.Helper()
	g, err := c.h.store.Game(c.h.ctx, c.id)
	if err != nil {
		c.t.Fatal(err)
	}
	return g
}

// record is the stored record's plies with their comments.
func (c *condGame) record() *notation.Record {
	c.t.Helper()
	recs, probs := notation.Parse("game", []byte(c.game().Record))
	if len(probs) > 0 || len(recs) != 1 {
		c.t.Fatalf("stored record does not parse: %v", probs)
	}
	return recs[0]
}

// line replays the stored record.
func (c *condGame) line() *engine.Line {
	c.t.Helper()
	st, err := c.codec.Rules().Start(c.opts)
	if err != nil {
		c.t.Fatal(err)
	}
	l := engine.NewLine(st)
	for _, p := range c.record().Main.Plies {
		m, err := c.codec.Decode(l.State(), p.Text)
		if err == nil {
			l, err = l.Play(m)
		}
		if err != nil {
			c.t.Fatalf("stored ply %q: %v", p.Text, err)
		}
	}
	return l
}

// pick is a random legal ply at l that does not end the game (and is not
// one of except), with the line after it.
func (c *condGame) pick(l *engine.Line, except ...string) (string, *engine.Line) {
	c.t.Helper()
	legal := l.State().Legal()
	for _, i := range c.rng.Perm(len(legal)) {
		text := c.codec.Encode(l.State(), legal[i])
		if slices.Contains(except, text) || text == "pass" || strings.HasSuffix(text, ":pass") {
			continue
		}
		next, err := l.Play(legal[i])
		if err != nil {
			c.t.Fatal(err)
		}
		if !next.Outcome().Over {
			return text, next
		}
	}
	c.t.Fatalf("no legal ply that goes on at ply %d", l.Plies()+1)
	return "", nil
}

// send mails body from seat's player as a reply to the game's mail and
// returns the mails it caused, keeping those to anyone but the owner.
func (c *condGame) send(seat int, body string) string {
	c.t.Helper()
	a := c.addrs[seat]
	out := c.h.send(fmt.Sprintf("from: %s\nto: {plus %d %s}\n\n%s\n", a, c.id, a, body))
	for _, m := range strings.Split(out, ">>> To: ") {
		if to, _, _ := strings.Cut(m, "\n"); c.owner != "" && !strings.Contains(to, c.owner) {
			c.others.WriteString(m)
		}
	}
	return out
}

// mailTo is the part of out (mails) to addr.
func mailTo(out, addr string) string {
	for _, m := range strings.Split(out, ">>> To: ") {
		if to, _, _ := strings.Cut(m, "\n"); strings.Contains(to, addr) {
			return m
		}
	}
	return ""
}

// flat is s with every run of white space one blank, so that a test
// reads a mail's paragraphs whatever their wrapping.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// unwrapped joins the continued lines of a listing of conditional lines.
func unwrapped(s string) string { return strings.ReplaceAll(s, "\n    ", " ") }

// plan is a line of plies from l until seat has answered twice: the
// plies, and which are seat's.
func (c *condGame) plan(l *engine.Line, seat, answers int, first string) (plies []string, mine []bool) {
	c.t.Helper()
	for answers > 0 {
		var text string
		if first != "" && len(plies) == 0 {
			m, err := c.codec.Decode(l.State(), first)
			if err != nil {
				c.t.Fatal(err)
			}
			next, err := l.Play(m)
			if err != nil {
				c.t.Fatal(err)
			}
			text, l = first, next
		} else {
			mover := l.State().ToMove()
			text, l = c.pick(l)
			mine = append(mine, mover == seat)
			plies = append(plies, text)
			if mover == seat {
				answers--
			}
			continue
		}
		mine = append(mine, l.Parent().State().ToMove() == seat)
		plies = append(plies, text)
	}
	return plies, mine
}

// ifText writes a planned line as the owner mails it.
func ifText(plies []string, mine []bool) string {
	var b strings.Builder
	b.WriteString("if")
	then := false
	for i, p := range plies {
		if mine[i] && !then {
			b.WriteString(" then")
			then = true
		}
		b.WriteString(" " + p)
	}
	return b.String()
}

// conditionalCases are the games the tests run on: every game of the
// catalog with two players, rpp with three seats too.
var conditionalCases = []struct {
	game string
	n    int
}{
	{"castles", 2}, {"ziggurat", 2}, {"elevation", 2}, {"ziggurat43", 2}, {"rpp", 2}, {"rpp", 3},
}

// TestConditionalMoves, for every game: the if lines of the seat that
// moves after the mover are checked on arrival (an illegal one refused with
// its column and the closest legal plies, the others kept); the matching
// ply gets its answer in the same commit, marked {conditional} in the
// record, and the tree follows the branch over several plies, also across
// a restart of the referee; nobody but the owner ever reads a line; a ply
// no line foresaw clears the tree.
func TestConditionalMoves(t *testing.T) {
	for _, tc := range conditionalCases {
		t.Run(fmt.Sprintf("%s%d", tc.game, tc.n), func(t *testing.T) {
			eachStore(t, func(t *testing.T, db store) {
				c := newCondGame(t, db, tc.game, tc.n)
				// A few plies into the game.
				for range 3 {
					l := c.line()
					ply, _ := c.pick(l)
					c.send(l.State().ToMove(), ply)
				}
				l := c.line()
				mover := l.State().ToMove()
				owner := (mover + 1) % len(c.addrs)
				c.owner = c.addrs[owner]
				main, mainMine := c.plan(l, owner, 2, "")
				alt0, _ := c.pick(l, main[0])
				alt, altMine := c.plan(l, owner, 1, alt0)
				bad := "if " + main[0] + " then Zz99-zz98"
				if tc.game == "rpp" && tc.n > 2 {
					bad = "if " + strings.Join(main[:slices.Index(mainMine, true)], " ") + " then " + c.game().Seats[owner].Side + ":Lz99-z98"
				}
				out := c.send(owner, strings.Join([]string{ifText(main, mainMine), bad, ifText(alt, altMine)}, "\n"))
				reply := unwrapped(mailTo(out, c.owner))
				for _, want := range []string{"Conditional line 2 was refused", "column", "The other 2 lines kept", ifText(main, mainMine), ifText(alt, altMine)} {
					if !strings.Contains(reply, want) {
						t.Errorf("the owner's reply lacks %q:\n%s", want, reply)
					}
				}
				if n := strings.Count(out, ">>> To: "); n != 1 {
					t.Errorf("setting lines sent %d mails, want only the owner's reply:\n%s", n, out)
				}
				if got := c.game().Conditions; len(got) != 1 || len(got[0].Lines) != 2 {
					t.Fatalf("stored conditions = %+v, want one tree of 2 lines", got)
				}
				// conditions lists them as they were written.
				list := unwrapped(mailTo(c.send(owner, "conditions"), c.owner))
				if !strings.Contains(list, ifText(main, mainMine)) || !strings.Contains(list, ifText(alt, altMine)) {
					t.Errorf("conditions does not list the lines:\n%s", list)
				}

				// The others play the main line; every answer comes in
				// the same commit as the ply it answers.
				answered := 0
				for i := 0; i < len(main); i++ {
					if mainMine[i] {
						continue
					}
					l := c.line()
					if l.Plies() != len(c.record().Main.Plies) || l.State().ToMove() == owner {
						t.Fatalf("ply %d: the owner is to move: its answer was not played", l.Plies()+1)
					}
					seat := l.State().ToMove()
					if i == 1 {
						// A restart: a new referee on the same store.
						c.h.ref = c.h.restart()
					}
					out := c.send(seat, main[i])
					if i+1 < len(main) && mainMine[i+1] {
						answered++
						rec := c.record().Main.Plies
						last := rec[len(rec)-1]
						if last.Text != main[i+1] || !slices.Contains(last.Comments, "conditional") {
							t.Fatalf("after %s the record ends with %s %q, want the answer %s {conditional}", main[i], last.Text, last.Comments, main[i+1])
						}
						if !strings.Contains(flat(mailTo(out, c.addrs[seat])), "answered "+main[i+1]) {
							t.Errorf("the mover's reply does not show the answer %s:\n%s", main[i+1], mailTo(out, c.addrs[seat]))
						}
						if !strings.Contains(flat(mailTo(out, c.owner)), "Your conditional line answered: you played "+main[i+1]) {
							t.Errorf("the owner is not told of its answer:\n%s", out)
						}
						if !strings.Contains(flat(mailTo(out, "dave@example.org")), "a conditional move") {
							t.Errorf("the watcher is not told of the answer:\n%s", out)
						}
					}
				}
				if answered != 2 {
					t.Errorf("%d answers played, want 2", answered)
				}
				if got := c.game().Conditions; len(got) != 0 {
					t.Errorf("after the whole line the tree is %+v, want none", got)
				}

				// A ply no line foresaw clears the tree.
				l = c.line()
				mover = l.State().ToMove()
				owner = (mover + 1) % len(c.addrs)
				c.owner = c.addrs[owner]
				plan, planMine := c.plan(l, owner, 1, "")
				c.send(owner, ifText(plan, planMine))
				if len(c.game().Conditions) != 1 {
					t.Fatal("the new line was not kept")
				}
				other, _ := c.pick(l, plan[0])
				before := len(c.record().Main.Plies)
				out = c.send(mover, other)
				if !strings.Contains(flat(mailTo(out, c.owner)), "did not foresee "+other) {
					t.Errorf("the owner is not told that its lines are cleared:\n%s", mailTo(out, c.owner))
				}
				if got := c.game().Conditions; len(got) != 0 {
					t.Errorf("a ply no line foresaw left the tree %+v", got)
				}
				if n := len(c.record().Main.Plies); n != before+1 {
					t.Errorf("%d plies played, want only the mover's", n-before)
				}

				// Secrecy: nobody but the owners read a line.
				c.owner = ""
				for _, leak := range []string{"if " + main[0], "conditional line", "Conditional line", "then " + main[slices.Index(mainMine, true)], "then " + alt[slices.Index(altMine, true)]} {
					if i := strings.Index(c.others.String(), leak); i >= 0 {
						t.Errorf("a mail to someone else shows %q: %q", leak, c.others.String()[max(0, i-200):i+50])
					}
				}
				if rec := c.game().Record; strings.Contains(rec, alt0+" {conditional}") || strings.Count(rec, "{conditional}") != 2 {
					t.Errorf("the record marks other than the 2 played answers:\n%s", rec)
				}
				// Everyone resigns in turn (with three seats the first
				// resignation leaves the game to the others).
				for range len(c.addrs) {
					if c.game().Status != archive.Playing {
						break
					}
					c.send(c.line().State().ToMove(), "resign")
				}
				var export strings.Builder
				if _, err := c.h.store.Export(c.h.ctx, &export, testLookup, archive.Filter{}, nil); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(export.String(), " then ") || strings.Count(export.String(), "{conditional}") != 2 {
					t.Errorf("the archive's export shows more than the played answers:\n%s", export.String())
				}
				if got := c.game().Conditions; len(got) != 0 {
					t.Errorf("a game over keeps conditions %+v", got)
				}
			})
		})
	}
}

// TestConditionalChain: a forced line of 10 plies takes one mail each way.
// Alice mails her lines; Bob mails his first ply with lines of his own;
// both trees answer each other to the end of the line.
func TestConditionalChain(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		c := newCondGame(t, db, "castles", 2)
		for range 2 {
			l := c.line()
			ply, _ := c.pick(l)
			c.send(l.State().ToMove(), ply)
		}
		l := c.line()
		mover := l.State().ToMove()
		owner := 1 - mover
		plies, mine := c.plan(l, owner, 5, "")
		if len(plies) != 10 {
			t.Fatalf("planned %d plies, want 10", len(plies))
		}
		start := len(c.record().Main.Plies)
		mails := 0
		c.send(owner, ifText(plies, mine))
		mails++
		theirs := make([]bool, len(plies)-1)
		for i := range theirs {
			theirs[i] = !mine[i+1]
		}
		c.send(mover, plies[0]+"\n"+ifText(plies[1:len(plies)-1], theirs[:len(plies)-2]))
		mails++
		got := c.record().Main.Plies[start:]
		if len(got) != 10 {
			t.Fatalf("after %d mails %d plies are played, want 10", mails, len(got))
		}
		for i, p := range got {
			if p.Text != plies[i] {
				t.Errorf("ply %d = %s, want %s", start+i+1, p.Text, plies[i])
			}
			if conditional := slices.Contains(p.Comments, "conditional"); conditional != (i > 0) {
				t.Errorf("ply %d {conditional} = %v, want %v", start+i+1, conditional, i > 0)
			}
		}
		t.Logf("a forced line of %d plies took %d mails from the players", len(got), mails)
	})
}

// TestConditionalRefusals: lines that cannot be kept are refused with the
// reason, and nothing of them is kept.
func TestConditionalRefusals(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		c := newCondGame(t, db, "castles", 2)
		l := c.line()
		mover := l.State().ToMove()
		owner := 1 - mover
		a, after := c.pick(l)
		b1, afterB1 := c.pick(after)
		b2, _ := c.pick(after, b1)
		c1, _ := c.pick(afterB1)
		for _, tc := range []struct {
			seat       int
			body, want string
		}{
			{owner, "if " + a + " then " + b1 + "\nif " + a + " then " + b2, "one position, one answer"},
			{mover, "if " + a + " then " + b1, "is your turn"},
			{owner, "if " + a + " then " + b1 + " then " + b2, "a second time"},
			{owner, "if " + a + " then " + b1 + " " + c1, "end it with your answer"},
			{owner, "if " + a + " " + b1 + " then " + b2, "stands before then"},
		} {
			out := mailTo(c.send(tc.seat, tc.body), c.addrs[tc.seat])
			if !strings.Contains(out, tc.want) {
				t.Errorf("%q: the reply lacks %q:\n%s", tc.body, tc.want, out)
			}
			if tc.want == "one position, one answer" {
				if got := c.game().Conditions; len(got) != 1 || len(got[0].Lines) != 1 {
					t.Errorf("stored conditions = %+v, want only the first line", got)
				}
			}
		}
		// A mail whose lines are all refused replaces the tree all the
		// same (by none).
		if got := c.game().Conditions; len(got) != 0 {
			t.Errorf("stored conditions = %+v, want none", got)
		}
		// Bounds: lines beyond the limit are not read.
		var many []string
		for range referee.MaxConditionLines + 5 {
			many = append(many, "if "+a+" then "+b1)
		}
		out := mailTo(c.send(owner, strings.Join(many, "\n")), c.addrs[owner])
		if !regexp.MustCompile(`only the first 100 were read`).MatchString(out) {
			t.Errorf("the reply does not name the limit:\n%s", out)
		}
		out = mailTo(c.send(owner, "conditions clear"), c.addrs[owner])
		if !strings.Contains(out, "removed") || len(c.game().Conditions) != 0 {
			t.Errorf("conditions clear: %s, left %+v", out, c.game().Conditions)
		}
	})
}

// TestConditionalEndsGame: an answer that ends the game ends it as a ply
// does: the record is archived with the result the rules give.
func TestConditionalEndsGame(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		// Toy: the total that reaches 21 wins. Alice and Bob add 3 each
		// until 18; then Alice adds 1 (19), and Bob's line answers +2.
		for i := range 6 {
			a := []string{"alice", "bob"}[i%2]
			h.send(fmt.Sprintf("from: %s@example.org\nto: {plus 1 %s@example.org}\n\n+3\n", a, a))
		}
		h.send("from: bob@example.org\nto: {plus 1 bob@example.org}\n\nif +1 then +2\nif +2 then +1")
		out := h.send("from: alice@example.org\nto: {plus 1 alice@example.org}\n\n+1\n")
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != archive.Over || len(g.Conditions) != 0 {
			t.Fatalf("game is %s with conditions %+v, want over with none:\n%s", g.Status, g.Conditions, out)
		}
		if !strings.Contains(movetext(t, g.Record), "+2 {conditional}") || !strings.Contains(g.Record, `[Result "0-1"]`) {
			t.Errorf("record:\n%s", g.Record)
		}
		if !strings.Contains(out, "answered +2") {
			t.Errorf("mails:\n%s", out)
		}
	})
}

// BenchmarkMoveConditional is the cost of a move mailed to the referee
// (SQLite, toy game), plain and when it triggers a conditional answer
// played in the same commit: the figure to compare is ns per mail. The
// trees are set, and games restarted, with the timer stopped.
func BenchmarkMoveConditional(b *testing.B) {
	for _, answered := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "answered"}[answered]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var h *harness
			total, mover := 0, 0
			addr := []string{"alice", "bob"}
			for b.Loop() {
				b.StopTimer()
				if h == nil || total > 16 {
					h = started(b, sqliteOnly, nil)
					total, mover = 0, 0
				}
				if answered {
					o := addr[1-mover]
					h.send(fmt.Sprintf("from: %s@example.org\nto: {plus 1 %s@example.org}\n\nif +1 then +1\n", o, o))
				}
				a := addr[mover]
				b.StartTimer()
				h.send(fmt.Sprintf("from: %s@example.org\nto: {plus 1 %s@example.org}\n\n+1\n", a, a))
				total++
				if !answered {
					mover = 1 - mover
				} else {
					total++
				}
			}
		})
	}
}

// TestConditionalAgainstBot: a bot's ply triggers its opponent's answer,
// played in the bot's commit; the bot then moves again.
func TestConditionalAgainstBot(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		h.send("from: Alice <alice@example.org>\nsubject: new toy with bot:1 players=2\n")
		h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n")
		h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+1\n")
		// Every ply the bot may play is foreseen.
		h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nif +1 then +1\nif +2 then +1\nif +3 then +1\n")
		out := h.step("b1", "bots", "")
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		plies := strings.Fields(h.record(1))
		// 1. +1 BOT 2. +1 {conditional} BOT *
		if n := strings.Count(g.Record, "{conditional}"); n != 1 || len(g.Conditions) != 0 {
			t.Fatalf("record %q has %d conditional answers and conditions %+v, want 1 and none", plies, n, g.Conditions)
		}
		if !strings.Contains(h.record(1), "2. +1 {conditional}") {
			t.Errorf("record = %s, want Alice's answer as ply 3", h.record(1))
		}
		if !strings.Contains(flat(out), "Your conditional line answered: you played +1 (ply 3)") {
			t.Errorf("Alice is not told of her answer:\n%s", out)
		}
		if line := h.record(1); strings.Count(line, "+") != 4 {
			t.Errorf("record = %s, want 4 plies (the bot moved again after the answer)", line)
		}
	})
}
