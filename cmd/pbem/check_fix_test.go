package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
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

// TestCheckFixPerGame: --fix repairs every game it can and copies a game
// without a unique repair byte for byte, naming it, so that one such game
// does not keep the others broken.
func TestCheckFixPerGame(t *testing.T) {
	amb := strings.Replace(typed(t, 0), "40. Cg2-f2 Sj3-i4 *", "40. Cg2-f2 Sj3-i9 *", 1)
	amb = strings.Replace(amb, "[Game ", "[Xnote \"kept\"]   \n[Game ", 1) // not canonical: must stay so
	file := filepath.Join(t.TempDir(), "three.pgn")
	require.NoError(t, os.WriteFile(file, []byte(typed(t, 1)+"\n"+amb+"\n"+typed(t, 1)), 0o644))
	code, out, _ := run(t, "", "check", "--fix", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, file+": repaired 2 plies and rewrote the file in canonical form; 1 game left as written (game 2)")
	fixed, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(fixed), amb, "game 2 as it was written")
	assert.Equal(t, 2, strings.Count(strings.Join(strings.Fields(string(fixed)), " "), "{pbem --fix: written Hc1-e3}"))
	code, out, _ = run(t, "", "check", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "checked 3 games")
	assert.Contains(t, out, ": 1 errors")
	assert.Equal(t, "games 1, 2 and 3", gameNumbers([]int{1, 2, 3}))
	assert.Equal(t, "games 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more", gameNumbers([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
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

// probeReader reads r and, once past at bytes, calls probe once.
type probeReader struct {
	r     io.Reader
	n, at int
	probe func()
}

func (p *probeReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += n
	if p.probe != nil && p.n > p.at {
		p.probe()
		p.probe = nil
	}
	return n, err
}

// TestCheckFixStreams (issue 42): check --fix read the whole file and
// built the whole rewritten text before writing it (168 MB of memory on
// a 40 MB file, check alone 75 MB). It streams: games are written to the
// replacement while the file is still being read.
func TestCheckFixStreams(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "many.pgn")
	game := typed(t, 1)
	var b strings.Builder
	for b.Len() < 2<<20 {
		b.WriteString(game)
		b.WriteString("\n")
	}
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	written := int64(-1)
	in := &probeReader{r: f, at: 3 * b.Len() / 4, probe: func() {
		tmps, _ := filepath.Glob(filepath.Join(dir, ".pbem-fmt-*"))
		for _, p := range tmps {
			if st, err := os.Stat(p); err == nil {
				written = max(written, st.Size())
			}
		}
	}}
	var out strings.Builder
	c := &cli{stdout: io.Discard, stderr: io.Discard}
	require.NoError(t, c.checkFix(&out, file, file, in, func(*notation.Checked) {}))
	assert.Contains(t, out.String(), "and rewrote the file in canonical form")
	assert.Greater(t, written, int64(0), "bytes of the rewritten file written once three quarters of the input were read; want the games written as they are checked")
	fixed, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, strings.Count(b.String(), "[Game "), strings.Count(strings.Join(strings.Fields(string(fixed)), " "), "{pbem --fix: written Hc1-e3}"), "games repaired")
	tmps, _ := filepath.Glob(filepath.Join(dir, ".pbem-fmt-*"))
	assert.Empty(t, tmps, "temporary files left")
}
