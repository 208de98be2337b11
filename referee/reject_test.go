package referee_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pbem/referee"
)

func TestReject(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
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
	})
}

// TestRejectIsLimited: unreadable mail counts against the limits of mail
// without a token. 35 malformed mails from one sender get the usual reply
// up to the limit, one short notice, then nothing; from many senders the
// total limit stops the replies.
func TestRejectIsLimited(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, map[string]string{"rate-limit": "3", "rate-limit-total": "10"})
		replies := func() []string {
			t.Helper()
			out, err := h.store.Due(h.ctx, h.clock.Now().Add(time.Hour), 1000)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, o := range out {
				texts = append(texts, o.Text)
			}
			return texts
		}
		for i := range 35 {
			req := referee.Request{From: referee.Address{Addr: "flood@example.org"}, MessageID: fmt.Sprintf("<f%d@example.org>", i)}
			if err := h.ref.Reject(h.ctx, req, "broken MIME structure"); err != nil {
				t.Fatal(err)
			}
		}
		got := replies()
		if len(got) != 4 {
			t.Fatalf("35 unreadable mails from one sender got %d replies, want 3 and one notice", len(got))
		}
		if !strings.Contains(got[3], "more than 3 messages without a game's token") {
			t.Errorf("the fourth reply is not the notice of the limit:\n%s", got[3])
		}
		for i := range 20 {
			req := referee.Request{From: referee.Address{Addr: fmt.Sprintf("s%d@example.org", i)}, MessageID: fmt.Sprintf("<s%d@example.org>", i)}
			if err := h.ref.Reject(h.ctx, req, "broken MIME structure"); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(replies()); n != 4 {
			t.Errorf("after the total limit (10 an hour) was reached, %d replies are due, want still 4", n)
		}
	})
}
