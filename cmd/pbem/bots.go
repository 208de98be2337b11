package main

import (
	"context"
	"errors"
	"hash/fnv"
	"log/slog"
	"strconv"
	"time"

	"pbem/engine/bot"
	"pbem/referee"
)

// botWorker plays the referee's computer players (new GAME with bot): it
// asks the referee which bots are to move, searches on one goroutine (so
// at most one core, off the mail path: mail is handled on other
// goroutines meanwhile), and plays each move through referee.PlayBot, the
// path of a person's move.
type botWorker struct {
	ref    *referee.Referee
	log    *slog.Logger
	wake   chan struct{}
	played func() // called after each ply (wakes the sender)
	// poll is how often the worker looks without being woken (a crash
	// between a ply's commit and the wake-up loses nothing: the next look
	// finds the turn).
	poll time.Duration
}

func newBotWorker(ref *referee.Referee, log *slog.Logger, played func()) *botWorker {
	return &botWorker{ref: ref, log: log.With("component", "bots"), wake: make(chan struct{}, 1), played: played, poll: 30 * time.Second}
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

// round plays every bot turn due now and reports whether it played any.
func (w *botWorker) round(ctx context.Context) bool {
	turns, err := w.ref.BotTurns(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("listing bot turns", "err", err)
		}
		return false
	}
	played := false
	for _, tn := range turns {
		if ctx.Err() != nil {
			return played
		}
		p, err := bot.New(tn.Level, botSeed(tn.Game, tn.Ply))
		if err != nil {
			w.log.Error("bot", "game", tn.Game, "err", err)
			continue
		}
		start := time.Now()
		m, err := p.MoveFor(ctx, tn.Line, tn.Seat)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("bot search", "game", tn.Game, "ply", tn.Ply, "err", err)
			}
			continue
		}
		text := tn.Codec.Encode(tn.Line.State(), m)
		switch err := w.ref.PlayBot(ctx, tn.Game, tn.Ply, text); {
		case err == nil:
			played = true
			w.log.Debug("bot played", "game", tn.Game, "ply", tn.Ply, "move", text, "level", tn.Level, "took", time.Since(start))
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

// botSeed makes a bot's choices reproducible for a game and ply.
func botSeed(game int64, ply int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatInt(game, 10) + ":" + strconv.Itoa(ply)))
	return h.Sum64()
}
