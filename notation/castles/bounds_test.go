package castles

import (
	"strings"
	"testing"

	"pbem/engine"
	"pbem/notation/notationtest"
)

// longPly is how a long ply of castles is made: a valid head and a piece
// that may repeat.
var longPly = notationtest.Ply{Head: "Ca1-b2", Unit: ",a2xb3"}

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
	notationtest.PlyLengthBound(t, New(), startState(t), longPly)
}

// The ply lexer keeps byte offsets and columns right on a long text of
// multi-byte runes (its columns count bytes: the codec's errors count runes
// once, for the one token they name).
func TestLexerColumns(t *testing.T) {
	notationtest.LexerPositions(t, plyLexer{}, strings.Repeat("é-x", 1<<13), notationtest.ByteColumns)
}

// BenchmarkDecodeHugePly decodes a 1 MB ply (refused at notation.MaxPly).
func BenchmarkDecodeHugePly(b *testing.B) {
	notationtest.BenchmarkDecodeHuge(b, New(), startState(b), longPly)
}

// BenchmarkLexHugePly lexes a 1 MB ply to its end: the lexer alone is
// linear, whatever bound its callers keep.
func BenchmarkLexHugePly(b *testing.B) {
	notationtest.BenchmarkLexHuge(b, plyLexer{}, longPly)
}
