package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/archive/pgtest"
	"pbem/notation"
	"pbem/referee"
)

// TestStoreConfig: no store is SQLite in data_dir; a postgres URL is
// PostgreSQL; anything else is refused, saying what is expected.
func TestStoreConfig(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "pbem.yaml")
	base := "data_dir: " + dir + "\nreferee:\n  address: referee@example.org\nimap:\n  addr: imap.example.org:993\nsmtp:\n  addr: smtp.example.org:587\n"
	for _, c := range []struct {
		store, where, err string
		pg                bool
	}{
		{"", dir, "", false},
		{"postgres://pbem@db.example.org/pbem", "postgres://pbem@db.example.org/pbem", "", true},
		{"postgresql://pbem@db.example.org:5433/pbem?sslmode=require", "postgresql://pbem@db.example.org:5433/pbem?sslmode=require", "", true},
		{"/var/lib/pbem", "", `store "/var/lib/pbem": expected a postgres://USER@HOST/DATABASE URL (PostgreSQL), or no store: SQLite in data_dir`, false},
		{"mysql://x@y/z", "", `store "mysql://x@y/z": expected a postgres://`, false},
	} {
		text := base
		if c.store != "" {
			text += "store: " + c.store + "\n"
		}
		require.NoError(t, os.WriteFile(f, []byte(text), 0o600))
		cfg, err := loadConfig(f)
		if c.err != "" {
			require.Error(t, err, c.store)
			assert.Contains(t, err.Error(), c.err)
			continue
		}
		require.NoError(t, err, c.store)
		assert.Equal(t, c.where, cfg.storeAddress())
		assert.Equal(t, c.pg, cfg.postgres())
	}
}

// TestBackupRefusesPostgres: pbem backup and restore copy SQLite's files;
// for a PostgreSQL store they refuse, naming pg_dump, and touch nothing.
func TestBackupRefusesPostgres(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "pbem.yaml")
	require.NoError(t, os.WriteFile(f, []byte("data_dir: "+dir+"\nstore: postgres://pbem@127.0.0.1:1/pbem\n"+
		"referee:\n  address: referee@example.org\nimap:\n  addr: imap.example.org:993\nsmtp:\n  addr: smtp.example.org:587\n"), 0o600))
	backup := filepath.Join(dir, "backup.db")
	for _, cmd := range []string{"backup", "restore"} {
		code, _, errs := run(t, "", cmd, "--config", f, backup)
		assert.Equal(t, 1, code, cmd)
		assert.Contains(t, errs, "pbem "+cmd+": the store is PostgreSQL")
		assert.Contains(t, errs, "pg_dump")
	}
	_, err := os.Stat(backup)
	assert.True(t, os.IsNotExist(err))
}

// TestCommandsOnPostgres: pbem archive (--data URL) and pbem admin (store:
// in the configuration) work on a PostgreSQL store as on SQLite.
func TestCommandsOnPostgres(t *testing.T) {
	where := pgtest.Start(t).URL(t)
	input := "[Game \"castles\"] [Event \"Cup\"] 0... @c3 *\n"
	code, out, errs := run(t, input, "archive", "import", "--data", where, "-")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "1 archived")
	code, out, errs = run(t, "", "archive", "list", "--data", where)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "1\t?\tcastles\tCup\t?\tFirst: ?; Second: ?\t*\n", out)
	code, out, errs = run(t, "", "archive", "export", "--data", where)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `[Event "Cup"]`)

	dir := t.TempDir()
	f := filepath.Join(dir, "pbem.yaml")
	require.NoError(t, os.WriteFile(f, []byte("data_dir: "+filepath.Join(dir, "none")+"\nstore: "+where+"\n"+
		"referee:\n  address: referee@example.org\nimap:\n  addr: imap.example.org:993\nsmtp:\n  addr: smtp.example.org:587\n"), 0o600))
	code, out, errs = run(t, "", "admin", "--config", f, "block", "spam@example.org", "--reason", "spam")
	require.Equal(t, 0, code, errs)
	code, out, errs = run(t, "", "admin", "--config", f, "blocked")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "spam@example.org")
	code, out, errs = run(t, "", "admin", "--config", f, "audit")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "block spam@example.org")
}

// TestDemoPlaysByMailOnPostgres is TestDemoPlaysByMail with store: a
// PostgreSQL URL: pbem serve referees both games by mail, and the store
// it leaves in PostgreSQL holds them, the finished one archived.
func TestDemoPlaysByMailOnPostgres(t *testing.T) {
	where := pgtest.Start(t).URL(t)
	var codecs []notation.Codec
	for _, id := range []string{"castles", "rpp"} {
		c, err := referee.Lookup(id)
		require.NoError(t, err)
		codecs = append(codecs, c)
	}
	cfg := testConfig(t)
	cfg.Store = where
	var out bytes.Buffer
	require.NoError(t, demo(context.Background(), cfg, &out, codecs, 3, 7))
	text := out.String()
	for _, want := range []string{
		"Result 0-1, by resignation",
		"carol@pbem.local -> referee@pbem.local: G:",
		"[Game \"rpp\"]",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "internal error")
	_, err := os.Stat(filepath.Join(cfg.DataDir, archive.DBFile))
	assert.True(t, os.IsNotExist(err), "a SQLite store was made in data_dir")

	s, err := archive.OpenStore(context.Background(), where, nil)
	require.NoError(t, err)
	defer s.Close()
	games, err := s.FindGames(context.Background(), archive.GameFilter{})
	require.NoError(t, err)
	assert.Len(t, games, 2)
	es, err := s.Entries(context.Background(), 0, 10)
	require.NoError(t, err)
	assert.NotEmpty(t, es, "the finished games are archived")
}
