package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/referee"
)

// TestServePlaysBots: a game by mail against the referee's computer player
// through pbem serve: the bot worker plays the bot's setup ply by itself,
// off the mail path, and Alice is told of it and of each later bot ply.
func TestServePlaysBots(t *testing.T) {
	s := startServe(t, testConfig(t))
	ref := s.mails.RefereeAddress()
	pass, _ := s.mails.Password("alice")
	alice := &player{addr: "alice@" + s.mails.Domain(), pass: pass, imapAddr: s.mails.IMAPAddr(), smtpAddr: s.mails.SMTPAddr()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, alice.send(ref, "new castles with bot:1", "", nil))
	m, err := alice.wait(ctx, "invitation")
	require.NoError(t, err)
	require.NoError(t, alice.send(ref, "", "accept", m))
	// The bot (Second) places its setup unit; then it is Alice's turn.
	m, err = alice.wait(ctx, "pbem bot (level 1) (Second) played @")
	require.NoError(t, err)
	assert.Contains(t, m.Subject, "alice@pbem.local to move")
	require.NoError(t, alice.send(ref, "", "Ca1-a2", m))
	m, err = alice.wait(ctx, "pbem bot (level 1) (Second) played C")
	require.NoError(t, err, "the bot answered Alice's ply")
	assert.True(t, strings.Contains(m.Text, "(ply 3)"), m.Text)
}

// fakeBots is a referee whose bot turns are listed by hand: a played
// turn is gone (its game waits for a person), and arrive adds turns once
// the given game's ply was played.
type fakeBots struct {
	turns  []referee.BotTurn
	arrive map[int64][]referee.BotTurn
	played []string
}

func (f *fakeBots) BotTurns(context.Context) ([]referee.BotTurn, error) {
	return slices.Clone(f.turns), nil
}

func (f *fakeBots) PlayBot(_ context.Context, id int64, ply int, _ string) error {
	i := slices.IndexFunc(f.turns, func(tn referee.BotTurn) bool { return tn.Game == id && tn.Ply == ply })
	if i < 0 {
		return referee.ErrNotBotsTurn
	}
	f.played = append(f.played, fmt.Sprintf("%s%d", f.turns[i].Owner[:1], id))
	f.turns = slices.Delete(f.turns, i, i+1)
	f.turns = append(f.turns, f.arrive[id]...)
	return nil
}

// TestBotWorkerRoundRobin: the worker takes the owners of bot turns round
// robin, so a player's bot moves after at most one move of each other
// player's, however many bot games another has waiting (a fake referee
// and fake times: nothing here is timed).
func TestBotWorkerRoundRobin(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	turn := func(owner string, game int64, waited int) referee.BotTurn {
		return referee.BotTurn{Game: game, Ply: 3, Owner: owner + "@example.org", Since: t0.Add(-time.Duration(waited) * time.Minute)}
	}
	for _, tc := range []struct {
		name   string
		turns  []referee.BotTurn
		arrive map[int64][]referee.BotTurn
		fail   int64 // the game whose search fails
		want   string
	}{{
		name:   "bob's bot arrives behind alice's queue",
		turns:  []referee.BotTurn{turn("alice", 1, 50), turn("alice", 2, 40), turn("alice", 3, 30), turn("alice", 4, 20), turn("alice", 5, 10)},
		arrive: map[int64][]referee.BotTurn{1: {turn("bob", 9, 0)}},
		want:   "a1 b9 a2 a3 a4 a5",
	}, {
		name: "three owners queued",
		turns: []referee.BotTurn{turn("alice", 1, 60), turn("alice", 2, 50), turn("alice", 3, 40),
			turn("bob", 4, 30), turn("bob", 5, 20), turn("carol", 6, 10)},
		want: "a1 b4 c6 a2 b5 a3",
	}, {
		name: "oldest waits longest within an owner",
		turns: []referee.BotTurn{turn("alice", 1, 10), turn("alice", 2, 30), turn("alice", 3, 20),
			turn("bob", 4, 5)},
		want: "a2 b4 a3 a1",
	}, {
		name:  "a failed search holds up none of its owner's other games",
		turns: []referee.BotTurn{turn("alice", 1, 60), turn("alice", 2, 50), turn("alice", 3, 40), turn("bob", 4, 30)},
		fail:  1,
		want:  "b4 a2 a3",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBots{turns: tc.turns, arrive: tc.arrive}
			w := newBotWorker(f, slog.New(slog.DiscardHandler), nil)
			w.search = func(_ context.Context, tn referee.BotTurn) (string, error) {
				if tn.Game == tc.fail {
					return "", errors.New("the game refuses a move it listed")
				}
				return "a1-a2", nil
			}
			for i := 0; w.round(context.Background()); i++ {
				if i > 20 {
					t.Fatal("the worker kept playing")
				}
			}
			if got := strings.Join(f.played, " "); got != tc.want {
				t.Errorf("the bots played %s, want %s", got, tc.want)
			}
		})
	}
}
