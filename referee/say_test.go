package referee_test

import (
	"strings"
	"testing"
)

// TestSayTo: in a game of three, say to one side reaches that player
// only (not the third, not a watcher), the sender's copy names who got
// it; a message of several lines between say and end keeps its lines;
// say alone still reaches every player; a side that is not the game's is
// refused.
func TestSayTo(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		c := newCondGame(t, db, "rpp", 3)
		g := c.game()
		side := func(i int) string { return g.Seats[i].Side }
		out := c.send(0, "say to "+side(1)+" shall we share the centre?")
		if to := mailTo(out, c.addrs[1]); !strings.Contains(flat(to), "shall we share the centre?") || !strings.Contains(flat(to), "to you only") {
			t.Errorf("the addressee's mail:\n%s", to)
		}
		for _, other := range []string{c.addrs[2], "dave@example.org"} {
			if strings.Contains(out, "centre") && mailTo(out, other) != "" && strings.Contains(mailTo(out, other), "centre") {
				t.Errorf("%s read a message for %s only", other, side(1))
			}
		}
		if mine := flat(mailTo(out, c.addrs[0])); !strings.Contains(mine, "Your message went to") || !strings.Contains(mine, "only") {
			t.Errorf("the sender's copy:\n%s", mine)
		}
		out = c.send(0, "say to "+side(1)+", "+side(2)+"\nFirst line.\n  Second, indented.\nend\nshow")
		for _, i := range []int{1, 2} {
			if to := mailTo(out, c.addrs[i]); !strings.Contains(to, "First line.\n") || !strings.Contains(to, "Second, indented.") {
				t.Errorf("seat %d's mail lacks the lines:\n%s", i, to)
			}
		}
		if strings.Contains(mailTo(out, "dave@example.org"), "First line") {
			t.Error("the watcher read a private message")
		}
		out = c.send(0, "say to Q hello")
		if !strings.Contains(flat(mailTo(out, c.addrs[0])), `"Q" is not a side of game #1`) {
			t.Errorf("an unknown side is not refused:\n%s", mailTo(out, c.addrs[0]))
		}
		out = c.send(0, "say good luck all")
		for _, i := range []int{1, 2} {
			if !strings.Contains(mailTo(out, c.addrs[i]), "good luck all") {
				t.Errorf("say to everyone did not reach seat %d", i)
			}
		}
		if g := c.game(); strings.Contains(g.Record, "centre") || strings.Contains(g.Record, "First line") {
			t.Errorf("a message is in the record:\n%s", g.Record)
		}
	})
}
