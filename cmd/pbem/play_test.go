package main

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlayAndMatchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"play"},
		{"play", "chess"},
		{"play", "castles", "ziggurat"},
		{"play", "castles", "--level", "6"},
		{"play", "castles", "--as", "Third"},
		{"play", "castles", "--as", "3"},
		{"play", "rpp", "--players", "99"},
		{"play", "castles", "--bogus"},
		{"match", "castles", "-n", "2"},
		{"match", "castles", "--a", "1", "-n", "2"},
		{"match", "castles", "--a", "1", "--b", "6", "-n", "2"},
		{"match", "castles", "--a", "1", "--b", "0"},
		{"match", "castles", "--a", "1", "--b", "0", "-n", "2", "--max-plies", "0"},
		{"match", "--a", "1", "--b", "0", "-n", "2"},
		{"match", "chess", "--a", "1", "--b", "0", "-n", "2"},
		{"match", "rpp", "--a", "1", "--b", "0", "-n", "2", "--players", "1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errs := run(t, "", args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Contains(t, errs, "pbem "+args[0])
		})
	}
}

// boards returns the boards a play session printed (the blocks before each
// prompt that follows a board).
func boards(out string) []string {
	var b []string
	for _, block := range strings.Split(out, "\n\n") {
		if strings.Contains(block, "a  b  c") {
			b = append(b, block)
		}
	}
	return b
}

// TestPlaySession plays ziggurat43 as Red against level 1: a bad move, a
// hint, a move and the bot's reply, undo back to the start, an undo with
// nothing to undo, help, then quit (a resignation in the record).
func TestPlaySession(t *testing.T) {
	script := "Sc3-z9\n\nhint\nSc3-d4\nundo\nundo\nhelp\nquit\n"
	code, out, errs := run(t, script, "play", "ziggurat43", "--level", "1", "--seed", "4")
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs)
	assert.Contains(t, out, "you are Red, pbem bot (level 1) plays Gold.")
	assert.Regexp(t, `Not played: "Sc3-z9": .+\nExpected a move of Red in the notation of ziggurat43`, out)
	assert.Regexp(t, `Hint: [A-Z][a-m][1-5]`, out)
	assert.Contains(t, out, "Red plays Sc3-d4\nGold plays ")
	assert.Contains(t, out, "Taken back.")
	assert.Contains(t, out, "Nothing to undo: you have not moved yet.")
	assert.Contains(t, out, "You leave the game.")
	assert.Contains(t, out, `[Red "you"]`)
	assert.Contains(t, out, `[Gold "pbem bot (level 1)"]`)
	assert.Contains(t, out, `[Termination "resignation"]`)
	assert.True(t, strings.HasSuffix(out, "\n0-1\n\n"), "the record ends with Gold's win, got:\n%s", out)
	b := boards(out)
	require.Len(t, b, 3, "the start, after the reply, after undo:\n%s", out)
	assert.Equal(t, b[0], b[2], "undo goes back to the start")
	assert.NotEqual(t, b[0], b[1])
	assert.Equal(t, 8, strings.Count(out, "Red to move> "), "one prompt per line read")

	_, again, _ := run(t, script, "play", "ziggurat43", "--level", "1", "--seed", "4")
	assert.Equal(t, out, again, "the same seed gives the same session")
}

// TestPlayAsSecond: the bot opens when the person takes the second seat;
// the end of the input ends the session with an unfinished record.
func TestPlayAsSecond(t *testing.T) {
	code, out, errs := run(t, "", "play", "ziggurat43", "--as", "gold", "--level", "0")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?s)you are Gold.*\nRed plays \S+\n.*Gold to move> \n`, out)
	assert.True(t, strings.HasSuffix(out, " *\n\n"), "an unfinished record, got:\n%s", out)

	code, out, errs = run(t, "hint\n", "play", "rpp", "--players", "3", "--as", "2", "--level", "1")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "you are Y, pbem bot (level 1) plays R, G.")
	assert.Regexp(t, `(?s)\nR plays \S+\n.*\nY to move> Hint: \S+`, out)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return f
}

// hintFollower is a player at the terminal who asks for a hint at every
// prompt and plays it: its Read hands over the lines its Write queued on
// seeing each hint.
type hintFollower struct {
	lines   chan string
	pending []byte
	out     strings.Builder
	partial string
}

func (h *hintFollower) Read(p []byte) (int, error) {
	if len(h.pending) == 0 {
		select {
		case l := <-h.lines:
			h.pending = []byte(l)
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, h.pending)
	h.pending = h.pending[n:]
	return n, nil
}

func (h *hintFollower) Write(p []byte) (int, error) {
	h.out.Write(p)
	h.partial += string(p)
	for {
		line, rest, ok := strings.Cut(h.partial, "\n")
		if !ok {
			return len(p), nil
		}
		h.partial = rest
		if _, move, ok := strings.Cut(line, "Hint: "); ok {
			h.lines <- move + "\n"
			h.lines <- "hint\n"
		}
	}
}

// TestPlayToTheEnd follows the hints against the random mover until the
// game ends; the record printed at the end passes pbem check.
func TestPlayToTheEnd(t *testing.T) {
	h := &hintFollower{lines: make(chan string, 4)}
	h.lines <- "hint\n"
	var errb strings.Builder
	c := &cli{stdin: h, stdout: h, stderr: &errb}
	code := c.main([]string{"play", "castles", "--level", "0", "--seed", "2"})
	out := h.out.String()
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out, "\nresult 1-0 (three points)\n")
	_, record, ok := strings.Cut(out, "\n\n[Game ")
	require.True(t, ok, "no record in:\n%s", out)
	code, checked, _ := run(t, "[Game "+record, "check")
	assert.Equal(t, 0, code, checked)
	assert.Contains(t, record, `[First "you"]`)
}
