package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/referee"
)

// playingGame makes game 1, castles between alice and bob, through the
// server's referee, as their mails would.
func playingGame(t *testing.T, s *server) *archive.Game {
	t.Helper()
	ctx := context.Background()
	n := 0
	send := func(from, to, subject, body string) {
		t.Helper()
		n++
		require.NoError(t, s.ref.Handle(ctx, referee.Request{From: referee.Address{Addr: from}, To: to, Subject: subject, Body: body,
			MessageID: fmt.Sprintf("setup-%d@test", n)}))
	}
	plus := func(addr string) string {
		t.Helper()
		g, err := s.store.Game(ctx, 1)
		require.NoError(t, err)
		for _, st := range g.Seats {
			if st.Player.Addr == addr {
				return fmt.Sprintf("referee+1.%s@pbem.local", st.Token)
			}
		}
		t.Fatalf("%s has no seat in game 1", addr)
		return ""
	}
	send("alice@pbem.local", "referee@pbem.local", "new castles with bob@pbem.local first=alice@pbem.local", "")
	send("alice@pbem.local", plus("alice@pbem.local"), "", "accept")
	send("bob@pbem.local", plus("bob@pbem.local"), "", "accept")
	g, err := s.store.Game(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, archive.Playing, g.Status)
	return g
}

// waitOutboxSent waits until the running server has sent every reply
// (pbem admin queued them from outside; reload wakes the sender as SIGHUP
// does).
func waitOutboxSent(t *testing.T, s *server) {
	t.Helper()
	s.reload()
	for deadline := time.Now().Add(30 * time.Second); ; {
		n, err := s.store.Pending(context.Background())
		require.NoError(t, err)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d replies still pending", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAdminWhileServing runs pbem admin, backup and restore on the data
// directory of a running pbem serve: the actions are committed beside the
// referee's, audited, shown by game N and mailed by the running server; a
// backup is taken; restore is refused.
func TestAdminWhileServing(t *testing.T) {
	cfg := testConfig(t)
	s := startServe(t, cfg)
	g := playingGame(t, s)
	waitOutboxSent(t, s)
	dir := cfg.DataDir

	code, out, errs := run(t, "", "admin", "--data", dir, "--as", "tester", "clock", "1", "+2d", "the club's mail was down")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "game #1: deadline now "+g.Deadline.Add(48*time.Hour).UTC().Format("2006-01-02 15:04")+" UTC")
	waitOutboxSent(t, s)
	var n int
	require.NoError(t, s.store.DB().QueryRow(`SELECT COUNT(*) FROM outbox WHERE status = 'sent' AND to_addrs LIKE '%bob@pbem.local%'
AND body LIKE '%The referee''s operator gave%'`).Scan(&n))
	assert.Equal(t, 1, n, "the running server mailed the extension to bob")

	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"games", "--active"}, 0, "alice@pbem.local, bob@pbem.local"},
		{[]string{"games", "--player", "carol@pbem.local"}, 0, "GAME"},
		{[]string{"games", "--stalled", "1"}, 0, "GAME"},
		{[]string{"game", "1"}, 0, "cli:tester: clock 1 +2d (the club's mail was down)"},
		{[]string{"block", "@spam.example", "advertising"}, 0, "blocked @spam.example"},
		{[]string{"blocked"}, 0, "@spam.example (since"},
		{[]string{"audit"}, 0, "cli:tester: block @spam.example (advertising)"},
		{[]string{"abort", "1"}, 2, ""},
		{[]string{"game", "7"}, 1, ""},
	} {
		code, out, errs := run(t, "", append([]string{"admin", "--data", dir, "--as", "tester"}, c.args...)...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, errs)
		assert.Contains(t, out, c.out, c.args)
	}
	code, out, _ = run(t, "", "admin", "--data", dir, "games", "--player", "carol@pbem.local")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "castles", "carol plays no game")
	// admin's own flags may also follow the command and its words.
	for _, args := range [][]string{
		{"admin", "games", "--data", dir},
		{"admin", "games", "--active", "--data=" + dir},
		{"admin", "game", "1", "--as", "tester", "--data", dir},
	} {
		code, out, errs := run(t, "", args...)
		assert.Equal(t, 0, code, "%v: %s", args, errs)
		assert.Contains(t, out, "castles", args)
	}
	code, _, errs = run(t, "", "admin", "games", "--data")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "flag needs an argument: -data")

	file := filepath.Join(t.TempDir(), "backup.db")
	code, out, errs = run(t, "", "backup", file, "--data", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, file)
	assert.DirExists(t, filepath.Join(file+".d", "mail"), "the embedded mail journal is backed up")
	code, _, errs = run(t, "", "backup", file, "--data", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "exists; expected the name of a new file")

	code, _, errs = run(t, "", "restore", file, "--data", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "a referee runs on this data directory")
	assert.Contains(t, errs, fmt.Sprintf("pid %d", os.Getpid()))

	// Restored elsewhere, the backup holds the game and its audit.
	other := t.TempDir()
	code, out, errs = run(t, "", "restore", file, "--data", other)
	require.Equal(t, 0, code, errs)
	code, out, errs = run(t, "", "admin", "--data", other, "game", "1")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "cli:tester: clock 1 +2d")
	assert.FileExists(t, filepath.Join(other, "mail", "journal"))
}
