//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
)

// TestBackupIsPrivate (issue 42): under umask 022 the store and `pbem
// backup`'s copy were 0644, readable by every local user, with seat and
// admin tokens and the referee's secrets inside. Both are 0600, and so
// is the store `pbem restore` puts back.
func TestBackupIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := archive.Open(ctx, dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Commit(ctx, &archive.Change{MessageID: "kept@test"}))
	require.NoError(t, s.Close())

	file := filepath.Join(t.TempDir(), "b.db")
	code, out, errs := run(t, "", "backup", "--data", dir, file)
	require.Equal(t, 0, code, "pbem backup: %s%s", out, errs)
	again := t.TempDir()
	code, out, errs = run(t, "", "restore", file, "--data", again)
	require.Equal(t, 0, code, "pbem restore: %s%s", out, errs)
	for _, p := range []string{filepath.Join(dir, archive.DBFile), filepath.Join(dir, archive.DBFile+"-wal"), file, filepath.Join(again, archive.DBFile)} {
		fi, err := os.Stat(p)
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "mode of %s under umask 022; want 0600, it holds live tokens", p)
	}
}
