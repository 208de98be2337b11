package notation

import (
	"strings"
	"unicode/utf8"
)

// Typography: what word processors and phones write for the characters of
// the notation. Records typed from paper score sheets have them; the
// readers take each for what it stands for, and the writer writes the
// canonical character.
//
//   - dashes (hyphen U+2010, non-breaking hyphen U+2011, figure dash
//     U+2012, en dash U+2013, em dash U+2014, horizontal bar U+2015, minus
//     sign U+2212, small and full-width hyphen-minus U+FE63, U+FF0D) are "-";
//   - the multiplication sign × (U+00D7) is "x";
//   - curly double quotes “ ” „ ‟ (U+201C to U+201F) around a tag value
//     are '"';
//   - no-break spaces (U+00A0, U+202F, U+2007), the typographic spaces
//     U+2002 to U+200A and the full-width space U+3000 are blanks.
//
// Dashes and × are read so in plies and results, not in comments or tag
// values (which are text); curly quotes only where a tag value opens or
// closes.

// wideSpace returns the length of the typographic space s starts with, or 0.
func wideSpace(s string) int {
	switch {
	case len(s) >= 2 && s[0] == 0xc2 && s[1] == 0xa0: // U+00A0
		return 2
	case len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] >= 0x82 && s[2] <= 0x8a || s[2] == 0xaf): // U+2002-U+200A, U+202F
		return 3
	case len(s) >= 3 && s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80: // U+3000
		return 3
	}
	return 0
}

// curlyQuote reports whether s starts with a curly double quote.
func curlyQuote(s string) bool {
	return len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0x9c && s[2] <= 0x9f
}

// foldRune returns the ASCII character r stands for in a ply, or 0.
func foldRune(r rune) byte {
	switch r {
	case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xfe63, 0xff0d:
		return '-'
	case 0xd7:
		return 'x'
	}
	return 0
}

// fold returns w with its typographic dashes and × read as "-" and "x",
// and how many it read so (0: w is returned as is).
func fold(w string) (string, int) {
	k := 0
	for _, r := range w {
		if foldRune(r) != 0 {
			k++
		}
	}
	if k == 0 {
		return w, 0
	}
	var b strings.Builder
	b.Grow(len(w))
	for _, r := range w {
		if c := foldRune(r); c != 0 {
			b.WriteByte(c)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String(), k
}

// Typographic reads a ply as a player may have typed it in a word
// processor: typographic dashes and × as "-" and "x", typographic spaces
// as blanks. It returns the ply and how many characters it read so (the
// referee reads moves by mail through it, as the record reader does).
func Typographic(text string) (string, int) {
	ascii := true
	for i := 0; i < len(text) && ascii; i++ {
		ascii = text[i] < utf8.RuneSelf
	}
	if ascii {
		return text, 0
	}
	f, k := fold(text)
	var b strings.Builder
	for i := 0; i < len(f); {
		if n := wideSpace(f[i:]); n > 0 {
			b.WriteByte(' ')
			i += n
			k++
			continue
		}
		b.WriteByte(f[i])
		i++
	}
	return b.String(), k
}
