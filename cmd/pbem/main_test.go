package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run runs pbem in-process and returns its exit code, stdout and stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := c.main(args)
	return code, out.String(), errb.String()
}

func TestEveryCommandHasHelp(t *testing.T) {
	for _, cmd := range commands() {
		code, out, errs := run(t, "", cmd.name, "--help")
		assert.Equal(t, 0, code, cmd.name)
		assert.Equal(t, 1, strings.Count(out, "Usage: pbem "+cmd.name), "%s --help prints its usage once:\n%s", cmd.name, out)
		assert.Empty(t, errs, cmd.name)
	}
	code, out, _ := run(t, "", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "pbem check")
	code, _, errs := run(t, "", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "frobnicate"`)
}

func TestGames(t *testing.T) {
	code, out, _ := run(t, "", "games")
	require.Equal(t, 0, code)
	for _, id := range []string{"castles", "ziggurat", "elevation", "ziggurat43", "rpp"} {
		assert.Contains(t, out, id+" ")
	}
}

func TestSelfplayIsReproducibleAndValid(t *testing.T) {
	for _, args := range [][]string{
		{"castles"}, {"ziggurat"}, {"elevation"}, {"ziggurat43"},
		{"rpp"}, {"rpp", "--players", "3"}, {"rpp", "--players", "8", "--max-plies", "60"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			a := append([]string{"selfplay", "-n", "3", "--seed", "42"}, args...)
			code, out1, errs := run(t, "", a...)
			require.Equal(t, 0, code, errs)
			_, out2, _ := run(t, "", a...)
			assert.Equal(t, out1, out2, "the same seed gives the same games")
			code, out, _ := run(t, out1, "check")
			assert.Equal(t, 0, code, out)
			assert.Regexp(t, `^checked 3 games, [1-9][0-9]* plies: 0 errors\n$`, out)
			// The canonical form is a fixed point of fmt.
			code, formatted, _ := run(t, out1, "fmt")
			assert.Equal(t, 0, code)
			assert.Equal(t, out1, formatted)
		})
	}
	code, _, errs := run(t, "", "selfplay", "chess")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown game "chess"`)
}

const illegal = `[Game "castles"]

0... @c3 1. Ca1-c3 Cd4-d3 *

[Game "castles"] 0... @c3 1. Ca1-b2 (( *

[Game "chess"] 1. e4 *

[Game "castles"] 0... @c3 1. Ca1-b2 Cd4xc3 *
`

func TestCheckReportsEveryProblem(t *testing.T) {
	code, out, _ := run(t, illegal, "check")
	assert.Equal(t, 1, code)
	want := `<stdin>:3:13: game 1, ply 2 "Ca1-c3": illegal: the castle steps exactly one square; did you mean Ca1-a2, Ca1-b1, Ca1-b2, Ca1-a2,@a1 or Ca1-a2,@a3? (more than one legal ply fits the rest of the game; none is chosen)
board before ply 2 of game 1:
`
	require.True(t, strings.HasPrefix(out, want), out)
	rest := out[len(want):]
	assert.Contains(t, rest, `<stdin>:5:40: game 2, ply 2 "*": unexpected "*"; expected a ply, comment or ")" to close the variation`)
	assert.Contains(t, rest, `<stdin>:7:1: game 3, ply 0 "chess": unknown game "chess"; expected one of castles, ziggurat, elevation, ziggurat43, rpp`)
	assert.Contains(t, rest, `<stdin>:9:37: game 4, ply 3 "Cd4xc3": illegal: x asserts a capture, but Cd4-c3 captures nothing; did you mean Cd4-c3`)
	assert.True(t, strings.HasSuffix(out, "checked 4 games, 3 plies: 4 errors\n"), out)
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.pgn")
	require.NoError(t, os.WriteFile(good, []byte("[Game \"castles\"] 0... @c3 1. Ca1-b2 *\n"), 0o644))
	code, out, _ := run(t, "", "check", good)
	assert.Equal(t, 0, code)
	assert.Equal(t, "checked 1 games, 2 plies: 0 errors\n", out)
	code, _, errs := run(t, "", "check", good, filepath.Join(dir, "missing.pgn"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "missing.pgn")
	code, _, _ = run(t, "", "check", "--bogus")
	assert.Equal(t, 2, code)
}

func TestShow(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "g.pgn")
	require.NoError(t, os.WriteFile(f, []byte(illegal+"\n[Game \"castles\"] 0... @c3 1. Ca1-b2 *\n"), 0o644))
	code, out, _ := run(t, "", "show", f, "--game", "5", "--ply", "1")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "game 5 after ply 1 (@c3)\n"), out)
	code, out, _ = run(t, "", "show", f, "--ply", "0")
	assert.Equal(t, 1, code, "game 1 has an illegal ply")
	assert.True(t, strings.HasPrefix(out, "game 1, start position\n"), out)
	code, out, _ = run(t, "", "show", f, "--game", "5")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "game 5 after ply 2 (Ca1-b2)\n"), out)
	assert.Contains(t, out, "Second to move")
	const after2 = "...S/..s./.F../.... 4/1/0 4/0/0 S"
	assert.Contains(t, out, "\nposition "+after2+"\nkey ", "the position text below the board")
	code, out, _ = run(t, "", "show", f, "--game", "5", "--position")
	assert.Equal(t, 0, code)
	assert.Equal(t, after2+"\n", out, "--position prints the text alone")
	code, out, _ = run(t, "", "show", f, "--game", "5", "--ply", "0", "--position")
	assert.Equal(t, 0, code)
	assert.Equal(t, "...S/..../..../F... 5/0/0 5/0/0 S*\n", out)
	code, _, errs := run(t, "", "show", f, "--game", "5", "--ply", "9")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "expected --ply 0 to 2")
	code, _, errs = run(t, "", "show", f, "--game", "9")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "has no game 9")
}

func TestFmtWrite(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "g.pgn")
	in := "[Round \"1\"][Game \"castles\"]\n0... @C3 1. a1-b2 {a   comment} *"
	require.NoError(t, os.WriteFile(f, []byte(in), 0o600))
	code, _, errs := run(t, "", "fmt", "-w", f)
	require.Equal(t, 0, code, errs)
	got, _ := os.ReadFile(f)
	assert.Equal(t, "[Game \"castles\"]\n[Round \"1\"]\n[Result \"*\"]\n\n0... @c3 1. Ca1-b2 {a comment} *\n\n", string(got))
	st, _ := os.Stat(f)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "fmt -w keeps the file mode")

	bad := filepath.Join(dir, "bad.pgn")
	require.NoError(t, os.WriteFile(bad, []byte(illegal), 0o644))
	code, _, errs = run(t, "", "fmt", "-w", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "not formatted")
	got, _ = os.ReadFile(bad)
	assert.Equal(t, illegal, string(got), "a file with invalid games is left alone")
}

// TestSetUpRecords: check, fmt and show read a record set up from a
// position ([SetUp "1"] and [Position]); a bad position is refused with
// the column and what was expected.
func TestSetUpRecords(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "g.pgn")
	const pos = "...S/..s./.F../.... 4/1/0 4/0/0 S"
	in := "[Game \"castles\"] [Position \"...S/..s./.F../....  4/1/0 4/0/0 S\"] [SetUp \"1\"]\n1... d4-d3 2. b2-b3 *\n"
	require.NoError(t, os.WriteFile(f, []byte(in), 0o600))
	code, out, errs := run(t, "", "check", f)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "checked 1 games, 2 plies: 0 errors\n", out)
	code, out, _ = run(t, "", "show", f, "--ply", "0", "--position")
	assert.Equal(t, 0, code)
	assert.Equal(t, pos+"\n", out)
	code, out, errs = run(t, "", "fmt", f)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "[Game \"castles\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[Position \""+pos+"\"]\n\n1... Cd4-d3 2. Cb2-b3 *\n\n", out,
		"fmt writes the position canonically (one blank between fields)")

	bad := filepath.Join(dir, "bad.pgn")
	require.NoError(t, os.WriteFile(bad, []byte("[Game \"castles\"] [SetUp \"1\"] [Position \"...S/..s./.F../.... 4/1/0 4/0/0 X\"] *\n"), 0o600))
	code, out, _ = run(t, "", "check", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `bad [Position]: castles position, column 33: no side "X"; want F, S, or S* (Second's setup ply)`)
}
