package main

import (
	"cmp"
	"context"
	"errors"
	"hash/fnv"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"pbem/engine/bot"
	"pbem/referee"
)

// botReferee is what the bot worker asks of the referee.
type botReferee interface {
	BotTurns(ctx context.Context) ([]referee.BotTurn, error)
	PlayBot(ctx context.Context, id int64, ply int, text string) error
}

// botWorker plays the referee's computer players (new GAME with bot): it
// asks the referee which bots are to move, searches on one goroutine (so
// at most one core, off the mail path: mail is handled on other
// goroutines meanwhile), and plays each move through referee.PlayBot, the
// path of a person's move.
//
// It takes the players who started the games (the turns' owners) round
// robin: each look plays one turn of each owner with a bot to move, the
// owner served longest ago (or never) first, and the turn of theirs that
// has waited longest; then it looks again. So a bot waits behind at most
// one move of each other owner, however many games another has.
type botWorker struct {
	ref    botReferee
	log    *slog.Logger
	wake   chan struct{}
	played func() // called after each ply (wakes the sender)
	// poll is how often the worker looks without being woken (a crash
	// between a ply's commit and the wake-up loses nothing: the next look
	// finds the turn).
	poll time.Duration
	// search chooses the move of a turn, as the ply's text (searchTurn).
	search func(ctx context.Context, tn referee.BotTurn) (string, error)
	// served holds when each owner was last served, counted in plies
	// played (serves).
	served map[string]uint64
	serves uint64
	// failed holds the turns whose search failed (a bug, logged): they
	// are not searched again while due, so that they hold up none of
	// their owner's other games.
	failed map[botPly]bool
}

type botPly struct {
	game int64
	ply  int
}

func newBotWorker(ref botReferee, log *slog.Logger, played func()) *botWorker {
	return &botWorker{ref: ref, log: log.With("component", "bots"), wake: make(chan struct{}, 1), played: played, poll: 30 * time.Second,
		search: searchTurn, served: map[string]uint64{}, failed: map[botPly]bool{}}
}

// Wake makes the worker look for bot turns at once.
func (w *botWorker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run plays bot turns until ctx ends.
func (w *botWorker) Run(ctx context.Context) {
	t := time.NewTicker(w.poll)
	defer t.Stop()
	for {
		for w.round(ctx) && ctx.Err() == nil {
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-t.C:
		}
	}
}

// maxServed bounds the owners the worker remembers: past it, those with
// no bot to move are forgotten (and count as never served).
const maxServed = 1024

// schedule picks the turns of one round from those due: one per owner,
// the one that has waited longest, owners in round-robin order (served
// longest ago first, then the one whose turn has waited longest).
func (w *botWorker) schedule(turns []referee.BotTurn) []referee.BotTurn {
	due := map[botPly]bool{}
	first := map[string]int{} // owner -> index in turns of their turn
	for i, tn := range turns {
		k := botPly{tn.Game, tn.Ply}
		due[k] = true
		if w.failed[k] {
			continue
		}
		j, ok := first[tn.Owner]
		if !ok || tn.Since.Before(turns[j].Since) || tn.Since.Equal(turns[j].Since) && tn.Game < turns[j].Game {
			first[tn.Owner] = i
		}
	}
	out := make([]referee.BotTurn, 0, len(first))
	for _, i := range first {
		out = append(out, turns[i])
	}
	slices.SortFunc(out, func(a, b referee.BotTurn) int {
		return cmp.Or(cmp.Compare(w.served[a.Owner], w.served[b.Owner]), a.Since.Compare(b.Since), cmp.Compare(a.Owner, b.Owner))
	})
	for k := range w.failed {
		if !due[k] {
			delete(w.failed, k)
		}
	}
	if len(w.served) > maxServed {
		for o := range w.served {
			if _, due := first[o]; !due {
				delete(w.served, o)
			}
		}
	}
	return out
}

// round plays one turn of each owner with a bot to move and reports
// whether it played any.
func (w *botWorker) round(ctx context.Context) bool {
	turns, err := w.ref.BotTurns(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("listing bot turns", "err", err)
		}
		return false
	}
	played := false
	for _, tn := range w.schedule(turns) {
		if ctx.Err() != nil {
			return played
		}
		start := time.Now()
		text, err := w.search(ctx, tn)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("bot search", "game", tn.Game, "ply", tn.Ply, "err", err)
				w.failed[botPly{tn.Game, tn.Ply}] = true
			}
			continue
		}
		w.serves++
		w.served[tn.Owner] = w.serves
		switch err := w.ref.PlayBot(ctx, tn.Game, tn.Ply, text); {
		case err == nil:
			played = true
			w.log.Debug("bot played", "game", tn.Game, "ply", tn.Ply, "move", text, "level", tn.Level, "owner", tn.Owner, "took", time.Since(start))
			if w.played != nil {
				w.played()
			}
		case errors.Is(err, referee.ErrNotBotsTurn):
			// A person resigned or the clock ended the game meanwhile.
		default:
			w.log.Error("bot ply", "game", tn.Game, "ply", tn.Ply, "move", text, "err", err)
		}
	}
	return played
}

// searchTurn is the bot's search for a turn: the move of its level, drawn
// reproducibly for the game and ply, as the game's notation writes it.
func searchTurn(ctx context.Context, tn referee.BotTurn) (string, error) {
	p, err := bot.New(tn.Level, botSeed(tn.Game, tn.Ply))
	if err != nil {
		return "", err
	}
	m, err := p.MoveFor(ctx, tn.Line, tn.Seat)
	if err != nil {
		return "", err
	}
	return tn.Codec.Encode(tn.Line.State(), m), nil
}

// botSeed makes a bot's choices reproducible for a game and ply.
func botSeed(game int64, ply int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatInt(game, 10) + ":" + strconv.Itoa(ply)))
	return h.Sum64()
}
