package referee_test

import (
	"errors"
	"strings"
	"testing"

	"pbem/engine/bot"
	"pbem/referee"
)

// TestPlayBot: the bot plays only its own turn, once, however often the
// worker sends it; it never plays a person's turn.
func TestPlayBot(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		if _, err := referee.Lookup("castles"); err != nil {
			t.Skip("castles is not in the catalog")
		}
		h.send("from: Alice <alice@example.org>\nsubject: new castles with bot:0\n")
		out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n")
		if !strings.Contains(out, "game #1 starts") {
			t.Fatalf("the game did not start when Alice confirmed:\n%s", out)
		}
		turns, err := h.ref.BotTurns(h.ctx)
		if err != nil || len(turns) != 1 {
			t.Fatalf("BotTurns = %v, %v; want the bot's setup ply", turns, err)
		}
		tn := turns[0]
		if tn.Game != 1 || tn.Ply != 1 || tn.Seat != 1 || tn.Level != 0 {
			t.Errorf("BotTurns()[0] = game %d ply %d seat %d level %d, want 1 1 1 0", tn.Game, tn.Ply, tn.Seat, tn.Level)
		}
		if tn.Owner != "alice@example.org" || !tn.Since.Equal(h.now) {
			t.Errorf("BotTurns()[0] is owned by %q since %v, want alice@example.org (who started it) since %v (when the bot's turn began)", tn.Owner, tn.Since, h.now)
		}
		if err := h.ref.PlayBot(h.ctx, 1, 2, "@c3"); !errors.Is(err, referee.ErrNotBotsTurn) {
			t.Errorf("PlayBot for ply 2 while ply 1 is due = %v, want ErrNotBotsTurn", err)
		}
		p, _ := bot.New(tn.Level, 1)
		m, err := p.MoveFor(h.ctx, tn.Line, tn.Seat)
		if err != nil {
			t.Fatal(err)
		}
		text := tn.Codec.Encode(tn.Line.State(), m)
		for range 3 { // the worker may send a ply again after a crash
			if err := h.ref.PlayBot(h.ctx, 1, 1, text); err != nil {
				t.Fatalf("PlayBot = %v", err)
			}
		}
		g, err := h.store.Game(h.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(g.Record, "0... "+text+" ") || strings.Count(g.Record, text) != 1 {
			t.Errorf("the record after the bot's ply, sent three times:\n%s", g.Record)
		}
		mails := h.mails()
		if strings.Contains(mails, "bot.pbem.invalid") {
			t.Errorf("a mail went to the bot's seat:\n%s", mails)
		}
		if n := strings.Count(mails, ">>> To: Alice"); n != 1 {
			t.Errorf("Alice got %d mails of the bot's ply, want 1:\n%s", n, mails)
		}
		// Now Alice is to move: the bot must not play her turn.
		if turns, _ := h.ref.BotTurns(h.ctx); len(turns) != 0 {
			t.Errorf("BotTurns on a person's turn = %v, want none", turns)
		}
		if err := h.ref.PlayBot(h.ctx, 1, 2, "Ca1-a2"); !errors.Is(err, referee.ErrNotBotsTurn) {
			t.Errorf("PlayBot on Alice's turn = %v, want ErrNotBotsTurn", err)
		}
	})
}
