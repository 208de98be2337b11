package referee_test

import (
	"strings"
	"testing"
	"time"

	"pbem/referee"
)

func TestReject(t *testing.T) {
	h := newHarness(t, nil)
	due := func() int {
		t.Helper()
		out, err := h.store.Due(h.ctx, h.clock.Now().Add(time.Hour), 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(out)
	}
	req := referee.Request{From: referee.Address{Addr: "alice@example.org"}, To: "referee@pbem.example", Subject: "my move", MessageID: "<broken@example.org>"}
	if err := h.ref.Reject(h.ctx, req, "broken MIME structure"); err != nil {
		t.Fatal(err)
	}
	out, err := h.store.Due(h.ctx, h.clock.Now().Add(time.Hour), 100)
	if err != nil || len(out) != 1 {
		t.Fatalf("Due = %d replies, %v; want 1", len(out), err)
	}
	if to := out[0].To; len(to) != 1 || to[0].Addr != "alice@example.org" {
		t.Errorf("reply to %v, want alice@example.org", to)
	}
	if !strings.Contains(out[0].Text, "could not read your message: broken MIME structure.") || !strings.Contains(out[0].Text, "Nothing of it was applied") {
		t.Errorf("reply says:\n%s", out[0].Text)
	}
	// The same message again: nothing more.
	if err := h.ref.Reject(h.ctx, req, "broken MIME structure"); err != nil {
		t.Fatal(err)
	}
	if n := due(); n != 1 {
		t.Errorf("after a repeated message, %d replies are due, want 1", n)
	}
	// A bounce is never answered.
	bounce := referee.Request{From: referee.Address{Addr: "MAILER-DAEMON@example.org"}, MessageID: "<b@example.org>", ContentType: "multipart/report"}
	if err := h.ref.Reject(h.ctx, bounce, "broken"); err != nil {
		t.Fatal(err)
	}
	if n := due(); n != 1 {
		t.Errorf("a bounce was answered: %d replies due, want 1", n)
	}
}
