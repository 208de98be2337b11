// Package notationtest holds the checks every game's notation must pass on
// hostile input, shared so that each game states only what is its own: a
// ply longer than notation.MaxPly is refused before it is read, and the
// ply lexer is linear and keeps positions right on long texts.
package notationtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"pbem/engine"
	"pbem/notation"
)

// Ply describes a game's long plies: Head is a valid start of a ply and
// Unit a piece of it that may repeat ("Qa1-d4" and "-d4").
type Ply struct {
	Head, Unit string
}

// Huge is a 1 MB ply made of valid-looking pieces, so that a grammar would
// have to read all of it.
func (p Ply) Huge() string {
	return p.Head + strings.Repeat(p.Unit, (1<<20)/len(p.Unit))
}

// PlyLengthBound checks that Decode refuses a ply longer than
// notation.MaxPly before reading it, with an error at offset 0 that names
// the bound, and reads one of MaxPly bytes as usual.
func PlyLengthBound(t *testing.T, c notation.Codec, s engine.State, p Ply) {
	t.Helper()
	for _, text := range []string{p.Huge(), strings.Repeat(p.Unit, notation.MaxPly)[:notation.MaxPly+1]} {
		_, err := c.Decode(s, text)
		var se *notation.SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Decode(%d bytes) = %v, want a *notation.SyntaxError", len(text), err)
		}
		want := fmt.Sprintf("ply of %d bytes is too long; expected at most %d bytes", len(text), notation.MaxPly)
		if se.Msg != want || se.Offset != 0 {
			t.Errorf("Decode(%d bytes) = {%d, %q}, want {0, %q}", len(text), se.Offset, se.Msg, want)
		}
	}
	text := (p.Head + strings.Repeat(p.Unit, notation.MaxPly))[:notation.MaxPly]
	if _, err := c.Decode(s, text); err == nil || strings.Contains(err.Error(), "too long") {
		t.Errorf("Decode(%d bytes) = %v, want the error of its text", len(text), err)
	}
}

// Columns says how a ply lexer counts columns: in runes (the text's
// characters) or in bytes.
type Columns int

const (
	RuneColumns Columns = iota
	ByteColumns
)

// LexerPositions lexes a long text of multi-byte runes to its end and
// checks every token's offset and column.
func LexerPositions(t *testing.T, def lexer.StringDefinition, text string, cols Columns) {
	t.Helper()
	toks := lexAll(t, def, text)
	if len(toks) < 2 {
		t.Fatalf("%d tokens", len(toks))
	}
	off, col := 0, 1
	for i, tok := range toks {
		if cols == ByteColumns {
			off, col = tok.Pos.Offset, tok.Pos.Offset+1
		} else {
			col += utf8.RuneCountInString(text[off:tok.Pos.Offset])
			off = tok.Pos.Offset
		}
		if tok.Pos.Column != col {
			t.Fatalf("token %d %q at offset %d: column %d, want %d", i, tok.Value, off, tok.Pos.Column, col)
		}
	}
}

func lexAll(t testing.TB, def lexer.StringDefinition, text string) []lexer.Token {
	l, err := def.LexString("", text)
	if err != nil {
		t.Fatal(err)
	}
	var toks []lexer.Token
	for {
		tok, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		if tok.EOF() {
			return toks
		}
		toks = append(toks, tok)
	}
}

// BenchmarkDecodeHuge decodes a 1 MB ply, which must be refused at
// notation.MaxPly.
func BenchmarkDecodeHuge(b *testing.B, c notation.Codec, s engine.State, p Ply) {
	huge := p.Huge()
	b.SetBytes(int64(len(huge)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(s, huge); err == nil {
			b.Fatal("a 1 MB ply was read")
		}
	}
}

// BenchmarkLexHuge lexes a 1 MB ply to its end: the lexer alone is
// linear, whatever bound its callers keep.
func BenchmarkLexHuge(b *testing.B, def lexer.StringDefinition, p Ply) {
	huge := p.Huge()
	b.SetBytes(int64(len(huge)))
	b.ReportAllocs()
	for b.Loop() {
		l, err := def.LexString("", huge)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if tok, _ := l.Next(); tok.EOF() {
				break
			}
		}
	}
}
