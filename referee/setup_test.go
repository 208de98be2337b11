package referee_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/bot"
	"pbem/notation"
	"pbem/referee"
)

// TestSetUpGameBotsPlay: for every game of the catalog, a game started
// with position= from a position of a random playout is played by bots
// (the bot's seat through BotTurns and PlayBot, Alice's by mail with the
// bot's choice) until it ends or for 30 plies; its stored record then
// passes notation.Check (what pbem check runs) without a problem, starts
// from [SetUp "1"] and the position given, and replays to the position
// the referee reached.
func TestSetUpGameBotsPlay(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		for _, c := range referee.Games() {
			id := c.Rules().ID()
			t.Run(id, func(t *testing.T) {
				h := newHarness(t, db, nil)
				r := rand.New(rand.NewPCG(44, 2))
				s, err := c.Rules().Start(engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for range 8 {
					moves := s.Legal()
					if s, err = s.Apply(moves[r.IntN(len(moves))]); err != nil {
						t.Fatal(err)
					}
				}
				if s.Outcome().Over {
					t.Fatalf("the playout of %s ended within 8 plies: pick another seed", id)
				}
				pos := s.(engine.Positioner).Position()
				out := h.send(fmt.Sprintf("from: Alice <alice@example.org>\nsubject: new %s with bot:0 position=%q\n", id, pos))
				if !strings.Contains(out, "It starts from this position:") || !strings.Contains(out, "Position: "+pos) {
					t.Fatalf("the request for %s from %q shows no board of it:\n%s", id, pos, out)
				}
				out = h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n")
				if !strings.Contains(out, "game #1 starts") {
					t.Fatalf("the game did not start:\n%s", out)
				}
				p, _ := bot.New(0, 7)
				var last *notation.Game
				for ply := 1; ply <= 30; ply++ {
					last = storedGame(t, h)
					if last.Outcome.Over {
						break
					}
					line, seat := last.Final(), last.Final().State().ToMove()
					m, err := p.MoveFor(h.ctx, line, seat)
					if err != nil {
						t.Fatal(err)
					}
					text := c.Encode(line.State(), m)
					if turns, _ := h.ref.BotTurns(h.ctx); len(turns) == 1 {
						if err := h.ref.PlayBot(h.ctx, 1, ply, text); err != nil {
							t.Fatalf("PlayBot(ply %d, %q) = %v", ply, text, err)
						}
						continue
					}
					out := h.send(fmt.Sprintf("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n%s\n", text))
					if !strings.Contains(out, "You played "+text) {
						t.Fatalf("Alice's ply %d %q was not played:\n%s", ply, text, out)
					}
				}
				last = storedGame(t, h)
				if last.Position != pos || last.Lines[0].State().(engine.Positioner).Position() != pos {
					t.Errorf("the record starts from %q, want %q:\n%s", last.Position, pos, last.Record.Result)
				}
				if last.Plies < 2 {
					t.Errorf("only %d plies were played from %q", last.Plies, pos)
				}
			})
		}
	})
}

// storedGame checks the stored record of game #1 and fails on any problem.
func storedGame(t *testing.T, h *harness) *notation.Game {
	t.Helper()
	ag, err := h.store.Game(h.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	recs, probs := notation.Parse("game 1", []byte(ag.Record))
	if len(probs) > 0 || len(recs) != 1 {
		t.Fatalf("the record does not parse: %v\n%s", probs, ag.Record)
	}
	if v, _ := recs[0].Tag("SetUp"); v != "1" {
		t.Fatalf("the record has no [SetUp \"1\"]:\n%s", ag.Record)
	}
	g, problems := notation.Check(recs[0], testLookup)
	if len(problems) > 0 {
		t.Fatalf("pbem check finds problems in the record: %v\n%s", problems, ag.Record)
	}
	return g
}
