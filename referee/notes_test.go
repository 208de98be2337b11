package referee_test

import (
	"fmt"
	"strings"
	"testing"

	"pbem/referee"
)

// mailsTo splits the mails h.send returns by recipient address.
func mailsTo(out string) map[string][]string {
	m := map[string][]string{}
	for _, mail := range strings.Split(out, ">>> To: ")[1:] {
		to, _, _ := strings.Cut(mail, "\n")
		if i := strings.LastIndex(to, "<"); i >= 0 {
			to = strings.TrimSuffix(to[i+1:], ">")
		}
		m[to] = append(m[to], mail)
	}
	return m
}

// TestNotesStayWithTheirOwner: through a whole game (notes, plies, the
// end) a player's notes are in that player's own mail only: never in the
// opponent's, the watcher's, a stranger's record or the stored record;
// and they do end the owner's board mails.
func TestNotesStayWithTheirOwner(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		h.send("from: Olga <olga@example.org>\nsubject: watch 1\n")
		h.send("from: Olga <olga@example.org>\nsubject: Re: [pbem #1 {token 1 olga@example.org}] toy\n\nwatch 1\n")
		steps := []string{
			"from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+1\nnote 1 SECRET-A1\n",
			"from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\nnote 1\nSECRET-B1\nresign\nend\n+3\n",
			"from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nnote 1 SECRET-A2\nsay hello\n",
			"from: Quinn <quinn@example.org>\n\nrecord 1\nshow 1\n",
			"from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\nnotes 1\n",
			"from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nresign\n",
			"from: Quinn <quinn@example.org>\n\nrecord 1\n",
		}
		owner := map[string]string{"SECRET-A": "alice@example.org", "SECRET-B": "bob@example.org"}
		seen := map[string]bool{}
		for i, st := range steps {
			for to, mails := range mailsTo(h.send(st)) {
				for _, m := range mails {
					for secret, who := range owner {
						if !strings.Contains(m, secret) {
							continue
						}
						if to != who {
							t.Errorf("step %d: the mail to %s shows %s's note %s:\n%s", i+1, to, who, secret, m)
						}
						seen[secret] = true
					}
				}
			}
		}
		for secret, who := range owner {
			if !seen[secret] {
				t.Errorf("no mail to %s shows its note %s", who, secret)
			}
		}
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != "over" {
			t.Fatalf("game #1 is %s, want over: Bob's resign inside his note must not have been read, Alice's resign must", g.Status)
		}
		if strings.Contains(g.Record, "SECRET") || strings.Contains(g.Record, "resign") && strings.Contains(g.Record, "Bob resigned") {
			t.Errorf("the stored record holds a note, or Bob's note was read as a command:\n%s", g.Record)
		}
	})
}

// TestNotesBounded: a player keeps at most referee.MaxNotes notes and
// referee.MaxNotesBytes of notes on a game; the refusals name the bound,
// and a refused note is not kept.
func TestNotesBounded(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, map[string]string{"token-rate-limit": "1000"})
		for n := 0; n < referee.MaxNotes; n += 25 {
			var b strings.Builder
			b.WriteString("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n")
			for i := n; i < n+25; i++ {
				fmt.Fprintf(&b, "note 1 number %d\n", i+1)
			}
			if out := h.send(b.String()); !strings.Contains(out, fmt.Sprintf("(%d notes;", n+25)) {
				t.Fatalf("notes %d to %d were not all kept:\n%s", n+1, n+25, out)
			}
		}
		out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nnote 1 one too many\n")
		if !strings.Contains(out, "You keep 100 notes on game #1 already") || !strings.Contains(out, "at most 100 notes per player per game") {
			t.Errorf("the 101st note:\n%s", out)
		}
		if out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nnotes 1\n"); strings.Contains(out, "one too many") || !strings.Contains(out, "(100 notes;") {
			t.Errorf("notes after the refusal:\n%s", out)
		}

		big := "note 1\n" + strings.Repeat(strings.Repeat("x", 70)+"\n", 800) + "end\n" // 56 KB
		if out := h.send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\n" + big); !strings.Contains(out, "(1 note;") {
			t.Fatalf("Bob's first long note:\n%s", out)
		}
		out = h.send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\n" + big)
		if !strings.Contains(out, "at most 100 KiB of notes per player per game") || !strings.Contains(out, "to 110 KiB") {
			t.Errorf("Bob's second long note:\n%s", out)
		}
	})
}
