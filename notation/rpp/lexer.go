package rpp

import (
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the ply lexer.
const (
	tLabel  lexer.TokenType = iota + 1 // a seat label with its colon: R:
	tPass                              // pass, any case
	tSquare                            // a letter and digits: c4, S19
	tLetter                            // one letter: a piece letter, or x
	tPunct                             // - or *
	tOther                             // anything else, one rune
)

// plyLexer is a hand-written lexer.Definition for plies: faster than a
// regexp lexer, and it never fails (unknown characters become tOther
// tokens, which the grammar then reports with what it expected).
type plyLexer struct {
	symbols map[string]lexer.TokenType
}

func newPlyLexer() *plyLexer {
	return &plyLexer{symbols: map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Label": tLabel, "Pass": tPass, "Square": tSquare,
		"Letter": tLetter, "Punct": tPunct, "Other": tOther,
	}}
}

// Symbols names the token types.
func (d *plyLexer) Symbols() map[string]lexer.TokenType { return d.symbols }

func (d *plyLexer) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (*plyLexer) LexString(filename string, s string) (lexer.Lexer, error) {
	return &plyTokens{s: s, file: filename}, nil
}

type plyTokens struct {
	s    string
	i    int
	col  int // runes before s[i], kept as the lexer goes (linear time)
	file string
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (l *plyTokens) Next() (lexer.Token, error) {
	s := l.s
	for l.i < len(s) && (s[l.i] == ' ' || s[l.i] == '\t') {
		l.i++
		l.col++
	}
	start := l.i
	pos := lexer.Position{Filename: l.file, Offset: start, Line: 1, Column: l.col + 1}
	if start >= len(s) {
		return lexer.EOFToken(pos), nil
	}
	c, typ, n := s[start], tOther, 1
	switch {
	case isLetter(c) && start+1 < len(s) && s[start+1] == ':':
		typ, n = tLabel, 2
	case len(s)-start >= 4 && s[start]|0x20 == 'p' && s[start+1]|0x20 == 'a' && s[start+2]|0x20 == 's' && s[start+3]|0x20 == 's':
		typ, n = tPass, 4
	case isLetter(c) && start+1 < len(s) && isDigit(s[start+1]):
		typ, n = tSquare, 2
		for start+n < len(s) && isDigit(s[start+n]) {
			n++
		}
	case isLetter(c):
		typ = tLetter
	case c == '-' || c == '*':
		typ = tPunct
	case c >= utf8.RuneSelf:
		_, n = utf8.DecodeRuneInString(s[start:])
	}
	l.i += n
	l.col++ // every token but a label or a square is one rune; those are ASCII
	if typ == tLabel || typ == tSquare || typ == tPass {
		l.col += n - 1
	}
	return lexer.Token{Type: typ, Value: s[start : start+n], Pos: pos}, nil
}
