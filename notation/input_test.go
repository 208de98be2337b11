package notation_test

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// utf16Bytes encodes s as UTF-16 in the given byte order, after a
// byte-order mark when bom is set.
func utf16Bytes(s string, order binary.AppendByteOrder, bom bool) []byte {
	var out []byte
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	for _, u := range units {
		out = order.AppendUint16(out, u)
	}
	return out
}

// checkBytes is checkAll for input that is not a Go string literal.
func checkBytes(t *testing.T, data []byte) (problems []string, canon string) {
	t.Helper()
	var b strings.Builder
	notation.CheckFile("f.pgn", data, toyLookup, func(c *notation.Checked) {
		for _, p := range c.Problems {
			problems = append(problems, p.String())
		}
		if c.Valid() {
			b.WriteString(notation.Format(c.Game))
		}
	})
	return problems, b.String()
}

// A record as editors save it: with a byte-order mark, or as UTF-16. Each
// reads as the same UTF-8 text does, with the same lines and columns.
func TestRecordEncodings(t *testing.T) {
	const text = "[Game \"toy\"]\n[White \"Zoë 🙂\"]\n\n1. t1 {ça va} t2 *\n\n[Game \"toy\"] 1. t9 *\n"
	wantProblems, wantCanon := checkBytes(t, []byte(text))
	require.Equal(t, []string{`f.pgn:6:17: game 2, ply 1 "t9": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`}, wantProblems)
	require.Contains(t, wantCanon, "Zoë 🙂")
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"UTF-8 with a byte-order mark", append([]byte("\xef\xbb\xbf"), text...)},
		{"UTF-16LE with a byte-order mark", utf16Bytes(text, binary.LittleEndian, true)},
		{"UTF-16BE with a byte-order mark", utf16Bytes(text, binary.BigEndian, true)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			problems, canon := checkBytes(t, tt.data)
			assert.Equal(t, wantProblems, problems)
			assert.Equal(t, wantCanon, canon)
		})
	}
}

// UTF-16 without a byte-order mark gets one line that says so, not a
// problem for every NUL byte.
func TestUTF16WithoutByteOrderMark(t *testing.T) {
	const text = "[Game \"toy\"]\n\n1. t1 t2 *\n\n[Game \"toy\"] 1. t1 *\n"
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		problems, canon := checkBytes(t, utf16Bytes(text, order, false))
		assert.Equal(t, []string{`f.pgn:1:1: game 1, ply 0 "": the file looks like UTF-16 without a byte-order mark; expected UTF-8 (or UTF-16 that starts with a byte-order mark)`}, problems)
		assert.Empty(t, canon)
	}
}

func TestRecordsAsPeopleWriteThem(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"prose without tags", "Dear Bob,\nhere is the game we played.\n",
			[]string{`f.pgn:1:1: game 1, ply 0 "Dear": no [Game] tag: is this a game record?`}},
		{"prose with symbols", "It cost $ 5 (or so",
			[]string{`f.pgn:1:1: game 1, ply 0 "It": no [Game] tag: is this a game record?`}},
		{"prose before a record; the record is still checked", "Hi,\nmy game:\n\n[Game \"toy\"] t1 t9 *\n",
			[]string{
				`f.pgn:1:1: game 1, ply 0 "Hi,": no [Game] tag: is this a game record?`,
				`f.pgn:4:17: game 2, ply 2 "t9": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`,
			}},
		{"missing ] before the next tag", "[Game \"toy\"\n[Event \"x\"]\n\n1. t1 *\n",
			[]string{`f.pgn:1:12: game 1, ply 0 "\"toy\"": missing "]" to close the [Game] tag; expected "]" after its value, on the same line`}},
		{"missing ] before the movetext", "[Game \"toy\"]\n[Event \"Club night\"\n\n1. t1 *\n",
			[]string{`f.pgn:2:20: game 1, ply 0 "\"Club night\"": missing "]" to close the [Event] tag; expected "]" after its value, on the same line`}},
		{"missing ] on a line of tags", "[Game \"toy\"] [Event \"x\" [Site \"y\"]\n1. t1 *\n",
			[]string{`f.pgn:1:24: game 1, ply 0 "\"x\"": missing "]" to close the [Event] tag; expected "]" after its value, on the same line`}},
		{"missing ] at the end of the file", "[Game \"toy\"",
			[]string{`f.pgn:1:12: game 1, ply 0 "\"toy\"": missing "]" to close the [Game] tag; expected "]" after its value, on the same line`}},
		{"something else before ]", "[Game \"toy\" x] t1 *",
			[]string{`f.pgn:1:13: game 1, ply 0 "x": unexpected "x"; expected "]" to close the tag`}},
		{"tag given twice", "[Game \"toy\"]\n[Event \"a\"]\n[Site \"s\"]\n[Event \"b\"]\n\n1. t1 t9 *\n",
			[]string{
				`f.pgn:4:1: game 1, ply 0 "Event": tag [Event] given twice, on lines 2 and 4; expected each tag once`,
				`f.pgn:6:7: game 1, ply 2 "t9": illegal: take 1, 2 or 3 stones; did you mean t1, t2, t3 or p? (more than one legal ply fits the rest of the game; none is chosen)`,
			}},
		{"tag given twice on one line", "[Game \"toy\"] [Game \"toy\"] t1 *",
			[]string{`f.pgn:1:14: game 1, ply 0 "Game": tag [Game] given twice, on line 1; expected each tag once`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := checkAll(t, tt.in)
			assert.Equal(t, tt.want, got)
		})
	}
}
