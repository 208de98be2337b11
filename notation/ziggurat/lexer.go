package ziggurat

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the ply lexer.
const (
	tPass   lexer.TokenType = iota + 1 // pass, any case
	tOff                               // off, any case
	tSquare                            // a letter and digits: c4, J9, a10
	tPiece                             // one piece letter: Q D W T K, any case
	tX                                 // x or X, the capture mark
	tDash                              // -
	tAt                                // @
	tOther                             // anything else: a word, digits, one rune
)

// plyLexer is a hand-written lexer.Definition for plies: faster than a
// regexp lexer, and it never fails (unknown text becomes tOther tokens,
// which the grammar then reports with what it expected). Spaces and tabs
// between tokens are skipped.
type plyLexer struct{}

// Symbols names the token types (built on each call, as the parser is built
// during package initialisation).
func (plyLexer) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Pass": tPass, "Off": tOff, "Square": tSquare,
		"Piece": tPiece, "X": tX, "Dash": tDash, "At": tAt, "Other": tOther,
	}
}

func (d plyLexer) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (plyLexer) LexString(filename string, s string) (lexer.Lexer, error) {
	return &plyTokens{s: s, file: filename}, nil
}

type plyTokens struct {
	s    string
	i    int
	col  int // runes before s[i]
	file string
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// Next implements lexer.Lexer.
func (l *plyTokens) Next() (lexer.Token, error) {
	s := l.s
	for l.i < len(s) && (s[l.i] == ' ' || s[l.i] == '\t') {
		l.i++
		l.col++
	}
	start := l.i
	pos := lexer.Position{Filename: l.file, Offset: start, Line: 1, Column: l.col + 1}
	if start >= len(s) {
		return lexer.Token{Type: lexer.EOF, Pos: pos}, nil
	}
	typ := tOther
	c := s[start]
	end := start + 1
	switch {
	case isLetter(c) && end < len(s) && isDigit(s[end]):
		for end < len(s) && isDigit(s[end]) {
			end++
		}
		typ = tSquare
	case isLetter(c):
		// A word runs to the last letter before a square: "Qa1" is Q then
		// a1, "xb6" is x then b6, "pass" is a keyword.
		for end < len(s) && isLetter(s[end]) && !(end+1 < len(s) && isDigit(s[end+1])) {
			end++
		}
		// A piece letter or x stands alone ("Qxd4", "xoff"); any other
		// word is one token.
		switch w := s[start:end]; {
		case strings.EqualFold(w, "pass"):
			typ = tPass
		case strings.EqualFold(w, "off"):
			typ = tOff
		case strings.IndexByte("qdwtkQDWTK", c) >= 0:
			typ, end = tPiece, start+1
		case c == 'x' || c == 'X':
			typ, end = tX, start+1
		}
	case c == '-':
		typ = tDash
	case c == '@':
		typ = tAt
	case isDigit(c):
		for end < len(s) && isDigit(s[end]) {
			end++
		}
	default:
		_, n := utf8.DecodeRuneInString(s[start:])
		end = start + n
	}
	l.i = end
	l.col += utf8.RuneCountInString(s[start:end])
	return lexer.Token{Type: typ, Value: s[start:end], Pos: pos}, nil
}
