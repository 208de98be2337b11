package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/archive/pgtest"
	"pbem/referee"
)

// clubData makes a data directory as a club leaves it: games played
// through the referee (one finished, one under way, one invitation) and
// imported records.
func clubData(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	code, out, errs := run(t, "[Game \"castles\"] [Event \"Cup\"] [First \"Ann\"] [Second \"Ben\"] [Termination \"resign\"] 0... @c3 1-0\n\n"+
		"[Game \"castles\"] [Event \"Cup\"] [First \"Ben\"] [Second \"Ann\"] 0... @d3 *\n", "archive", "import", "--data", data, "-")
	require.Equal(t, 0, code, "%s%s", out, errs)
	store, err := archive.Open(ctx, data, nil)
	require.NoError(t, err)
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: "referee@pbem.example"})
	require.NoError(t, err)
	n := 0
	send := func(from, to, body string) {
		t.Helper()
		n++
		require.NoError(t, ref.Handle(ctx, referee.Request{From: referee.Address{Addr: from}, To: to,
			Body: body, MessageID: fmt.Sprintf("m%d@example.org", n), Received: time.Now()}))
	}
	plus := func(id int64, addr string) string {
		g, err := store.Game(ctx, id)
		require.NoError(t, err)
		for _, st := range g.Seats {
			if st.Player.Addr == addr {
				return fmt.Sprintf("referee+%d.%s@pbem.example", id, st.Token)
			}
		}
		t.Fatalf("%s has no seat in game %d", addr, id)
		return ""
	}
	game := func(a, b string, moves ...string) {
		send(a, "referee@pbem.example", "new castles with "+b)
		gs, err := store.FindGames(ctx, archive.GameFilter{})
		require.NoError(t, err)
		id := gs[len(gs)-1].ID
		send(a, plus(id, a), "accept")
		send(b, plus(id, b), "accept")
		for i, m := range moves {
			who := []string{b, a}[i%2] // the second places first
			send(who, plus(id, who), m)
		}
	}
	game("alice@example.org", "bob@example.org", "resign")
	game("carol@example.org", "dave@example.org", "@c3", "Ca1-b2")
	send("erin@example.org", "referee@pbem.example", "new castles with frank@example.org")
	return data
}

// TestArchiveMigrate: a club's data directory moves into PostgreSQL, every
// table and game the same (checked); a second migrate into it is refused,
// --force too (it holds rows); --force copies into a store a pbem made
// that holds nothing; a data directory a referee holds is refused.
func TestArchiveMigrate(t *testing.T) {
	cluster := pgtest.Start(t)
	data := clubData(t)
	to := cluster.URL(t)
	code, out, errs := run(t, "", "archive", "migrate", "--from", data, "--to", to)
	require.Equal(t, 0, code, errs)
	t.Log(out)
	assert.Empty(t, errs)
	assert.Contains(t, out, "checked 3 games and ")
	assert.Contains(t, out, ": the same in both\n")
	assert.Regexp(t, `(?m)^  games +3$`, out)
	assert.Regexp(t, `(?m)^  archive +[1-9]`, out)

	ctx := context.Background()
	s, err := archive.OpenStore(ctx, to, nil)
	require.NoError(t, err)
	g, err := s.Game(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, archive.Over, g.Status)
	id, err := s.NewGameID(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(4), id, "the next game id follows the copied ones")
	s.Close()

	code, out, errs = run(t, "", "archive", "migrate", "--from", data, "--to", to)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, "is not empty")
	assert.Contains(t, errs, "expected an empty database")
	code, _, errs = run(t, "", "archive", "migrate", "--from", data, "--to", to, "--force")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "holds rows; nothing was copied")

	// --force: a store pbem made (say a referee started on it) that holds
	// nothing.
	made := cluster.URL(t)
	s, err = archive.OpenStore(ctx, made, nil)
	require.NoError(t, err)
	s.Close()
	code, _, errs = run(t, "", "archive", "migrate", "--from", data, "--to", made)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "is not empty")
	code, out, errs = run(t, "", "archive", "migrate", "--from", data, "--to", made, "--force")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, ": the same in both\n")

	// The referee runs on the data directory.
	unlock, err := lockData(data)
	require.NoError(t, err)
	code, _, errs = run(t, "", "archive", "migrate", "--from", data, "--to", cluster.URL(t))
	unlock()
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "a referee runs on this data directory")
	assert.Contains(t, errs, "stop pbem serve first")
}

// TestArchiveMigrateUsage: what migrate needs, said before anything is
// opened.
func TestArchiveMigrateUsage(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		err  string
	}{
		{nil, "expected --from DATA_DIR and --to postgres://"},
		{[]string{"--from", empty}, "expected --from DATA_DIR and --to postgres://"},
		{[]string{"--from", empty, "--to", empty}, "expected a postgres:// URL"},
		{[]string{"--from", "postgres://x@y/z", "--to", "postgres://x@y/z"}, "expected the data directory of a SQLite store"},
		{[]string{"--from", empty, "--to", "postgres://x@y/z"}, "no store there"},
		{[]string{"--from", empty, "--to", "postgres://x@y/z", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, errs := run(t, "", append([]string{"archive", "migrate"}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errs, c.err, "%v", c.args)
	}
	code, out, _ := run(t, "", "archive", "migrate", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Usage: pbem archive migrate --from DATA_DIR --to postgres://")
}
