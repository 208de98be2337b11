package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRppBoardServesItsPlayerCounts: a board serves only the player counts
// RULES.md lists for it; check and selfplay refuse any other pair, naming
// the boards that do serve the count.
func TestRppBoardServesItsPlayerCounts(t *testing.T) {
	rec := "[Game \"rpp\"]\n[Board \"square7\"]\n[Players \"2\"]\n[R \"a\"]\n[Y \"b\"]\n\n*\n"
	code, out, _ := run(t, rec, "check")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "<stdin>:2:1:")
	assert.Contains(t, out, "board square7 is for 3 to 4 players, not 2; for 2 players use square5")

	code, out, errs := run(t, "", "selfplay", "rpp", "--players", "2", "--board", "square7")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, "board square7 is for 3 to 4 players, not 2; for 2 players use square5")

	code, _, errs = run(t, "", "selfplay", "rpp", "--players", "3", "--board", "octagon")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "for 3 players use square7 or hex5")
}

func TestSelfplayCountIsAUsageError(t *testing.T) {
	for _, args := range [][]string{{"-n", "-1"}, {"--max-plies", "0"}} {
		code, out, errs := run(t, "", append([]string{"selfplay", "castles"}, args...)...)
		assert.Equal(t, 2, code, args)
		assert.Empty(t, out, args)
		assert.Contains(t, errs, "pbem selfplay: "+args[0], args)
	}
	code, out, _ := run(t, "", "selfplay", "castles", "-n", "0")
	assert.Equal(t, 0, code)
	assert.Empty(t, out, "-n 0 plays no game")
}

// TestFmtWriteSymlink: fmt -w rewrites a link's target and keeps the link;
// -w with standard input is a usage error.
func TestFmtWriteSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.pgn")
	link := filepath.Join(dir, "link.pgn")
	require.NoError(t, os.WriteFile(target, []byte("[Game \"castles\"]\n0... @C3 1. a1-b2 *"), 0o640))
	require.NoError(t, os.Symlink("real.pgn", link))
	code, _, errs := run(t, "", "fmt", "-w", link)
	require.Equal(t, 0, code, errs)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeSymlink != 0, "the link is still a link")
	got, _ := os.ReadFile(target)
	assert.Equal(t, "[Game \"castles\"]\n[Result \"*\"]\n\n0... @c3 1. Ca1-b2 *\n\n", string(got))
	st, _ := os.Stat(target)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())

	code, _, errs = run(t, "[Game \"castles\"]\n*", "fmt", "-w", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "standard input")
}

// TestHelpCommand: pbem help CMD prints what pbem CMD --help prints; the
// rules and notation ship with the binary.
func TestHelpCommand(t *testing.T) {
	for _, cmd := range commands() {
		code, out, errs := run(t, "", "help", cmd.name)
		assert.Equal(t, 0, code, cmd.name)
		assert.Empty(t, errs, cmd.name)
		if cmd.name == "help" {
			assert.Contains(t, out, "Usage: pbem help [COMMAND|rules|notation]")
			continue
		}
		_, want, _ := run(t, "", cmd.name, "--help")
		assert.Equal(t, want, out, "pbem help %s", cmd.name)
	}
	code, out, _ := run(t, "", "help", "rules")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Draw by threefold repetition")
	code, out, _ = run(t, "", "help", "notation")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "[Game")
	code, out, _ = run(t, "", "help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "pbem version")
	code, _, errs := run(t, "", "help", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command or topic "frobnicate"`)
}

func TestVersion(t *testing.T) {
	code, out, errs := run(t, "", "version")
	assert.Equal(t, 0, code, errs)
	assert.Regexp(t, `^pbem \S+ .*go1\.\d+`, out)

	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "pbem", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "8b243a8f2c1e0123456789"},
			{Key: "vcs.time", Value: "2026-11-24T22:55:52Z"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "pbem v1.2.3 8b243a8f2c1e 2026-11-24T22:55:52Z (modified) go1.26.8", versionLine(bi, true))
	bi = &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "pbem", Version: "(devel)"}}
	assert.Equal(t, "pbem (devel) (no VCS revision) go1.26.8", versionLine(bi, true))
	assert.Equal(t, "pbem (no build information)", versionLine(nil, false))
	code, _, _ = run(t, "", "version", "extra")
	assert.Equal(t, 2, code)
}
