package notation

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeText reads a record file as people save it: UTF-8, with or without
// a byte-order mark, or UTF-16 with one (decoded to UTF-8). It returns the
// text, the offset at which reading starts (after a UTF-8 byte-order mark),
// or a problem for a file that looks like UTF-16 without a byte-order mark.
func decodeText(file string, data []byte) ([]byte, int, *Problem) {
	switch {
	case len(data) >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf:
		return data, 3, nil
	case len(data) >= 2 && data[0] == 0xff && data[1] == 0xfe:
		return decodeUTF16(data[2:], binary.LittleEndian), 0, nil
	case len(data) >= 2 && data[0] == 0xfe && data[1] == 0xff:
		return decodeUTF16(data[2:], binary.BigEndian), 0, nil
	case looksUTF16(data):
		return nil, 0, &Problem{File: file, Game: 1, Line: 1, Col: 1,
			Msg: "the file looks like UTF-16 without a byte-order mark; expected UTF-8 (or UTF-16 that starts with a byte-order mark)"}
	}
	return data, 0, nil
}

// decodeUTF16 turns UTF-16 into UTF-8; a lone surrogate or a trailing odd
// byte becomes U+FFFD.
func decodeUTF16(data []byte, order binary.ByteOrder) []byte {
	out := make([]byte, 0, len(data)/2+len(data)/8)
	for i := 0; i < len(data); i += 2 {
		if i+1 >= len(data) {
			out = utf8.AppendRune(out, utf8.RuneError)
			break
		}
		r := rune(order.Uint16(data[i:]))
		if utf16.IsSurrogate(r) {
			r2 := utf8.RuneError
			if i+3 < len(data) {
				r2 = rune(order.Uint16(data[i+2:]))
			}
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				out = utf8.AppendRune(out, d)
				i += 2
				continue
			}
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

// looksUTF16 reports text whose first bytes have a NUL in every other byte
// for at least half the pairs (as UTF-16 text of ASCII has), which UTF-8
// text of a record never has.
func looksUTF16(data []byte) bool {
	head := data[:min(len(data), 1024)]
	pairs := len(head) / 2
	if pairs < 2 {
		return false
	}
	var even, odd int
	for i := 0; i+1 < len(head); i += 2 {
		if head[i] == 0 {
			even++
		}
		if head[i+1] == 0 {
			odd++
		}
	}
	return 2*max(even, odd) >= pairs
}
