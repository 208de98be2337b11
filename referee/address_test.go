package referee_test

import (
	"regexp"
	"strings"
	"testing"
)

var confirmLine = regexp.MustCompile(`(?m)^confirm ([a-z0-9]+)$`)

// TestAddressChange: only the new address's confirmation, with the code
// mailed there, moves a player's games; a forged sender can neither ask
// (no token) nor confirm (no code, or from another address); after the
// move the games' mail goes to the new address and none to the old one,
// and the seat's token plays from the new address.
func TestAddressChange(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		startGame(t, h, "toy", "players=2 days=5", nil)
		if ms := h.queued("from: Alice <alice@example.org>\n\naddress alice@new.example\n"); len(ms) != 1 || ms[0].To[0].Addr != "alice@example.org" {
			t.Fatalf("address without a token mailed %d mails", len(ms))
		}
		ms := h.queued("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naddress alice@new.example\n")
		m := confirmLine.FindStringSubmatch(outTo(t, ms, "alice@new.example").Text)
		if m == nil {
			t.Fatalf("no code in the mail to the new address")
		}
		code := m[1]
		if strings.Contains(outTo(t, ms, "alice@example.org").Text, code) {
			t.Fatalf("the code went to the old address too")
		}
		for _, forged := range []string{
			"from: Alice <alice@new.example>\n\nconfirm " + code[:len(code)-1] + "x\n",
			"from: Alice <alice@example.org>\n\nconfirm " + code + "\n",
			"from: Mallory <mallory@example.org>\n\nconfirm " + code + "\n",
		} {
			h.queued(forged)
			if g, _ := h.store.Game(h.ctx, 1); g.Seats[0].Player.Addr != "alice@example.org" {
				t.Fatalf("%q moved the seat to %s", forged, g.Seats[0].Player.Addr)
			}
		}
		ms = h.queued("from: Alice <alice@new.example>\n\nconfirm " + code + "\n")
		outTo(t, ms, "alice@new.example")
		outTo(t, ms, "alice@example.org") // both get a notice
		g, err := h.store.Game(h.ctx, 1)
		if err != nil || g.Seats[0].Player.Addr != "alice@new.example" {
			t.Fatalf("after confirm the seat is %v (%v)", g.Seats[0].Player, err)
		}
		ms = h.queued("from: Alice <alice@new.example>\nto: {plus 1 alice@new.example}\n\n+2\n")
		outTo(t, ms, "bob@example.org")
		ms = h.queued("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\n+1\n")
		outTo(t, ms, "alice@new.example")
		for _, o := range ms {
			if o.To[0].Addr == "alice@example.org" {
				t.Errorf("the old address still gets the game's mail:\n%s", o.Text)
			}
		}
		if ms := h.queued("from: Alice <alice@new.example>\n\nconfirm " + code + "\n"); !strings.Contains(ms[0].Text, "No change of address waits") {
			t.Errorf("a code used twice:\n%s", ms[0].Text)
		}
	})
}
