package notation_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// A record typed in a word processor: en and em dashes, the minus sign and
// × in plies and results, curly quotes around tag values, no-break and
// full-width spaces between tokens. It reads as the plain record does, and
// the count says how many characters were read so.
func TestTypography(t *testing.T) {
	plain := "[Game \"toy\"]\n[Event \"Autumn Cup\"]\n[Site \"PBEM\"]\n\n1. t2 t1 2. t3 t1 0-1\n"
	canon := checkOne(t, []byte(plain), 0)
	for _, typed := range []struct {
		text string
		typo int
	}{
		{"[Game “toy”]\n[Event “Autumn Cup”]\n[Site \"PBEM”]\n\n1. t2 t1 2. t3 t1 0–1\n", 6},
		{"[Game \"toy\"]\n[Event „Autumn Cup“]\n[Site \"PBEM\"]\n\n1.\u00a0t2\u3000t1 2.\u202ft3 t1\u00a0\u00a00—1\n", 8},
		{"[Game \"toy\"]\n[Event \"Autumn Cup\"]\n[Site \"PBEM\"]\n\n1. t2 t1 2. t3 t1 0\u22121\n", 1},
	} {
		assert.Equal(t, canon, checkOne(t, []byte(typed.text), typed.typo), "%q", typed.text)
	}
	// In a ply: the toy codec reads "t-1" as no ply, and "t×1" as "tx1".
	var msgs []string
	notation.CheckFile("f.pgn", []byte("[Game \"toy\"]\n\n1. t–1 *\n"), toyLookup, func(c *notation.Checked) {
		for _, p := range c.Problems {
			msgs = append(msgs, p.String())
		}
	})
	require.Len(t, msgs, 1)
	assert.Contains(t, msgs[0], `"t-1"`)
	// Curly quotes inside a tag value and dashes in comments are text.
	got := checkOne(t, []byte("[Game \"toy\"]\n[Event \"the “Cup”\"]\n\n1. t2 {a – b} t1 *\n"), 0)
	assert.Contains(t, got, `[Event "the “Cup”"]`)
	assert.Contains(t, got, `{a – b}`)
}

// checkOne checks a file of one valid game and returns its canonical text,
// asserting how many typographic characters were read.
func checkOne(t *testing.T, data []byte, typo int) string {
	t.Helper()
	var b strings.Builder
	n := 0
	notation.CheckFile("f.pgn", data, toyLookup, func(c *notation.Checked) {
		n++
		for _, p := range c.Problems {
			t.Errorf("%q: %v", data, p)
		}
		if c.Valid() {
			b.WriteString(notation.Format(c.Game))
		}
		assert.Equal(t, typo, c.Typography, "%q", data)
	})
	assert.Equal(t, 1, n)
	return b.String()
}
