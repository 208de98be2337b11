package notation_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// nested is a game whose ply t1 has an alternative nested depth deep.
func nested(depth int) string {
	return `[Game "toy"] t1 ` + strings.Repeat("(t1 ", depth) + strings.Repeat(")", depth) + " *\n"
}

// A record that would cost more than its size is refused as a syntax
// problem of its game, early, and the next game is still checked.
func TestRecordBounds(t *testing.T) {
	const next = "\n[Game \"toy\"] t1 t9 *\n"
	nextLine := func(line int) string {
		return fmt.Sprintf(`f.pgn:%d:17: game 2, ply 2 "t9": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`, line)
	}
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	tests := []struct {
		name, in string
		want     string // the problem of the first game
	}{
		{"a 2 MB word", `[Game "toy"] t1 ` + long("t", 2<<20) + " *",
			`f.pgn:1:17: game 1, ply 2 "` + long("t", notation.MaxToken) + `...": word of 2097152 bytes is too long; expected a ply of at most 256 bytes`},
		{"a word one byte too long", `[Game "toy"] ` + long("t", notation.MaxPly+1) + " *",
			`f.pgn:1:14: game 1, ply 1 "` + long("t", notation.MaxToken) + `...": word of 257 bytes is too long; expected a ply of at most 256 bytes`},
		{"a long tag name", `[` + long("N", 1000) + ` "x"] [Game "toy"] t1 *`,
			`f.pgn:1:2: game 1, ply 0 "` + long("N", notation.MaxToken) + `...": tag name of 1000 bytes is too long; expected at most 256 bytes`},
		{"a long tag value", `[Game "toy"] [Event "` + long("e", 1<<20) + `"] t1 *`,
			`f.pgn:1:21: game 1, ply 0 "\"` + long("e", notation.MaxToken-1) + `...": tag value of 1048578 bytes is too long; expected at most 65536 bytes`},
		{"a long comment", `[Game "toy"] t1 {` + long("c", 1<<20) + `} *`,
			`f.pgn:1:17: game 1, ply 2 "{` + long("c", notation.MaxToken-1) + `...": comment of 1048578 bytes is too long; expected at most 65536 bytes`},
		{"a long line comment", "[Game \"toy\"] t1 ;" + long("c", 1<<20) + "\n*",
			`f.pgn:1:17: game 1, ply 2 ";` + long("c", notation.MaxToken-1) + `...": comment of 1048577 bytes is too long; expected at most 65536 bytes`},
		{"a long NAG", `[Game "toy"] t1 $` + long("1", 1000) + ` *`,
			`f.pgn:1:17: game 1, ply 2 "$` + long("1", notation.MaxToken-1) + `...": NAG of 1001 bytes is too long; expected $0 to $255`},
		{"variations nested 1,000,000 deep", nested(1_000_000),
			`f.pgn:1:` + fmt.Sprint(17+4*notation.MaxDepth) + `: game 1, ply 2 "(": variations nested more than 64 deep; expected ")" to close one`},
		{"variations nested 1,000,000 deep, never closed", `[Game "toy"] t1 ` + long("(t1 ", 1_000_000),
			`f.pgn:1:` + fmt.Sprint(17+4*notation.MaxDepth) + `: game 1, ply 2 "(": variations nested more than 64 deep; expected ")" to close one`},
		{"variations one too deep", nested(notation.MaxDepth + 1),
			`f.pgn:1:` + fmt.Sprint(17+4*notation.MaxDepth) + `: game 1, ply 2 "(": variations nested more than 64 deep; expected ")" to close one`},
		{"a game of too many tokens", `[Game "toy"] t1 ` + long("{} ", notation.MaxGameTokens) + "*",
			`f.pgn:1:` + fmt.Sprint(17+3*(notation.MaxGameTokens-5)) + fmt.Sprintf(`: game 1, ply 2 "{}": game of more than %d tokens is too long; expected at most %[1]d plies, move numbers, comments and other tokens`, notation.MaxGameTokens)},
		{"unclosed comments", `[Game "toy"] t1 ` + long("{", 1<<20),
			`f.pgn:1:17: game 1, ply 2 "{": unterminated comment: "{" has no closing "}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, canon := checkAll(t, tt.in+next)
			assert.Equal(t, []string{tt.want, nextLine(strings.Count(tt.in, "\n") + 2)}, got)
			assert.Empty(t, canon)
		})
	}
}

// Variations as deep as the bound allows are read, checked and written.
func TestDeepestVariations(t *testing.T) {
	problems, canon := checkAll(t, nested(notation.MaxDepth))
	require.Empty(t, problems)
	assert.Equal(t, notation.MaxDepth, strings.Count(canon, "(1. t1"))
	problems, again := checkAll(t, canon)
	require.Empty(t, problems)
	assert.Equal(t, canon, again)
}

// BenchmarkDeepNesting reads a game whose variations are nested 1,000,000
// deep (refused at MaxDepth; ns/op is per game).
func BenchmarkDeepNesting(b *testing.B) {
	data := []byte(nested(1_000_000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, problems := notation.Parse("f", data)
		if len(problems) != 1 {
			b.Fatalf("%d problems, want 1", len(problems))
		}
	}
}

// BenchmarkHugeWord reads a game with one 2 MB word (refused at MaxPly).
func BenchmarkHugeWord(b *testing.B) {
	data := []byte(`[Game "toy"] t1 ` + strings.Repeat("t", 2<<20) + " *")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, problems := notation.Parse("f", data)
		if len(problems) != 1 {
			b.Fatalf("%d problems, want 1", len(problems))
		}
	}
}

// BenchmarkUnclosedComments reads a game of 1,000,000 "{" without "}".
func BenchmarkUnclosedComments(b *testing.B) {
	data := []byte(`[Game "toy"] t1 ` + strings.Repeat("{", 1<<20))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, problems := notation.Parse("f", data)
		if len(problems) != 1 {
			b.Fatalf("%d problems, want 1", len(problems))
		}
	}
}
