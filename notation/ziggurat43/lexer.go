package ziggurat43

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the ply lexer.
const (
	tSquare lexer.TokenType = iota + 1 // a letter and digits: c4, E3, z99
	tPiece                             // one piece letter, either case: K H A C S
	tOp                                // -, x, X or ^
	tOther                             // anything else, one rune (spaces too)
)

// plyLexer is a hand-written lexer.Definition for plies, several times
// faster than a regexp lexer. A letter followed by digits is a square (so
// c3 is never the Chariot letter); it never fails: an unknown character
// becomes a tOther token, which the grammar reports with what it expected.
type plyLexer struct{}

// Symbols names the token types (built on each call: the parser is built
// during package initialisation).
func (plyLexer) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Square": tSquare, "Piece": tPiece, "Op": tOp, "Other": tOther,
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
	return &plyTokens{s: s, col: 1, file: filename}, nil
}

// maxTokens is the most tokens a ply has; the lexer returns whatever
// follows them as one tOther token, so that a long text costs no more than
// a short one (the parser reads every token before it starts).
const maxTokens = 4

type plyTokens struct {
	s    string
	n    int // tokens returned
	i    int // byte offset of the next token
	col  int // its column, counted in runes from 1
	file string
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (l *plyTokens) Next() (lexer.Token, error) {
	s, start := l.s, l.i
	pos := lexer.Position{Filename: l.file, Offset: start, Line: 1, Column: l.col}
	if start >= len(s) {
		return lexer.EOFToken(pos), nil
	}
	c, typ, n := s[start], tOther, 1
	l.n++
	switch {
	case l.n > maxTokens:
		n = len(s) - start
	case isLetter(c) && start+1 < len(s) && isDigit(s[start+1]):
		typ, n = tSquare, 2
		for start+n < len(s) && isDigit(s[start+n]) {
			n++
		}
	case strings.IndexByte("KHACSkhacs", c) >= 0:
		typ = tPiece
	case c == '-' || c == 'x' || c == 'X' || c == '^':
		typ = tOp
	case c >= utf8.RuneSelf:
		_, n = utf8.DecodeRuneInString(s[start:])
	}
	l.i += n
	l.col++ // every token but a square is one rune; a square is ASCII
	if typ == tSquare {
		l.col += n - 1
	}
	return lexer.Token{Type: typ, Value: s[start : start+n], Pos: pos}, nil
}
