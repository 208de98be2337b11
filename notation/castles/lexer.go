package castles

import (
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the ply lexer.
const (
	tSquare lexer.TokenType = iota + 1 // a letter and digits: c4, E3, z99
	tCastle                            // the castle letter C or c (not followed by a digit)
	tSep                               // -, x or X
	tAt                                // @
	tComma                             // ,
	tOther                             // anything else, one rune
)

// plyLexer is a hand-written lexer.Definition for plies, faster than a
// regexp lexer. A letter followed by digits is a square (so c3 is never
// the castle letter, and x1 never the capture sign). Blanks between
// tokens are skipped (a player may write "Ca1-b2, a2-b3"). It never fails:
// an unknown character becomes a tOther token that the grammar reports
// with what it expected.
type plyLexer struct{}

// Symbols names the token types.
func (plyLexer) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Square": tSquare, "Castle": tCastle, "Sep": tSep,
		"At": tAt, "Comma": tComma, "Other": tOther,
	}
}

// Lex reads all of r and lexes it.
func (d plyLexer) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

// LexString lexes s.
func (plyLexer) LexString(filename string, s string) (lexer.Lexer, error) {
	return &plyTokens{s: s, file: filename}, nil
}

type plyTokens struct {
	s    string
	i    int // byte offset of the next token
	file string
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isBlank(c byte) bool  { return c == ' ' || c == '\t' }

// Next returns the next token. Positions are byte offsets; Column is the
// offset plus one (the text of a ply is one line).
func (l *plyTokens) Next() (lexer.Token, error) {
	s := l.s
	for l.i < len(s) && isBlank(s[l.i]) {
		l.i++
	}
	start := l.i
	pos := lexer.Position{Filename: l.file, Offset: start, Line: 1, Column: start + 1}
	if start >= len(s) {
		return lexer.EOFToken(pos), nil
	}
	c, typ, n := s[start], tOther, 1
	switch {
	case isLetter(c) && start+1 < len(s) && isDigit(s[start+1]):
		typ, n = tSquare, 2
		for start+n < len(s) && isDigit(s[start+n]) {
			n++
		}
	case c == 'C' || c == 'c':
		typ = tCastle
	case c == '-' || c == 'x' || c == 'X':
		typ = tSep
	case c == '@':
		typ = tAt
	case c == ',':
		typ = tComma
	case c >= utf8.RuneSelf:
		_, n = utf8.DecodeRuneInString(s[start:])
	}
	l.i += n
	return lexer.Token{Type: typ, Value: s[start : start+n], Pos: pos}, nil
}
