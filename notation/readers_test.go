package notation

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/stretchr/testify/require"
)

// sameReaders checks every game of data: when the fast reader builds a
// record, the grammar builds the same one.
func sameReaders(t *testing.T, data []byte) (fast, games int) {
	data, start, p := decodeText("f", data)
	if p != nil {
		return 0, 0
	}
	l := newLexState("f", data)
	l.off = start
	c := &chunker{l: l}
	for n := 1; ; n++ {
		chunk := c.next()
		if chunk == nil {
			return fast, games
		}
		games++
		if len(c.invalid) > 0 {
			continue
		}
		got := readFast("f", n, chunk)
		if got == nil {
			continue
		}
		fast++
		want, p := parseSlow("f", n, chunk, c.invalid)
		require.Nil(t, p, "the fast reader accepts game %d, which the grammar refuses", n)
		require.Equal(t, want, got, "game %d", n)
	}
}

// TestReadersAgree runs both readers over the record files of the check
// golden tests (valid games of every game, mutated and hand-written ones).
func TestReadersAgree(t *testing.T) {
	files, err := filepath.Glob("../cmd/pbem/testdata/check/*.pgn")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	fast, games := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		a, b := sameReaders(t, data)
		fast, games = fast+a, games+b
	}
	require.Greater(t, fast, games/3, "the fast reader reads the ordinary games")
}

// FuzzReaders keeps the fast reader of ordinary records equal to the
// grammar on every input.
func FuzzReaders(f *testing.F) {
	files, _ := filepath.Glob("../cmd/pbem/testdata/check/*.pgn")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 8<<10 {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"[Game \"toy\"]\n[White \"A\"]\n\n1. t1 {c} t2 (1... t1 2. t1) 2. t1 $3 t3 0-1\n",
		"[Game \"toy\"] [Esc \"a\\\"b\"] {x} 1. {y} t1 !? $2 ; z\n (t2 (t3)) t2 *",
		"[Game \"toy\"] 1. 2. t1 *", "[Game \"toy\"] $1 t1 *", "[Game \"toy\"] t1 () *",
		"1. t1 *", "*", "[A \"b\"] *", "[Game \"toy\"] t1 ( t2 *) *",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameReaders(t, data) })
}

// lexStream returns every token of data, lexed from a stream read in blocks of
// block bytes, with the tag-line path on or off.
func lexStream(t *testing.T, data []byte, block int, fast bool) []lexer.Token {
	t.Helper()
	defer func(old bool) { tagFast = old }(tagFast)
	tagFast = fast
	l := newStreamLexer("f", &blockReader{data: data, n: block}, 0)
	var out []lexer.Token
	for {
		tok := l.token()
		out = append(out, tok)
		if tok.Type == tEOF {
			return out
		}
	}
}

// blockReader hands out data n bytes at a time.
type blockReader struct {
	data []byte
	n    int
}

func (r *blockReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data = r.data[k:]
	return k, nil
}

// sameTagLexing: the tag-line path makes the tokens the general path makes,
// whatever the window.
func sameTagLexing(t *testing.T, data []byte) {
	for _, block := range []int{1, 7, 64 << 10} {
		require.Equal(t, lexStream(t, data, block, false), lexStream(t, data, block, true), "blocks of %d bytes", block)
	}
}

// TestTagLineLexing: the tag-line path agrees with the general lexer on the
// golden record files and on tag pairs of every near-plain shape.
func TestTagLineLexing(t *testing.T) {
	files, err := filepath.Glob("../cmd/pbem/testdata/check/*.pgn")
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		sameTagLexing(t, data)
	}
	for _, s := range tagShapes {
		sameTagLexing(t, []byte(s))
	}
}

var tagShapes = []string{
	"[Game \"toy\"]\n[White \"A\"]\n\n1. t1 0-1\n", "[Round_2 \"3\"]", "[R2d \"\"]", "[ Game \"toy\"]",
	"[Game  \"toy\"]", "[Game\t\"toy\"]", "[Game \"to\\\"y\"]", "[Game \"to\ny\"]", "[Game \"toy\" ]",
	"[Game \"toy\"", "[Game \"toy", "[2Game \"x\"]", "[_G \"x\"]", "[Game! \"x\"]", "[G\"x\"]",
	"[Game \"t\roy\"]", "[Game \"\x01\"]", "[\xc3\xa9 \"x\"]", "[Gé \"x\"]", "[]", "[", "[G \"x\"][H \"y\"]",
}

// FuzzTagLineLexing keeps the tag-line path equal to the general lexer.
func FuzzTagLineLexing(f *testing.F) {
	for _, s := range tagShapes {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameTagLexing(t, data) })
}
