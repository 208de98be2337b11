package referee_test

import (
	"regexp"
	"strings"
	"testing"

	"pbem/archive"
)

var confirmRE = regexp.MustCompile(`(?m)^    admin confirm ([a-z0-9]+)$`)

// TestAdminByMail: an admin's command by mail is carried out only when
// that admin answers the token mailed to its configured address; a forged
// From, another admin, a stranger or a used token change nothing.
func TestAdminByMail(t *testing.T) {
	h := started(t, map[string]string{"admins": "root@club.example deputy@club.example"})
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
}

// TestAdminMailMistakes: an admin's bad command is answered with what was
// wrong, and no token is issued for it.
func TestAdminMailMistakes(t *testing.T) {
	h := started(t, map[string]string{"admins": "root@club.example"})
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
}
