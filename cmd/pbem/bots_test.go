package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
