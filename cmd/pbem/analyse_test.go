package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnalyse: pbem analyse (and analyze) writes an annotated record that
// pbem check accepts, the same on a second run, with the original's tags;
// bad levels, sides and records are refused, saying what was expected.
func TestAnalyse(t *testing.T) {
	code, rec, _ := run(t, "", "selfplay", "castles", "--seed", "5", "--max-plies", "12")
	require.Equal(t, 0, code)
	dir := t.TempDir()
	in := filepath.Join(dir, "game.pgn")
	require.NoError(t, os.WriteFile(in, []byte(rec), 0o644))

	out := filepath.Join(dir, "annotated.pgn")
	code, stdout, errs := run(t, "", "analyse", in, "--level", "1", "--out", out)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, stdout)
	assert.Contains(t, errs, "game 1, First: ")
	annotated, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(annotated), `[Annotator "pbem bot (level 1)"]`)
	assert.Contains(t, string(annotated), `[Event "pbem selfplay"]`)
	code, _, errs = run(t, "", "check", out)
	assert.Equal(t, 0, code, "pbem check of the annotated record:\n%s\n%s", errs, annotated)

	code, again, _ := run(t, rec, "analyze", "-", "--level", "1")
	require.Equal(t, 0, code)
	assert.Equal(t, string(annotated), again, "a second run (as analyze, from standard input) differs")

	code, only, errs := run(t, rec, "analyse", "-", "--level", "1", "--side", "second")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "First:")
	assert.Contains(t, only, "on Second:")

	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		want  string
	}{
		{[]string{"analyse", "-", "--level", "0"}, rec, 2, "--level 0: expected 1 to 5"},
		{[]string{"analyse", "-", "--side", "Third"}, rec, 2, `no side "Third"; its sides: First, Second`},
		{[]string{"analyse"}, "", 2, "expected one record file"},
		{[]string{"analyse", "-"}, `[Game "castles"] 1. Zz9 *`, 1, "expected records that pbem check accepts"},
	} {
		code, _, errs := run(t, tc.stdin, tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.want, strings.Join(tc.args, " "))
	}
}
