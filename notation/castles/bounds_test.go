package castles

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"

	"pbem/engine"
	"pbem/notation"
)

// hugePly is a 1 MB ply, far beyond notation.MaxPly, made of valid-looking
// actions so that a grammar would have to read all of it.
var hugePly = "Ca1-b2" + strings.Repeat(",a2xb3", (1<<20)/len(",a2xb3"))

func startState(t testing.TB) engine.State {
	s, err := New().Rules().Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A ply longer than notation.MaxPly is refused before it is read, with an
// error that names the bound; one of MaxPly bytes is read as usual.
func TestPlyLengthBound(t *testing.T) {
	s := startState(t)
	for _, text := range []string{hugePly, strings.Repeat(",a2xb3", notation.MaxPly)[:notation.MaxPly+1]} {
		_, err := New().Decode(s, text)
		var se *notation.SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Decode(%d bytes) = %v, want a *notation.SyntaxError", len(text), err)
		}
		want := fmt.Sprintf("ply of %d bytes is too long; expected at most %d bytes", len(text), notation.MaxPly)
		if se.Msg != want || se.Offset != 0 {
			t.Errorf("Decode(%d bytes) = {%d, %q}, want {0, %q}", len(text), se.Offset, se.Msg, want)
		}
	}
	text := "Ca1-b2" + strings.Repeat(",a2xb3", notation.MaxPly)
	text = text[:notation.MaxPly]
	if _, err := New().Decode(s, text); err == nil || strings.Contains(err.Error(), "too long") {
		t.Errorf("Decode(%d bytes) = %v, want the error of its text", len(text), err)
	}
}

// lexAll lexes text to its end.
func lexAll(t testing.TB, text string) []lexer.Token {
	l, err := plyLexer{}.LexString("", text)
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

// The ply lexer keeps byte offsets and columns right on a long text of
// multi-byte runes (its columns count bytes: the codec's errors count runes
// once, for the one token they name).
func TestLexerColumns(t *testing.T) {
	text := strings.Repeat("é-x", 1<<13)
	toks := lexAll(t, text)
	if len(toks) < 2 {
		t.Fatalf("%d tokens", len(toks))
	}
	off, col := 0, 1
	for i, tok := range toks {
		off, col = tok.Pos.Offset, tok.Pos.Offset+1
		if tok.Pos.Column != col {
			t.Fatalf("token %d %q at offset %d: column %d, want %d", i, tok.Value, off, tok.Pos.Column, col)
		}
	}
}

// BenchmarkDecodeHugePly decodes a 1 MB ply (refused at notation.MaxPly).
func BenchmarkDecodeHugePly(b *testing.B) {
	s, c := startState(b), New()
	b.SetBytes(int64(len(hugePly)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(s, hugePly); err == nil {
			b.Fatal("a 1 MB ply was read")
		}
	}
}

// BenchmarkLexHugePly lexes a 1 MB ply to its end: the lexer alone is
// linear, whatever bound its callers keep.
func BenchmarkLexHugePly(b *testing.B) {
	b.SetBytes(int64(len(hugePly)))
	b.ReportAllocs()
	lex := plyLexer{}
	for b.Loop() {
		l, err := lex.LexString("", hugePly)
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
