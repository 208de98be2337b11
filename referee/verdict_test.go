package referee_test

import (
	"strings"
	"testing"

	"pbem/referee"
)

// TestSenderVerdict: mail whose sender the mail server found forged is
// neither answered nor applied, even with the player's valid token; mail
// without a verdict is read as before unless unauthenticated mail is
// ignored; mail that passed is read.
func TestSenderVerdict(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		move := func(name, verdict string) referee.Request {
			req := h.request(name, h.expand("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n"))
			req.Verdict, req.VerdictReason = verdict, "test"
			return req
		}
		if err := h.ref.Handle(h.ctx, move("forged", referee.VerdictFail)); err != nil {
			t.Fatal(err)
		}
		if got := h.mails(); got != "(no mail)\n" {
			t.Errorf("a move with a failing verdict was answered:\n%s", got)
		}
		if got := h.record(1); got != "*" {
			t.Errorf("record = %q after a move with a failing verdict, want none applied", got)
		}
		if st := h.ref.Stats(); st.Unverified != 1 || st.Ignored != 1 {
			t.Errorf("Stats() = %+v, want Unverified 1 and it counted as ignored", st)
		}

		// Unreadable mail from a forged sender is not answered either.
		if err := h.ref.Reject(h.ctx, move("forged-unreadable", referee.VerdictFail), "broken MIME"); err != nil {
			t.Fatal(err)
		}
		if got := h.mails(); got != "(no mail)\n" {
			t.Errorf("unreadable mail with a failing verdict was answered:\n%s", got)
		}

		strict, err := referee.New(h.store, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Clock: h.clock,
			Unauthenticated: referee.UnauthenticatedIgnore})
		if err != nil {
			t.Fatal(err)
		}
		if err := strict.Handle(h.ctx, move("none", "")); err != nil {
			t.Fatal(err)
		}
		if got := h.mails(); got != "(no mail)\n" || h.record(1) != "*" {
			t.Errorf("with unauthenticated: ignore, mail without a verdict was read: record %q, mails:\n%s", h.record(1), got)
		}
		if err := strict.Handle(h.ctx, move("pass", referee.VerdictPass)); err != nil {
			t.Fatal(err)
		}
		if got := h.record(1); got == "*" {
			t.Errorf("a move with a passing verdict was not applied (record %q)", got)
		}
		if got := h.mails(); !strings.Contains(got, "To: Alice <alice@example.org>") {
			t.Errorf("a move with a passing verdict was not answered:\n%s", got)
		}

		// The default answers mail without a verdict, as before.
		if err := h.ref.Handle(h.ctx, h.request("plain", "from: Carol <carol@example.org>\n\nhelp\n")); err != nil {
			t.Fatal(err)
		}
		if got := h.mails(); !strings.Contains(got, "To: Carol <carol@example.org>") {
			t.Errorf("mail without a verdict was not answered by default:\n%s", got)
		}

		if _, err := referee.New(h.store, &referee.Options{Address: "referee@pbem.example", Unauthenticated: "drop"}); err == nil ||
			!strings.Contains(err.Error(), `"answer" or "ignore"`) {
			t.Errorf("New(Unauthenticated: drop) = %v, want an error naming answer and ignore", err)
		}
	})
}
