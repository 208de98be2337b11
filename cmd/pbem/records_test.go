package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toUTF16 encodes s as UTF-16 in the given byte order, after a byte-order
// mark when bom is set.
func toUTF16(s string, order binary.AppendByteOrder, bom bool) string {
	var out []byte
	if bom {
		out = order.AppendUint16(out, 0xfeff)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = order.AppendUint16(out, u)
	}
	return string(out)
}

// TestRecordsAsSaved: a record saved with a byte-order mark or as UTF-16
// checks and formats as its UTF-8 text does; what is no record says so in
// one line.
func TestRecordsAsSaved(t *testing.T) {
	code, game, errs := run(t, "", "selfplay", "--seed", "7", "castles")
	require.Equal(t, 0, code, errs)
	game = strings.Replace(game, `[Site "pbem"]`, `[Site "Zoë's 🙂 club"]`, 1)
	code, summary, _ := run(t, game, "check")
	require.Equal(t, 0, code, summary)
	code, formatted, _ := run(t, game, "fmt")
	require.Equal(t, 0, code)
	require.Equal(t, game, formatted)
	for name, in := range map[string]string{
		"UTF-8 with a byte-order mark":    "\xef\xbb\xbf" + game,
		"UTF-16LE with a byte-order mark": toUTF16(game, binary.LittleEndian, true),
		"UTF-16BE with a byte-order mark": toUTF16(game, binary.BigEndian, true),
	} {
		t.Run(name, func(t *testing.T) {
			code, out, _ := run(t, in, "check")
			assert.Equal(t, 0, code)
			assert.Equal(t, summary, out)
			code, out, _ = run(t, in, "fmt")
			assert.Equal(t, 0, code)
			assert.Equal(t, game, out)
		})
	}
	for name, tt := range map[string]struct{ in, want string }{
		"UTF-16 without a byte-order mark": {toUTF16(game, binary.LittleEndian, false),
			"<stdin>:1:1: game 1, ply 0 \"\": the file looks like UTF-16 without a byte-order mark; expected UTF-8 (or UTF-16 that starts with a byte-order mark)\nchecked 1 games, 0 plies: 1 errors\n"},
		"prose": {"Dear referee,\nplease check my game.\n",
			"<stdin>:1:1: game 1, ply 0 \"Dear\": no [Game] tag: is this a game record?\nchecked 1 games, 0 plies: 1 errors\n"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, _ := run(t, tt.in, "check")
			assert.Equal(t, 1, code)
			assert.Equal(t, tt.want, out)
		})
	}
}

// TestHostileRecords: a record with one 2 MB rpp ply, and one whose
// variations are nested 1,000,000 deep, are each refused as a syntax
// problem of their game by check, fmt, show and archive import, without a
// crash, and the next game of the file is still read.
func TestHostileRecords(t *testing.T) {
	const next = "\n[Game \"castles\"] 0... @c3 1. Ca1-b2 *\n"
	for _, tt := range []struct {
		name, game, problem string
	}{
		{"a 2 MB rpp ply", `[Game "rpp"] 1. R:L` + strings.Repeat("c", 2<<20) + " *\n",
			`<stdin>:1:17: game 1, ply 1 "R:Lccccccccccccccccccccccccccccccccccccccccccccccccccccccccc...": word of 2097155 bytes is too long; expected a ply of at most 256 bytes`},
		{"variations nested 1,000,000 deep", `[Game "castles"] 0... @c3 ` + strings.Repeat("(@c4 ", 1_000_000) + strings.Repeat(")", 1_000_000) + " *\n",
			`<stdin>:1:347: game 1, ply 2 "(": variations nested more than 64 deep; expected ")" to close one`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.game + next
			file := filepath.Join(t.TempDir(), "hostile.pgn")
			require.NoError(t, os.WriteFile(file, []byte(in), 0o600))

			code, out, _ := run(t, in, "check")
			assert.Equal(t, 1, code)
			assert.Equal(t, tt.problem+"\nchecked 2 games, 2 plies: 1 errors\n", out)

			code, out, errs := run(t, in, "fmt")
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, tt.problem+"\npbem fmt: <stdin>: 1 invalid games; not formatted\n", errs)

			code, out, errs = run(t, "", "show", file, "--game", "2")
			assert.Equal(t, 0, code, errs)
			assert.True(t, strings.HasPrefix(out, "game 2 after ply 2 (Ca1-b2)\n"), out)

			data := filepath.Join(t.TempDir(), "data")
			code, out, errs = run(t, in, "archive", "import", "--data", data, "-")
			assert.Equal(t, 1, code, errs)
			assert.Equal(t, tt.problem+"\nimported 2 games, 2 plies: 1 archived, 0 already archived, 1 invalid (1 errors)\n", out)
		})
	}
}
