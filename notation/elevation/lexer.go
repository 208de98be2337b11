package elevation

import (
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the ply lexer.
const (
	tokPiece   lexer.TokenType = -(iota + 2) // S F D before a square
	tokSquare                                // a letter and digits: a1, g7, a10
	tokCapture                               // x before a square
	tokPunct                                 // : , > -
	tokInvalid                               // anything else
)

// plyLexer is the hand-written lexer.Definition of the ply grammar. A letter
// followed by digits is a square; otherwise S, F or D is a piece letter and
// x the capture mark (either case). Blanks separate tokens and are dropped.
// Characters that fit no token become Invalid tokens, so that the parser
// reports them with what it expected.
type plyLexer struct{}

// Symbols names the token types. (A function, not a package variable: the
// parser is built during package initialisation.)
func (plyLexer) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF":     lexer.EOF,
		"Piece":   tokPiece,
		"Square":  tokSquare,
		"Capture": tokCapture,
		"Punct":   tokPunct,
		"Invalid": tokInvalid,
	}
}

func (d plyLexer) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (plyLexer) LexString(filename, s string) (lexer.Lexer, error) {
	return &plyScanner{s: s, filename: filename}, nil
}

type plyScanner struct {
	s        string
	filename string
	i        int // byte offset
	col      int // runes before i
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (l *plyScanner) Next() (lexer.Token, error) {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
		l.col++
	}
	pos := lexer.Position{Filename: l.filename, Offset: l.i, Line: 1, Column: l.col + 1}
	if l.i >= len(l.s) {
		return lexer.EOFToken(pos), nil
	}
	s, i := l.s, l.i
	c := s[i]
	typ, n := tokInvalid, 1
	switch {
	case isLetter(c) && i+1 < len(s) && isDigit(s[i+1]):
		typ = tokSquare
		for n = 2; i+n < len(s) && isDigit(s[i+n]); n++ {
		}
	case c|0x20 == 's' || c|0x20 == 'f' || c|0x20 == 'd':
		typ = tokPiece
	case c|0x20 == 'x':
		typ = tokCapture
	case c == ':' || c == ',' || c == '>' || c == '-':
		typ = tokPunct
	case isLetter(c) || isDigit(c):
		// A word that is no token: report it whole.
		for ; i+n < len(s) && (isLetter(s[i+n]) || isDigit(s[i+n])); n++ {
		}
	case c >= utf8.RuneSelf:
		_, n = utf8.DecodeRuneInString(s[i:])
	}
	l.i += n
	l.col += utf8.RuneCountInString(s[i : i+n])
	return lexer.Token{Type: typ, Value: s[i : i+n], Pos: pos}, nil
}
