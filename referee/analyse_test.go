package referee_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pbem/notation"
)

// finishedToy plays game #1 of h (started) to its end: A misses the win
// at 18 and B wins.
func finishedToy(h *harness) {
	for i, ply := range []string{"+3", "+3", "+3", "+3", "+3", "+3", "+1", "+2"} {
		who := "Alice <alice@example.org>"
		addr := "alice@example.org"
		if i%2 == 1 {
			who, addr = "Bob <bob@example.org>", "bob@example.org"
		}
		h.send(fmt.Sprintf("from: %s\nto: {plus 1 %s}\n\n%s\n", who, addr, ply))
	}
}

// TestMovesGoBeforeAnalyses: while the worker does 20 queued analyses at
// level 4, a move in another game is answered within a second, and every
// analysis is then mailed once, with a record that checks and marks the
// missed win.
func TestMovesGoBeforeAnalyses(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		finishedToy(h)
		h.send("from: Carol <carol@example.org>\nsubject: new toy with dan@example.org players=2\n")
		h.send("from: Carol <carol@example.org>\nto: {plus 2 carol@example.org}\n\naccept\n")
		h.send("from: Dan <dan@example.org>\nto: {plus 2 dan@example.org}\n\naccept\n")
		for i := range 20 {
			if out := h.send(fmt.Sprintf("from: s%d@example.org\n\nanalyse 1 level=4\n", i)); !strings.Contains(out, "will analyse game #1") {
				t.Fatalf("request %d:\n%s", i, out)
			}
		}
		h.mails()

		var wg sync.WaitGroup
		done := 0
		wg.Go(func() {
			for {
				ran, err := h.ref.RunAnalysis(h.ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if !ran {
					return
				}
				done++
			}
		})
		time.Sleep(50 * time.Millisecond) // the worker is busy
		start := time.Now()
		out := h.send("from: Carol <carol@example.org>\nto: {plus 2 carol@example.org}\n\n+2\n")
		if took := time.Since(start); took > time.Second {
			t.Errorf("a move took %s while analyses ran; want under 1s", took)
		}
		if !strings.Contains(out, "You played +2 (ply 1).") {
			t.Errorf("the move:\n%s", out)
		}
		wg.Wait()
		if done != 20 {
			t.Fatalf("the worker did %d analyses, want 20", done)
		}
		mails, err := h.store.Due(h.ctx, h.now.Add(1000*24*time.Hour), 1000)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, o := range mails {
			if !strings.HasPrefix(o.Subject, "[pbem] analysis of game #1") {
				continue
			}
			n++
			_, rec, ok := strings.Cut(o.Text, "[Game ")
			if !ok {
				t.Fatalf("no record in the analysis mailed to %v:\n%s", o.To, o.Text)
			}
			rec, _, _ = strings.Cut("[Game "+rec, "\n\n-- \n")
			recs, probs := notation.Parse("analysis", []byte(rec))
			if len(probs) > 0 || len(recs) != 1 {
				t.Fatalf("the analysis does not parse: %v\n%s", probs, rec)
			}
			if _, problems := notation.Check(recs[0], testLookup); len(problems) > 0 {
				t.Errorf("the analysis does not check: %v\n%s", problems, rec)
			}
			if flat := strings.Join(strings.Fields(rec), " "); !strings.Contains(flat, "4. +1??") || strings.Contains(flat, "@example.org") {
				t.Errorf("the analysis misses the blunder or shows an address:\n%s", rec)
			}
		}
		if n != 20 {
			t.Errorf("%d analyses mailed, want 20", n)
		}
		if ran, err := h.ref.RunAnalysis(h.ctx); ran || err != nil {
			t.Errorf("RunAnalysis with an empty queue = %v, %v; want false, nil", ran, err)
		}
	})
}

// TestAnalysesBounded: one address has at most 3 analyses waiting; an
// unfinished or a private game, or a side the game has not, is refused.
func TestAnalysesBounded(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := started(t, db, nil)
		if out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nanalyse 1\n"); !strings.Contains(out, "is not over") {
			t.Errorf("analyse of a game under way:\n%s", out)
		}
		finishedToy(h)
		if out := h.send("from: Olga <olga@example.org>\n\nanalyse 1 side=Z\n"); !strings.Contains(out, `"Z" is not a side of game #1 (its sides: A, B)`) {
			t.Errorf("analyse of a side the game does not have:\n%s", out)
		}
		for i := range 3 {
			if out := h.send("from: Olga <olga@example.org>\n\nanalyse 1\n"); !strings.Contains(out, "will analyse game #1") {
				t.Fatalf("request %d:\n%s", i+1, out)
			}
		}
		if out := h.send("from: Olga <olga@example.org>\n\nanalyse 1\n"); !strings.Contains(out, "You have 3 analyses waiting already") ||
			!strings.Contains(out, "at most 3 analyses of yours waiting") {
			t.Errorf("a fourth request:\n%s", out)
		}
		h.send("from: Carol <carol@example.org>\nsubject: new toy with dan@example.org players=2 private\n")
		if out := h.send("from: Olga <olga@example.org>\n\nanalyse 2\n"); !strings.Contains(out, "There is no game #2") {
			t.Errorf("a stranger's analyse of a private game:\n%s", out)
		}
	})
}
