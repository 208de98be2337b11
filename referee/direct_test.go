package referee_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"pbem/archive"
	"pbem/referee"
)

// TestDirect: a request with a Direct answer is read as the same mail
// would be, commits the same change and the mails to the others, and
// answers its sender in Direct instead of a mail: the text (players by
// name, never by address), a stale ply's number, and nothing when it is
// a duplicate.
func TestDirect(t *testing.T) {
	ctx := context.Background()
	store, err := archive.Open(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: "ref@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	handle := func(from string, body string, d *referee.Direct) string {
		t.Helper()
		n++
		to := "ref@example.org"
		if g, err := store.Game(ctx, 1); err == nil {
			for _, st := range g.Seats {
				if st.Player.Addr == from {
					to = fmt.Sprintf("ref+1.%s@example.org", st.Token)
				}
			}
		}
		id := fmt.Sprintf("m%d@test", n)
		if err := ref.Handle(ctx, referee.Request{From: referee.Address{Name: strings.Split(from, "@")[0], Addr: from}, To: to,
			Body: body, MessageID: id, Verdict: referee.VerdictPass, Direct: d}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// outbox returns the recipients of the mails queued since the last call.
	outbox := func() []string {
		due, err := store.Due(ctx, time.Now().Add(time.Hour), 100)
		if err != nil {
			t.Fatal(err)
		}
		var to []string
		for _, o := range due {
			to = append(to, o.To[0].Addr)
			store.Sent(ctx, o.ID)
		}
		return to
	}
	handle("alice@example.org", "new ziggurat with bob@example.org first=alice@example.org", nil)
	handle("alice@example.org", "accept", nil)
	handle("bob@example.org", "accept", nil)
	outbox()

	d := &referee.Direct{}
	handle("alice@example.org", "move 1 Qa1-b2 #1", d)
	if !d.Answered || !strings.Contains(d.Text, "You played Qa1-b2 (ply 1).") || d.Refused != "" {
		t.Errorf("Direct after a ply = %+v, want the reply's text", d)
	}
	if strings.Contains(d.Text, "@") {
		t.Errorf("Direct shows an address: %q", d.Text)
	}
	if to := outbox(); len(to) != 1 || to[0] != "bob@example.org" {
		t.Errorf("mails queued %v, want one to bob (the sender's reply is the Direct answer)", to)
	}

	d = &referee.Direct{}
	id := handle("bob@example.org", "move 1 Qf6-e5 #1", d)
	if !d.Stale || d.Next != 2 || !strings.HasPrefix(d.Refused, "Stale move") || d.Expected == "" {
		t.Errorf("Direct after a stale ply = %+v, want Stale, Next 2, the reason and what was expected", d)
	}
	if to := outbox(); len(to) != 0 {
		t.Errorf("a refused ply queued mails to %v", to)
	}

	// The same message again is a duplicate: nothing, not answered.
	d = &referee.Direct{}
	if err := ref.Handle(ctx, referee.Request{From: referee.Address{Addr: "bob@example.org"}, To: "ref@example.org", Body: "resign",
		MessageID: id, Verdict: referee.VerdictPass, Direct: d}); err != nil {
		t.Fatal(err)
	}
	g, err := store.Game(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != archive.Playing || d.Answered {
		t.Errorf("a duplicate changed the game (%s) or was answered (%+v)", g.Status, d)
	}
}
