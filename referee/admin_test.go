package referee_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"pbem/archive"
)

var confirmRE = regexp.MustCompile(`(?m)^    admin confirm ([a-z0-9]+)$`)

// TestAdminByMail: an admin's command by mail is carried out only when
// that admin answers the token mailed to its configured address; a forged
// From, another admin, a stranger or a used token change nothing.
func TestAdminByMail(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, map[string]string{"admins": "root@club.example deputy@club.example"})
		status := func() string {
			t.Helper()
			g, err := h.store.Game(h.ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			return g.Status
		}
		audits := func() int {
			t.Helper()
			as, err := h.store.Audits(h.ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			return len(as)
		}

		// The request (whoever sent it: From is forgeable) only mails the
		// configured admin a token.
		out := h.send("from: root@club.example\n\nadmin abort 1 \"a dispute the players could not settle\"\n")
		if !strings.Contains(out, ">>> To: root@club.example") || strings.Count(out, ">>> To:") != 1 {
			t.Fatalf("the request is answered to the admin alone; got\n%s", out)
		}
		m := confirmRE.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no token in the answer:\n%s", out)
		}
		token := m[1]
		if got := status(); got != archive.Playing {
			t.Fatalf("after the request, game 1 is %s, want %s", got, archive.Playing)
		}

		// Forged or misdirected confirmations do nothing.
		for _, c := range []struct{ name, mail string }{
			{"wrong token", "from: root@club.example\n\nadmin confirm zzzzzzzz\n"},
			{"another admin", "from: deputy@club.example\n\nadmin confirm " + token + "\n"},
			{"a stranger", "from: mallory@example.net\n\nadmin confirm " + token + "\n"},
			{"a player", "from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nadmin confirm " + token + "\n"},
		} {
			out := h.send(c.mail)
			if got := status(); got != archive.Playing {
				t.Fatalf("%s: game 1 is %s, want %s; mails:\n%s", c.name, got, archive.Playing, out)
			}
			if strings.Contains(out, "bob@example.org") {
				t.Errorf("%s: a player was mailed:\n%s", c.name, out)
			}
			if n := audits(); n != 0 {
				t.Errorf("%s: %d audit records, want 0", c.name, n)
			}
		}

		out = h.send("from: Root <root@club.example>\n\nadmin confirm " + token + "\n")
		if got := status(); got != archive.Over {
			t.Fatalf("confirmed: game 1 is %s, want %s; mails:\n%s", got, archive.Over, out)
		}
		for _, want := range []string{"Done: game #1 aborted.", ">>> To: Alice <alice@example.org>", ">>> To: Bob <bob@example.org>",
			"stopped game #1 without a result. Reason: a"} {
			if !strings.Contains(out, want) {
				t.Errorf("confirmed: the mails lack %q:\n%s", want, out)
			}
		}
		as, err := h.store.Audits(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != 1 || as[0].Actor != "root@club.example" || as[0].Action != "abort 1" || as[0].Reason != "a dispute the players could not settle" {
			t.Fatalf("audit = %+v, want one record of root@club.example's abort 1", as)
		}

		// A token works once.
		out = h.send("from: root@club.example\n\nadmin confirm " + token + "\n")
		if !strings.Contains(out, "No admin command waits for that token") || audits() != 1 {
			t.Errorf("a used token: got\n%s", out)
		}
	})
}

// TestAdminMailMistakes: an admin's bad command is answered with what was
// wrong, and no token is issued for it.
func TestAdminMailMistakes(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, map[string]string{"admins": "root@club.example"})
		for _, c := range []struct{ line, want string }{
			{"admin", "admin needs a command"},
			{"admin frobnicate 1", `unknown admin command "frobnicate"`},
			{"admin abort 1", "abort needs a reason"},
			{`admin abort 1 "unclosed`, "a quote is not closed"},
			{"admin confirm", "admin confirm takes the token"},
		} {
			out := h.send("from: root@club.example\n\n" + c.line + "\n")
			if !strings.Contains(out, c.want) || confirmRE.MatchString(out) {
				t.Errorf("%s: want %q and no token; got\n%s", c.line, c.want, out)
			}
		}
	})
}

// adminByMail sends an admin's command and its confirmation, and returns
// the mails of the confirmation.
func adminByMail(t *testing.T, h *harness, admin, line string) string {
	t.Helper()
	out := h.send("from: " + admin + "\n\n" + line + "\n")
	m := confirmRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s: no token in the answer:\n%s", line, out)
	}
	return h.send("from: " + admin + "\n\nadmin confirm " + m[1] + "\n")
}

// TestEveryAdminCommandByMail: each admin command, confirmed by mail, does
// what pbem admin does, audited under the admin's address.
func TestEveryAdminCommandByMail(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		const root = "root@club.example"
		h := started(t, db, map[string]string{"admins": root})
		game := func() *archive.Game {
			t.Helper()
			g, err := h.store.Game(h.ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		deadline := game().Deadline

		out := adminByMail(t, h, root, `admin clock 1 +2d "outage"`)
		if got, want := game().Deadline, deadline.Add(48*time.Hour); !got.Equal(want) {
			t.Errorf("clock: deadline %v, want %v\n%s", got, want, out)
		}
		if !strings.Contains(out, "Done: game #1: deadline now") || !strings.Contains(out, ">>> To: Bob <bob@example.org>") {
			t.Errorf("clock: the mails lack the admin's answer or the players' news:\n%s", out)
		}

		out = adminByMail(t, h, root, "admin resend 1")
		if strings.Count(out, "sent the game's last board again") != 2 {
			t.Errorf("resend: want the board to both players:\n%s", out)
		}

		out = adminByMail(t, h, root, `admin replace 1 2 carol@example.org "Bob moved away"`)
		if g := game(); g.Seats[1].Player.Addr != "carol@example.org" || g.Seats[1].Token == "" {
			t.Errorf("replace: seat 2 is %+v\n%s", g.Seats[1], out)
		}
		if !strings.Contains(out, ">>> To: carol@example.org") || !strings.Contains(out, "Subject: [pbem] game #1: you were replaced") {
			t.Errorf("replace: the substitute and the player replaced are told:\n%s", out)
		}

		out = adminByMail(t, h, root, `admin block @spam.example "advertising"`)
		if blocked, err := h.store.Blocked(h.ctx, "x@spam.example"); err != nil || !blocked {
			t.Errorf("block: blocked = %v, %v\n%s", blocked, err, out)
		}
		if out := h.send("from: x@spam.example\n\nhelp\n"); out != "(no mail)\n" {
			t.Errorf("blocked mail was answered:\n%s", out)
		}
		adminByMail(t, h, root, "admin unblock @spam.example")
		if blocked, _ := h.store.Blocked(h.ctx, "x@spam.example"); blocked {
			t.Error("unblock: still blocked")
		}

		out = adminByMail(t, h, root, `admin adjudicate 1 0-1 "Alice left"`)
		if g := game(); g.Status != archive.Over || !strings.Contains(g.Record, `[Termination "adjudication"]`) {
			t.Errorf("adjudicate: game is %s\n%s", g.Status, g.Record)
		}

		as, err := h.store.Audits(h.ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range as {
			if a.Actor != root {
				t.Errorf("audit %d by %s, want %s", a.ID, a.Actor, root)
			}
			got = append(got, a.Action)
		}
		want := []string{"clock 1 +2d", "resend 1", "replace 1 2 carol@example.org", "block @spam.example", "unblock @spam.example", "adjudicate 1 0-1"}
		if !slices.Equal(got, want) {
			t.Errorf("audit = %q, want %q", got, want)
		}
	})
}

// TestForgedAdminFlood: mail forged from an admin counts against the
// limits of mail without a token, so it cannot flood the admin with
// tokens.
func TestForgedAdminFlood(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, map[string]string{"admins": "root@club.example", "rate-limit": "3"})
		tokens := 0
		for i := range 6 {
			out := h.send(fmt.Sprintf("from: root@club.example\n\nadmin block @x%d.example\n", i))
			if confirmRE.MatchString(out) {
				tokens++
			}
		}
		if tokens != 3 {
			t.Errorf("%d tokens mailed for 6 requests, want 3 (the rate limit)", tokens)
		}
	})
}

// TestForgedAdminFloodKeepsConfirmation (issue 42): forged admin mail
// filled the admin's window of mail without a token, so that the real
// "admin confirm TOKEN" went unanswered and undone. A valid confirmation
// is never limited; the token mail tells a surprised admin to ignore it.
func TestForgedAdminFloodKeepsConfirmation(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, map[string]string{"admins": "root@club.example", "rate-limit": "3"})
		out := h.send("from: root@club.example\n\nadmin abort 1 \"a dispute\"\n")
		m := confirmRE.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no token in the answer:\n%s", out)
		}
		if !strings.Contains(strings.Join(strings.Fields(out), " "), "If you did not ask for this, ignore this mail") {
			t.Errorf("the token mail does not tell an admin who asked nothing to ignore it:\n%s", out)
		}
		for i := range 5 { // the forger's flood, over the limit
			h.send(fmt.Sprintf("from: root@club.example\n\nadmin block @x%d.example\n", i))
		}
		// A wrong token is still limited.
		if out := h.send("from: root@club.example\n\nadmin confirm zzzzzzzz\n"); out != "(no mail)\n" {
			t.Errorf("a confirmation with a wrong token over the limit was answered:\n%s", out)
		}
		out = h.send("from: root@club.example\n\nadmin confirm " + m[1] + "\n")
		if !strings.Contains(out, "Done: ") {
			t.Errorf("the admin's valid confirmation after a forged flood was not carried out; got\n%s", out)
		}
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != archive.Over {
			t.Errorf("game #1 is %s after the confirmed abort, want %s", g.Status, archive.Over)
		}
	})
}
