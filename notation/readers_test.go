package notation

import (
	"os"
	"path/filepath"
	"testing"

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
