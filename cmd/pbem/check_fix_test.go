package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typed is the first game of testdata/check/valid_ziggurat43.pgn as a
// director might type it from a score sheet: Hc1-e3 for Hc1-d3 (only two
// Horse moves were legal there), and, with two, Ce1-c2 for Ce1-c1 later.
func typed(t *testing.T, typos int) string {
	t.Helper()
	data, err := os.ReadFile("testdata/check/valid_ziggurat43.pgn")
	require.NoError(t, err)
	game := string(data[:strings.Index(string(data), "\n\n[Game")+1])
	if typos > 0 {
		game = strings.Replace(game, "21. Hc1-d3", "21. Hc1-e3", 1)
	}
	if typos > 1 {
		game = strings.Replace(game, "36. Ce1-c1", "36. Ce1-c2", 1)
	}
	return game
}

func TestCheckSuggests(t *testing.T) {
	code, out, _ := run(t, typed(t, 1), "check")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `game 1, ply 41 "Hc1-e3": illegal: a Horse leaps two squares one way and one the other; did you mean Hc1-d3 or Ce2-e3? with Hc1-d3 the remaining 39 plies are legal`)

	// Two typos: checking goes on after the first, and finds the second.
	code, out, _ = run(t, typed(t, 2), "check")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `"Hc1-e3": illegal: a Horse leaps two squares one way and one the other; did you mean Hc1-d3`)
	assert.Contains(t, out, `game 1, ply 71 "Ce1-c2"`)
	assert.Contains(t, out, "checked 1 games, 80 plies: 2 errors")
	// With the second repaired, only Hc1-d3 makes the rest legal.
	assert.Contains(t, out, "; with Hc1-d3 and the repair after it the remaining 39 plies are legal")
	code, out, _ = run(t, typed(t, 2), "fmt", "--fix")
	assert.Equal(t, 0, code)
	out = strings.Join(strings.Fields(out), " ")
	assert.Contains(t, out, "21. Hc1-d3 {pbem --fix: written Hc1-e3}")
	assert.Contains(t, out, "36. Ce1-c1 {pbem --fix: written Ce1-c2}")
}

func TestCheckFix(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "typed.pgn")
	require.NoError(t, os.WriteFile(file, []byte(typed(t, 1)), 0o644))
	code, out, _ := run(t, "", "check", "--fix", file)
	assert.Equal(t, 1, code, "the file as given had an error")
	assert.Contains(t, out, file+": repaired 1 ply and rewrote the file in canonical form")
	fixed, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(strings.Fields(string(fixed)), " "), "21. Hc1-d3 {pbem --fix: written Hc1-e3} 21... Sh5xg5")
	code, out, _ = run(t, "", "check", file)
	assert.Equal(t, 0, code, out)

	// fmt --fix writes the same to standard output.
	code, out, errs := run(t, typed(t, 1), "fmt", "--fix")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, string(fixed), out)
	assert.Contains(t, errs, "repaired 1 ply")

	// fmt without --fix repairs nothing.
	code, out, _ = run(t, typed(t, 1), "fmt")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)

	// No repair is made between two candidates: the file stays as it was.
	amb := strings.Replace(typed(t, 0), "40. Cg2-f2 Sj3-i4 *", "40. Cg2-f2 Sj3-i9 *", 1)
	require.NoError(t, os.WriteFile(file, []byte(amb), 0o644))
	code, out, _ = run(t, "", "check", "--fix", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "none is chosen")
	assert.Contains(t, out, "nothing repaired")
	kept, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, amb, string(kept))

	code, _, errs = run(t, "", "check", "--fix", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "standard input")
}

// A record typed in a word processor checks, with one line saying how many
// characters were read as their plain forms; fmt writes them plain.
func TestCheckTypography(t *testing.T) {
	plain := typed(t, 0)
	word := strings.NewReplacer("21. Hc1-d3", "21.\u00a0Hc1–d3", "Sf3xg3", "Sf3×g3", `[Event "pbem selfplay"]`, `[Event “pbem selfplay”]`).Replace(plain)
	require.NotEqual(t, plain, word)
	code, out, _ := run(t, word, "check")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "<stdin>: read 5 typographic characters in plain form")
	assert.Equal(t, 1, strings.Count(out, "typographic"))
	code, canon, _ := run(t, plain, "fmt")
	require.Equal(t, 0, code)
	code, out, _ = run(t, word, "fmt")
	assert.Equal(t, 0, code)
	assert.Equal(t, canon, out)
}
